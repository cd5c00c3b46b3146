// The MemoryPort the agents share (forge.memory.enabled / forge.reflection.enabled are read on every call, so
// toggling them needs no reload).
import * as path from 'node:path';
import * as vscode from 'vscode';
import { openForgeMemory, WORKSPACE_MEMORY_FILE, type ForgeMemory } from '../../core/memory';
import type { MemoryItem, MemoryPort, RecallResult, ReflectionInput } from '../../core/memory/port';
import type { Logger } from '../logger';
import { NodeMemoryFileIO } from '../../node/memory-file-io';
import { NodeWorkspaceFs } from '../../node/node-fs';
import { readSettings } from '../settings';
import type { SwitchableModel } from './model-factory';
import { errorText } from '../../core/error-text';

/** Long-term memory of the first workspace folder, behind a port that honours the settings live. */
export class MemoryService implements MemoryPort {
  private memory: ForgeMemory | undefined;

  private constructor(readonly workspaceFile: string | undefined) {}

  static async open(context: vscode.ExtensionContext, model: SwitchableModel, log: Logger): Promise<MemoryService> {
    const root = vscode.workspace.workspaceFolders?.find((f) => f.uri.scheme === 'file')?.uri.fsPath;
    const service = new MemoryService(root ? path.join(root, WORKSPACE_MEMORY_FILE) : undefined);
    if (!root) return service;
    try {
      service.memory = await openForgeMemory({
        workspaceRoot: root,
        workspaceFs: new NodeWorkspaceFs([root]),
        io: new NodeMemoryFileIO(),
        globalFile: path.join(context.globalStorageUri.fsPath, 'memory-global.jsonl'),
        reflection: { budgetUsd: readSettings().reflection.budgetUsd, price: (u) => model.price(u) },
        log: (m) => log.debug(m),
      });
    } catch (err) {
      log.warn(`Memory is off: could not open ${service.workspaceFile}: ${errorText(err)}`);
    }
    return service;
  }

  get available(): boolean {
    return this.memory !== undefined;
  }

  recall(task: string, tokenBudget: number): Promise<RecallResult> {
    if (!this.memory || !readSettings().memoryEnabled) return Promise.resolve({ items: [], promptText: '' });
    return this.memory.recall(task, tokenBudget);
  }

  reflect(input: ReflectionInput): Promise<MemoryItem[]> {
    const s = readSettings();
    if (!this.memory || !s.memoryEnabled || !s.reflection.enabled) return Promise.resolve([]);
    return this.memory.reflect(input);
  }

  async list(): Promise<MemoryItem[]> {
    return this.memory ? this.memory.list() : [];
  }

  async forget(id: string): Promise<boolean> {
    return this.memory ? this.memory.forget(id) : false;
  }
}

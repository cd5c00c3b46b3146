// Settings -> AgentConfig, and the MemoryPort the agents share (forge.memory.enabled / forge.reflection.enabled
// are read on every call, so toggling them needs no reload).
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { AgentConfig } from '../../core/loop/config';
import { memoryBudget, openForgeMemory, WORKSPACE_MEMORY_FILE, type ForgeMemory } from '../../core/memory';
import type { MemoryItem, MemoryPort, RecallResult, ReflectionInput } from '../../core/memory/port';
import type { Logger } from '../logger';
import { NodeWorkspaceFs } from '../../node/node-fs';
import { readSettings, type AutoApproveSettings, type ForgeSettings } from '../settings';
import type { StandingApprovals } from '../../core/safety/policy';
import type { SwitchableModel } from './model-factory';

export function agentConfigFrom(s: ForgeSettings, model: SwitchableModel): Partial<AgentConfig> {
  const window = model.info.contextWindow;
  return {
    mode: s.mode,
    ...(s.maxIterations !== undefined ? { maxIterations: s.maxIterations } : {}),
    ...(s.costBudgetUsd > 0 ? { maxCostUsd: s.costBudgetUsd } : {}),
    ...(s.timeBudgetMinutes > 0 ? { maxWallTimeMs: s.timeBudgetMinutes * 60_000 } : {}),
    ...(s.tokenBudget > 0 ? { maxTokens: s.tokenBudget } : {}),
    streamIdleTimeoutMs: s.streamIdleTimeoutSeconds * 1000,
    // Asked when the model keeps failing: the fallback resolved with the current model (settings changes apply).
    fallbackModel: () => model.fallback,
    price: (usage, info) => model.price(usage, info),
    // The memory share of the prompt budget (60/30/10 split of what the output reservation leaves).
    memoryTokenBudget: memoryBudget(window, Math.min(s.maxOutputTokens, window / 2)).memory,
    maxOutputTokens: s.maxOutputTokens,
    ...(s.temperature !== undefined ? { temperature: s.temperature } : {}),
    ...(s.thinkingBudgetTokens > 0 ? { thinkingBudgetTokens: s.thinkingBudgetTokens } : {}),
    environment: describeEnvironment,
    // forge.autoApprove, read on every call so a change applies at once; decided in core's Policy like the CLI's flags.
    policy: { standing: () => standingApprovals(readSettings().autoApprove) },
  };
}

/** forge.autoApprove as standing approvals: each enabled risk class, named by its setting. */
export function standingApprovals(a: Pick<AutoApproveSettings, 'write' | 'execute' | 'network'>): StandingApprovals {
  const out: StandingApprovals = {};
  if (a.write) out.write = 'forge.autoApprove.write';
  if (a.execute) out.execute = 'forge.autoApprove.execute';
  if (a.network) out.network = 'forge.autoApprove.network';
  return out;
}

/** Host facts for the prompt's dynamic environment layer. */
export function describeEnvironment(): string {
  const folders = (vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.fsPath);
  const editor = vscode.window.activeTextEditor;
  const lines = [
    `Workspace folders: ${folders.length ? folders.join(', ') : '(none)'}`,
    `OS: ${os.platform()} ${os.release()}; shell: ${vscode.env.shell || 'default'}`,
    `Workspace trusted: ${vscode.workspace.isTrusted ? 'yes' : 'no (no edits, no commands)'}`,
  ];
  if (editor?.document.uri.scheme === 'file') {
    const rel = vscode.workspace.asRelativePath(editor.document.uri, false);
    lines.push(`Active file: ${rel} (line ${editor.selection.active.line + 1})`);
  }
  return lines.join('\n');
}

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
        globalFile: path.join(context.globalStorageUri.fsPath, 'memory-global.jsonl'),
        reflection: { budgetUsd: readSettings().reflection.budgetUsd, price: (u) => model.price(u) },
        log: (m) => log.debug(m),
      });
    } catch (err) {
      log.warn(`Memory is off: could not open ${service.workspaceFile}: ${err instanceof Error ? err.message : String(err)}`);
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

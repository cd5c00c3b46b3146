// The palette's memory commands: open this workspace's learnings, forget one.
import * as vscode from 'vscode';
import type { CommandHandlers } from './commands';
import type { MemoryService } from '../wiring/memory-service';
import { pickMemoryToForget } from './pickers';

export class MemoryActions {
  constructor(private readonly memory: () => MemoryService) {}

  async show(): Promise<void> {
    const file = this.memory().workspaceFile;
    if (!file) {
      void vscode.window.showInformationMessage('Forge keeps learnings per workspace: open a folder first.');
      return;
    }
    try {
      await vscode.window.showTextDocument(vscode.Uri.file(file));
    } catch {
      void vscode.window.showInformationMessage(
        `Forge has not learned anything in this workspace yet (${vscode.workspace.asRelativePath(file, false)} does not exist).`,
      );
    }
  }

  /** Forgets `learningId`, or the one the user picks; true when it was forgotten. */
  async forget(learningId?: string): Promise<boolean> {
    const id = learningId ?? (await pickMemoryToForget(this.memory()));
    if (!id) return false;
    const ok = await this.memory().forget(id);
    void vscode.window.showInformationMessage(
      ok ? 'Forge forgot that learning.' : 'Forge: that learning no longer exists.',
    );
    return ok;
  }
}

export const memoryCommands = (memory: MemoryActions) =>
  ({
    'forge.showMemory': () => memory.show(),
    'forge.forget': (id?: unknown) => memory.forget(typeof id === 'string' ? id : undefined),
  }) satisfies Partial<CommandHandlers>;

// Background tasks in their own git worktrees (forge.parallel.*), sharing the model and the memory.
import * as path from 'node:path';
import type * as vscode from 'vscode';
import type { MemoryService } from './memory-service';
import type { SwitchableModel } from './model-factory';
import { ParallelTasksUi } from '../ui/parallel-tasks-ui';
import type { Logger } from '../logger';

interface ParallelWiringDeps {
  context: vscode.ExtensionContext;
  model: SwitchableModel;
  /** Still opening at activation: the first recall or reflection waits for it. */
  memory: Promise<MemoryService>;
  log: Logger;
  storageDir: string;
}

export function createParallelTasks({ context, model, memory, log, storageDir }: ParallelWiringDeps): ParallelTasksUi {
  const parallel = new ParallelTasksUi({
    model,
    memory: { recall: async (t, b) => (await memory).recall(t, b), reflect: async (i) => (await memory).reflect(i) },
    log,
    // Worktrees live in global storage, outside the user's folders.
    worktreeDir: path.join(storageDir, 'worktrees'),
  });
  context.subscriptions.push(parallel);
  return parallel;
}

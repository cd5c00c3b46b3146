// The palette commands of recovery and the audit trail: restore a checkpoint (and redo it), show the audit log,
// show the run report. They wait for activation's background work (like every other command) and never throw into VS Code.
import * as vscode from 'vscode';
import type { Recovery, RestoreArgs } from './controller/recovery';
import type { Logger } from './logger';

export const RECOVERY_COMMAND_IDS = ['forge.restoreCheckpoint', 'forge.redoRestore', 'forge.showAuditLog', 'forge.showRunReport'] as const;

export function registerRecoveryCommands(recovery: () => Promise<Recovery>, log: Logger): vscode.Disposable {
  const guard = <A extends unknown[]>(id: string, fn: (r: Recovery, ...args: A) => Promise<unknown>) =>
    vscode.commands.registerCommand(id, async (...args: A) => {
      try {
        return await fn(await recovery(), ...args);
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        log.error(`${id} failed: ${message}`);
        void vscode.window.showErrorMessage(`Forge: ${message}`);
        return undefined;
      }
    });
  return vscode.Disposable.from(
    guard('forge.restoreCheckpoint', async (r, args?: RestoreArgs) => {
      if (args && (typeof args !== 'object' || Array.isArray(args))) throw new Error('forge.restoreCheckpoint takes { taskId, step | toolCallId, rewind?, conflicts? }');
      if (args?.step !== undefined || args?.toolCallId !== undefined) return r.restore(args);
      // From the palette: pick a checkpoint of the open task.
      const all = args?.taskId ? await r.checkpoints(args.taskId) : await r.checkpointsOfCurrent();
      if (!all.length) {
        void vscode.window.showInformationMessage('Forge: the open task has no checkpoints (it changed no files).');
        return undefined;
      }
      const pick = await vscode.window.showQuickPick(
        all.slice().reverse().map((c) => ({
          label: `Checkpoint ${c.step}${c.undone ? ' (undone)' : ''}`,
          description: new Date(c.at).toLocaleTimeString(),
          detail: c.paths.map((p) => vscode.workspace.asRelativePath(p, false)).join(', '),
          step: c.step,
        })),
        { title: 'Forge: Restore Checkpoint', placeHolder: 'Restore the files to the end of which step?' },
      );
      return pick ? r.restore({ ...(args ?? {}), step: pick.step }) : undefined;
    }),
    guard('forge.redoRestore', (r, taskId?: string) => r.redoFromPanel(typeof taskId === 'string' ? taskId : undefined)),
    guard('forge.showAuditLog', (r) => r.showAuditLog()),
    guard('forge.showRunReport', (r, taskId?: string) => r.showRunReport(typeof taskId === 'string' ? taskId : undefined)),
  );
}

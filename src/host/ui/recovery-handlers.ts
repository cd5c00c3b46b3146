// Recovery's handlers: the panel's plan edits and "Restore to here" / redo on a tool card, and the palette's
// restore a checkpoint (and redo it), show the audit log, show the run report.
import * as vscode from 'vscode';
import type { WebviewHandlers } from '../../panel/webview-handlers';
import type { CommandHandlers } from './commands';
import type { Recovery, RestoreArgs } from '../session/recovery';

/** Recovery is absent only in tests that do not need it. */
type RecoveryOf = () => Recovery | undefined;

export const recoveryMessages = (recovery: RecoveryOf) =>
  ({
    edit_plan: (m) => recovery()?.editPlan(m.taskId, m.plan),
    restore_checkpoint: (m) => recovery()?.restoreFromPanel(m.taskId, m.toolCallId),
    redo_checkpoint: (m) => recovery()?.redoFromPanel(m.taskId),
  }) satisfies Partial<WebviewHandlers>;

const asTaskId = (taskId: unknown) => (typeof taskId === 'string' ? taskId : undefined);

export const recoveryCommands = (recovery: RecoveryOf) =>
  ({
    'forge.restoreCheckpoint': (args?: unknown) => restoreCheckpoint(recovery(), args as RestoreArgs | undefined),
    'forge.redoRestore': (taskId?: unknown) => recovery()?.redoFromPanel(asTaskId(taskId)),
    'forge.showAuditLog': () => recovery()?.showAuditLog(),
    'forge.showRunReport': (taskId?: unknown) => recovery()?.showRunReport(asTaskId(taskId)),
  }) satisfies Partial<CommandHandlers>;

async function restoreCheckpoint(r: Recovery | undefined, args?: RestoreArgs): Promise<unknown> {
  if (!r) return undefined;
  if (args && (typeof args !== 'object' || Array.isArray(args)))
    throw new Error('forge.restoreCheckpoint takes { taskId, step | toolCallId, rewind?, conflicts? }');
  if (args?.step !== undefined || args?.toolCallId !== undefined) return r.restore(args);
  // From the palette: pick a checkpoint of the open task.
  const all = args?.taskId ? await r.checkpoints(args.taskId) : await r.checkpointsOfCurrent();
  if (!all.length) {
    void vscode.window.showInformationMessage('Forge: the open task has no checkpoints (it changed no files).');
    return undefined;
  }
  const pick = await vscode.window.showQuickPick(
    all
      .slice()
      .reverse()
      .map((c) => ({
        label: `Checkpoint ${c.step}${c.undone ? ' (undone)' : ''}`,
        description: new Date(c.at).toLocaleTimeString(),
        detail: c.paths.map((p) => vscode.workspace.asRelativePath(p, false)).join(', '),
        step: c.step,
      })),
    { title: 'Forge: Restore Checkpoint', placeHolder: 'Restore the files to the end of which step?' },
  );
  return pick ? r.restore({ ...(args ?? {}), step: pick.step }) : undefined;
}

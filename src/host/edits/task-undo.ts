// Undo of a whole task: the files it edited go back to how they were before it (the edit journal).
import * as vscode from 'vscode';
import type { EditJournal, UndoResult } from '../../core/tasks/journal';
import { settleEdits } from '../../core/tasks/recovery';
import type { Logger } from '../logger';
import { VscodeWorkspaceProbe } from '../session/workspace-probe';
import { undoWithReport } from '../ui/pickers';
import type { Recovery } from '../session/recovery';
import type { SessionManager } from '../session/session-manager';
import type { Toolkit } from '../wiring/toolkit';

interface TaskUndoDeps {
  manager: SessionManager;
  toolkit: Pick<Toolkit, 'fs'>;
  journal: EditJournal;
  log: Logger;
  recovery?: Pick<Recovery, 'markUndo'>;
}

/** Restores the files task `id` edited (asks first unless `confirm` is false). */
export async function undoTaskChanges(
  deps: TaskUndoDeps,
  id: string,
  confirm: boolean,
): Promise<UndoResult | undefined> {
  const fs = deps.toolkit.fs;
  const decode = (b: Uint8Array) => new TextDecoder().decode(b);
  const journalFs = {
    read: async (p: string) => ((await fs.stat(p)) ? decode(await fs.readFile(p)) : null),
    write: (p: string, content: string) => fs.writeFile(p, new TextEncoder().encode(content)),
    remove: (p: string) => Promise.resolve(vscode.workspace.fs.delete(vscode.Uri.file(p), { useTrash: false })),
  };
  // Edits a crash cut off are settled against the disk first, so Undo sees one that was written (durability).
  // (Not an edit being applied right now: not while this task runs here, and only intents older than a minute.)
  const live = deps.manager.current.id === id && deps.manager.current.running;
  if (!live)
    await settleEdits(deps.journal, id, new VscodeWorkspaceProbe(), (m) => deps.log.debug(m), {
      minAgeMs: 60_000,
    }).catch(() => undefined);
  const result = await undoWithReport(deps.journal, id, journalFs, confirm);
  deps.recovery?.markUndo(id, result);
  return result;
}

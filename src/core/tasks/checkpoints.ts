// Checkpoints: every step of a task that changed files, derived from the edit journal (nothing extra is stored).
// A step is one assistant turn: its tool calls' edits form one checkpoint (calls the history no longer holds,
// after compaction, stand alone). Restoring to checkpoint N puts every file the task changed after it back the
// way it was at the end of step N, through the journal's undo: a file the user changed since is never silently
// overwritten; it is reported, and the caller decides per file (overwrite or keep). Cost: O(edits of the task).
import type { ChatMessage } from '../model/types';
import type { EditJournal, JournalEntry, JournalFs, UndoResult } from './journal';

export interface Checkpoint {
  /** 1-based, in task order. */
  step: number;
  /** The tool calls of the step that changed files, in order. */
  toolCallIds: string[];
  /** Files the step changed (first change first). */
  paths: string[];
  /** The journal seq of the step's last edit: restoring undoes every edit after it. */
  toSeq: number;
  at: number;
  /** Every edit of the step was undone since (a restore to an earlier checkpoint, or an undo). */
  undone: boolean;
}

/** toolCallId -> the step key (the index of the assistant turn that made the call). */
export function stepKeysFromHistory(history: readonly ChatMessage[]): Map<string, string> {
  const keys = new Map<string, string>();
  history.forEach((m, i) => {
    if (m.role === 'assistant') for (const c of m.toolCalls ?? []) keys.set(c.id, `turn:${i}`);
  });
  return keys;
}

/** Groups the journal's edits into checkpoints, one per step. */
export function deriveCheckpoints(
  entries: readonly Pick<JournalEntry, 'seq' | 'path' | 'at' | 'toolCallId' | 'undone'>[],
  stepKeys: ReadonlyMap<string, string> = new Map(),
): Checkpoint[] {
  const out: Checkpoint[] = [];
  let lastKey: string | undefined;
  const sorted = [...entries].sort((a, b) => a.seq - b.seq);
  for (const e of sorted) {
    const key = e.toolCallId === undefined ? `seq:${e.seq}` : (stepKeys.get(e.toolCallId) ?? `call:${e.toolCallId}`);
    let cp = out[out.length - 1];
    if (!cp || key !== lastKey) {
      cp = { step: out.length + 1, toolCallIds: [], paths: [], toSeq: e.seq, at: e.at, undone: true };
      out.push(cp);
      lastKey = key;
    }
    if (e.toolCallId !== undefined && !cp.toolCallIds.includes(e.toolCallId)) cp.toolCallIds.push(e.toolCallId);
    if (!cp.paths.includes(e.path)) cp.paths.push(e.path);
    cp.toSeq = Math.max(cp.toSeq, e.seq);
    cp.at = e.at;
    cp.undone = cp.undone && !!e.undone;
  }
  return out;
}

/** The checkpoint whose step made `toolCallId`. */
export function checkpointOfToolCall(checkpoints: readonly Checkpoint[], toolCallId: string): Checkpoint | undefined {
  return checkpoints.find((c) => c.toolCallIds.includes(toolCallId));
}

export interface RestoreConflict {
  path: string;
  reason: string;
}

export interface RestoreOutcome extends UndoResult {
  checkpoint: Checkpoint;
  /** Conflicting files the caller chose to overwrite (now restored, counted in restored/deleted too). */
  overwritten: string[];
  /** Conflicting files the caller chose to keep as they are. */
  skipped: string[];
}

/**
 * Restores the files to `checkpoint`. Files nobody touched since the task wrote them are restored at once; for the
 * others `decide` says which to overwrite (the rest are kept and reported as skipped). Conflicts that overwriting
 * cannot fix (content missing, a write failed) stay in `conflicts`.
 */
export async function restoreToCheckpoint(
  journal: EditJournal,
  taskId: string,
  checkpoint: Checkpoint,
  fs: JournalFs,
  decide: (conflicts: RestoreConflict[]) => Promise<string[]>,
): Promise<RestoreOutcome> {
  const first = await journal.undoTask(taskId, fs, { toSeq: checkpoint.toSeq });
  const outcome: RestoreOutcome = { ...first, conflicts: [], checkpoint, overwritten: [], skipped: [] };
  const changedByUser = first.conflicts.filter((c) => /since the task edited it/.test(c.reason));
  const hard = first.conflicts.filter((c) => !changedByUser.includes(c));
  outcome.conflicts.push(...hard);
  if (changedByUser.length) {
    const chosen = new Set(await decide(changedByUser));
    const overwrite = changedByUser.filter((c) => chosen.has(c.path)).map((c) => c.path);
    outcome.skipped = changedByUser.filter((c) => !chosen.has(c.path)).map((c) => c.path);
    if (overwrite.length) {
      const forced = await journal.undoTask(taskId, fs, { toSeq: checkpoint.toSeq, force: true, paths: overwrite });
      outcome.restored.push(...forced.restored);
      outcome.deleted.push(...forced.deleted);
      outcome.overwritten = [...forced.restored, ...forced.deleted];
      outcome.conflicts.push(...forced.conflicts);
    }
  }
  return outcome;
}

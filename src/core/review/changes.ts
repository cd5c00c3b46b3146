// A task's changes at a glance: from the edit journal's entries, each file the task changed with its content at
// the task's start (the first edit's "before") and as the task left it (the last edit's "after"), and the lines
// added and removed between the two. Undone edits do not count; a file back where it started is left out.
import type { JournalEntry } from '../tasks/journal';
import { splitHunks } from './hunks';

export interface TaskFileChange {
  path: string;
  /** null: the file did not exist when the task started. */
  before: string | null;
  /** null: the task deleted it. */
  after: string | null;
  added: number;
  removed: number;
  kind: 'created' | 'modified' | 'deleted';
}

export function taskFileChanges(entries: readonly JournalEntry[]): TaskFileChange[] {
  const byPath = new Map<string, { before: string | null; after: string | null }>();
  for (const e of [...entries].sort((a, b) => a.seq - b.seq)) {
    if (e.undone) continue;
    const seen = byPath.get(e.path);
    if (seen) seen.after = e.after;
    else byPath.set(e.path, { before: e.before, after: e.after });
  }
  const out: TaskFileChange[] = [];
  for (const [path, { before, after }] of byPath) {
    if (before === after) continue;
    let added = 0;
    let removed = 0;
    for (const h of splitHunks(before ?? '', after ?? '')) {
      added += h.added.length;
      removed += h.removed.length;
    }
    out.push({
      path,
      before,
      after,
      added,
      removed,
      kind: before === null ? 'created' : after === null ? 'deleted' : 'modified',
    });
  }
  return out;
}

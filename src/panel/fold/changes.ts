// What a task changed: the completion block listing its files, and the per-hunk states of a pending edit.
import type { ChangedFile, HunkView, ItemOf, PatchOp } from '../../protocol/messages';
import { safeId } from '../itemFormat';
import type { TranscriptItems } from './items';

/** The user decided on a hunk of a pending edit (panel or diff editor): its approval card shows the new states. */
export function foldHunkReview(items: TranscriptItems, ops: PatchOp[], requestId: string, hunks: HunkView[]): void {
  const rid = safeId(requestId);
  const item = items
    .all()
    .find((it): it is ItemOf<'approval'> => it.kind === 'approval' && it.requestId === rid && it.status === 'pending');
  if (item?.preview?.kind === 'edit' && item.preview.hunks)
    items.update(ops, { ...item, preview: { ...item.preview, hunks: hunks.slice(0, 200) } });
}

/** The files a task changed: one block per run that produced it, updated in place (undo / keep). */
export function foldChanges(
  items: TranscriptItems,
  ops: PatchOp[],
  now: () => number,
  taskId: string,
  files: ChangedFile[],
  more: number,
): void {
  const tid = safeId(taskId);
  // The block follows the run that produced it: updated in place until the user sends again, then a new one.
  const all = items.all();
  let existing: ItemOf<'changes'> | undefined;
  for (let i = all.length - 1; i >= 0 && !existing; i--) {
    const it = all[i]!;
    if (it.kind === 'user') break;
    if (it.kind === 'changes' && it.taskId === tid) existing = it;
  }
  const body = { taskId: tid, files: files.slice(0, 500), ...(more ? { more } : {}) };
  if (existing) {
    items.update(ops, { ...existing, ...body });
  } else if (files.length) {
    items.append(ops, { id: items.nextId(), ts: now(), kind: 'changes', ...body });
  }
}

// Checkpoints in the transcript: the mark a restore or an undo leaves, and where a rewind to a step cuts.
import type { ItemOf, PatchOp, TranscriptItem } from '../../protocol/messages';
import { safeId } from '../itemFormat';
import type { TranscriptItems } from './items';

export type CheckpointMark = Omit<ItemOf<'checkpoint'>, 'id' | 'ts' | 'kind'>;

export function foldCheckpointMark(
  items: TranscriptItems,
  ops: PatchOp[],
  now: () => number,
  mark: CheckpointMark,
): void {
  items.append(ops, { ...mark, id: items.nextId(), ts: now(), kind: 'checkpoint' });
}

/** The latest restore / undo mark still offering Redo (or, with `all`, every one) stops offering it. */
export function markRedone(items: TranscriptItems, ops: PatchOp[], all: boolean): void {
  const offering = items
    .all()
    .filter((it): it is ItemOf<'checkpoint'> => it.kind === 'checkpoint' && it.action !== 'redo' && !it.redone);
  for (const it of all ? offering : offering.slice(-1)) items.update(ops, { ...it, redone: true });
}

/** The index of the last card (tool or approval) of `toolCallIds`; -1 when there is none. */
export function lastCardOf(items: readonly TranscriptItem[], toolCallIds: readonly string[]): number {
  const ids = new Set(toolCallIds.map(safeId));
  let last = -1;
  items.forEach((it, i) => {
    if ((it.kind === 'tool' || it.kind === 'approval') && ids.has(it.toolCallId)) last = i;
  });
  return last;
}

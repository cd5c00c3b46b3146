// Steering in the transcript: the messages waiting above the composer (queued, or steering the run at its next step),
// and a steer the run delivered, which leaves the queue and becomes the user's message in the conversation.
import { LIMITS, MAX_QUEUED, type PatchOp, type QueuedMessage } from '../../protocol/messages';
import { cap, safeId } from '../itemFormat';
import type { TranscriptItems } from './items';

/** The queue as the panel may show it: ids made safe, at most MAX_QUEUED, texts within the limit. */
export function cleanQueue(queue: readonly QueuedMessage[]): QueuedMessage[] {
  return queue.slice(0, MAX_QUEUED).map((q) => ({
    id: safeId(q.id),
    text: q.text.slice(0, LIMITS.userText),
    ...(q.steer ? { steer: true } : {}),
  }));
}

/** A steer reached the model: it leaves the queue and shows as the user's message, marked as steering. */
export function foldSteer(
  items: TranscriptItems,
  ops: PatchOp[],
  now: () => number,
  queue: QueuedMessage[],
  e: { turnId: string; text: string },
): QueuedMessage[] {
  const id = safeId(e.turnId);
  items.append(ops, {
    id: items.nextId(),
    ts: now(),
    kind: 'user',
    text: cap(e.text, LIMITS.itemText).text,
    turnId: id,
    steered: true,
  });
  const left = queue.filter((q) => q.id !== id);
  if (left.length !== queue.length) ops.push({ op: 'queue', queue: left });
  return left;
}

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
    ...(q.images?.length ? { images: q.images.slice(0, 8) } : {}),
    ...(q.mentions?.length ? { mentions: q.mentions.slice(0, 20) } : {}),
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
  // The waiting entry has what the user typed and attached; the model's text may hold the chips' context too.
  const waiting = queue.find((q) => q.id === id);
  const thumbs = waiting?.images?.map(({ thumb, width, height, name }) => ({
    thumb,
    width,
    height,
    ...(name ? { name } : {}),
  }));
  items.append(ops, {
    id: items.nextId(),
    ts: now(),
    kind: 'user',
    text: cap(waiting?.text ?? e.text, LIMITS.itemText).text,
    turnId: id,
    steered: true,
    ...(thumbs?.length ? { images: thumbs } : {}),
    ...(waiting?.mentions?.length ? { mentions: waiting.mentions } : {}),
  });
  const left = queue.filter((q) => q.id !== id);
  if (left.length !== queue.length) ops.push({ op: 'queue', queue: left });
  return left;
}

// What a message typed while a run works carries besides its words: the composer's images (checked and stored by
// hash at once, so a queued message's images survive a reload: the task file names their hashes) and its
// @-mention chips (resolved into context when the message reaches the model, as a sent message's are).
import type { Mention } from '../../core/mentions/mention';
import { messageWithContext } from '../../core/mentions/resolve';
import type { ImagePart, ModelInfo } from '../../core/model/types';
import type { ImageStore } from '../../node/image-store';
import type { ImageAttachment } from '../../protocol/images';
import type { MentionChip, MentionView } from '../../protocol/mentions';
import type { QueuedImage, QueuedMessage } from '../../protocol/steering';
import type { MentionService } from '../mentions/mention-service';
import { stageImages, type StagedImages } from './image-intake';

export interface SteerAttachmentDeps {
  model(): ModelInfo | undefined;
  images(): Pick<ImageStore, 'put'> & Partial<Pick<ImageStore, 'get'>>;
  mentions(): Pick<MentionService, 'chip' | 'resolve'> | undefined;
}

/** The composer's images and chips, as the panel sent them with steer_message / queue_add. */
export interface SteerExtras {
  images?: readonly ImageAttachment[];
  mentions?: readonly MentionView[];
}

export function hasExtras(x: SteerExtras | undefined): x is SteerExtras {
  return !!(x?.images?.length || x?.mentions?.length);
}

/** Ready to wait or to steer: the staged images, what the queue shows of them, and the chips. */
export interface PreparedExtras {
  staged?: StagedImages;
  images?: QueuedImage[];
  chips?: MentionChip[];
  mentions?: Mention[];
}

function toMention(m: MentionView): Mention {
  return structuredClone(m) as Mention;
}

/** Checks and stores the images (the model must take them) and labels the chips; or why the message cannot go. */
export async function prepareExtras(
  deps: SteerAttachmentDeps,
  extras: SteerExtras,
): Promise<PreparedExtras | { error: string }> {
  const out: PreparedExtras = {};
  if (extras.images?.length) {
    const staged = await stageImages(extras.images, deps.model(), deps.images());
    if ('error' in staged) return { error: staged.error };
    out.staged = staged;
    out.images = staged.parts.map((p, i) => ({ ...staged.thumbs[i]!, sha256: p.sha256, mediaType: p.mediaType }));
  }
  if (extras.mentions?.length) {
    const service = deps.mentions();
    out.mentions = extras.mentions.map(toMention);
    if (service) out.chips = out.mentions.map((m) => service.chip(m));
  }
  return out;
}

/** The words the model gets for a steer: the text, and the chips' context after it. */
export async function steerText(
  deps: SteerAttachmentDeps,
  text: string,
  mentions: readonly Mention[] | undefined,
): Promise<string | { error: string }> {
  const service = deps.mentions();
  if (!mentions?.length || !service) return text;
  const resolved = await service.resolve(mentions);
  if (!resolved.ok) return { error: resolved.errors.join(' ') };
  return messageWithContext(text, resolved.text);
}

/** The fields a waiting message keeps of what was prepared. */
export function queuedParts(p: PreparedExtras): Pick<QueuedMessage, 'images' | 'mentions'> {
  return {
    ...(p.images?.length ? { images: p.images } : {}),
    ...(p.chips?.length ? { mentions: p.chips } : {}),
  };
}

/**
 * A waiting message's images with their bytes: those staged in this session, else read back from the image store by
 * hash (after a reload). Undefined when it has none; an error when a file is gone.
 */
export async function imagesOfQueued(
  q: QueuedMessage,
  held: ReadonlyMap<string, StagedImages>,
  store: Partial<Pick<ImageStore, 'get'>>,
): Promise<StagedImages | { error: string } | undefined> {
  if (!q.images?.length) return undefined;
  const kept = held.get(q.id);
  if (kept) return kept;
  const parts: ImagePart[] = [];
  for (const img of q.images) {
    const part: ImagePart = {
      mediaType: img.mediaType,
      sha256: img.sha256,
      width: img.width,
      height: img.height,
      ...(img.name ? { name: img.name } : {}),
    };
    const data = await store.get?.(part);
    if (data === undefined) return { error: 'an image of the waiting message is no longer stored' };
    parts.push({ ...part, data });
  }
  const thumbs = q.images.map(({ thumb, width, height, name }) => ({
    thumb,
    width,
    height,
    ...(name ? { name } : {}),
  }));
  return { parts, thumbs };
}

/** The chips' mentions, to resolve when the waiting message is sent. */
export function mentionsOfQueued(q: QueuedMessage): Mention[] | undefined {
  return q.mentions?.length ? q.mentions.map((c) => toMention(c.mention)) : undefined;
}

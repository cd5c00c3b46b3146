// Steering on the wire: messages typed while a run works (queued for when it stops or asks, or steering it at the
// next step), the queue the panel shows above the composer, and edit-and-resend of an earlier message.
// Namespace import: `{ z }` would pull every zod locale (~250 KiB) into the webview bundle.
import * as z from 'zod';
import { IMAGE_LIMITS, IMAGE_MEDIA_TYPES, ImageAttachmentsSchema, ImageThumbSchema } from './images';
import { MAX_MENTIONS, MentionChipSchema, MentionListSchema } from './mentions';
import { Id, LIMITS } from './primitives';

const UserText = z.string().min(1).max(LIMITS.userText);
export const MAX_QUEUED = 20;

/** An image a waiting message carries: its thumbnail, and the hash the host stored its bytes under. */
export const QueuedImageSchema = ImageThumbSchema.extend({
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  mediaType: z.enum(IMAGE_MEDIA_TYPES),
});
export type QueuedImage = z.infer<typeof QueuedImageSchema>;

/**
 * A message waiting: queued (sent when the run stops or asks), or a steer waiting for the next step boundary; with
 * the images and @-mention chips that were in the composer when it was typed.
 */
export const QueuedMessageSchema = z.object({
  id: Id,
  text: UserText,
  steer: z.boolean().optional(),
  images: z.array(QueuedImageSchema).max(IMAGE_LIMITS.perMessage).optional(),
  mentions: z.array(MentionChipSchema).max(MAX_MENTIONS).optional(),
});
export type QueuedMessage = z.infer<typeof QueuedMessageSchema>;
export const QueueSchema = z.array(QueuedMessageSchema).max(MAX_QUEUED);

/** Webview -> host. */
export const SteeringMessageSchemas = [
  /** Delivered to the running task at its next step, as the user's words (sent as a message when none runs). */
  z.strictObject({
    type: z.literal('steer_message'),
    text: UserText,
    images: ImageAttachmentsSchema.optional(),
    mentions: MentionListSchema.optional(),
  }),
  /** Queued: sent as the next message when the run stops, or as the answer when it asks. */
  z.strictObject({
    type: z.literal('queue_add'),
    text: UserText,
    images: ImageAttachmentsSchema.optional(),
    mentions: MentionListSchema.optional(),
  }),
  z.strictObject({ type: z.literal('queue_update'), id: Id, text: UserText }),
  z.strictObject({ type: z.literal('queue_remove'), id: Id }),
  /** Edit and resend: the conversation (and, when asked, the files) go back to before `itemId`, then `text` is sent. */
  z.strictObject({
    type: z.literal('edit_resend'),
    requestId: Id,
    itemId: Id,
    text: UserText,
    restoreFiles: z.boolean(),
  }),
] as const;

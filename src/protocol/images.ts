// Images between the webview and the host: the composer's attachments (scaled down in the webview before they
// are sent) and the thumbnails a sent message shows in the transcript. The caps match core/model/images.ts.
import * as z from 'zod';

export const IMAGE_LIMITS = {
  /** Base64 characters of one image (~3.7 MB of bytes; Anthropic takes at most 5 MB per image). */
  base64: 5_000_000,
  perMessage: 8,
  /** A thumbnail data URL (the webview makes them ~96 px JPEG, a few KB). */
  thumb: 60_000,
  edgePx: 10_000,
  name: 200,
} as const;

export const IMAGE_MEDIA_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'] as const;

const THUMB = /^data:image\/(png|jpeg|webp);base64,[A-Za-z0-9+/]*={0,2}$/;

// Length is checked first and aborts: a forged 100 MB payload is refused without a regex scan over it.
const base64 = z
  .string()
  .min(1)
  .max(IMAGE_LIMITS.base64, {
    abort: true,
    error: `an image may be at most ${IMAGE_LIMITS.base64} base64 characters (about 3.7 MB)`,
  });
// Not scanned with a regex here (~20 ms on the extension host for a 5 MB string): the host decodes the bytes,
// checks they are the image type claimed, and sends only bytes it re-encoded itself.
const edge = z.number().int().min(1).max(IMAGE_LIMITS.edgePx);
const thumb = z
  .string()
  .max(IMAGE_LIMITS.thumb, { abort: true })
  .regex(THUMB, 'a thumbnail must be a base64 PNG, JPEG or WebP data URL');

/** What the composer sends per image: the scaled bytes, their size, a name, and its thumbnail. */
export const ImageAttachmentSchema = z.strictObject({
  mediaType: z.enum(IMAGE_MEDIA_TYPES, { error: 'images must be PNG, JPEG, GIF or WebP' }),
  data: base64,
  width: edge,
  height: edge,
  name: z.string().max(IMAGE_LIMITS.name).optional(),
  thumb,
});
export type ImageAttachment = z.infer<typeof ImageAttachmentSchema>;

export const ImageAttachmentsSchema = z
  .array(ImageAttachmentSchema)
  .max(IMAGE_LIMITS.perMessage, { error: `at most ${IMAGE_LIMITS.perMessage} images per message` });

/** A sent image as the transcript shows it: the thumbnail and what it was. */
export const ImageThumbSchema = z.strictObject({
  thumb,
  width: edge,
  height: edge,
  name: z.string().max(IMAGE_LIMITS.name).optional(),
});
export type ImageThumb = z.infer<typeof ImageThumbSchema>;

export const ImageThumbsSchema = z.array(ImageThumbSchema).max(IMAGE_LIMITS.perMessage);

// Images in the conversation: what a part holds, the caps every surface enforces, what an image costs in tokens,
// and what a model that takes no images gets instead. Image bytes travel as base64 and are stored by their hash.
import type { ChatMessage, ImagePart } from './types';

export const IMAGE_MEDIA_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'] as const;
export type ImageMediaType = (typeof IMAGE_MEDIA_TYPES)[number];

/** Base64 characters of one image (about 3.7 MB of bytes): under Anthropic's 5 MB per-image limit. */
export const MAX_IMAGE_BASE64_CHARS = 5_000_000;
/** Images in one message (the composer, the CLI). */
export const MAX_IMAGES_PER_MESSAGE = 8;
/** The long edge the panel scales to (Anthropic resizes anything larger; OpenAI's high detail fits 2048). */
export const IMAGE_MAX_EDGE_PX = 1568;

const EXTENSIONS: Record<string, ImageMediaType> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
};

/** The media type of an image file name (png, jpg, jpeg, gif, webp), else undefined. */
export function imageTypeOfPath(path: string): ImageMediaType | undefined {
  const ext = /\.([a-z0-9]+)$/i.exec(path)?.[1]?.toLowerCase();
  return ext ? EXTENSIONS[ext] : undefined;
}

/** The media type the bytes really are (magic numbers), so a renamed file is not sent as what it is not. */
export function sniffImageType(bytes: Uint8Array): ImageMediaType | undefined {
  const b = bytes;
  const png = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
  if (b.length >= 24 && png.every((x, i) => b[i] === x)) return 'image/png';
  if (b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return 'image/jpeg';
  if (b.length >= 6 && b[0] === 0x47 && b[1] === 0x49 && b[2] === 0x46 && b[3] === 0x38) return 'image/gif';
  if (
    b.length >= 12 &&
    b[0] === 0x52 &&
    b[1] === 0x49 &&
    b[2] === 0x46 &&
    b[3] === 0x46 &&
    b[8] === 0x57 &&
    b[9] === 0x45 &&
    b[10] === 0x42 &&
    b[11] === 0x50
  )
    return 'image/webp';
  return undefined;
}

/** Width and height from the header of a PNG, GIF, JPEG or WebP (undefined when it cannot tell). */
export function imageSize(bytes: Uint8Array, type: ImageMediaType): { width: number; height: number } | undefined {
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  try {
    if (type === 'image/png') return { width: dv.getUint32(16), height: dv.getUint32(20) };
    if (type === 'image/gif') return { width: dv.getUint16(6, true), height: dv.getUint16(8, true) };
    if (type === 'image/webp') {
      const chunk = String.fromCharCode(bytes[12], bytes[13], bytes[14], bytes[15]);
      if (chunk === 'VP8X')
        return { width: 1 + (dv.getUint32(24, true) & 0xffffff), height: 1 + (dv.getUint32(27, true) & 0xffffff) };
      if (chunk === 'VP8L') {
        const v = dv.getUint32(21, true);
        return { width: 1 + (v & 0x3fff), height: 1 + ((v >> 14) & 0x3fff) };
      }
      if (chunk === 'VP8 ') return { width: dv.getUint16(26, true) & 0x3fff, height: dv.getUint16(28, true) & 0x3fff };
      return undefined;
    }
    // JPEG: walk the segments to the first start-of-frame marker.
    let at = 2;
    while (at + 9 < bytes.length) {
      if (bytes[at] !== 0xff) return undefined;
      const marker = bytes[at + 1];
      const len = dv.getUint16(at + 2);
      if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc)
        return { width: dv.getUint16(at + 7), height: dv.getUint16(at + 5) };
      at += 2 + len;
    }
  } catch {
    return undefined;
  }
  return undefined;
}

/** Tokens an image of this size costs when the size is unknown: Anthropic's largest unscaled image. */
const UNKNOWN_SIZE_TOKENS = 1_600;

/**
 * Input tokens one image costs, the larger of the two providers' rules: Anthropic's (w*h)/750 after scaling to a
 * 1568 px long edge and 1.15 megapixels, and OpenAI's high-detail tiles (fit in 2048, short side 768, 170 per
 * 512 px tile + 85). Budgets and context estimates count this; a provider's reported usage replaces it.
 */
export function imageTokens(width?: number, height?: number): number {
  if (!width || !height || width <= 0 || height <= 0) return UNKNOWN_SIZE_TOKENS;
  let w = width;
  let h = height;
  const edge = Math.max(w, h);
  if (edge > IMAGE_MAX_EDGE_PX) {
    w = (w * IMAGE_MAX_EDGE_PX) / edge;
    h = (h * IMAGE_MAX_EDGE_PX) / edge;
  }
  const mp = w * h;
  if (mp > 1_150_000) {
    const s = Math.sqrt(1_150_000 / mp);
    w *= s;
    h *= s;
  }
  const anthropic = Math.ceil((w * h) / 750);
  let ow = width;
  let oh = height;
  const fit = Math.min(1, 2048 / Math.max(ow, oh));
  ow *= fit;
  oh *= fit;
  const short = Math.min(1, 768 / Math.min(ow, oh));
  ow *= short;
  oh *= short;
  const openai = 85 + 170 * Math.ceil(ow / 512) * Math.ceil(oh / 512);
  return Math.max(anthropic, openai);
}

/** The images a message carries (user turns and tool results). */
export function imagesOf(m: ChatMessage): readonly ImagePart[] {
  return m.role === 'assistant' ? [] : (m.images ?? []);
}

/** What a model that takes no images reads in place of one. */
export function imagePlaceholder(img: ImagePart): string {
  const size = img.width && img.height ? ` ${img.width}x${img.height}` : '';
  return `[image${img.name ? ` ${img.name}` : ''} (${img.mediaType}${size}) not shown: this model does not accept images]`;
}

/**
 * The messages as a model without image input must get them: each image becomes a line of text saying it was
 * left out. Messages without images are passed through unchanged (same objects).
 */
export function withoutImages(messages: readonly ChatMessage[]): ChatMessage[] {
  return messages.map((m) => {
    if (m.role === 'assistant' || !m.images?.length) return m;
    const notes = m.images.map(imagePlaceholder).join('\n');
    const { images: _drop, ...rest } = m;
    return { ...rest, content: rest.content ? `${rest.content}\n${notes}` : notes };
  });
}

/**
 * The messages as they go to a model: without images for a model that takes none, and an image whose bytes could
 * not be read back (its file was removed from the task storage) becomes a line saying so.
 */
export function sendableMessages(messages: readonly ChatMessage[], takesImages: boolean | undefined): ChatMessage[] {
  if (!takesImages) return withoutImages(messages);
  return messages.map((m) => {
    if (m.role === 'assistant' || !m.images?.some((i) => !i.data)) return m;
    const lost = m.images.filter((i) => !i.data).map((i) => `[image${i.name ? ` ${i.name}` : ''} is no longer stored]`);
    const images = m.images.filter((i) => !!i.data);
    const content = [m.content, ...lost].filter(Boolean).join('\n');
    return { ...m, content, ...(images.length ? { images } : { images: undefined }) };
  });
}

/**
 * The history as it is saved: image bytes are left out (the image store keeps them under their sha256), so a
 * task file stays small however many screenshots the conversation holds.
 */
export function withoutImageData(messages: readonly ChatMessage[]): ChatMessage[] {
  return messages.map((m) => {
    if (m.role === 'assistant' || !m.images?.some((i) => i.data !== undefined)) return m;
    return { ...m, images: m.images.map(({ data: _data, ...meta }) => meta) };
  });
}

/** Every image part of the history whose bytes are not in memory (restored from a saved task). */
export function missingImageData(messages: readonly ChatMessage[]): ImagePart[] {
  return messages.flatMap((m) => imagesOf(m).filter((i) => i.data === undefined));
}

/**
 * Whether a model takes images, from its name, for providers that do not say (the user's setting overrides):
 * Claude 3 and later, GPT-4o / 4.1 / 5, o1 / o3 / o4, and the common open vision families (llava, qwen-vl,
 * gemma3, llama 3.2 vision, pixtral, minicpm-v, moondream, granite vision, mistral small 3.1+).
 */
export function modelTakesImages(model: string): boolean {
  const m = model.toLowerCase();
  if (/claude-(3|sonnet|opus|haiku)|claude-[a-z]+-[4-9]/.test(m)) return !/claude-(2|instant)/.test(m);
  if (/gpt-4o|gpt-4\.1|gpt-4-turbo|gpt-4-vision|gpt-5|chatgpt-4o|(^|\/)o[134](-|$)/.test(m))
    return !/gpt-5.*-chat-latest-audio|o1-mini|o3-mini/.test(m);
  return /llava|bakllava|vision|[-_]vl\b|qwen[\d.]*-?vl|qwen2\.5vl|gemma-?3|pixtral|minicpm-v|moondream|llama-?3\.2.*vision|llama-?4|mistral-small-3\.[1-9]|gemini/.test(
    m,
  );
}

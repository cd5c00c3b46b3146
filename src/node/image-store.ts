// Images a task holds, content-addressed beside the task storage: images/<sha256 first 2>/<sha256>.<ext>. A task
// file keeps only the hash (withoutImageData); the bytes are read back when the task is opened. Nothing here
// blocks the event loop for long: base64 decoding is the only synchronous step (~1 ms per MB), hashing runs on
// the thread pool (WebCrypto) and files are written and read with fs.promises.
import { webcrypto } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import {
  imageSize,
  MAX_IMAGE_BASE64_CHARS,
  missingImageData,
  sniffImageType,
  type ImageMediaType,
} from '../core/model/images';
import type { ChatMessage, ImagePart } from '../core/model/types';
import { collectImages, type ImageGcResult } from './image-gc';
import { errorText } from '../core/error-text';
import { plural } from '../core/plural';

/** An image as it arrives (the panel, the CLI, read_file): base64 bytes and what the sender says they are. */
export interface IncomingImage {
  mediaType: string;
  data: string;
  name?: string;
  width?: number;
  height?: number;
}

const EXT: Record<ImageMediaType, string> = {
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/gif': 'gif',
  'image/webp': 'webp',
};

/** Checks an incoming image and makes it an ImagePart (hash, real media type and size). Throws a readable Error. */
export async function toImagePart(img: IncomingImage): Promise<ImagePart> {
  return (await checked(img)).part;
}

/** The part and its bytes; each synchronous step is short and they run in separate turns of the event loop. */
async function checked(img: IncomingImage): Promise<{ part: ImagePart; bytes: Buffer }> {
  const label = img.name ? `"${img.name}"` : 'an image';
  if (img.data.length > MAX_IMAGE_BASE64_CHARS)
    throw new Error(`${label} is too large (${img.data.length} base64 characters, at most ${MAX_IMAGE_BASE64_CHARS}).`);
  const bytes = await decodePaced(img.data);
  const type = sniffImageType(bytes);
  if (!type) throw new Error(`${label} is not a PNG, JPEG, GIF or WebP image.`);
  if (type !== img.mediaType) throw new Error(`${label} says it is ${img.mediaType} but its bytes are ${type}.`);
  const digest = await webcrypto.subtle.digest('SHA-256', bytes);
  const sha256 = Buffer.from(digest).toString('hex');
  const size = imageSize(bytes, type) ?? (img.width && img.height ? { width: img.width, height: img.height } : {});
  const data = await encodePaced(bytes);
  const part: ImagePart = {
    mediaType: type,
    sha256,
    // Re-encoded from the bytes: what is sent is exactly what was checked and hashed (the decoder skips stray
    // characters a forged string may hold).
    data,
    ...size,
    ...(img.name ? { name: img.name.slice(0, 200) } : {}),
  };
  return { part, bytes };
}

/** Base64 is decoded and encoded in slices (~1 ms each), a turn of the event loop apart. */
const SLICE_CHARS = 1 << 20; // a multiple of 4: each slice decodes on its own
const SLICE_BYTES = (SLICE_CHARS / 4) * 3;
const nextTurn = () => new Promise((r) => setImmediate(r));

async function decodePaced(b64: string): Promise<Buffer> {
  const parts: Buffer[] = [];
  for (let at = 0; at < b64.length; at += SLICE_CHARS) {
    parts.push(Buffer.from(b64.slice(at, at + SLICE_CHARS), 'base64'));
    await nextTurn();
  }
  return Buffer.concat(parts);
}

async function encodePaced(bytes: Buffer): Promise<string> {
  let out = '';
  for (let at = 0; at < bytes.length; at += SLICE_BYTES) {
    out += bytes.subarray(at, at + SLICE_BYTES).toString('base64');
    await nextTurn();
  }
  return out;
}

export interface ImageStoreOptions {
  /** Folders whose files name the images in use (the task history): collectGarbage keeps what they name. */
  referencedIn?: readonly string[];
  log?: (message: string) => void;
}

/** collectGarbageSoon waits this long, so a burst of deletions costs one scan. */
const GC_DELAY_MS = 5_000;

export class ImageStore {
  /** Recently read images (by hash): a reopened task's screenshots are not read from disk at every step. */
  private readonly cache = new Map<string, string>();
  private gcTimer: ReturnType<typeof setTimeout> | undefined;
  private gcChain: Promise<unknown> = Promise.resolve();

  constructor(
    readonly dir: string,
    private readonly maxCached = 16,
    private readonly opts: ImageStoreOptions = {},
  ) {}

  /**
   * Deletes the images no task names any more (tasks deleted, or their images replaced), past a grace period.
   * Without `referencedIn` nothing is known to be unused, and nothing is deleted.
   */
  collectGarbage(): Promise<ImageGcResult> {
    const roots = this.opts.referencedIn;
    if (!roots?.length) return Promise.resolve({ removed: 0, freedBytes: 0, kept: 0 });
    const run = this.gcChain.then(() => collectImages(this.dir, roots, { keep: new Set(this.cache.keys()) }));
    this.gcChain = run.catch(() => undefined);
    return run;
  }

  /** collectGarbage a little later (tasks were deleted; more may follow); failures are logged. */
  collectGarbageSoon(delayMs = GC_DELAY_MS): void {
    if (this.gcTimer) clearTimeout(this.gcTimer);
    this.gcTimer = setTimeout(() => {
      this.gcTimer = undefined;
      this.collectGarbage().then(
        (r) => {
          if (r.removed)
            this.opts.log?.(
              `[images] removed ${plural(r.removed, 'image')} no task uses, ${Math.round(r.freedBytes / 1024)} KiB`,
            );
        },
        (err: unknown) => this.opts.log?.(`[images] not collected: ${errorText(err)}`),
      );
    }, delayMs);
    this.gcTimer.unref?.();
  }

  fileOf(part: Pick<ImagePart, 'sha256' | 'mediaType'>): string {
    if (!/^[0-9a-f]{64}$/.test(part.sha256)) throw new Error('not an image hash');
    return path.join(this.dir, part.sha256.slice(0, 2), `${part.sha256}.${EXT[part.mediaType] ?? 'bin'}`);
  }

  /** Checks, hashes and stores the image (once per content); the part keeps its bytes for this session. */
  async put(img: IncomingImage): Promise<ImagePart> {
    const { part, bytes } = await checked(img);
    const file = this.fileOf(part);
    const exists = await fs.stat(file).then(
      () => true,
      () => false,
    );
    if (exists) {
      // Used again: a collection in the next hour leaves it alone even before a task file names it.
      const now = new Date();
      await fs.utimes(file, now, now).catch(() => undefined);
    } else {
      await fs.mkdir(path.dirname(file), { recursive: true });
      const tmp = `${file}.${process.pid}.${Date.now().toString(36)}.tmp`;
      await fs.writeFile(tmp, bytes);
      await fs.rename(tmp, file);
    }
    this.remember(part.sha256, part.data ?? '');
    return part;
  }

  /** The image's base64 bytes, or undefined when its file is gone or no longer matches its hash. */
  async get(part: Pick<ImagePart, 'sha256' | 'mediaType'>): Promise<string | undefined> {
    const hit = this.cache.get(part.sha256);
    if (hit !== undefined) return hit;
    let bytes: Buffer;
    try {
      bytes = await fs.readFile(this.fileOf(part));
    } catch {
      return undefined;
    }
    const digest = Buffer.from(await webcrypto.subtle.digest('SHA-256', bytes)).toString('hex');
    if (digest !== part.sha256) return undefined;
    const data = bytes.toString('base64');
    this.remember(part.sha256, data);
    return data;
  }

  /**
   * Puts the bytes back into the image parts of a restored history (in place). Parts whose file is gone stay
   * without bytes; the model is then told the image is no longer stored. Returns how many could not be read.
   */
  async fill(history: readonly ChatMessage[] | undefined): Promise<number> {
    let missing = 0;
    for (const part of missingImageData(history ?? [])) {
      const data = await this.get(part);
      if (data === undefined) missing++;
      else part.data = data;
    }
    return missing;
  }

  private remember(hash: string, data: string): void {
    this.cache.delete(hash);
    this.cache.set(hash, data);
    while (this.cache.size > this.maxCached) this.cache.delete(this.cache.keys().next().value as string);
  }
}

// Mark and sweep for the image store: an image file stays while any saved task names its sha256 (the task files,
// their archive, a damaged file kept aside: every file under the history folders counts), and goes once none does.
// A file written or used recently stays too (its task may not be saved yet: a composer attachment, a queued
// message, the first seconds of a task). Files are read one at a time, so a large history does not hold the host.
import { promises as fs } from 'node:fs';
import * as path from 'node:path';

/** An image file younger than this is never collected (its task may not be saved yet). */
export const IMAGE_GC_GRACE_MS = 60 * 60_000;
/** Task files larger than this are not scanned (they are not task files); their folder then keeps every image. */
const MAX_SCANNED_BYTES = 64 * 1024 * 1024;

const HASH_FILE = /^([0-9a-f]{64})\.[a-z]+$/;
const HASH_IN_TEXT = /[0-9a-f]{64}/g;

export interface ImageGcResult {
  removed: number;
  freedBytes: number;
  kept: number;
}

async function filesUnder(dir: string, out: string[] = []): Promise<string[]> {
  const entries = await fs.readdir(dir, { withFileTypes: true }).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return [];
    throw err;
  });
  for (const e of entries) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) await filesUnder(p, out);
    else if (e.isFile()) out.push(p);
  }
  return out;
}

/** Every sha256 named in the files under `roots`. Throws when a root cannot be read (then nothing is swept). */
export async function referencedHashes(roots: readonly string[]): Promise<Set<string>> {
  const seen = new Set<string>();
  for (const root of roots) {
    for (const file of await filesUnder(root)) {
      const st = await fs.stat(file).catch(() => undefined);
      if (!st) continue;
      if (st.size > MAX_SCANNED_BYTES) throw new Error(`${file} is too large to scan for image references`);
      const text = await fs.readFile(file, 'utf8');
      for (const m of text.matchAll(HASH_IN_TEXT)) seen.add(m[0]);
    }
  }
  return seen;
}

/**
 * Deletes the image files under `imagesDir` that no file under `roots` names, except those modified within
 * `graceMs` or in `keep` (images this process holds). Reading a root fails: nothing is deleted.
 */
export async function collectImages(
  imagesDir: string,
  roots: readonly string[],
  opts: { now?: number; graceMs?: number; keep?: ReadonlySet<string> } = {},
): Promise<ImageGcResult> {
  const result: ImageGcResult = { removed: 0, freedBytes: 0, kept: 0 };
  const files = await filesUnder(imagesDir);
  if (!files.length) return result;
  const referenced = await referencedHashes(roots);
  const now = opts.now ?? Date.now();
  const grace = opts.graceMs ?? IMAGE_GC_GRACE_MS;
  for (const file of files) {
    const hash = HASH_FILE.exec(path.basename(file))?.[1];
    // A temp file of an interrupted put, or something that is not ours: the temp sweep owns those.
    if (!hash) continue;
    const st = await fs.stat(file).catch(() => undefined);
    if (!st) continue;
    if (referenced.has(hash) || opts.keep?.has(hash) || now - st.mtimeMs < grace) {
      result.kept++;
      continue;
    }
    try {
      await fs.unlink(file);
      result.removed++;
      result.freedBytes += st.size;
    } catch {
      result.kept++;
    }
  }
  return result;
}

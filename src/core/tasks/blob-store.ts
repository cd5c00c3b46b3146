// Content-addressed text blobs: blobs/<first 2 hex>/<sha256>. Identical contents are stored once, so a file
// edited many times (or many files with the same content) costs one copy per distinct version.
// Garbage collection is mark-and-sweep (see sweep): a blob that a writer is about to reference is pinned, so a
// sweep running at the same time never deletes it.
import * as path from 'node:path';
import { createHash } from 'node:crypto';
import type { TasksIO } from './io';

export function sha256(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

const HASH = /^[0-9a-f]{64}$/;

export interface SweepResult {
  removedBlobs: number;
  freedBytes: number;
}

export class BlobStore {
  /** Hashes between put and the moment their reference is durable (refcounted). */
  private readonly pins = new Map<string, number>();
  /** Every hash pinned since the running sweep started (so a pin released mid-sweep still protects). */
  private sweepSeen: Set<string> | undefined;
  private readonly deleting = new Map<string, Promise<void>>();

  constructor(
    private readonly dir: string,
    private readonly io: TasksIO,
  ) {}

  /**
   * Stores the texts (null = no content) and keeps them safe from any sweep until `use` settles; `use` is
   * where the caller references the hashes durably (appends its log line).
   */
  async putPinned<T>(texts: (string | null)[], use: (hashes: (string | null)[]) => Promise<T>): Promise<T> {
    const hashes = texts.map((t) => (t === null ? null : sha256(t)));
    const live = hashes.filter((h): h is string => h !== null);
    this.pin(live);
    try {
      await Promise.all(texts.map((t) => (t === null ? undefined : this.put(t))));
      return await use(hashes);
    } finally {
      this.unpin(live);
    }
  }

  /** Stores the text (once) and returns its hash. Unpinned: a later sweep may remove it unless referenced. */
  async put(text: string): Promise<string> {
    const hash = sha256(text);
    this.pin([hash]);
    try {
      // A sweep that decided to delete this blob before we pinned it: let it finish, then write it again.
      await this.deleting.get(hash)?.catch(() => undefined);
      // Always stat (no "known on disk" cache): another journal instance (a second window) may have swept it.
      const file = this.fileOf(hash);
      if (!(await this.io.stat(file))) await this.io.writeAtomic(file, text);
      return hash;
    } finally {
      this.unpin([hash]);
    }
  }

  /** The text, or undefined when missing or when the bytes no longer match the hash (damaged disk, hand edits). */
  async get(hash: string): Promise<string | undefined> {
    if (!HASH.test(hash)) return undefined;
    const text = await this.io.read(this.fileOf(hash));
    if (text === undefined || sha256(text) !== hash) return undefined;
    return text;
  }

  fileOf(hash: string): string {
    return path.join(this.dir, hash.slice(0, 2), hash);
  }

  /**
   * Deletes every blob that `mark` does not return, except blobs pinned at any time since the sweep started and
   * blobs modified at or after `keepModifiedSince` (ms epoch; protects writers outside this process). `mark` runs
   * after pin tracking starts, so a reference made while it reads is either marked or pinned. One sweep at a time.
   */
  async sweep(mark: () => Promise<Set<string>>, keepModifiedSince: number, signal?: AbortSignal): Promise<SweepResult> {
    if (this.sweepSeen) throw new Error('BlobStore.sweep: a sweep is already running');
    this.sweepSeen = new Set(this.pins.keys());
    const result: SweepResult = { removedBlobs: 0, freedBytes: 0 };
    try {
      const live = await mark();
      for (const sub of await this.io.list(this.dir)) {
        if (!/^[0-9a-f]{2}$/.test(sub)) continue;
        for (const name of await this.io.list(path.join(this.dir, sub))) {
          signal?.throwIfAborted();
          if (!HASH.test(name) || !name.startsWith(sub) || live.has(name) || this.sweepSeen.has(name)) continue;
          const stat = await this.io.stat(this.fileOf(name));
          if (!stat || stat.mtimeMs >= keepModifiedSince) continue;
          // Re-check after the await, then claim the deletion without awaiting in between: a put that pins
          // later waits for the deletion (see put) and writes the blob again.
          if (this.sweepSeen.has(name)) continue;
          const removal = this.io.remove(this.fileOf(name));
          this.deleting.set(name, removal);
          try {
            await removal;
            result.removedBlobs++;
            result.freedBytes += stat.size;
          } catch {
            // Locked or vanished: the next sweep tries again.
          } finally {
            this.deleting.delete(name);
          }
        }
      }
      return result;
    } finally {
      this.sweepSeen = undefined;
    }
  }

  private pin(hashes: string[]): void {
    for (const h of hashes) {
      this.pins.set(h, (this.pins.get(h) ?? 0) + 1);
      this.sweepSeen?.add(h);
    }
  }

  private unpin(hashes: string[]): void {
    for (const h of hashes) {
      const n = (this.pins.get(h) ?? 1) - 1;
      if (n > 0) this.pins.set(h, n);
      else this.pins.delete(h);
    }
  }
}

// Content-addressed text blobs: blobs/<first 2 hex>/<sha256>. Identical contents are stored once, so a file
// edited many times (or many files with the same content) costs one copy per distinct version.
import * as path from 'node:path';
import { createHash } from 'node:crypto';
import type { TasksIO } from './io';

export function sha256(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

export class BlobStore {
  /** Hashes known to be on disk; saves a stat per repeated put. */
  private readonly known = new Set<string>();

  constructor(
    private readonly dir: string,
    private readonly io: TasksIO,
  ) {}

  /** Stores the text (once) and returns its hash. */
  async put(text: string): Promise<string> {
    const hash = sha256(text);
    if (this.known.has(hash)) return hash;
    const file = this.fileOf(hash);
    if (!(await this.io.stat(file))) await this.io.writeAtomic(file, text);
    this.known.add(hash);
    return hash;
  }

  /** The text, or undefined when missing or when the bytes no longer match the hash (damaged disk, hand edits). */
  async get(hash: string): Promise<string | undefined> {
    if (!/^[0-9a-f]{64}$/.test(hash)) return undefined;
    const text = await this.io.read(this.fileOf(hash));
    if (text === undefined || sha256(text) !== hash) return undefined;
    return text;
  }

  fileOf(hash: string): string {
    return path.join(this.dir, hash.slice(0, 2), hash);
  }
}

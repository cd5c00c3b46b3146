// The audit trail's file sink: JSON Lines appended to <dir>/audit.jsonl (in the extension's storage, never the
// workspace), rotated by size: when the live file would pass maxBytes it becomes audit.1.jsonl, the older ones
// shift up, and the oldest beyond maxFiles is deleted. Each batch is one O_APPEND write of whole lines, so two
// windows appending to the same log never interleave within a line; appends of one sink run one at a time.
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import type { AuditSink } from '../core/audit/audit-trail';

interface AuditFileSinkOptions {
  /** Rotate when the live file would grow past this (default 5 MB). */
  maxBytes?: number;
  /** Files kept in all, the live one included (default 5). */
  maxFiles?: number;
}

const AUDIT_FILE = 'audit.jsonl';

export class AuditFileSink implements AuditSink {
  readonly file: string;
  private readonly maxBytes: number;
  private readonly maxFiles: number;
  private chain: Promise<void> = Promise.resolve();
  /** Size of the live file as this sink last saw it (undefined: stat it). */
  private size: number | undefined;

  constructor(
    readonly dir: string,
    opts: AuditFileSinkOptions = {},
  ) {
    this.file = path.join(dir, AUDIT_FILE);
    this.maxBytes = Math.max(1024, opts.maxBytes ?? 5 * 1024 * 1024);
    this.maxFiles = Math.max(1, opts.maxFiles ?? 5);
  }

  append(lines: string): Promise<void> {
    const run = this.chain.catch(() => undefined).then(() => this.write(lines));
    this.chain = run;
    return run;
  }

  /** The rotated files, oldest last (audit.1.jsonl is the newest rotated one). */
  rotatedFile(n: number): string {
    return path.join(this.dir, `audit.${n}.jsonl`);
  }

  /** Every existing log file, newest first. */
  async files(): Promise<string[]> {
    const out: string[] = [];
    for (const f of [this.file, ...Array.from({ length: this.maxFiles - 1 }, (_, i) => this.rotatedFile(i + 1))]) {
      if (await exists(f)) out.push(f);
    }
    return out;
  }

  private async write(lines: string): Promise<void> {
    if (!lines) return;
    const bytes = Buffer.byteLength(lines, 'utf8');
    await fsp.mkdir(this.dir, { recursive: true });
    // Another window may have appended or rotated: the disk's size is the truth; ours only saves a stat.
    const size = (this.size = await fileSize(this.file));
    if (size > 0 && size + bytes > this.maxBytes) {
      await this.rotate();
      this.size = 0;
    }
    const start = this.size ?? 0;
    const handle = await fsp.open(this.file, 'a', 0o600);
    try {
      await handle.appendFile(lines, 'utf8');
      await handle.sync().catch(() => undefined);
    } catch (err) {
      // A full disk can take part of the batch: cut it off, so the retry writes whole lines once.
      await handle.truncate(start).catch(() => undefined);
      throw err;
    } finally {
      await handle.close();
    }
    this.size = (this.size ?? 0) + bytes;
  }

  private async rotate(): Promise<void> {
    // audit.(n-1) -> audit.n ... audit.jsonl -> audit.1; the oldest falls off.
    await fsp.rm(this.rotatedFile(this.maxFiles - 1), { force: true }).catch(() => undefined);
    for (let n = this.maxFiles - 2; n >= 1; n--) {
      await fsp.rename(this.rotatedFile(n), this.rotatedFile(n + 1)).catch(ignoreMissing);
    }
    if (this.maxFiles > 1) await fsp.rename(this.file, this.rotatedFile(1)).catch(ignoreMissing);
    else await fsp.rm(this.file, { force: true });
  }
}

async function fileSize(file: string): Promise<number> {
  try {
    return (await fsp.stat(file)).size;
  } catch {
    return 0;
  }
}

async function exists(file: string): Promise<boolean> {
  try {
    await fsp.access(file);
    return true;
  } catch {
    return false;
  }
}

function ignoreMissing(err: unknown): void {
  if ((err as NodeJS.ErrnoException)?.code !== 'ENOENT') throw err;
}

// MemoryFileIO on node:fs. Atomic replace = write a sibling temp file, fsync, rename over the target.
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { FileStamp, MemoryFileIO } from '../core/memory/file-io';
import { withFileLock } from './file-lock';

interface NodeFsOps {
  rename: (from: string, to: string) => Promise<void>;
  /** Writes (flag 'w') or appends (flag 'a') text durably; tests inject a full disk or a torn write here. */
  write: (file: string, text: string, flag: 'w' | 'a') => Promise<void>;
}

export class NodeMemoryFileIO implements MemoryFileIO {
  private readonly ops: NodeFsOps;

  /** `ops` lets tests inject a failing rename (a crash mid-write) or a failing write (full disk, torn write). */
  constructor(ops: Partial<NodeFsOps> = {}) {
    this.ops = { rename: ops.rename ?? ((a, b) => fsp.rename(a, b)), write: ops.write ?? writeSynced };
  }

  async read(file: string): Promise<string | undefined> {
    try {
      return await fsp.readFile(file, 'utf8');
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }

  async writeAtomic(file: string, content: string): Promise<void> {
    await fsp.mkdir(path.dirname(file), { recursive: true });
    const temp = path.join(path.dirname(file), `.${path.basename(file)}.${randomBytes(4).toString('hex')}.tmp`);
    try {
      // A full disk or a torn write fails here: the temp file must not be left behind either.
      await this.ops.write(temp, content, 'w');
      await this.renameWithRetry(temp, file);
    } catch (err) {
      await fsp.rm(temp, { force: true }).catch(() => undefined);
      throw err;
    }
  }

  /** One write() of whole lines with O_APPEND: concurrent appenders interleave by line, never lose one. */
  async append(file: string, text: string): Promise<void> {
    await fsp.mkdir(path.dirname(file), { recursive: true });
    await this.ops.write(file, text, 'a');
  }

  withLock<T>(file: string, fn: () => Promise<T>): Promise<T> {
    return withFileLock(`${file}.lock`, fn);
  }

  async stat(file: string): Promise<FileStamp | undefined> {
    try {
      const s = await fsp.stat(file);
      return { mtimeMs: s.mtimeMs, size: s.size };
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }

  // Windows refuses to replace a file another process has open for a moment (editors, antivirus).
  private async renameWithRetry(from: string, to: string): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.ops.rename(from, to);
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        if (attempt >= 4 || (code !== 'EPERM' && code !== 'EBUSY' && code !== 'EACCES')) throw err;
        await new Promise((r) => setTimeout(r, 20 * (attempt + 1)));
      }
    }
  }
}

/** Writes (flag 'w') or appends (flag 'a') text and fsyncs it before returning. */
export async function writeSynced(file: string, text: string, flag: 'w' | 'a'): Promise<void> {
  const handle = await fsp.open(file, flag);
  try {
    await handle.writeFile(text, 'utf8');
    await handle.sync();
  } finally {
    await handle.close();
  }
}

function isNotFound(err: unknown): boolean {
  return (err as NodeJS.ErrnoException)?.code === 'ENOENT';
}

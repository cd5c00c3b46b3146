// A lock shared between processes: a lock file created exclusively (O_EXCL), holding the owner's pid and time.
// Waiters poll; a lock older than `staleMs` (its holder crashed mid-write) is broken. Holders keep it for a
// read-modify-write of a small file, milliseconds, so a stale lock is one whose process died.
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';

interface FileLockOptions {
  /** Give up after this long (default 10 s). */
  timeoutMs?: number;
  /** A lock file older than this is left over by a crash (default 10 s). */
  staleMs?: number;
  pollMs?: number;
}

export async function withFileLock<T>(lockFile: string, fn: () => Promise<T>, opts: FileLockOptions = {}): Promise<T> {
  const timeout = opts.timeoutMs ?? 10_000;
  const stale = opts.staleMs ?? 10_000;
  const poll = opts.pollMs ?? 15;
  const started = Date.now();
  await fsp.mkdir(path.dirname(lockFile), { recursive: true });
  for (;;) {
    try {
      const handle = await fsp.open(lockFile, 'wx');
      try {
        await handle.writeFile(`${process.pid} ${new Date().toISOString()}\n`);
      } finally {
        await handle.close();
      }
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    const info = await fsp.stat(lockFile).catch(() => undefined);
    if (info && Date.now() - info.mtimeMs > stale) {
      // Break it by renaming (atomic: of two breakers only one moves this file), then retry at once.
      const aside = `${lockFile}.stale-${process.pid}-${Math.random().toString(36).slice(2)}`;
      if (
        await fsp.rename(lockFile, aside).then(
          () => true,
          () => false,
        )
      )
        await fsp.rm(aside, { force: true }).catch(() => undefined);
      continue;
    }
    if (Date.now() - started > timeout)
      throw new Error(`${lockFile} is held by another process (waited ${Math.round(timeout / 1000)} s)`);
    await new Promise((r) => setTimeout(r, poll + Math.floor(Math.random() * poll)));
  }
  try {
    return await fn();
  } finally {
    await fsp.rm(lockFile, { force: true }).catch(() => undefined);
  }
}

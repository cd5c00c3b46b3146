// Temporary files of atomic writes (name.<random>.tmp, .name.<random>.tmp) that a crash or a full disk left in
// Forge's storage folder: removed at start, once they are old enough that no live write (of this or another
// window) can still own them.
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { plural } from '../core/plural';

const TEMP_FILE = /\.tmp$/;

/** Removes stale temp files under `dir` (a few levels deep). Returns how many went; never throws. */
export async function sweepStaleTemps(
  dir: string,
  opts: { olderThanMs?: number; now?: number; depth?: number; log?: (m: string) => void } = {},
): Promise<number> {
  const cutoff = (opts.now ?? Date.now()) - (opts.olderThanMs ?? 10 * 60_000);
  let removed = 0;
  const walk = async (at: string, depth: number): Promise<void> => {
    let entries: import('node:fs').Dirent[];
    try {
      entries = await fsp.readdir(at, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const p = path.join(at, e.name);
      if (e.isDirectory()) {
        if (depth > 0) await walk(p, depth - 1);
        continue;
      }
      if (!e.isFile() || !TEMP_FILE.test(e.name)) continue;
      try {
        if ((await fsp.stat(p)).mtimeMs > cutoff) continue;
        await fsp.rm(p, { force: true });
        removed++;
      } catch {
        /* gone already, or not ours to remove */
      }
    }
  };
  await walk(dir, opts.depth ?? 4);
  if (removed) opts.log?.(`[storage] removed ${plural(removed, 'temporary file')} left by an interrupted write`);
  return removed;
}

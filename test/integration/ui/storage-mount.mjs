// Real storage faults for the fault tests: a small tmpfs mounted over a folder (root only), made read-only by a
// remount or full by a filler file, and given back. The kernel refuses the writes, not a switch in Forge.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const FILLER = 'forge-fault-filler';

/** Mounts a `sizeMb` tmpfs over `dir` (created if missing). Throws when this is not root or mount is refused. */
export function mountTmpfs(dir, sizeMb) {
  assert.equal(process.getuid?.(), 0, 'the storage fault tests mount a tmpfs, which needs root');
  fs.mkdirSync(dir, { recursive: true });
  execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${sizeMb}m,mode=0755`, 'forge-faults', dir]);
}

/** Remounts `dir` read-only (`ro`) or writable (`rw`); a file open for writing makes the kernel say EBUSY: retried. */
export async function remount(dir, mode) {
  for (let i = 0; ; i++) {
    try {
      execFileSync('mount', ['-o', `remount,${mode}`, dir], { stdio: 'pipe' });
      return;
    } catch (err) {
      if (i >= 100) throw err;
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}

/** Fills the file system of `dir` to the last byte (dd stops at ENOSPC). Returns the bytes still free (0). */
export function fill(dir) {
  spawnSync('dd', ['if=/dev/zero', `of=${path.join(dir, FILLER)}`, 'bs=64k'], { stdio: 'ignore' });
  return fs.statfsSync(dir).bavail * fs.statfsSync(dir).bsize;
}

/** Deletes the filler: the space returns. */
export function unfill(dir) {
  fs.rmSync(path.join(dir, FILLER), { force: true });
}

/** Detaches the mount even while files in it are open (lazy), so cleanup never hangs on a live process. */
export function unmount(dir) {
  spawnSync('umount', ['-l', dir], { stdio: 'ignore' });
}

/** Every `*.tmp` file under `dir` (a few levels), as paths relative to it. */
export function tempFiles(dir, depth = 5) {
  const out = [];
  const walk = (at, d) => {
    for (const e of fs.readdirSync(at, { withFileTypes: true })) {
      const p = path.join(at, e.name);
      if (e.isDirectory() && d > 0) walk(p, d - 1);
      else if (e.isFile() && e.name.endsWith('.tmp')) out.push(path.relative(dir, p));
    }
  };
  if (fs.existsSync(dir)) walk(dir, depth);
  return out;
}

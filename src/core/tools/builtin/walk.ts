// Breadth-first workspace walker honouring nested .gitignore files, .forgeignore, secrets and default skips.
// What it yields is what read_file would open: never .git (any letter case), secrets, .forgeignore'd paths,
// an .npmrc holding a token, or a link leaving the workspace.
// Speed: entry types come from the directory listing (no stat per entry), .gitignore is found in the listing,
// ignore rules are compiled once per file, and up to DIR_CONCURRENCY directories are read ahead while the
// output stays in the same deterministic order as a serial walk.
import * as nodePath from 'node:path';
import ignore, { type Ignore } from 'ignore';
import { type ResolvedPath, type WorkspaceSandbox } from '../../safety/paths';
import { readRegular } from '../../safety/regular-read';
import type { DirEntry } from '../../workspace/types';
import { isTransientError } from '../error-class';
import { decodeText, Pacer } from './common';

/** Largest .gitignore compiled (patterns, not data). */
const GITIGNORE_MAX_BYTES = 1024 * 1024;

/** Folders never walked (compared in lower case: on macOS and Windows 'Node_Modules' is node_modules). */
const DEFAULT_SKIP_DIRS: ReadonlySet<string> = new Set(['node_modules', '.git', '.hg', '.svn']);

/** Directory listings in flight ahead of the consumer. */
const DIR_CONCURRENCY = 16;

export interface WalkEntry {
  abs: string;
  /** Relative to the workspace folder, '/' separated. */
  rel: string;
  type: 'file' | 'dir';
}

interface WalkOptions {
  recursive: boolean;
  signal?: AbortSignal;
  /** Ignore .gitignore rules. */
  noGitignore?: boolean;
}

/** An entry whose absolute path is built only when asked for (list_files never needs it: one string fewer per
 * entry of a 100,000-entry folder). */
class Entry implements WalkEntry {
  constructor(
    private readonly dirAbs: string,
    private readonly name: string,
    private readonly sep: string,
    readonly rel: string,
    readonly type: 'file' | 'dir',
  ) {}

  get abs(): string {
    // A listed name holds no separator and the folder is normalised: a concatenation is what path.join returns.
    return this.dirAbs.endsWith(this.sep) ? this.dirAbs + this.name : this.dirAbs + this.sep + this.name;
  }
}

/** The walk's slices of work between pauses: half the tools' usual SLICE_MS, so that with the monitor's resolution, the
 * pause itself and a collection on top, no stretch of a 100,000-entry walk comes near 50 ms even on a loaded machine. */
const WALK_SLICE_MS = 4;

/** Entries handed over per batch by walkBatches. */
const BATCH = 512;

interface Level {
  base: string; // rel dir of the .gitignore ('' for root)
  ig: Ignore;
}

interface DirTask {
  abs: string;
  rel: string;
  levels: Level[];
}

/** A folder's entries as the names that passed (and whether each is a folder): the entry objects are made a batch
 * at a time as they are handed over, so a 100,000-entry folder does not keep 100,000 of them alive (old-generation
 * garbage that the collector then marks in long pauses). */
interface DirResult {
  dir: DirTask;
  names: string[];
  dirs: Uint8Array;
  subdirs: DirTask[];
}

/** Code-unit order: fast and the same on every machine and locale. */
export function byName(a: { name: string }, b: { name: string }): number {
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

/**
 * Synchronous equivalent of sandbox.isHidden() for one walk: the secret patterns and the root's ignore
 * file are compiled once instead of a .forgeignore stat per entry. Kept in step with WorkspaceSandbox by a test.
 */
export async function hiddenMatcher(
  sandbox: WorkspaceSandbox,
  root: string,
): Promise<(rel: string, isDir: boolean) => 'secret' | 'ignored' | undefined> {
  // The sandbox's own reading of the file (mtime-cached; confined: a FIFO or a link out is not used), compiled
  // afresh for this walk.
  const text = await sandbox.forgeIgnoreText(root).catch(() => undefined);
  return sandbox.hiddenMatcher(text !== undefined ? ignore({ allowRelativePaths: true }).add(text) : undefined);
}

/** Items sorted in one go; longer arrays are sorted in runs of this size and merged with pauses in between. */
const SORT_RUN = 4096;

/**
 * Array.prototype.sort for big arrays without one long block: runs of SORT_RUN items are sorted natively, then
 * merged pairwise (stable, like the native sort), with the pacer consulted as items are copied and merged. A folder
 * of 100,000 entries sorted at once blocks the host for tens of milliseconds.
 */
export async function sortPaced<T>(items: T[], cmp: (a: T, b: T) => number, pacer: Pacer): Promise<void> {
  const n = items.length;
  if (n <= SORT_RUN) {
    items.sort(cmp);
    return;
  }
  let src = items.slice();
  for (let i = 0; i < n; i += SORT_RUN) {
    const run = src.slice(i, i + SORT_RUN).sort(cmp);
    for (let k = 0; k < run.length; k++) {
      src[i + k] = run[k]!;
      if (pacer.due()) await pacer.pause(); // due() reads the clock every 64 calls
    }
  }
  let dst: T[] = new Array<T>(n);
  for (let width = SORT_RUN; width < n; width *= 2) {
    for (let lo = 0; lo < n; lo += 2 * width) {
      const mid = Math.min(lo + width, n);
      const hi = Math.min(lo + 2 * width, n);
      let a = lo;
      let b = mid;
      let o = lo;
      while (a < mid && b < hi) {
        dst[o++] = cmp(src[b]!, src[a]!) < 0 ? src[b++]! : src[a++]!;
        if (pacer.due()) await pacer.pause();
      }
      while (a < mid) dst[o++] = src[a++]!;
      while (b < hi) dst[o++] = src[b++]!;
    }
    [src, dst] = [dst, src];
  }
  for (let i = 0; i < n; i++) items[i] = src[i]!;
}

function ignoredByGit(levels: Level[], rel: string, isDir: boolean): boolean {
  let ignored = false;
  for (const l of levels) {
    const sub = l.base ? rel.slice(l.base.length + 1) : rel;
    const r = l.ig.test(isDir ? sub + '/' : sub);
    if (r.ignored) ignored = true;
    else if (r.unignored) ignored = false;
  }
  return ignored;
}

/**
 * Walks from a resolved folder. A start reached through a symbolic link is walked where it really lives (see
 * WorkspaceSandbox.canonical), so that folder's .forgeignore rules apply; callers slice `rel` against the same.
 */
export async function* walk(
  sandbox: WorkspaceSandbox,
  resolved: ResolvedPath,
  opts: WalkOptions,
): AsyncGenerator<WalkEntry> {
  const pacer = new Pacer(opts.signal);
  for await (const batch of walkBatches(sandbox, resolved, opts)) {
    for (const e of batch) {
      if (pacer.due()) await pacer.pause();
      yield e;
    }
  }
}

/**
 * walk() in batches of up to BATCH entries (same entries, same order): a consumer that handles entries without
 * awaiting (list_files) pays one promise per batch instead of one per entry.
 */
export async function* walkBatches(
  sandbox: WorkspaceSandbox,
  resolved: ResolvedPath,
  opts: WalkOptions,
): AsyncGenerator<WalkEntry[]> {
  const fs = sandbox.fs;
  const start = await sandbox.canonical(resolved);
  const p = start.root.includes('\\') ? nodePath.win32 : nodePath.posix;
  const signal = opts.signal;
  const hidden = await hiddenMatcher(sandbox, start.root);
  // One pacer for the walk: a folder of 100,000 entries, or a consumer taking entries on microtasks only, still lets
  // the host's event loop run every few milliseconds.
  const pacer = new Pacer(signal, WALK_SLICE_MS);

  /**
   * Regular files only: a FIFO named .gitignore must not hang the walk. `listedFile`: the listing already says it is
   * a regular file (no stat needed); otherwise the host's handle-checked read, or a stat first.
   */
  const compile = async (file: string, base: string, listedFile = false): Promise<Level | undefined> => {
    let bytes: Uint8Array | undefined;
    if (fs.readRegularFile) {
      const read = (f: string) => fs.readRegularFile!(f, GITIGNORE_MAX_BYTES, signal);
      // A link in the last component is refused by that read: read it at its real path instead.
      bytes = (
        await read(file)
          .catch(async (e: { code?: string }) => (e?.code === 'ELOOP' ? read(await fs.realpath(file)) : undefined))
          .catch(() => undefined)
      )?.data;
    } else if (listedFile) bytes = await fs.readFile(file, signal).catch(() => undefined);
    else {
      const read = await readRegular(fs, file, GITIGNORE_MAX_BYTES, signal).catch(() => undefined);
      bytes = read?.ok ? read.data : undefined;
    }
    return bytes ? { base, ig: ignore({ allowRelativePaths: true }).add(decodeText(bytes)) } : undefined;
  };

  // .gitignore files of the strict ancestors of the start directory apply too (its own is found in its listing).
  const initial: Level[] = [];
  const segments = start.rel ? start.rel.split('/') : [];
  if (!opts.noGitignore) {
    for (let i = 0; i < segments.length; i++) {
      const lvl = await compile(
        p.join(start.root, ...segments.slice(0, i), '.gitignore'),
        segments.slice(0, i).join('/'),
      );
      if (lvl) initial.push(lvl);
    }
  }

  const readLevel = async (dir: DirTask, listing: DirEntry[]): Promise<Level | undefined> => {
    if (opts.noGitignore) return undefined;
    const e = listing.find((x) => x.name === '.gitignore');
    if (!e || (e.type !== 'file' && e.type !== 'symlink')) return undefined;
    const abs = p.join(dir.abs, e.name);
    if (e.type === 'file') return compile(abs, dir.rel, true);
    return (await sandbox.resolve(abs, 'read')).ok ? compile(abs, dir.rel) : undefined;
  };

  /** A symlink is listed only when it stays inside the workspace, passes the sandbox, and is a file. */
  const linkedFile = async (abs: string): Promise<boolean> => {
    const r = await sandbox.resolve(abs, 'read');
    if (!r.ok) return false;
    return (await fs.stat(abs).catch(() => undefined))?.type === 'file';
  };
  /** An .npmrc is a secret by content (a token), which the name matcher cannot see. */
  const readable = async (abs: string): Promise<boolean> => (await sandbox.resolve(abs, 'read')).ok;

  const processDir = async (dir: DirTask): Promise<DirResult> => {
    let listing: DirEntry[];
    try {
      listing = await fs.readDir(dir.abs, signal);
    } catch (e) {
      // A folder that cannot be listed is left out; a busy / out-of-handles error fails the walk so the call is retried.
      if (isTransientError(e)) throw e;
      return { dir, names: [], dirs: new Uint8Array(0), subdirs: [] };
    }
    await sortPaced(listing, byName, pacer);
    const own = await readLevel(dir, listing).catch(() => undefined);
    const levels = own ? [...dir.levels, own] : dir.levels;
    const names: string[] = [];
    const dirs = new Uint8Array(listing.length);
    const subdirs: DirTask[] = [];
    for (const e of listing) {
      if (pacer.due()) await pacer.pause();
      const type = e.type;
      if (type !== 'file' && type !== 'dir' && type !== 'symlink') continue;
      const isDir = type === 'dir';
      // .git in any letter case and of any type (a worktree's .git file, a link named .git) is never shown.
      if (sandbox.isGitName(e.name) || (isDir && DEFAULT_SKIP_DIRS.has(e.name.toLowerCase()))) continue;
      const rel = dir.rel ? `${dir.rel}/${e.name}` : e.name;
      // Filters first (cheap, in memory); a symlink is judged as a file, the only thing it may become.
      if (hidden(rel, isDir)) continue;
      if (levels.length && ignoredByGit(levels, rel, isDir)) continue;
      const entry = new Entry(dir.abs, e.name, p.sep, rel, isDir ? 'dir' : 'file');
      if (type === 'symlink') {
        // Never descend into linked folders; follow file links only inside the workspace.
        if (!(await linkedFile(entry.abs).catch(() => false))) continue;
      } else if (type === 'file' && sandbox.isNpmrc(rel) && !(await readable(entry.abs).catch(() => false))) {
        continue;
      }
      if (isDir) dirs[names.length] = 1;
      names.push(e.name);
      if (isDir && opts.recursive) subdirs.push({ abs: entry.abs, rel, levels });
    }
    return { dir, names, dirs, subdirs };
  };

  // Ordered read-ahead: tasks start in queue order, at most DIR_CONCURRENCY ahead of the one being consumed,
  // and are consumed strictly in queue order, so the output never depends on which read finished first.
  const queue: DirTask[] = [{ abs: start.abs, rel: start.rel, levels: initial }];
  const started: Promise<DirResult>[] = [];
  let head = 0;
  const fill = () => {
    while (started.length < queue.length && started.length - head < DIR_CONCURRENCY) {
      const task = processDir(queue[started.length]!);
      task.catch(() => undefined); // a task abandoned by an early return must not become an unhandled rejection
      started.push(task);
    }
  };
  let lastPause = performance.now();
  while (head < queue.length) {
    signal?.throwIfAborted();
    fill();
    const res = await started[head]!;
    // Drop references to consumed work so memory stays proportional to the read-ahead window.
    queue[head] = undefined as never;
    started[head] = undefined as never;
    head++;
    queue.push(...res.subdirs);
    fill();
    const { dir, names, dirs } = res;
    for (let i = 0; i < names.length; i += BATCH) {
      // The clock is read every batch (the pacer reads it every 64 calls: 64 batches are too long a stretch).
      if (performance.now() - lastPause >= WALK_SLICE_MS) {
        await pacer.pause();
        lastPause = performance.now();
      }
      const batch: Entry[] = [];
      for (let k = i; k < names.length && k < i + BATCH; k++) {
        const name = names[k]!;
        batch.push(
          new Entry(dir.abs, name, p.sep, dir.rel ? `${dir.rel}/${name}` : name, dirs[k] === 1 ? 'dir' : 'file'),
        );
      }
      yield batch;
    }
  }
  signal?.throwIfAborted();
}

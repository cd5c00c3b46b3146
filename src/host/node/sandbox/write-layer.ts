// A contained command's own write layer. Each workspace folder is an overlay inside the sandbox: the real folder is
// the read-only lower layer and the command's writes land in an upper folder of Forge's, out of the command's reach.
// When the command ends, Forge merges the layer into the workspace and refuses every change to the control plane
// (.git, .vscode, AGENTS.md ...), whether or not the path existed before: nothing a command writes reaches the
// workspace unseen, and every change it made is known (for the card, the model and the task's checkpoints).
//
// The overlay is mounted by a small shell script in a user and mount namespace of its own (util-linux unshare and
// mount), which then runs bubblewrap; after bubblewrap ends, the same script lists the merged view of every folder
// the command touched, which tells deletions and replaced folders apart without reading overlay xattrs.
import { randomBytes } from 'node:crypto';
import type { Dirent, Stats } from 'node:fs';
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { controlPlaneMatch, isDeletableGitData, isGitData } from '../../../core/safety/control-plane';
import { shellQuote } from './profile';

export interface LayerFolder {
  /** The workspace folder (absolute, symlinks resolved): the overlay's mount point. */
  root: string;
  /** A read-only bind of the real folder, the overlay's lower layer (in Forge's private folder). */
  lower: string;
  upper: string;
  work: string;
  /** The merged view's listing of each folder in upper, written by the script after the command. */
  listing: string;
}

export interface WriteLayer {
  dir: string;
  folders: LayerFolder[];
  /** The home folder's overlay: writes there (caches, configs) stay in the task's own layer and are never merged. */
  home?: { path: string; lower: string; upper: string; work: string };
}

async function sameMode(from: string, to: string): Promise<void> {
  const st = await fsp.stat(from).catch(() => undefined);
  if (st) await fsp.chmod(to, st.mode & 0o7777);
}

/** Characters the overlay's mount options cannot carry. */
const UNSAFE_OPTION = /[,:\\\s=]/;

export function optionSafe(p: string): boolean {
  return !UNSAFE_OPTION.test(p);
}

/** Folders for one command's layer under `base` (Forge's private folder, hidden inside the sandbox). */
export async function createWriteLayer(base: string, roots: readonly string[], home?: { path: string; upper: string; work: string }): Promise<WriteLayer> {
  const dir = path.join(base, 'layers', `${Date.now().toString(36)}-${randomBytes(4).toString('hex')}`);
  const folders: LayerFolder[] = [];
  // A folder inside another one is merged with it (one overlay covers both).
  const sorted = [...new Set(roots)].sort((a, b) => a.length - b.length);
  const outer = sorted.filter((r, i) => !sorted.slice(0, i).some((o) => r === o || r.startsWith(o.endsWith('/') ? o : o + '/')));
  await fsp.mkdir(dir, { recursive: true, mode: 0o700 });
  for (const [i, root] of outer.entries()) {
    const f: LayerFolder = { root, lower: path.join(dir, `l${i}`), upper: path.join(dir, `u${i}`), work: path.join(dir, `w${i}`), listing: path.join(dir, `list${i}`) };
    await Promise.all([f.lower, f.upper, f.work].map((d) => fsp.mkdir(d, { mode: 0o700 })));
    await sameMode(root, f.upper); // the overlay's root takes its upper folder's mode
    folders.push(f);
  }
  let homeLayer: WriteLayer['home'];
  if (home) {
    const lower = path.join(dir, 'h');
    await Promise.all([fsp.mkdir(lower, { mode: 0o700 }), fsp.mkdir(home.upper, { recursive: true, mode: 0o700 }), fsp.mkdir(home.work, { recursive: true, mode: 0o700 })]);
    await sameMode(home.path, home.upper);
    homeLayer = { path: home.path, lower, upper: home.upper, work: home.work };
  }
  return { dir, folders, home: homeLayer };
}

/**
 * The script run under `unshare --user --map-root-user --mount`: mounts the layers, runs "$@" (bubblewrap and the
 * command), lists the merged view of the folders the command wrote, and exits with the command's status.
 */
export function layerScript(layer: WriteLayer): string {
  const q = shellQuote;
  const overlay = (lower: string, upper: string, work: string, target: string) =>
    `mount -t overlay forge -o lowerdir=${lower},upperdir=${upper},workdir=${work},userxattr ${q(target)}`;
  const lines = ['set -e'];
  // The real folders are bound read-only first, before the home overlay can cover a workspace under $HOME.
  for (const f of layer.folders) lines.push(`mount -r --bind ${q(f.root)} ${q(f.lower)}`);
  if (layer.home) {
    lines.push(`mount -r --bind ${q(layer.home.path)} ${q(layer.home.lower)}`);
    lines.push(overlay(layer.home.lower, layer.home.upper, layer.home.work, layer.home.path));
  }
  for (const f of layer.folders) lines.push(overlay(f.lower, f.upper, f.work, f.root));
  lines.push('set +e', '"$@"', 'rc=$?');
  const children = `xargs -0r sh -c 'exec find "$@" -mindepth 1 -maxdepth 1 -print0 2>/dev/null' list`;
  for (const f of layer.folders) {
    lines.push(`(cd ${q(f.upper)} && find . -type d -print0 | (cd ${q(f.root)} && ${children})) > ${q(f.listing)} 2>/dev/null`);
  }
  lines.push('exit $rc');
  return lines.join('\n');
}

export type LayerChangeKind = 'created' | 'modified' | 'deleted';

export interface LayerChange {
  /** Absolute path in the workspace. */
  path: string;
  kind: LayerChangeKind;
  /** Text before and after (null: absent), for files small and textual enough to keep in a checkpoint. */
  before?: string | null;
  after?: string | null;
  /** Not kept for undo (binary, too large, a folder, a link). */
  untracked?: boolean;
}

export interface LayerRefusal {
  /** Absolute path of what the command tried to change (a folder stands for everything under it). */
  path: string;
  action: 'create' | 'change' | 'delete';
  /** What runs or trusts it (control-plane.ts). */
  why: string;
}

export interface MergeResult {
  changes: LayerChange[];
  refused: LayerRefusal[];
  /** Entries that could not be applied (special files, errors). */
  skipped: { path: string; why: string }[];
  /** The merged view was not listed (the command was killed): deletions come from whiteouts only. */
  partial: boolean;
}

export interface MergeOptions {
  /** Workspace-relative folders that are control plane too (core.hooksPath targets). */
  extraControlDirs?: (root: string) => readonly string[];
  /** Files up to this size are kept as text for checkpoints (default 1 MB). */
  maxTextBytes?: number;
  /** Called before each change reaches the workspace. */
  beforeApply?: (change: LayerChange) => void | Promise<void>;
}

const BATCH = 32;

function isWhiteout(st: Stats): boolean {
  return st.isCharacterDevice() && st.rdev === 0;
}

async function lstatOrNull(p: string): Promise<Stats | null> {
  try {
    return await fsp.lstat(p);
  } catch {
    return null;
  }
}

/** Text of a file when it is small and looks textual; undefined when it is not (binary, too large). */
async function textOf(file: string, st: Stats | null, maxBytes: number): Promise<string | null | undefined> {
  if (!st) return null;
  if (!st.isFile() || st.size > maxBytes) return undefined;
  const buf = await fsp.readFile(file).catch(() => undefined);
  if (!buf || buf.includes(0)) return undefined;
  const text = buf.toString('utf8');
  return Buffer.byteLength(text) === buf.length ? text : undefined;
}

async function sameContent(a: string, b: string, sa: Stats, sb: Stats): Promise<boolean> {
  if (sa.size !== sb.size) return false;
  if (sa.size > 8 * 1024 * 1024) return false;
  const [x, y] = await Promise.all([fsp.readFile(a), fsp.readFile(b)]);
  return x.equals(y);
}

/** Parses a NUL-separated `find` listing of ./dir/name entries into dir -> names. */
function parseListing(text: string): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const entry of text.split('\0')) {
    if (!entry.startsWith('./')) continue;
    const rel = entry.slice(2);
    const cut = rel.lastIndexOf('/');
    const dir = cut < 0 ? '' : rel.slice(0, cut);
    const name = cut < 0 ? rel : rel.slice(cut + 1);
    let set = out.get(dir);
    if (!set) out.set(dir, (set = new Set()));
    set.add(name);
  }
  return out;
}

/** Merges each folder's upper layer into the workspace. Never throws for one entry: it is reported instead. */
export async function mergeWriteLayer(layer: WriteLayer, opts: MergeOptions = {}): Promise<MergeResult> {
  const result: MergeResult = { changes: [], refused: [], skipped: [], partial: false };
  for (const f of layer.folders) await mergeFolder(f, opts, result);
  return result;
}

async function mergeFolder(f: LayerFolder, opts: MergeOptions, out: MergeResult): Promise<void> {
  const maxText = opts.maxTextBytes ?? 1024 * 1024;
  const extra = opts.extraControlDirs?.(f.root) ?? [];
  const listingText = await fsp.readFile(f.listing, 'latin1').catch(() => undefined);
  // latin1 keeps every byte; names are turned back into UTF-8 below.
  const listing = listingText === undefined ? undefined : parseListing(Buffer.from(listingText, 'latin1').toString('utf8'));
  if (!listing) out.partial = true;
  const upperDev = (await fsp.stat(f.upper)).dev;
  /** Control plane for a command; a repository's data under .git (refs, objects, index) is not, as regular files. */
  const control = (rel: string, st?: Stats | null) => (st && (st.isFile() || st.isDirectory()) && isGitData(rel) ? undefined : controlPlaneMatch(rel, extra));
  const refuse = (rel: string, action: LayerRefusal['action'], why: string): void => {
    out.refused.push({ path: path.join(f.root, rel), action, why });
  };

  const apply = async (change: LayerChange, act: () => Promise<void>) => {
    try {
      await opts.beforeApply?.(change);
      await act();
      out.changes.push(change);
    } catch (e) {
      out.skipped.push({ path: change.path, why: e instanceof Error ? e.message : String(e) });
    }
  };

  const remove = async (rel: string, st: Stats) => {
    const dest = path.join(f.root, rel);
    const cp = st.isFile() && isDeletableGitData(rel) ? undefined : controlPlaneMatch(rel, extra);
    const wholeRepo = /(^|\/)\.git$/i.test(rel);
    if (cp && (wholeRepo || !(st.isDirectory() && isGitData(rel) && (await hasDeletableEntries(path.join(f.root, rel), rel))))) return refuse(rel, 'delete', cp.why);
    if (st.isDirectory()) {
      // Everything under it goes too; its control-plane entries (a nested .git) stay.
      const entries = await fsp.readdir(dest, { withFileTypes: true }).catch(() => [] as Dirent[]);
      for (const e of entries) {
        const childRel = rel ? `${rel}/${e.name}` : e.name;
        const st2 = await lstatOrNull(path.join(dest, e.name));
        if (st2) await remove(childRel, st2);
      }
      const left = await fsp.readdir(dest).catch(() => []);
      if (left.length === 0) await apply({ path: dest, kind: 'deleted', untracked: true }, () => fsp.rmdir(dest));
      return;
    }
    const before = await textOf(dest, st, maxText);
    await apply({ path: dest, kind: 'deleted', ...(before === undefined ? { untracked: true } : { before, after: null }) }, () => fsp.unlink(dest));
  };

  const walk = async (rel: string): Promise<void> => {
    const upDir = path.join(f.upper, rel);
    const destDir = path.join(f.root, rel);
    const entries = await fsp.readdir(upDir, { withFileTypes: true }).catch(() => [] as Dirent[]);
    const merged = listing?.get(rel);
    // Deletions first: what the real folder has and the merged view no longer had (a whiteout, or a replaced folder).
    const real = await fsp.readdir(destDir).catch(() => [] as string[]);
    const inUpper = new Set(entries.map((e) => e.name));
    for (const name of real) {
      const childRel = rel ? `${rel}/${name}` : name;
      const upSt = inUpper.has(name) ? await lstatOrNull(path.join(upDir, name)) : null;
      const gone = upSt ? isWhiteout(upSt) : merged !== undefined && !merged.has(name);
      if (!gone) continue;
      const st = await lstatOrNull(path.join(destDir, name));
      if (st) await remove(childRel, st);
    }
    for (let i = 0; i < entries.length; i += BATCH) {
      await Promise.all(entries.slice(i, i + BATCH).map((e) => mergeEntry(rel ? `${rel}/${e.name}` : e.name)));
    }
  };

  const mergeEntry = async (rel: string): Promise<void> => {
    const src = path.join(f.upper, rel);
    const dest = path.join(f.root, rel);
    const st = await lstatOrNull(src);
    if (!st || isWhiteout(st)) return;
    const cur = await lstatOrNull(dest);
    const cp = control(rel, st) ?? (cur && !cur.isFile() && !cur.isDirectory() ? control(rel) : undefined);
    if (st.isDirectory()) {
      if (cp) {
        // Copied up only to reach something below? Then the refusal names what changed, not the folder.
        if (cur?.isDirectory()) return walkRefusals(rel, cp.why);
        return refuse(rel, 'create', cp.why);
      }
      if (cur && !cur.isDirectory()) await remove(rel, cur);
      if (!cur || !cur.isDirectory()) {
        await apply({ path: dest, kind: 'created', untracked: true }, () => fsp.mkdir(dest, { mode: st.mode & 0o7777 }).catch((e: NodeJS.ErrnoException) => {
          if (e.code !== 'EEXIST') throw e;
        }));
      } else if ((cur.mode & 0o7777) !== (st.mode & 0o7777)) {
        await fsp.chmod(dest, st.mode & 0o7777).catch(() => undefined);
      }
      return walk(rel);
    }
    if (cp) return refuse(rel, cur ? 'change' : 'create', cp.why);
    if (st.isSymbolicLink()) {
      const target = await fsp.readlink(src);
      if (cur?.isSymbolicLink() && (await fsp.readlink(dest).catch(() => '')) === target) return;
      if (cur?.isDirectory()) await remove(rel, cur);
      await apply({ path: dest, kind: cur ? 'modified' : 'created', untracked: true }, async () => {
        if (cur && !cur.isDirectory()) await fsp.unlink(dest);
        await fsp.symlink(target, dest);
      });
      return;
    }
    if (!st.isFile()) {
      out.skipped.push({ path: dest, why: 'not a regular file, folder or link (a pipe, socket or device): not copied into the workspace' });
      return;
    }
    if (cur?.isFile() && (await sameContent(src, dest, st, cur).catch(() => false))) {
      // Opened for writing but not changed (touch, a rewrite with the same bytes): times and mode only.
      await fsp.utimes(dest, st.atime, st.mtime).catch(() => undefined);
      if ((cur.mode & 0o7777) !== (st.mode & 0o7777)) await fsp.chmod(dest, st.mode & 0o7777).catch(() => undefined);
      return;
    }
    if (cur?.isDirectory()) await remove(rel, cur);
    const before = cur?.isFile() ? await textOf(dest, cur, maxText) : cur ? undefined : null;
    const after = await textOf(src, st, maxText);
    const tracked = before !== undefined && after !== undefined;
    await apply({ path: dest, kind: cur ? 'modified' : 'created', ...(tracked ? { before, after } : { untracked: true }) }, async () => {
      if (cur && !cur.isFile() && !cur.isDirectory()) await fsp.unlink(dest);
      if (st.dev === upperDev && (await sameDevice(path.dirname(dest), upperDev))) {
        await fsp.rename(src, dest);
      } else {
        await fsp.copyFile(src, dest);
        await fsp.utimes(dest, st.atime, st.mtime).catch(() => undefined);
      }
      await fsp.chmod(dest, st.mode & 0o7777).catch(() => undefined);
    });
  };

  const devCache = new Map<string, boolean>();
  const sameDevice = async (dir: string, dev: number) => {
    let v = devCache.get(dir);
    if (v === undefined) devCache.set(dir, (v = (await fsp.stat(dir).then((s) => s.dev, () => -1)) === dev));
    return v;
  };

  /** A control-plane folder the command wrote into: one refusal per changed entry (first 20). */
  const walkRefusals = async (rel: string, why: string) => {
    const found: string[] = [];
    const visit = async (r: string) => {
      for (const e of await fsp.readdir(path.join(f.upper, r), { withFileTypes: true }).catch(() => [] as Dirent[])) {
        if (found.length >= 20) return;
        const child = `${r}/${e.name}`;
        if (e.isDirectory()) {
          const real = await lstatOrNull(path.join(f.root, child));
          if (!real?.isDirectory()) {
            found.push(child);
          } else await visit(child);
        } else {
          found.push(child);
        }
      }
      const merged = listing?.get(r);
      if (!merged) return;
      for (const name of await fsp.readdir(path.join(f.root, r)).catch(() => [] as string[])) {
        if (!merged.has(name) && found.length < 20) found.push(`${r}/${name}`);
      }
    };
    await visit(rel);
    for (const child of found) refuse(child, 'change', why);
  };

  await walk('');
}

/** A folder under .git (refs/heads) whose deletion is allowed for some of its files. */
async function hasDeletableEntries(dir: string, rel: string): Promise<boolean> {
  return isDeletableGitData(`${rel}/x`) || (await fsp.readdir(dir).catch(() => [] as string[])).some((n) => isDeletableGitData(`${rel}/${n}`));
}

/** Removes a layer's folders (after the merge, or when the command never ran). */
export async function removeWriteLayer(layer: WriteLayer): Promise<void> {
  await fsp.rm(layer.dir, { recursive: true, force: true }).catch(() => undefined);
}

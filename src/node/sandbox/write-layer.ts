// A contained command's own write layer. Each workspace folder is an overlay inside the sandbox: the real folder is
// the read-only lower layer and the command's writes land in an upper folder of Forge's, out of the command's reach.
// When the command ends, Forge merges the layer into the workspace and refuses every change to the control plane
// (.git, .vscode, AGENTS.md ...), whether or not the path existed before: nothing a command writes reaches the
// workspace unseen, and every change it made is known (for the card, the model and the task's checkpoints).
//
// The overlay is mounted in a user and mount namespace of its own (by one Perl process, or util-linux unshare and
// mount), which then runs bubblewrap; after bubblewrap ends, the same process lists the merged view of every folder
// the command touched, which tells deletions and replaced folders apart without reading overlay xattrs.
import { randomBytes } from 'node:crypto';
import type { Dirent, Stats } from 'node:fs';
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { controlPlaneMatch, isDeletableGitData, isGitData } from '../../core/safety/control-plane';
import { shellQuote } from './profile';
import { errorText } from '../../core/error-text';

interface LayerFolder {
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

/**
 * userxattr: mounted in a user namespace. volatile: no syncs of the upper layer (it is merged and deleted at once),
 * which made every file a command created cost a few milliseconds.
 */
function overlayOptions(lower: string, upper: string, work: string): string {
  return `lowerdir=${lower},upperdir=${upper},workdir=${work},userxattr,volatile`;
}

/** Characters the overlay's mount options cannot carry. */
const UNSAFE_OPTION = /[,:\\\s=]/;

export function optionSafe(p: string): boolean {
  return !UNSAFE_OPTION.test(p);
}

/** Folders for one command's layer under `base` (Forge's private folder, hidden inside the sandbox). */
export async function createWriteLayer(
  base: string,
  roots: readonly string[],
  home?: { path: string; upper: string },
): Promise<WriteLayer> {
  const dir = path.join(base, 'layers', `${Date.now().toString(36)}-${randomBytes(4).toString('hex')}`);
  const folders: LayerFolder[] = [];
  // A folder inside another one is merged with it (one overlay covers both).
  const sorted = [...new Set(roots)].sort((a, b) => a.length - b.length);
  const outer = sorted.filter(
    (r, i) => !sorted.slice(0, i).some((o) => r === o || r.startsWith(o.endsWith('/') ? o : o + '/')),
  );
  await fsp.mkdir(dir, { recursive: true, mode: 0o700 });
  for (const [i, root] of outer.entries()) {
    const f: LayerFolder = {
      root,
      lower: path.join(dir, `l${i}`),
      upper: path.join(dir, `u${i}`),
      work: path.join(dir, `w${i}`),
      listing: path.join(dir, `list${i}`),
    };
    await Promise.all([f.lower, f.upper, f.work].map((d) => fsp.mkdir(d, { mode: 0o700 })));
    await sameMode(root, f.upper); // the overlay's root takes its upper folder's mode
    folders.push(f);
  }
  let homeLayer: WriteLayer['home'];
  if (home) {
    // The upper folder is the task's (kept between its commands); the work folder is this command's own, so that two
    // mounts never share one and a volatile mount's leftovers never block the next.
    const lower = path.join(dir, 'h');
    const work = path.join(dir, 'hw');
    await Promise.all([
      fsp.mkdir(lower, { mode: 0o700 }),
      fsp.mkdir(work, { mode: 0o700 }),
      fsp.mkdir(home.upper, { recursive: true, mode: 0o700 }),
    ]);
    await sameMode(home.path, home.upper);
    homeLayer = { path: home.path, lower, upper: home.upper, work };
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
    `mount -t overlay forge -o ${overlayOptions(lower, upper, work)} ${q(target)}`;
  const lines = ['set -e'];
  // The real folders are bound read-only first, before the home overlay can cover a workspace under $HOME.
  for (const f of layer.folders) lines.push(`mount -r --bind ${q(f.root)} ${q(f.lower)}`);
  if (layer.home) {
    lines.push(`mount -r --bind ${q(layer.home.path)} ${q(layer.home.lower)}`);
    lines.push(overlay(layer.home.lower, layer.home.upper, layer.home.work, layer.home.path));
  }
  for (const f of layer.folders) lines.push(overlay(f.lower, f.upper, f.work, f.root));
  // bubblewrap runs in the background so the script can watch its own parent (soon, then every 200 ms) and end the command
  // when whoever started it is gone; signals are passed on. Commands get no stdin anyway.
  lines.push('set +e', 'parent=$PPID', '"$@" &', 'pid=$!', "trap 'kill -TERM $pid 2>/dev/null' TERM INT HUP");
  lines.push(
    'd=0.005',
    'while kill -0 $pid 2>/dev/null; do',
    '  read -r _ _ _ now _ < /proc/$$/stat',
    '  [ "$now" = "$parent" ] || kill -KILL $pid 2>/dev/null',
    '  sleep $d',
    '  case $d in 0.005) d=0.02 ;; 0.02) d=0.05 ;; *) d=0.2 ;; esac',
    'done',
  );
  lines.push('wait $pid', 'rc=$?');
  const children = `xargs -0r sh -c 'exec find "$@" -mindepth 1 -maxdepth 1 -print0 2>/dev/null' list`;
  for (const f of layer.folders) {
    lines.push(
      `(cd ${q(f.upper)} && find . -type d -print0 | (cd ${q(f.root)} && ${children})) > ${q(f.listing)} 2>/dev/null`,
    );
  }
  lines.push('exit $rc');
  return lines.join('\n');
}

/**
 * The same steps as layerScript in one Perl process (the mount syscalls direct instead of four util-linux programs,
 * the listing by readdir instead of find and xargs): about 15 ms less per command. Perl is part of every Debian and
 * Ubuntu base system; without it (or on an architecture not listed) the script above is used.
 */
const LAYER_PERL = String.raw`
use strict;
my ($SYS_UNSHARE, $SYS_MOUNT, $uid, $gid) = splice(@ARGV, 0, 4);
# Ends the command when whoever started it (the extension host, the CLI) is gone: the parent is watched below.
# (A death signal here would kill this process at once and leave bubblewrap behind, whose own one does not
# always arrive through the namespaces; killing bubblewrap ends the sandbox reliably.)
my $parent = getppid();
my @ops; for (1 .. shift @ARGV) { push @ops, [splice(@ARGV, 0, 3)]; }
my @lists; for (1 .. shift @ARGV) { push @lists, [splice(@ARGV, 0, 3)]; }
sub fail { print STDERR "forge write layer: $_[0]: $!\n"; exit 125; }
sub put { my ($f, $s) = @_; open(my $h, '>', $f) or fail("open $f"); print $h $s; close($h) or fail("write $f"); }
sub mnt { my ($src, $tgt, $type, $flags, $data) = @_; syscall($SYS_MOUNT + 0, $src, $tgt, $type, $flags, $data) == 0 or fail("mount $tgt"); }
syscall($SYS_UNSHARE + 0, 0x10000000 | 0x00020000) == 0 or fail('unshare');
put('/proc/self/setgroups', 'deny'); put('/proc/self/uid_map', "0 $uid 1"); put('/proc/self/gid_map', "0 $gid 1");
my $none = 'none'; my $ovl = 'overlay'; my $name = 'forge';
mnt($none, '/', 0, 16384 | 262144, 0);
for my $op (@ops) {
  my ($k, $a, $b) = @$op;
  if ($k eq 'B') { mnt($a, $b, 0, 4096, 0); mnt($none, $b, 0, 32 | 4096 | 1, 0); }
  else { mnt($name, $a, $ovl, 0, $b); }
}
my $pid = fork(); defined $pid or fail('fork');
if ($pid == 0) { exec { $ARGV[0] } @ARGV; print STDERR "forge write layer: exec $ARGV[0]: $!\n"; exit 127; }
$SIG{$_} = sub { kill $_[0], $pid } for qw(TERM INT HUP);
# The parent is watched, first every millisecond (a quick command is not held up), then less often, up to 100 ms.
my $st; my $delay = 0.001;
while (1) {
  my $done = waitpid($pid, 1);
  if ($done == $pid) { $st = $?; last; }
  if ($done < 0 && !$!{EINTR}) { $st = 255 << 8; last; }
  kill 'KILL', $pid if getppid() != $parent;
  select(undef, undef, undef, $delay);
  $delay = $delay * 2 > 0.1 ? 0.1 : $delay * 2;
}
for my $l (@lists) {
  my ($up, $root, $file) = @$l;
  open(my $out, '>', $file) or next; binmode $out;
  my @dirs = ('');
  while (@dirs) {
    my $rel = shift @dirs; my $u = $rel eq '' ? $up : "$up/$rel"; my $m = $rel eq '' ? $root : "$root/$rel";
    my $pre = $rel eq '' ? './' : "./$rel/";
    if (opendir(my $d, $u)) { for my $n (readdir $d) { next if $n eq '.' || $n eq '..'; push @dirs, ($rel eq '' ? $n : "$rel/$n") if !-l "$u/$n" && -d _; } closedir $d; }
    if (opendir(my $d, $m)) { for my $n (readdir $d) { next if $n eq '.' || $n eq '..'; print $out $pre, $n, "\0"; } closedir $d; }
  }
  close $out;
}
exit(($st & 127) ? 128 + ($st & 127) : ($st >> 8));
`;

/** unshare and mount syscall numbers per architecture (Linux). */
const SYSCALLS: Partial<Record<string, [unshare: number, mount: number]>> = {
  x64: [272, 165],
  arm64: [97, 40],
  riscv64: [97, 40],
  loong64: [97, 40],
};

export function perlLayerSupported(arch: string = process.arch): boolean {
  return SYSCALLS[arch] !== undefined;
}

/** argv that mounts the layer with Perl, runs what follows it (bubblewrap and the command), then lists. */
export function layerPerlArgv(
  layer: WriteLayer,
  perl: string,
  ids: { uid: number; gid: number },
  arch: string = process.arch,
): string[] {
  const nums = SYSCALLS[arch];
  if (!nums) throw new Error(`no syscall numbers for ${arch}`);
  const ops: string[][] = [];
  const overlay = (lower: string, upper: string, work: string, target: string) => [
    'O',
    target,
    overlayOptions(lower, upper, work),
  ];
  for (const f of layer.folders) ops.push(['B', f.root, f.lower]);
  if (layer.home)
    ops.push(
      ['B', layer.home.path, layer.home.lower],
      overlay(layer.home.lower, layer.home.upper, layer.home.work, layer.home.path),
    );
  for (const f of layer.folders) ops.push(overlay(f.lower, f.upper, f.work, f.root));
  const lists = layer.folders.map((f) => [f.upper, f.root, f.listing]);
  return [
    perl,
    '-e',
    LAYER_PERL,
    '--',
    String(nums[0]),
    String(nums[1]),
    String(ids.uid),
    String(ids.gid),
    String(ops.length),
    ...ops.flat(),
    String(lists.length),
    ...lists.flat(),
  ];
}

type LayerChangeKind = 'created' | 'modified' | 'deleted';

interface LayerChange {
  /** Absolute path in the workspace. */
  path: string;
  kind: LayerChangeKind;
  /** Text before and after (null: absent), for files small and textual enough to keep in a checkpoint. */
  before?: string | null;
  after?: string | null;
  /** Not kept for undo (binary, too large, past the budget, a folder or a link). */
  untracked?: boolean;
}

interface LayerRefusal {
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

interface MergeOptions {
  /** Workspace-relative folders that are control plane too (core.hooksPath targets). */
  extraControlDirs?: (root: string) => readonly string[];
  /** Files up to this size are kept as text for checkpoints (default 1 MB). */
  maxTextBytes?: number;
  /** Texts kept for checkpoints per merge, at most (files, then bytes; default 5,000 and 64 MB): the rest is counted. */
  textBudget?: { files: number; bytes: number };
}

const BATCH = 32;

function isWhiteout(st: { isCharacterDevice(): boolean; rdev?: number }): boolean {
  return st.isCharacterDevice() && (st.rdev === undefined || st.rdev === 0);
}

async function lstatOrNull(p: string): Promise<Stats | null> {
  try {
    return await fsp.lstat(p);
  } catch {
    return null;
  }
}

async function sameContent(a: string, b: string, sa: Stats, sb: Stats): Promise<boolean> {
  if (sa.size !== sb.size) return false;
  if (sa.size > 8 * 1024 * 1024) return false;
  const [x, y] = await Promise.all([fsp.readFile(a), fsp.readFile(b)]);
  return x.equals(y);
}

/** Parses a NUL-separated listing of ./dir/name entries into dir -> names. */
function parseListing(buf: Buffer): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const entry of buf.toString('utf8').split('\0')) {
    if (!entry.startsWith('./')) continue;
    const rel = entry.slice(2);
    const cut = rel.lastIndexOf('/');
    const dir = cut < 0 ? '' : rel.slice(0, cut);
    let set = out.get(dir);
    if (!set) out.set(dir, (set = new Set()));
    set.add(cut < 0 ? rel : rel.slice(cut + 1));
  }
  return out;
}

/** Merges each folder's upper layer into the workspace. Never throws for one entry: it is reported instead. */
export async function mergeWriteLayer(layer: WriteLayer, opts: MergeOptions = {}): Promise<MergeResult> {
  const result: MergeResult = { changes: [], refused: [], skipped: [], partial: false };
  const budget = { ...(opts.textBudget ?? { files: 5_000, bytes: 64 * 1024 * 1024 }) };
  for (const f of layer.folders) {
    const listing = await fsp.readFile(f.listing).then(parseListing, () => undefined);
    if (!listing) result.partial = true;
    const upperDev = (await fsp.stat(f.upper)).dev;
    const rootDev = (await fsp.stat(f.root)).dev;
    await new FolderMerge(
      f,
      listing,
      opts.extraControlDirs?.(f.root) ?? [],
      opts.maxTextBytes ?? 1024 * 1024,
      budget,
      upperDev === rootDev,
      result,
    ).run();
  }
  return result;
}

/** One workspace folder's merge: deletions first in each folder, then what the command created or changed. */
class FolderMerge {
  constructor(
    private readonly f: LayerFolder,
    private readonly listing: Map<string, Set<string>> | undefined,
    private readonly extra: readonly string[],
    private readonly maxText: number,
    private readonly budget: { files: number; bytes: number },
    /** Upper and workspace on one file system: files move by rename. */
    private readonly sameDevice: boolean,
    private readonly out: MergeResult,
  ) {}

  run(): Promise<void> {
    return this.walk('');
  }

  private dest(rel: string): string {
    return path.join(this.f.root, rel);
  }

  private up(rel: string): string {
    return path.join(this.f.upper, rel);
  }

  /** Control plane for a command; the repository's data under .git (refs, objects, index) is not, as regular files. */
  private control(rel: string, st?: { isFile(): boolean; isDirectory(): boolean } | null) {
    return st && (st.isFile() || st.isDirectory()) && isGitData(rel) ? undefined : controlPlaneMatch(rel, this.extra);
  }

  private refuse(rel: string, action: LayerRefusal['action'], why: string): void {
    this.out.refused.push({ path: this.dest(rel), action, why });
  }

  /** Text of a file for a checkpoint, within the budget; undefined when not kept. */
  private async text(file: string, size: number): Promise<string | undefined> {
    if (size > this.maxText || this.budget.files <= 0 || this.budget.bytes < size) return undefined;
    this.budget.files--;
    this.budget.bytes -= size;
    const buf = await fsp.readFile(file).catch(() => undefined);
    if (!buf || buf.includes(0)) return undefined;
    const text = buf.toString('utf8');
    return Buffer.byteLength(text) === buf.length ? text : undefined;
  }

  private async apply(change: LayerChange, act: () => Promise<void>): Promise<void> {
    try {
      await act();
      this.out.changes.push(change);
    } catch (e) {
      this.out.skipped.push({ path: change.path, why: errorText(e) });
    }
  }

  private async walk(rel: string): Promise<void> {
    const entries = await fsp.readdir(this.up(rel), { withFileTypes: true }).catch(() => [] as Dirent[]);
    const merged = this.listing?.get(rel);
    // Deletions first: what the real folder has and the merged view no longer had (a whiteout, or a replaced folder).
    const upper = new Map(entries.map((e) => [e.name, e]));
    const real = await fsp.readdir(this.dest(rel), { withFileTypes: true }).catch(() => [] as Dirent[]);
    const gone = real.filter((e) => {
      const u = upper.get(e.name);
      return u ? isWhiteout(u) : merged !== undefined && !merged.has(e.name);
    });
    await this.batch(gone, (e) => this.remove(join(rel, e.name), e));
    await this.batch(entries, (e) => this.mergeEntry(join(rel, e.name), e));
  }

  private async batch<T>(items: T[], fn: (item: T) => Promise<void>): Promise<void> {
    for (let i = 0; i < items.length; i += BATCH) await Promise.all(items.slice(i, i + BATCH).map(fn));
  }

  private async remove(rel: string, st: { isFile(): boolean; isDirectory(): boolean }): Promise<void> {
    const dest = this.dest(rel);
    const cp = st.isFile() && isDeletableGitData(rel) ? undefined : controlPlaneMatch(rel, this.extra);
    if (cp) {
      const wholeRepo = /(^|\/)\.git$/i.test(rel);
      const partly = !wholeRepo && st.isDirectory() && isGitData(rel) && (await hasDeletableEntries(dest, rel));
      if (!partly) return this.refuse(rel, 'delete', cp.why);
    }
    if (st.isDirectory()) {
      // Everything under it goes too; its control-plane entries (a nested .git) stay, and so does the folder then.
      const entries = await fsp.readdir(dest, { withFileTypes: true }).catch(() => [] as Dirent[]);
      await this.batch(entries, (e) => this.remove(join(rel, e.name), e));
      if ((await fsp.readdir(dest).catch(() => [])).length === 0)
        await this.apply({ path: dest, kind: 'deleted', untracked: true }, () => fsp.rmdir(dest));
      return;
    }
    const size = (await lstatOrNull(dest))?.size ?? 0;
    const before = st.isFile() ? await this.text(dest, size) : undefined;
    await this.apply(
      { path: dest, kind: 'deleted', ...(before === undefined ? { untracked: true } : { before, after: null }) },
      () => fsp.unlink(dest),
    );
  }

  private async mergeEntry(rel: string, e: Dirent): Promise<void> {
    if (isWhiteout(e)) return;
    const src = this.up(rel);
    const dest = this.dest(rel);
    const cur = await lstatOrNull(dest);
    const cp = this.control(rel, e) ?? (cur && !cur.isFile() && !cur.isDirectory() ? this.control(rel) : undefined);
    if (e.isDirectory()) {
      if (cp) {
        // Copied up only to reach something below? Then the refusals name what changed, not the folder.
        if (cur?.isDirectory()) return this.refuseBelow(rel, cp.why);
        return this.refuse(rel, 'create', cp.why);
      }
      if (!cur && (await this.moveNewFolder(rel))) return;
      if (cur && !cur.isDirectory()) await this.remove(rel, cur);
      if (!cur?.isDirectory()) {
        const mode = (await fsp.stat(src)).mode & 0o7777;
        await this.apply({ path: dest, kind: 'created', untracked: true }, () =>
          fsp.mkdir(dest, { mode }).then(
            () => undefined,
            (err: NodeJS.ErrnoException) => {
              if (err.code !== 'EEXIST') throw err;
            },
          ),
        );
      } else {
        const mode = (await fsp.stat(src)).mode & 0o7777;
        if ((cur.mode & 0o7777) !== mode) await fsp.chmod(dest, mode).catch(() => undefined);
      }
      return this.walk(rel);
    }
    if (cp) return this.refuse(rel, cur ? 'change' : 'create', cp.why);
    if (e.isSymbolicLink()) {
      const target = await fsp.readlink(src);
      if (cur?.isSymbolicLink() && (await fsp.readlink(dest).catch(() => '')) === target) return;
      if (cur?.isDirectory()) await this.remove(rel, cur);
      await this.apply({ path: dest, kind: cur ? 'modified' : 'created', untracked: true }, async () => {
        if (cur && !cur.isDirectory()) await fsp.unlink(dest);
        await fsp.symlink(target, dest);
      });
      return;
    }
    if (!e.isFile()) {
      this.out.skipped.push({
        path: dest,
        why: 'not a regular file, folder or link (a pipe, socket or device): not copied into the workspace',
      });
      return;
    }
    const st = await fsp.lstat(src);
    if (cur?.isFile() && (await sameContent(src, dest, st, cur).catch(() => false))) {
      // Opened for writing but not changed (touch, a rewrite with the same bytes): times and mode only.
      await fsp.utimes(dest, st.atime, st.mtime).catch(() => undefined);
      if ((cur.mode & 0o7777) !== (st.mode & 0o7777)) await fsp.chmod(dest, st.mode & 0o7777).catch(() => undefined);
      return;
    }
    if (cur?.isDirectory()) await this.remove(rel, cur);
    const before = cur?.isFile() ? await this.text(dest, cur.size) : cur ? undefined : null;
    const after = before === undefined ? undefined : await this.text(src, st.size);
    const tracked = before !== undefined && after !== undefined;
    await this.apply(
      { path: dest, kind: cur ? 'modified' : 'created', ...(tracked ? { before, after } : { untracked: true }) },
      async () => {
        if (cur && !cur.isFile() && !cur.isDirectory()) await fsp.unlink(dest);
        await this.place(src, dest, st);
      },
    );
  }

  /** Moves (same file system) or copies one file from the layer into the workspace, keeping its mode and times. */
  private async place(src: string, dest: string, st: Stats): Promise<void> {
    if (this.sameDevice) return fsp.rename(src, dest);
    await fsp.copyFile(src, dest);
    await fsp.chmod(dest, st.mode & 0o7777).catch(() => undefined);
    await fsp.utimes(dest, st.atime, st.mtime).catch(() => undefined);
  }

  /**
   * A folder the workspace does not have, with nothing of the control plane and nothing special inside (a build's
   * output, node_modules after npm install): moved in as a whole, its files listed. False: merge it entry by entry.
   */
  private async moveNewFolder(rel: string): Promise<boolean> {
    if (!this.sameDevice) return false;
    const files: { rel: string; dir: boolean }[] = [];
    const scan = async (r: string): Promise<boolean> => {
      for (const e of await fsp.readdir(this.up(r), { withFileTypes: true })) {
        const child = join(r, e.name);
        if (this.control(child, e) || !(e.isFile() || e.isDirectory() || e.isSymbolicLink())) return false;
        files.push({ rel: child, dir: e.isDirectory() });
        if (e.isDirectory() && !(await scan(child))) return false;
      }
      return true;
    };
    if (!(await scan(rel).catch(() => false))) return false;
    // Texts for the checkpoint are read before the move (from the layer).
    const changes: LayerChange[] = [{ path: this.dest(rel), kind: 'created', untracked: true }];
    await this.batch(files, async (x) => {
      const st = x.dir ? undefined : await lstatOrNull(this.up(x.rel));
      const after = st?.isFile() ? await this.text(this.up(x.rel), st.size) : undefined;
      changes.push({
        path: this.dest(x.rel),
        kind: 'created',
        ...(after === undefined ? { untracked: true } : { before: null, after }),
      });
    });
    try {
      await fsp.rename(this.up(rel), this.dest(rel));
    } catch {
      return false; // it appeared meanwhile: merge entry by entry
    }
    this.out.changes.push(...changes);
    return true;
  }

  /** A control-plane folder the command wrote into: one refusal per changed entry (first 20). */
  private async refuseBelow(rel: string, why: string): Promise<void> {
    const found: string[] = [];
    const visit = async (r: string): Promise<void> => {
      for (const e of await fsp.readdir(this.up(r), { withFileTypes: true }).catch(() => [] as Dirent[])) {
        if (found.length >= 20) return;
        const child = join(r, e.name);
        const real = e.isDirectory() ? await lstatOrNull(this.dest(child)) : null;
        if (real?.isDirectory()) await visit(child);
        else found.push(child);
      }
      const merged = this.listing?.get(r);
      if (!merged) return;
      for (const name of await fsp.readdir(this.dest(r)).catch(() => [] as string[])) {
        if (!merged.has(name) && found.length < 20) found.push(join(r, name));
      }
    };
    await visit(rel);
    for (const child of found) this.refuse(child, 'change', why);
  }
}

function join(rel: string, name: string): string {
  return rel ? `${rel}/${name}` : name;
}

/** A folder under .git (refs/heads) whose deletion is allowed for some of its files. */
async function hasDeletableEntries(dir: string, rel: string): Promise<boolean> {
  return (
    isDeletableGitData(`${rel}/x`) ||
    (await fsp.readdir(dir).catch(() => [] as string[])).some((n) => isDeletableGitData(`${rel}/${n}`))
  );
}

/** Removes a layer's folders (after the merge, or when the command never ran). */
export async function removeWriteLayer(layer: WriteLayer): Promise<void> {
  await fsp.rm(layer.dir, { recursive: true, force: true }).catch(() => undefined);
}

// Which workspace files a command changed, when that is cheap to tell: a bounded fingerprint of the workspace
// before and after the run, compared. In a git repository the fingerprint is `git status` (the dirty and untracked
// files, with their size and mtime, so a second change to an already modified file shows too); elsewhere a walk
// of the folders that gives up past a file and time budget. Detection never fails a command: when it cannot tell,
// it says nothing. Undo and checkpoints cannot restore what a command did; the panel says so on the command's card.
import { execFile } from 'node:child_process';
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import type { CommandFileChange, CommandRunner, RunRequest, RunResult } from '../core/workspace/types';

interface FingerprintOptions {
  /** Files stat'ed at most (default 5,000). */
  maxFiles?: number;
  /** Time for one fingerprint (default 0.8 s). */
  budgetMs?: number;
  /** Folder names a walk skips. */
  skipDirs?: readonly string[];
}

/** path -> "size:mtime" (or "gone"); undefined when the fingerprint could not be taken within the bounds. */
type Fingerprint = Map<string, string>;

const SKIP = [
  '.git',
  'node_modules',
  '.hg',
  '.svn',
  '.cache',
  'dist',
  'out',
  'build',
  'target',
  '.venv',
  '__pycache__',
];

function git(args: string[], cwd: string, timeoutMs: number): Promise<string | undefined> {
  return new Promise((resolve) => {
    execFile('git', args, { cwd, timeout: timeoutMs, maxBuffer: 4 * 1024 * 1024, windowsHide: true }, (err, stdout) =>
      resolve(err ? undefined : stdout),
    );
  });
}

async function stamp(file: string): Promise<string> {
  try {
    const s = await fsp.stat(file);
    return `${s.size}:${Math.round(s.mtimeMs)}`;
  } catch {
    return 'gone';
  }
}

/** Files stat'ed at once (one directory's entries, or one slice of `git status`). */
const STAT_BATCH = 64;
/** A folder found outside any repository is asked again after this long (`git init` may come later). */
const NOT_A_REPO_MS = 60_000;
/** root -> the repository's top folder (or null: not a repository, as of `at`). Spares a git spawn per fingerprint. */
const toplevels = new Map<string, { top: string | null; at: number }>();

async function toplevel(root: string, timeoutMs: number): Promise<string | null> {
  const known = toplevels.get(root);
  if (known && (known.top !== null || Date.now() - known.at < NOT_A_REPO_MS)) return known.top;
  const out = await git(['rev-parse', '--show-toplevel'], root, timeoutMs);
  const top = out === undefined ? null : out.trim();
  toplevels.set(root, { top, at: Date.now() });
  return top;
}

async function gitFingerprint(
  root: string,
  out: Fingerprint,
  opts: Required<FingerprintOptions>,
  deadline: number,
): Promise<boolean | undefined> {
  const base = await toplevel(root, opts.budgetMs);
  if (base === null) return undefined; // not a repository (or no git)
  const status = await git(
    ['status', '--porcelain=v1', '-z', '--untracked-files=all', '--', '.'],
    root,
    Math.max(100, deadline - Date.now()),
  );
  if (status === undefined) {
    toplevels.delete(root); // the repository may be gone: ask again next time
    return false;
  }
  const files: Array<[code: string, file: string]> = [];
  const entries = status.split('\0');
  for (let i = 0; i < entries.length; i++) {
    const e = entries[i];
    if (e.length < 4) continue;
    const code = e.slice(0, 2);
    if (code[0] === 'R' || code[0] === 'C') i++; // the rename's source path follows
    files.push([code, path.join(base, e.slice(3))]);
  }
  for (let i = 0; i < files.length; i += STAT_BATCH) {
    if (out.size >= opts.maxFiles || Date.now() > deadline) return false;
    const slice = files.slice(i, i + STAT_BATCH);
    const stamps = await Promise.all(slice.map(([, file]) => stamp(file)));
    slice.forEach(([code, file], k) => out.set(file, `${code}:${stamps[k]}`));
  }
  return out.size <= opts.maxFiles;
}

async function walkFingerprint(
  root: string,
  out: Fingerprint,
  opts: Required<FingerprintOptions>,
  deadline: number,
): Promise<boolean> {
  const queue = [root];
  while (queue.length) {
    const dir = queue.shift()!;
    let names: import('node:fs').Dirent[];
    try {
      names = await fsp.readdir(dir, { withFileTypes: true });
    } catch {
      continue;
    }
    const files: string[] = [];
    for (const d of names) {
      const full = path.join(dir, d.name);
      if (d.isDirectory()) {
        if (!opts.skipDirs.includes(d.name)) queue.push(full);
      } else if (d.isFile()) files.push(full);
    }
    for (let i = 0; i < files.length; i += STAT_BATCH) {
      if (out.size >= opts.maxFiles || Date.now() > deadline) return false;
      const slice = files.slice(i, i + STAT_BATCH);
      const stamps = await Promise.all(slice.map(stamp));
      slice.forEach((file, k) => out.set(file, stamps[k]!));
    }
    if (Date.now() > deadline) return false;
  }
  return out.size <= opts.maxFiles;
}

/** The workspace's fingerprint, or undefined when it is too big / slow to take within the bounds. */
export async function fingerprint(
  roots: readonly string[],
  options: FingerprintOptions = {},
): Promise<Fingerprint | undefined> {
  const opts: Required<FingerprintOptions> = {
    maxFiles: options.maxFiles ?? 5_000,
    budgetMs: options.budgetMs ?? 800,
    skipDirs: options.skipDirs ?? SKIP,
  };
  const deadline = Date.now() + opts.budgetMs;
  const out: Fingerprint = new Map();
  for (const root of roots) {
    const viaGit = await gitFingerprint(root, out, opts, deadline);
    const ok = viaGit ?? (await walkFingerprint(root, out, opts, deadline));
    if (!ok) return undefined;
  }
  return out;
}

/** Files whose fingerprint differs (appeared, changed or went away). */
export function changedFiles(before: Fingerprint, after: Fingerprint): string[] {
  const out = new Set<string>();
  for (const [file, v] of after) if (before.get(file) !== v) out.add(file);
  // Gone from the walk (deleted), or left `git status` (the command reverted, restored or committed it).
  for (const file of before.keys()) if (!after.has(file)) out.add(file);
  return [...out].sort();
}

/** `changes`: the exact changes from a write layer (with the texts a checkpoint keeps); absent for a fingerprint. */
export type CommandChangesListener = (
  taskId: string,
  toolCallId: string,
  files: string[],
  more: number,
  changes?: CommandFileChange[],
) => void;

/**
 * Wraps a command runner: fingerprints the workspace before and after each command of a task and reports the files
 * that changed. The fingerprint runs only when the request names its task and tool call.
 */
export function watchCommandChanges(
  inner: CommandRunner,
  roots: () => readonly string[],
  onChanges: CommandChangesListener,
  options?: FingerprintOptions,
): CommandRunner {
  /** Workspaces too big to fingerprint are not tried again for a while (each try costs up to the budget). */
  let giveUpUntil = 0;
  let giveUpKey = '';
  const wrapped: CommandRunner = {
    async run(req: RunRequest): Promise<RunResult> {
      const taskId = req.taskId;
      const callId = req.toolCallId;
      const folders = roots();
      const key = folders.join('\n');
      // A runner with a write layer says exactly what its command changed: no fingerprint (and no git run) needed.
      const layered = inner.containment?.().writeLayer === true;
      const tries =
        !layered && !!(taskId && callId && folders.length) && !(key === giveUpKey && Date.now() < giveUpUntil);
      const before = tries ? await fingerprint(folders, options).catch(() => undefined) : undefined;
      if (tries && !before) {
        giveUpKey = key;
        giveUpUntil = Date.now() + 10 * 60_000;
      }
      const res = await inner.run(req);
      if (res.fileChanges && taskId && callId) {
        const files = res.fileChanges.map((c) => c.path);
        if (files.length) {
          try {
            onChanges(taskId, callId, files.slice(0, 200), Math.max(0, files.length - 200), res.fileChanges);
          } catch {
            // reporting never fails the command
          }
        }
        return res;
      }
      if (before && taskId && callId && !res.sandboxFailed) {
        // Awaited (bounded by the budget), so the next tool's edits are never counted as the command's.
        const after = await fingerprint(folders, options).catch(() => undefined);
        const files = after ? changedFiles(before, after) : [];
        if (files.length) {
          try {
            onChanges(taskId, callId, files.slice(0, 200), Math.max(0, files.length - 200));
          } catch {
            // reporting never fails the command
          }
        }
      }
      return res;
    },
  };
  if (inner.containment) wrapped.containment = () => inner.containment!();
  if (inner.readOutput) wrapped.readOutput = (ref, a, b) => inner.readOutput!(ref, a, b);
  return wrapped;
}

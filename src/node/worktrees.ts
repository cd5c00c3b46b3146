// Git plumbing for parallel tasks: each background task works in its own git worktree on its own branch
// (forge/<task-slug>), so the user's working tree is untouched until they choose to apply, merge or discard.
// Conflicts are reported with the files involved, never resolved here. No 'vscode' in this file.
import { execFile } from 'node:child_process';
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';

export const BRANCH_PREFIX = 'forge/';

interface GitResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs git without a shell; never throws for a non-zero exit (the caller reads `code`). */
export function git(
  cwd: string,
  args: string[],
  opts: { input?: string; signal?: AbortSignal } = {},
): Promise<GitResult> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      'git',
      args,
      {
        cwd,
        maxBuffer: 64 * 1024 * 1024,
        signal: opts.signal,
        // No pager, no prompts, no editor: plumbing must never wait for a person.
        env: { ...process.env, GIT_TERMINAL_PROMPT: '0', GIT_PAGER: 'cat', GIT_EDITOR: 'true', LC_ALL: 'C' },
      },
      (err, stdout, stderr) => {
        const code = (err as { code?: unknown } | null)?.code;
        if (err && typeof code !== 'number') return reject(err);
        resolve({ code: typeof code === 'number' ? code : 0, stdout: String(stdout), stderr: String(stderr) });
      },
    );
    if (opts.input !== undefined) child.stdin?.end(opts.input);
  });
}

async function gitOk(cwd: string, args: string[], what: string): Promise<string> {
  const r = await git(cwd, args);
  if (r.code !== 0) throw new Error(`${what}: git ${args[0]} failed: ${(r.stderr || r.stdout).trim()}`);
  return r.stdout;
}

/** The top folder of the repository holding `dir`, or undefined outside git. */
export async function repoRoot(dir: string): Promise<string | undefined> {
  const r = await git(dir, ['rev-parse', '--show-toplevel']).catch(() => undefined);
  return r && r.code === 0 ? r.stdout.trim() : undefined;
}

/** "Fix the failing test in src/a.ts!" -> "fix-the-failing-test-in-src-a-ts" (at most 40 characters). */
export function taskSlug(title: string): string {
  const slug = title
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40)
    .replace(/-+$/, '');
  return slug || 'task';
}

export interface TaskWorktree {
  /** The user's repository (top folder). */
  repo: string;
  /** The worktree folder the task works in. */
  path: string;
  branch: string;
  /** The commit the task started from. */
  base: string;
}

interface CreateWorktreeOptions {
  /** Where worktrees go (default: <repo>/../.forge-worktrees/<repo name>); outside the repo so tools never see them twice. */
  baseDir?: string;
  /** Start from this commit-ish (default HEAD). */
  from?: string;
}

/** A new branch forge/<slug>[-n] and its worktree, from HEAD. The user's working tree is not touched. */
export async function createTaskWorktree(
  repoDir: string,
  title: string,
  opts: CreateWorktreeOptions = {},
): Promise<TaskWorktree> {
  const repo = await repoRoot(repoDir);
  if (!repo) throw new Error(`${repoDir} is not inside a git repository`);
  const base = (
    await gitOk(repo, ['rev-parse', '--verify', `${opts.from ?? 'HEAD'}^{commit}`], 'start a task worktree')
  ).trim();
  const root = opts.baseDir ?? path.join(path.dirname(repo), '.forge-worktrees', path.basename(repo));
  await fsp.mkdir(root, { recursive: true });
  const slug = taskSlug(title);
  for (let n = 1; n < 100; n++) {
    const name = n === 1 ? slug : `${slug}-${n}`;
    const branch = `${BRANCH_PREFIX}${name}`;
    const dir = path.join(root, name);
    const taken =
      (await git(repo, ['show-ref', '--verify', '--quiet', `refs/heads/${branch}`])).code === 0 ||
      (await fsp.stat(dir).then(
        () => true,
        () => false,
      ));
    if (taken) continue;
    await gitOk(repo, ['worktree', 'add', '-b', branch, dir, base], 'create the task worktree');
    return { repo, path: dir, branch, base };
  }
  throw new Error(`too many task branches named ${BRANCH_PREFIX}${slug}-*`);
}

type ChangeStatus = 'added' | 'modified' | 'deleted' | 'renamed';

export interface FileChange {
  /** Path relative to the repository. */
  path: string;
  status: ChangeStatus;
  /** For renames: the old path. */
  from?: string;
}

/** Commits everything the task left in its worktree (new files included) on its branch. False when nothing changed. */
export async function commitTaskWork(wt: TaskWorktree, message: string): Promise<boolean> {
  await gitOk(wt.path, ['add', '-A'], 'record the task changes');
  const staged = await git(wt.path, ['diff', '--cached', '--quiet']);
  if (staged.code === 0) return false;
  await gitOk(
    wt.path,
    ['-c', 'user.name=Forge', '-c', 'user.email=forge@localhost', 'commit', '-q', '--no-verify', '-m', message],
    'commit the task changes',
  );
  return true;
}

/** What the task changed: its branch against the commit it started from (commit first with commitTaskWork). */
export async function taskChanges(wt: TaskWorktree): Promise<FileChange[]> {
  const out = await gitOk(wt.repo, ['diff', '--name-status', '-M', '-z', wt.base, wt.branch], 'list the task changes');
  const parts = out.split('\0').filter((p) => p !== '');
  const changes: FileChange[] = [];
  for (let i = 0; i < parts.length;) {
    const code = parts[i++];
    if (code.startsWith('R')) {
      const from = parts[i++];
      changes.push({ path: parts[i++], status: 'renamed', from });
    } else {
      changes.push({ path: parts[i++], status: code === 'A' ? 'added' : code === 'D' ? 'deleted' : 'modified' });
    }
  }
  return changes;
}

/** A file's text at the commit the task started from (undefined when it did not exist there). */
export async function baseText(wt: TaskWorktree, relPath: string): Promise<string | undefined> {
  const r = await git(wt.repo, ['show', `${wt.base}:${relPath.split(path.sep).join('/')}`]);
  return r.code === 0 ? r.stdout : undefined;
}

export interface IntegrateResult {
  ok: boolean;
  /** Files that could not be integrated cleanly (nothing was changed for `apply`; see `merge`). */
  conflicts: string[];
  message: string;
}

/**
 * Applies the task's changes to the user's working tree (not committed, index untouched). All or nothing: when
 * any file no longer matches what the task started from, nothing is written and the files are listed.
 */
export async function applyToWorkingTree(wt: TaskWorktree): Promise<IntegrateResult> {
  const patch = await gitOk(wt.repo, ['diff', '--binary', '-M', wt.base, wt.branch], 'build the task patch');
  if (!patch.trim()) return { ok: true, conflicts: [], message: 'The task changed nothing.' };
  const check = await git(wt.repo, ['apply', '--check', '--whitespace=nowarn', '-'], { input: patch });
  if (check.code !== 0) {
    const conflicts = conflictFiles(check.stderr);
    return {
      ok: false,
      conflicts,
      message: `Not applied: ${conflicts.length ? conflicts.join(', ') : 'some files'} changed in your working tree since the task started. Merge the branch ${wt.branch} instead to resolve the conflicts, or discard.\n${check.stderr.trim()}`,
    };
  }
  const applied = await git(wt.repo, ['apply', '--whitespace=nowarn', '-'], { input: patch });
  if (applied.code !== 0)
    return { ok: false, conflicts: conflictFiles(applied.stderr), message: `Not applied: ${applied.stderr.trim()}` };
  return {
    ok: true,
    conflicts: [],
    message: `Applied the changes of ${wt.branch} to the working tree (not committed).`,
  };
}

function conflictFiles(stderr: string): string[] {
  const files = new Set<string>();
  for (const m of stderr.matchAll(
    /error: (?:patch failed: )?([^:\n]+?)(?::\d+)?(?:: (?:patch does not apply|already exists in working directory|does not exist in index|No such file or directory))?$/gm,
  )) {
    const f = m[1].trim();
    if (f && !f.startsWith('patch failed') && !/^(patch|corrupt)/.test(f)) files.add(f);
  }
  return [...files];
}

/**
 * Merges the task branch into the user's current branch (a merge commit). On conflicts the merge is left in
 * progress with the conflict markers in place, for the user to resolve (VS Code shows them) or abort with
 * `git merge --abort`; nothing is resolved here.
 */
export async function mergeTaskBranch(wt: TaskWorktree, message = `Merge ${wt.branch}`): Promise<IntegrateResult> {
  const r = await git(wt.repo, [
    '-c',
    'user.name=Forge',
    '-c',
    'user.email=forge@localhost',
    'merge',
    '--no-ff',
    '--no-edit',
    '-m',
    message,
    wt.branch,
  ]);
  if (r.code === 0) return { ok: true, conflicts: [], message: `Merged ${wt.branch}.` };
  const unmerged = await git(wt.repo, ['diff', '--name-only', '--diff-filter=U']);
  const conflicts = unmerged.stdout
    .split('\n')
    .map((s) => s.trim())
    .filter(Boolean);
  if (conflicts.length)
    return {
      ok: false,
      conflicts,
      message: `Merge of ${wt.branch} stopped on conflicts in ${conflicts.join(', ')}: resolve them and commit, or run git merge --abort.`,
    };
  return { ok: false, conflicts: [], message: `Merge of ${wt.branch} did not start: ${(r.stderr || r.stdout).trim()}` };
}

/** Removes the worktree and deletes its branch (the task's work is gone unless merged or applied). */
export async function discardTaskWorktree(wt: TaskWorktree): Promise<void> {
  const rm = await git(wt.repo, ['worktree', 'remove', '--force', wt.path]);
  if (rm.code !== 0) {
    await fsp.rm(wt.path, { recursive: true, force: true });
    await git(wt.repo, ['worktree', 'prune']);
  }
  await git(wt.repo, ['branch', '-D', wt.branch]);
}

/**
 * The forge/* worktrees of a repository (after a reload: the tasks still waiting for a decision). Their base
 * is where the branch forked from the current HEAD.
 */
export async function listTaskWorktrees(repoDir: string): Promise<TaskWorktree[]> {
  const repo = await repoRoot(repoDir);
  if (!repo) return [];
  const out = await gitOk(repo, ['worktree', 'list', '--porcelain'], 'list worktrees');
  const result: TaskWorktree[] = [];
  for (const block of out.split('\n\n')) {
    const dir = /^worktree (.+)$/m.exec(block)?.[1];
    const branch = /^branch refs\/heads\/(.+)$/m.exec(block)?.[1];
    if (!dir || !branch?.startsWith(BRANCH_PREFIX)) continue;
    const base = (await git(repo, ['merge-base', 'HEAD', branch])).stdout.trim();
    if (base) result.push({ repo, path: dir, branch, base });
  }
  return result;
}

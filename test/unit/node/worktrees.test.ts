// Git plumbing of parallel tasks, against real git in temp repositories.
import assert from 'node:assert/strict';
import { existsSync, promises as fsp, readFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import {
  applyToWorkingTree,
  baseText,
  commitTaskWork,
  createTaskWorktree,
  discardTaskWorktree,
  git,
  listTaskWorktrees,
  mergeTaskBranch,
  repoRoot,
  taskChanges,
  taskSlug,
} from '../../../src/node/worktrees';

async function sh(cwd: string, ...args: string[]): Promise<string> {
  const r = await git(cwd, ['-c', 'user.name=T', '-c', 'user.email=t@t', ...args]);
  assert.equal(r.code, 0, `git ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

describe('worktrees: parallel tasks in git worktrees', () => {
  let tmp: string;
  let repo: string;
  let wtRoot: string;

  beforeEach(async () => {
    tmp = await fsp.realpath(await fsp.mkdtemp(path.join(os.tmpdir(), 'forge-wt-')));
    repo = path.join(tmp, 'repo');
    wtRoot = path.join(tmp, 'worktrees');
    await fsp.mkdir(repo);
    await sh(repo, 'init', '-q', '-b', 'main');
    await fsp.writeFile(path.join(repo, 'a.txt'), 'one\ntwo\nthree\n');
    await fsp.writeFile(path.join(repo, 'b.txt'), 'bee\n');
    await sh(repo, 'add', '-A');
    await sh(repo, 'commit', '-qm', 'init');
  });
  afterEach(async () => fsp.rm(tmp, { recursive: true, force: true }));

  it('slugs and repository detection', async () => {
    assert.equal(taskSlug('Fix the failing test in src/a.ts!'), 'fix-the-failing-test-in-src-a-ts');
    assert.equal(taskSlug('???'), 'task');
    assert.equal(await repoRoot(path.join(repo)), repo);
    assert.equal(await repoRoot(tmp), undefined);
  });

  it('a task gets its own branch and worktree; the user tree is untouched; changes are listed with their base text', async () => {
    const wt = await createTaskWorktree(repo, 'Edit a', { baseDir: wtRoot });
    assert.equal(wt.branch, 'forge/edit-a');
    const second = await createTaskWorktree(repo, 'Edit a', { baseDir: wtRoot });
    assert.equal(second.branch, 'forge/edit-a-2', 'a second task with the same title gets its own branch');
    await fsp.writeFile(path.join(wt.path, 'a.txt'), 'one\nTWO\nthree\n');
    await fsp.writeFile(path.join(wt.path, 'new.txt'), 'new\n');
    await fsp.rm(path.join(wt.path, 'b.txt'));
    assert.equal(await commitTaskWork(wt, 'forge: edit a'), true);
    assert.equal(await commitTaskWork(wt, 'again'), false, 'nothing left to commit');
    assert.equal(readFileSync(path.join(repo, 'a.txt'), 'utf8'), 'one\ntwo\nthree\n', 'the user tree is untouched');
    assert.equal((await sh(repo, 'status', '--porcelain')).trim(), '');
    const changes = await taskChanges(wt);
    assert.deepEqual(
      changes.sort((x, y) => x.path.localeCompare(y.path)),
      [
        { path: 'a.txt', status: 'modified' },
        { path: 'b.txt', status: 'deleted' },
        { path: 'new.txt', status: 'added' },
      ],
    );
    assert.equal(await baseText(wt, 'a.txt'), 'one\ntwo\nthree\n');
    assert.equal(await baseText(wt, 'new.txt'), undefined);
    const listed = await listTaskWorktrees(repo);
    assert.deepEqual(listed.map((w) => w.branch).sort(), ['forge/edit-a', 'forge/edit-a-2']);
    assert.equal(listed.find((w) => w.branch === 'forge/edit-a')?.base, wt.base);
  });

  it('apply: writes the changes into the working tree without committing; refuses as a whole on a conflict', async () => {
    const wt = await createTaskWorktree(repo, 'apply me', { baseDir: wtRoot });
    await fsp.writeFile(path.join(wt.path, 'a.txt'), 'one\nTWO\nthree\n');
    await fsp.writeFile(path.join(wt.path, 'b.txt'), 'BEE\n');
    await commitTaskWork(wt, 'task');

    // The user changed b.txt meanwhile: nothing is applied, b.txt is named.
    await fsp.writeFile(path.join(repo, 'b.txt'), 'bee, edited by the user\n');
    const refused = await applyToWorkingTree(wt);
    assert.equal(refused.ok, false);
    assert.deepEqual(refused.conflicts, ['b.txt']);
    assert.equal(readFileSync(path.join(repo, 'a.txt'), 'utf8'), 'one\ntwo\nthree\n', 'all or nothing');
    assert.equal(readFileSync(path.join(repo, 'b.txt'), 'utf8'), 'bee, edited by the user\n', 'the user edit is kept');

    await sh(repo, 'checkout', '--', 'b.txt');
    const applied = await applyToWorkingTree(wt);
    assert.equal(applied.ok, true, applied.message);
    assert.equal(readFileSync(path.join(repo, 'a.txt'), 'utf8'), 'one\nTWO\nthree\n');
    assert.match(await sh(repo, 'status', '--porcelain'), / M a\.txt/, 'in the working tree, not committed or staged');
  });

  it('merge: a clean merge commits; a conflicting one stops with the conflicts shown, unresolved', async () => {
    const clean = await createTaskWorktree(repo, 'clean', { baseDir: wtRoot });
    await fsp.writeFile(path.join(clean.path, 'new.txt'), 'from the task\n');
    await commitTaskWork(clean, 'task: new file');
    const merged = await mergeTaskBranch(clean);
    assert.equal(merged.ok, true, merged.message);
    assert.equal(readFileSync(path.join(repo, 'new.txt'), 'utf8'), 'from the task\n');

    const clash = await createTaskWorktree(repo, 'clash', { baseDir: wtRoot });
    await fsp.writeFile(path.join(clash.path, 'a.txt'), 'one\nTASK\nthree\n');
    await commitTaskWork(clash, 'task: a');
    await fsp.writeFile(path.join(repo, 'a.txt'), 'one\nUSER\nthree\n');
    await sh(repo, 'commit', '-qam', 'user: a');
    const stopped = await mergeTaskBranch(clash);
    assert.equal(stopped.ok, false);
    assert.deepEqual(stopped.conflicts, ['a.txt']);
    const text = readFileSync(path.join(repo, 'a.txt'), 'utf8');
    assert.ok(
      text.includes('<<<<<<<') && text.includes('USER') && text.includes('TASK'),
      'both sides left for the user',
    );
    await sh(repo, 'merge', '--abort');
  });

  it('discard: the worktree folder and the branch are gone', async () => {
    const wt = await createTaskWorktree(repo, 'throw away', { baseDir: wtRoot });
    await fsp.writeFile(path.join(wt.path, 'junk.txt'), 'x\n');
    await discardTaskWorktree(wt);
    assert.equal(existsSync(wt.path), false);
    assert.equal((await git(repo, ['show-ref', '--verify', '--quiet', 'refs/heads/forge/throw-away'])).code, 1);
    assert.deepEqual(await listTaskWorktrees(repo), []);
  });
});

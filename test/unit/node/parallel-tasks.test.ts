// Background tasks in parallel git worktrees: real git, real Node file tools, scripted models.
import assert from 'node:assert/strict';
import { promises as fsp, readFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Agent } from '../../../src/core/loop/agent';
import { createWorkspaceTools } from '../../../src/core/tools/builtin';
import { NodeCommandRunner, DiskEditApplier, NodeWorkspaceFs } from '../../../src/node';
import { ParallelTasks, type BackgroundTask } from '../../../src/node/parallel-tasks';
import { git, type TaskWorktree } from '../../../src/node/worktrees';
import { callsTurn, doneTurn, ScriptedModel } from '../../support/scripted-model';

async function sh(cwd: string, ...args: string[]) {
  const r = await git(cwd, ['-c', 'user.name=T', '-c', 'user.email=t@t', ...args]);
  assert.equal(r.code, 0, r.stderr);
  return r.stdout;
}

const allow = { request: async () => ({ kind: 'approve' as const }) };

/** An Agent working in the worktree: writes `file` with `content`, then completes. Each model turn waits a little. */
function agentFor(wt: TaskWorktree, file: string, content: string): Agent {
  const fs = new NodeWorkspaceFs([wt.path]);
  const tools = createWorkspaceTools({
    fs,
    runner: new NodeCommandRunner(),
    applier: new DiskEditApplier(),
    sandbox: { trusted: true },
  });
  const model = new ScriptedModel([
    { events: callsTurn(['write_file', { path: file, content }]), delayMs: 20 },
    { events: doneTurn(`wrote ${file}`), delayMs: 20 },
  ]);
  return new Agent({ model, tools, approver: allow });
}

describe('parallel tasks in git worktrees', () => {
  let tmp: string;
  let repo: string;

  beforeEach(async () => {
    tmp = await fsp.realpath(await fsp.mkdtemp(path.join(os.tmpdir(), 'forge-par-')));
    repo = path.join(tmp, 'repo');
    await fsp.mkdir(repo);
    await sh(repo, 'init', '-q', '-b', 'main');
    await fsp.writeFile(path.join(repo, 'shared.txt'), 'base\n');
    await sh(repo, 'add', '-A');
    await sh(repo, 'commit', '-qm', 'init');
  });
  afterEach(async () => fsp.rm(tmp, { recursive: true, force: true }));

  it('runs at most maxTasks at once, each in its own worktree; the user tree is untouched until apply / merge', async () => {
    let running = 0;
    let peak = 0;
    const seen = new Map<string, BackgroundTask['status'][]>();
    const files: Record<string, [string, string]> = {
      'task one': ['one.txt', '1\n'],
      'task two': ['two.txt', '2\n'],
      'task three': ['shared.txt', 'changed by three\n'],
    };
    const par = new ParallelTasks({
      repo,
      maxTasks: () => 2,
      worktreeDir: path.join(tmp, 'wts'),
      makeAgent: (wt, task) => agentFor(wt, ...files[task.text]),
      onChange: (t) => {
        const list = seen.get(t.id) ?? [];
        if (list.at(-1) !== t.status) list.push(t.status);
        seen.set(t.id, list);
        running = par.activeCount;
        peak = Math.max(peak, running);
      },
    });
    const ids = Object.keys(files).map((text) => par.start(text).id);
    await par.whenIdle();
    assert.equal(peak, 2, 'never more than maxTasks at once');
    const tasks = ids.map((id) => par.get(id)!);
    for (const t of tasks) {
      assert.equal(t.status, 'ready', `${t.title}: ${t.error ?? ''}`);
      assert.equal(t.report?.reason, 'done');
      assert.deepEqual(seen.get(t.id)?.slice(0, 3), ['queued', 'starting', 'running']);
    }
    assert.deepEqual(
      tasks.map((t) => t.worktree!.branch),
      ['forge/task-one', 'forge/task-two', 'forge/task-three'],
    );
    assert.deepEqual(tasks[2].changes, [{ path: 'shared.txt', status: 'modified' }]);
    assert.equal(readFileSync(path.join(repo, 'shared.txt'), 'utf8'), 'base\n', 'user tree untouched');
    assert.equal((await sh(repo, 'status', '--porcelain')).trim(), '');

    // Merge two, apply the third; the user then has all three changes.
    assert.equal((await par.merge(ids[0])).ok, true);
    assert.equal((await par.merge(ids[1])).ok, true);
    const applied = await par.apply(ids[2]);
    assert.equal(applied.ok, true, applied.message);
    assert.equal(readFileSync(path.join(repo, 'one.txt'), 'utf8'), '1\n');
    assert.equal(readFileSync(path.join(repo, 'two.txt'), 'utf8'), '2\n');
    assert.equal(readFileSync(path.join(repo, 'shared.txt'), 'utf8'), 'changed by three\n');
    assert.deepEqual(
      par.list().map((t) => t.status),
      ['merged', 'merged', 'applied'],
    );
  });

  it('two tasks editing the same lines: the second merge stops on the conflict and says where', async () => {
    const par = new ParallelTasks({
      repo,
      maxTasks: () => 4,
      worktreeDir: path.join(tmp, 'wts'),
      makeAgent: (wt, task) => agentFor(wt, 'shared.txt', `${task.text}\n`),
    });
    const a = par.start('alpha').id;
    const b = par.start('beta').id;
    await par.whenIdle();
    assert.equal((await par.merge(a)).ok, true);
    const second = await par.merge(b);
    assert.equal(second.ok, false);
    assert.deepEqual(second.conflicts, ['shared.txt']);
    assert.equal(par.get(b)?.status, 'ready', 'still waiting for a decision');
    assert.match(
      readFileSync(path.join(repo, 'shared.txt'), 'utf8'),
      /<<<<<<<[\s\S]*alpha[\s\S]*beta|<<<<<<<[\s\S]*beta[\s\S]*alpha/,
    );
    await sh(repo, 'merge', '--abort');
    await par.discard(b);
    assert.equal(par.get(b)?.status, 'discarded');
  });

  it('after a reload, the worktrees left behind come back as tasks ready for review', async () => {
    const wts = path.join(tmp, 'wts');
    const before = new ParallelTasks({
      repo,
      maxTasks: () => 1,
      worktreeDir: wts,
      makeAgent: (wt) => agentFor(wt, 'kept.txt', 'kept\n'),
    });
    before.start('survive a reload');
    await before.whenIdle();
    const after = new ParallelTasks({
      repo,
      maxTasks: () => 1,
      worktreeDir: wts,
      makeAgent: () => assert.fail('no new run'),
    });
    const adopted = await after.adoptExisting();
    assert.equal(adopted.length, 1);
    assert.equal(adopted[0].status, 'ready');
    assert.equal(adopted[0].worktree?.branch, 'forge/survive-a-reload');
    assert.deepEqual(adopted[0].changes, [{ path: 'kept.txt', status: 'added' }]);
    assert.deepEqual(await after.adoptExisting(), [], 'adopted once');
    assert.equal((await after.apply(adopted[0].id)).ok, true);
    assert.equal(readFileSync(path.join(repo, 'kept.txt'), 'utf8'), 'kept\n');
  });

  it('a stopped task keeps its work on its branch, reviewable', async () => {
    const par = new ParallelTasks({
      repo,
      maxTasks: () => 1,
      worktreeDir: path.join(tmp, 'wts'),
      makeAgent: (wt) => {
        const fs = new NodeWorkspaceFs([wt.path]);
        const tools = createWorkspaceTools({
          fs,
          runner: new NodeCommandRunner(),
          applier: new DiskEditApplier(),
          sandbox: { trusted: true },
        });
        const model = new ScriptedModel([
          callsTurn(['write_file', { path: 'partial.txt', content: 'half\n' }]),
          { events: [], hang: 'honour' },
        ]);
        return new Agent({ model, tools, approver: allow });
      },
      onChange: (t) => {
        if (t.status === 'running' && t.iteration === 2) par.stop(t.id);
      },
    });
    const queued = par.start('long one').id;
    const dropped = par.start('never runs').id;
    par.stop(dropped);
    await par.whenIdle();
    const t = par.get(queued)!;
    assert.equal(t.report?.reason, 'stopped');
    assert.equal(t.status, 'ready');
    assert.deepEqual(t.changes, [{ path: 'partial.txt', status: 'added' }]);
    assert.equal(par.get(dropped)?.status, 'discarded');
  });
});

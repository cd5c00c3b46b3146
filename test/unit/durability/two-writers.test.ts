// Two windows on one workspace, as two processes writing at once: the memory file merges both writers' lines,
// and of two processes opening the same task exactly one owns it (the other neither saves nor overwrites).
import * as assert from 'node:assert/strict';
import { fork, type ChildProcess } from 'node:child_process';
import { promises as fsp } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { MemoryStore } from '../../../src/core/memory/store';
import { NodeMemoryFileIO } from '../../../src/node/memory-file-io';
import { TaskLeases } from '../../../src/node/lease';
import { TaskStore } from '../../../src/core/tasks/task-store';
import { NodeTasksIO } from '../../../src/node/tasks-io';

const WRITER = path.join(__dirname, 'fixtures', 'writer.ts');

interface Result {
  done: true;
  error?: string;
  [k: string]: unknown;
}

/** Starts each job in its own process, releases them together, and collects their results. */
async function runTogether(jobs: unknown[]): Promise<Result[]> {
  const children: ChildProcess[] = jobs.map(() =>
    fork(WRITER, [], { execArgv: ['--require', 'tsx/cjs'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] }),
  );
  const results = children.map(
    (child) =>
      new Promise<Result>((resolve, reject) => {
        child.on('message', (m: Result | { ready: true }) => {
          if ('done' in m) resolve(m);
        });
        child.on('exit', (code) => (code === 0 ? undefined : reject(new Error(`writer exited with ${code}`))));
      }),
  );
  await Promise.all(
    children.map(
      (child, i) =>
        new Promise<void>((resolve) => {
          child.once('message', () => resolve());
          child.send({ job: jobs[i] });
        }),
    ),
  );
  children.forEach((c) => c.send({ go: true }));
  return Promise.all(results);
}

describe('durability: two processes writing at once', function () {
  this.timeout(60_000);
  let dir: string;
  beforeEach(async () => {
    dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'forge-two-'));
  });
  afterEach(async () => {
    await fsp.rm(dir, { recursive: true, force: true, maxRetries: 5 });
  });

  it('memory.jsonl: two writers adding (and rewriting with touch) at once lose nothing', async () => {
    const file = path.join(dir, '.forge', 'memory.jsonl');
    const count = 25;
    const [a, b] = await runTogether([
      { op: 'memory', file, tag: 'alpha', count },
      { op: 'memory', file, tag: 'beta', count },
    ]);
    assert.equal(a.error, undefined, a.error);
    assert.equal(b.error, undefined, b.error);
    const store = await MemoryStore.open(new NodeMemoryFileIO(), file, 'workspace');
    const items = await store.list();
    const ids = new Set(items.map((i) => i.id));
    for (const id of [...(a.ids as string[]), ...(b.ids as string[])])
      assert.ok(ids.has(id), `learning ${id} was lost`);
    assert.equal(items.length, 2 * count);
    assert.equal(store.corruptLines.length, 0, 'no torn or interleaved lines');
    assert.deepEqual((await fsp.readdir(path.dirname(file))).sort(), ['memory.jsonl'], 'no lock or temp file left');
  });

  it('the same task from two processes: exactly one owns it; the other is told who and writes nothing', async () => {
    const tasks = path.join(dir, 'history');
    const leases = path.join(dir, 'leases');
    const results = await runTogether([
      { op: 'task', dir: tasks, leases, taskId: 'shared', tag: 'win-a', saves: 5 },
      { op: 'task', dir: tasks, leases, taskId: 'shared', tag: 'win-b', saves: 5 },
    ]);
    for (const r of results) assert.equal(r.error, undefined, r.error);
    const owners = results.filter((r) => r.owner === true);
    const refused = results.filter((r) => r.owner === false);
    assert.equal(owners.length, 1, `exactly one owner, got ${JSON.stringify(results)}`);
    assert.equal(refused.length, 1);
    const winner = results[0].owner ? 'win-a' : 'win-b';
    assert.equal(refused[0].holder, winner, 'the refused window learns who holds the task');
    const store = await TaskStore.open(tasks, { io: new NodeTasksIO() });
    const record = await store.load('shared');
    assert.equal(record?.title, `by ${winner}`);
    assert.equal(record?.updatedAt, 5, "the owner's last save is what is on disk");
  });
});

describe('durability: task leases', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'forge-lease-'));
  });
  afterEach(async () => {
    await fsp.rm(dir, { recursive: true, force: true, maxRetries: 5 });
  });

  it('refuses a live lease, takes over an expired one, and the old holder learns it lost the task', async () => {
    let now = 1_000_000;
    const lost: string[] = [];
    const a = new TaskLeases(dir, {
      owner: 'A',
      label: 'window A',
      heartbeatMs: 0,
      ttlMs: 30_000,
      now: () => now,
      onLost: (id) => lost.push(id),
    });
    const b = new TaskLeases(dir, { owner: 'B', heartbeatMs: 0, ttlMs: 30_000, now: () => now });
    assert.deepEqual(await a.acquire('t1'), { ok: true });
    const refused = await b.acquire('t1');
    assert.equal(refused.ok, false);
    assert.equal(!refused.ok && refused.holder.label, 'window A');

    now += 20_000;
    await a.heartbeat(); // A is alive: its lease is fresh again
    now += 20_000;
    assert.equal((await b.acquire('t1')).ok, false, 'a lease refreshed by the heartbeat stays with its owner');

    now += 31_000; // A stopped beating (suspended, or its window crashed)
    const taken = await b.acquire('t1');
    assert.equal(taken.ok, true);
    assert.equal(taken.ok && taken.tookOver?.owner, 'A');
    assert.equal(await a.confirm('t1'), false, 'A must not save any more');
    assert.deepEqual(lost, ['t1']);
    assert.equal(a.holds('t1'), false);
    await b.release('t1');
    assert.equal(await a.holder('t1'), undefined);
  });

  it('a lease whose process is gone (this machine) is taken over at once; a torn lease file protects nothing', async () => {
    const a = new TaskLeases(dir, { owner: 'A', heartbeatMs: 0, pidAlive: () => false });
    await fsp.writeFile(
      path.join(dir, 't2.json'),
      JSON.stringify({ owner: 'crashed', pid: 999_999, host: os.hostname(), at: Date.now() }),
    );
    assert.equal((await a.acquire('t2')).ok, true);
    await fsp.writeFile(path.join(dir, 't3.json'), '{"owner":"half');
    assert.equal((await a.acquire('t3')).ok, true);
    await a.dispose();
    assert.deepEqual(await fsp.readdir(dir), [], 'dispose releases every lease');
  });
});

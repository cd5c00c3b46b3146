import * as assert from 'node:assert/strict';
import { promises as fsp } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { assertSnapshot, type AgentSnapshot } from '../../../../src/core/tasks/snapshot';
import { TaskStore, type TaskRecord } from '../../../../src/core/tasks/task-store';
import { NodeTasksIO } from '../../../../src/node/tasks-io';

function snapshot(taskId: string, extra: Partial<AgentSnapshot> = {}): AgentSnapshot {
  return {
    version: 1,
    taskId,
    mode: 'implement',
    history: [
      { role: 'user', content: 'Add a --verbose flag to the CLI' },
      {
        role: 'assistant',
        content: 'Reading the entry point first.',
        thinking: [{ text: 'The CLI lives in src/cli.ts', signature: 'sig-1' }] as never,
        toolCalls: [
          { id: 'call_1', name: 'read_file', args: { path: 'src/cli.ts' }, rawArgs: '{"path":"src/cli.ts"}' },
        ],
      },
      { role: 'tool', toolCallId: 'call_1', toolName: 'read_file', content: 'export function main() {}\n' },
    ],
    iterations: 2,
    maxIterations: 50,
    allowedForTask: ['read_file'],
    usage: { inputTokens: 1200, outputTokens: 340, cacheReadTokens: 800 },
    costUsd: 0.0123,
    anchor: { inputTokens: 1200, messageCount: 2 },
    lastUserMessage: 'Add a --verbose flag to the CLI',
    pending: {
      request: {
        id: 'appr-1',
        taskId,
        toolCallId: 'call_2',
        toolName: 'write_file',
        risk: 'write',
        args: { path: 'src/cli.ts', content: 'x' },
      },
      calls: [{ id: 'call_2', name: 'write_file', args: { path: 'src/cli.ts', content: 'x' }, rawArgs: '{}' }],
      iteration: 2,
    },
    counters: { runs: 1, approvals: 0 },
    ...extra,
  };
}

function record(id: string, updatedAt: number, extra: Partial<TaskRecord> = {}): TaskRecord {
  return {
    id,
    title: `Task ${id}`,
    createdAt: updatedAt - 1000,
    updatedAt,
    mode: 'implement',
    status: 'running',
    iterations: 2,
    costUsd: 0.0123,
    snapshot: snapshot(id),
    transcript: { items: [{ kind: 'user', text: 'Add a --verbose flag' }], scroll: 0 },
    ...extra,
  };
}

describe('tasks/TaskStore', () => {
  let dir: string;
  const logs: string[] = [];
  const log = (m: string) => logs.push(m);

  beforeEach(async () => {
    dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'forge-tasks-'));
    logs.length = 0;
  });
  afterEach(async () => {
    await fsp.rm(dir, { recursive: true, force: true, maxRetries: 5 });
  });

  it('round-trips save / list / load across a reopen, newest first', async () => {
    const store = await TaskStore.open(dir, { io: new NodeTasksIO(), log });
    await store.save(record('a', 1000));
    await store.save(record('b', 3000, { title: 'Second', status: 'done' }));
    await store.save(record('c', 2000));
    await store.flush();

    const reopened = await TaskStore.open(dir, { io: new NodeTasksIO(), log });
    const list = await reopened.list();
    assert.deepEqual(
      list.map((t) => t.id),
      ['b', 'c', 'a'],
    );
    assert.deepEqual(list[0], {
      id: 'b',
      title: 'Second',
      createdAt: 2000,
      updatedAt: 3000,
      mode: 'implement',
      status: 'done',
      iterations: 2,
      costUsd: 0.0123,
    });
    assert.equal('snapshot' in list[0], false, 'the list carries summaries, not snapshots');

    const loaded = await reopened.load('b');
    assert.deepEqual(loaded, record('b', 3000, { title: 'Second', status: 'done' }));
    assertSnapshot(loaded!.snapshot);
    assert.equal(await reopened.load('nope'), undefined);
  });

  it('a corrupt task file with nothing to recover is moved aside, leaves the list (logged), and the others still load', async () => {
    const store = await TaskStore.open(dir, { io: new NodeTasksIO(), log });
    await store.save(record('good', 1000));
    await store.save(record('bad', 2000));
    await store.flush();
    await fsp.writeFile(path.join(dir, 'tasks', 'bad.json'), '{"version":1,"task":{"id":"bad",', 'utf8');

    const reopened = await TaskStore.open(dir, { io: new NodeTasksIO(), log });
    assert.deepEqual(
      (await reopened.list()).map((t) => t.id),
      ['good'],
      'the history never lists a task it cannot open',
    );
    assert.equal(await reopened.load('bad'), undefined);
    assert.ok(
      logs.some((m) => m.includes('bad.json')),
      `expected a log about bad.json, got ${JSON.stringify(logs)}`,
    );
    const kept = (await fsp.readdir(path.join(dir, 'tasks'))).filter((n) => n.startsWith('bad.json.corrupt-'));
    assert.equal(kept.length, 1, 'the damaged file is kept aside for the user');
    assert.equal(await fsp.readFile(path.join(dir, 'tasks', kept[0]), 'utf8'), '{"version":1,"task":{"id":"bad",');
    assert.equal((await reopened.load('good'))?.title, 'Task good');
  });

  it('rebuilds a missing or corrupt index from the task files', async () => {
    const store = await TaskStore.open(dir, { io: new NodeTasksIO(), log });
    await store.save(record('a', 1000));
    await store.save(record('b', 2000));
    await store.flush();
    const indexFile = path.join(dir, 'tasks-index.json');

    await fsp.rm(indexFile);
    const rebuilt = await TaskStore.open(dir, { io: new NodeTasksIO(), log });
    assert.deepEqual(
      (await rebuilt.list()).map((t) => t.id),
      ['b', 'a'],
    );
    await rebuilt.flush();
    assert.ok((await fsp.readFile(indexFile, 'utf8')).includes('"b"'), 'the rebuilt index is written back');

    await fsp.writeFile(indexFile, 'not json at all', 'utf8');
    const again = await TaskStore.open(dir, { io: new NodeTasksIO(), log });
    assert.deepEqual(
      (await again.list()).map((t) => t.id),
      ['b', 'a'],
    );
    assert.ok(logs.some((m) => m.includes('corrupt')));
  });

  it('reconciles a stale index: a task written just before a crash appears, a deleted file disappears', async () => {
    const store = await TaskStore.open(dir, { io: new NodeTasksIO(), log });
    await store.save(record('a', 1000));
    await store.save(record('b', 2000));
    await store.flush();
    const staleIndex = await fsp.readFile(path.join(dir, 'tasks-index.json'), 'utf8');
    await store.save(record('c', 3000));
    await store.flush();
    // Crash between the task write and the index write: the old index is what survives.
    await fsp.writeFile(path.join(dir, 'tasks-index.json'), staleIndex, 'utf8');
    await fsp.rm(path.join(dir, 'tasks', 'a.json'));

    const reopened = await TaskStore.open(dir, { io: new NodeTasksIO(), log });
    assert.deepEqual(
      (await reopened.list()).map((t) => t.id),
      ['c', 'b'],
    );
  });

  it('prunes the oldest tasks beyond maxTasks (index and files)', async () => {
    const store = await TaskStore.open(dir, { io: new NodeTasksIO(), log, maxTasks: 3 });
    for (let i = 1; i <= 5; i++) await store.save(record(`t${i}`, i * 1000));
    await store.flush();
    assert.deepEqual(
      (await store.list()).map((t) => t.id),
      ['t5', 't4', 't3'],
    );
    assert.equal(await store.load('t1'), undefined);
    const files = (await fsp.readdir(path.join(dir, 'tasks'))).sort();
    assert.deepEqual(files, ['t3.json', 't4.json', 't5.json']);
    const reopened = await TaskStore.open(dir, { io: new NodeTasksIO(), log, maxTasks: 3 });
    assert.deepEqual(
      (await reopened.list()).map((t) => t.id),
      ['t5', 't4', 't3'],
    );
  });

  it('coalesces saves that pile up: the first write runs, only the latest of the rest is written', async () => {
    const written: string[] = [];
    let releaseFirst!: () => void;
    const firstGate = new Promise<void>((r) => (releaseFirst = r));
    class SlowIO extends NodeTasksIO {
      override async writeAtomic(file: string, content: string): Promise<void> {
        if (file.endsWith(path.join('tasks', 'x.json'))) {
          written.push((JSON.parse(content) as { task: TaskRecord }).task.title);
          if (written.length === 1) await firstGate;
        }
        return super.writeAtomic(file, content);
      }
    }
    const store = await TaskStore.open(dir, { log, io: new SlowIO() });
    const saves = [store.save(record('x', 1, { title: 'v1' }))];
    await new Promise((r) => setTimeout(r, 20)); // v1's write is now in flight (held at the gate)
    assert.equal((await store.load('x'))?.title, 'v1', 'load sees a save whose write is in flight');
    for (const n of [2, 3, 4, 5]) saves.push(store.save(record('x', n, { title: `v${n}` })));
    assert.equal((await store.load('x'))?.title, 'v5', 'load sees the newest pending save');
    releaseFirst();
    await Promise.all(saves);
    await store.flush();
    assert.deepEqual(written, ['v1', 'v5']);
    const reopened = await TaskStore.open(dir, { io: new NodeTasksIO(), log });
    assert.equal((await reopened.load('x'))?.title, 'v5');
  });

  it('crash safety: a failed rename keeps the previous record, leftover temp files are ignored and cleaned', async () => {
    const store = await TaskStore.open(dir, { io: new NodeTasksIO(), log });
    await store.save(record('a', 1000, { title: 'committed' }));
    await store.flush();

    let failRename = true;
    const crashing = new NodeTasksIO({
      rename: async (from, to) => {
        if (failRename) throw Object.assign(new Error('simulated crash'), { code: 'EIO' });
        await fsp.rename(from, to);
      },
    });
    const store2 = await TaskStore.open(dir, { log, io: crashing });
    await assert.rejects(store2.save(record('a', 2000, { title: 'half-written' })), /simulated crash/);
    assert.equal((await store2.list())[0].title, 'committed', 'the list falls back to what is on disk');
    failRename = false;

    // A temp file a real crash would leave (valid-looking content of another task).
    const leftover = path.join(dir, 'tasks', '.ghost.json.1a2b3c4d.tmp');
    await fsp.writeFile(leftover, JSON.stringify({ version: 1, task: record('ghost', 9000) }), 'utf8');

    const reopened = await TaskStore.open(dir, { io: new NodeTasksIO(), log });
    assert.equal((await reopened.load('a'))?.title, 'committed');
    assert.deepEqual(
      (await reopened.list()).map((t) => t.id),
      ['a'],
    );
    assert.equal(await reopened.load('ghost'), undefined);
    await assert.rejects(fsp.stat(leftover), { code: 'ENOENT' });
  });

  it('saves requested in the same tick collapse into one write', async () => {
    let writes = 0;
    class CountingIO extends NodeTasksIO {
      override async writeAtomic(file: string, content: string): Promise<void> {
        if (file.endsWith(path.join('tasks', 'y.json'))) writes++;
        return super.writeAtomic(file, content);
      }
    }
    const store = await TaskStore.open(dir, { log, io: new CountingIO() });
    await Promise.all([1, 2, 3].map((n) => store.save(record('y', n, { title: `v${n}` }))));
    assert.equal(writes, 1);
    assert.equal((await store.load('y'))?.title, 'v3');
  });

  it('remove deletes the task (pending save included) and survives a reopen', async () => {
    const store = await TaskStore.open(dir, { io: new NodeTasksIO(), log });
    await store.save(record('keep', 1000));
    await store.save(record('gone', 2000));
    void store.save(record('gone', 3000, { title: 'late' }));
    await store.remove('gone');
    await store.flush();
    assert.deepEqual(
      (await store.list()).map((t) => t.id),
      ['keep'],
    );
    const reopened = await TaskStore.open(dir, { io: new NodeTasksIO(), log });
    assert.deepEqual(
      (await reopened.list()).map((t) => t.id),
      ['keep'],
    );
    assert.equal(await reopened.load('gone'), undefined);
  });

  it('keeps odd task ids inside its directory', async () => {
    const store = await TaskStore.open(dir, { io: new NodeTasksIO(), log });
    await store.save(record('../../escape', 1000));
    await store.save(record('Task With Spaces', 2000));
    await store.flush();
    for (const name of await fsp.readdir(path.join(dir, 'tasks'))) assert.match(name, /^[a-z0-9_-]+\.json$/);
    const reopened = await TaskStore.open(dir, { io: new NodeTasksIO(), log });
    assert.equal((await reopened.load('../../escape'))?.id, '../../escape');
    assert.deepEqual(
      (await reopened.list()).map((t) => t.id),
      ['Task With Spaces', '../../escape'],
    );
    await fsp.rm(path.join(dir, 'tasks-index.json'));
    const rebuilt = await TaskStore.open(dir, { io: new NodeTasksIO(), log });
    assert.deepEqual(
      (await rebuilt.list()).map((t) => t.id),
      ['Task With Spaces', '../../escape'],
    );
  });
});

import * as assert from 'node:assert/strict';
import { promises as fsp } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { sha256 } from '../../../../src/core/tasks/blob-store';
import { NodeTasksIO } from '../../../../src/node/tasks-io';
import { EditJournal, type EditJournalOptions } from '../../../../src/core/tasks/journal';
import { TaskStore, type StoreNotice, type TaskRecord } from '../../../../src/core/tasks/task-store';

/** NodeTasksIO with hooks, to stop a collection or a record at an exact point. */
class HookedIO extends NodeTasksIO {
  onList?: (dir: string) => Promise<void> | void;
  onAppend?: (file: string) => Promise<void> | void;
  failRead?: (file: string) => boolean;

  override async list(dir: string): Promise<string[]> {
    await this.onList?.(dir);
    return super.list(dir);
  }

  override async append(file: string, text: string): Promise<void> {
    await this.onAppend?.(file);
    return super.append(file, text);
  }

  override async read(file: string): Promise<string | undefined> {
    if (this.failRead?.(file)) throw new Error(`EIO: ${file}`);
    return super.read(file);
  }
}

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

function task(id: string, updatedAt: number): TaskRecord {
  return { id, title: `Task ${id}`, createdAt: updatedAt, updatedAt, mode: 'implement', status: 'done', snapshot: {} };
}

describe('tasks/journal retention', () => {
  let root: string;
  let blobsDir: string;
  const logs: string[] = [];
  const log = (m: string) => logs.push(m);
  // The clock runs an hour ahead of file mtimes, so the grace period protects nothing: only references and pins do.
  const ahead = () => Date.now() + 3_600_000;
  const open = (opts: Partial<EditJournalOptions> = {}) =>
    EditJournal.open(root, { io: new NodeTasksIO(), log, now: ahead, gcGraceMs: 0, ...opts });

  beforeEach(async () => {
    root = await fsp.mkdtemp(path.join(os.tmpdir(), 'forge-retention-'));
    blobsDir = path.join(root, 'journal', 'blobs');
    logs.length = 0;
  });
  afterEach(async () => {
    await fsp.rm(root, { recursive: true, force: true, maxRetries: 5 });
  });

  async function blobHashes(): Promise<string[]> {
    const out: string[] = [];
    for (const sub of await fsp.readdir(blobsDir).catch(() => []))
      out.push(...(await fsp.readdir(path.join(blobsDir, sub))));
    return out.sort();
  }
  const hashes = (...texts: string[]) => texts.map(sha256).sort();

  it('removeTask deletes the log and the index entry, also across a reopen', async () => {
    const j = await open();
    await j.record({ taskId: 'gone', path: 'a', before: null, after: 'a1' });
    await j.record({ taskId: 'kept', path: 'b', before: null, after: 'b1' });
    const logFile = path.join(root, 'journal', 'logs', 'gone.jsonl');
    await fsp.access(logFile);

    assert.equal(await j.removeTask('gone'), true);
    assert.equal(await j.removeTask('never-existed'), false);
    await j.flush();
    await assert.rejects(fsp.access(logFile));
    assert.deepEqual(await j.tasksWithEdits(), ['kept']);
    assert.deepEqual(await j.entries('gone'), []);
    const index = JSON.parse(await fsp.readFile(path.join(root, 'journal', 'index.json'), 'utf8'));
    assert.deepEqual(Object.keys(index.tasks), ['kept']);

    const reopened = await open();
    assert.deepEqual(await reopened.tasksWithEdits(), ['kept']);
    assert.equal((await reopened.entries('kept')).length, 1);
  });

  it('collectGarbage removes only blobs no remaining log references (shared blobs survive)', async () => {
    const j = await open();
    await j.record({ taskId: 't1', path: 'f', before: 'only-t1', after: 'shared' });
    await j.record({ taskId: 't2', path: 'g', before: 'shared', after: 'only-t2' });
    assert.deepEqual(await j.collectGarbage(), { removedBlobs: 0, freedBytes: 0 }, 'everything is referenced');

    await j.removeTask('t1');
    assert.deepEqual(await j.collectGarbage(), { removedBlobs: 1, freedBytes: Buffer.byteLength('only-t1') });
    assert.deepEqual(await blobHashes(), hashes('shared', 'only-t2'));
    const fresh = await open();
    assert.deepEqual(
      (await fresh.entries('t2')).map((e) => [e.before, e.after]),
      [['shared', 'only-t2']],
    );

    await fresh.removeTask('t2');
    assert.equal((await fresh.collectGarbage()).removedBlobs, 2);
    assert.deepEqual(await blobHashes(), []);
    // `j` recorded 'shared' before another instance swept it: the same content coming back is written again.
    await j.record({ taskId: 't3', path: 'h', before: null, after: 'shared' });
    assert.deepEqual(
      (await (await open()).entries('t3')).map((e) => e.after),
      ['shared'],
    );
  });

  it('keeps unreferenced blobs modified within the grace period (writers in other windows)', async () => {
    const j = await EditJournal.open(root, { io: new NodeTasksIO(), log, gcGraceMs: 60_000 }); // real clock
    await j.record({ taskId: 't', path: 'f', before: null, after: 'recent' });
    await j.removeTask('t');
    assert.deepEqual(await j.collectGarbage(), { removedBlobs: 0, freedBytes: 0 });
    assert.deepEqual(await blobHashes(), hashes('recent'));
  });

  it('a record() during the sweep keeps its blob: new content, and content of an orphan blob about to be swept', async () => {
    const io = new HookedIO();
    const j = await open({ io });
    await j.record({ taskId: 'old', path: 'f', before: null, after: 'orphan' });
    await j.removeTask('old');

    // Pause the sweep right after the mark (when it lists the blobs) and record meanwhile.
    const marked = deferred();
    const go = deferred();
    io.onList = async (dir) => {
      if (dir !== blobsDir) return;
      io.onList = undefined;
      marked.resolve();
      await go.promise;
    };
    const gc = j.collectGarbage();
    await marked.promise;
    await j.record({ taskId: 'new', path: 'f', before: 'orphan', after: 'brand new' });
    go.resolve();
    assert.deepEqual(await gc, { removedBlobs: 0, freedBytes: 0 });

    assert.deepEqual(await blobHashes(), hashes('orphan', 'brand new'));
    assert.deepEqual(
      (await (await open()).entries('new')).map((e) => [e.before, e.after]),
      [['orphan', 'brand new']],
    );
    // Now referenced by a log, so later collections keep them too.
    assert.equal((await j.collectGarbage()).removedBlobs, 0);
  });

  it('a record() whose blobs are written but not yet logged when the collection starts keeps them', async () => {
    const io = new HookedIO();
    const j = await open({ io });
    await j.record({ taskId: 'old', path: 'f', before: null, after: 'reused' });
    await j.removeTask('old');

    const appending = deferred();
    const go = deferred();
    io.onAppend = async () => {
      io.onAppend = undefined;
      appending.resolve();
      await go.promise;
    };
    const recorded = j.record({ taskId: 'new', path: 'f', before: 'reused', after: 'fresh' });
    await appending.promise; // blobs are on disk, the log line is not
    assert.deepEqual(await j.collectGarbage(), { removedBlobs: 0, freedBytes: 0 });
    go.resolve();
    await recorded;
    assert.deepEqual(
      (await (await open()).entries('new')).map((e) => [e.before, e.after]),
      [['reused', 'fresh']],
    );
  });

  it('deletes nothing when a log cannot be read (the mark would be incomplete)', async () => {
    const io = new HookedIO();
    const j = await open({ io });
    await j.record({ taskId: 'a', path: 'f', before: null, after: 'a1' });
    await j.record({ taskId: 'b', path: 'f', before: null, after: 'b1' });
    await j.removeTask('a');
    io.failRead = (file) => file.endsWith('b.jsonl');
    await assert.rejects(j.collectGarbage(), /EIO/);
    assert.deepEqual(await blobHashes(), hashes('a1', 'b1'));
    io.failRead = undefined;
    assert.equal((await j.collectGarbage()).removedBlobs, 1, 'a failed collection does not block the next one');
  });

  it('collectGarbageSoon is debounced, logs what it freed, and dispose cancels it', async () => {
    const timers: { fn: () => void; ms: number; cancelled: boolean }[] = [];
    const schedule = (fn: () => void, ms: number) => {
      const t = { fn, ms, cancelled: false };
      timers.push(t);
      return () => void (t.cancelled = true);
    };
    const j = await open({ schedule });
    await j.record({ taskId: 't', path: 'f', before: null, after: 'x' });
    await j.removeTask('t');
    j.collectGarbageSoon(1000);
    j.collectGarbageSoon(1000);
    j.collectGarbageSoon(5000);
    assert.deepEqual(
      timers.map((t) => [t.ms, t.cancelled]),
      [
        [1000, true],
        [1000, true],
        [5000, false],
      ],
    );
    timers[2].fn();
    await j.collectGarbage(); // queued behind the background run
    assert.deepEqual(await blobHashes(), []);
    assert.ok(
      logs.some((m) => m.includes('collected 1 unreferenced blob')),
      logs.join('\n'),
    );

    j.collectGarbageSoon(1000);
    j.dispose();
    assert.equal(timers[3].cancelled, true);
    j.collectGarbageSoon(1000);
    assert.equal(timers.length, 4, 'nothing is scheduled after dispose');
  });
});

describe('tasks/TaskStore removal hooks', () => {
  let dir: string;
  const log = () => undefined;

  beforeEach(async () => {
    dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'forge-removal-'));
  });
  afterEach(async () => {
    await fsp.rm(dir, { recursive: true, force: true, maxRetries: 5 });
  });

  it('onRemoved hears removed tasks only: tasks beyond maxTasks are archived (files moved, never deleted)', async () => {
    const removed: string[][] = [];
    const store = await TaskStore.open(dir, {
      io: new NodeTasksIO(),
      log,
      maxTasks: 2,
      onRemoved: (ids) => removed.push(ids),
    });
    for (let i = 1; i <= 4; i++) await store.save(task(`t${i}`, i * 1000));
    await store.remove('t3');
    await store.remove('t3'); // already gone: the file delete still succeeds (idempotent), nothing else to drop
    assert.deepEqual(removed, [['t3'], ['t3']]);
    assert.deepEqual((await fsp.readdir(path.join(dir, 'archive'))).sort(), ['t1.json', 't2.json']);
  });

  it('onNotice: a late listener gets the archive notice of the open, with ids, titles and the folder', async () => {
    const first = await TaskStore.open(dir, { io: new NodeTasksIO(), log, maxTasks: 5 });
    for (let i = 1; i <= 4; i++) await first.save(task(`t${i}`, i * 1000));
    await first.flush();
    await fsp.rm(path.join(dir, 'tasks-index.json')); // forces a rebuild (and a prune) on open

    const store = await TaskStore.open(dir, { io: new NodeTasksIO(), log, maxTasks: 2 });
    const heard: StoreNotice[] = [];
    const sub = store.onNotice((n) => heard.push(n));
    await Promise.resolve();
    assert.equal(heard.length, 1);
    const n = heard[0] as Extract<StoreNotice, { kind: 'archived' }>;
    assert.equal(n.kind, 'archived');
    assert.deepEqual([...n.ids].sort(), ['t1', 't2']);
    assert.equal(n.limit, 2);
    assert.equal(n.dir, path.join(dir, 'archive'));
    await store.save(task('t5', 5000));
    assert.deepEqual((heard[1] as { ids: string[] }).ids, ['t3']);
    sub.dispose();
    await store.save(task('t6', 6000));
    assert.equal(heard.length, 2);
    const archived = (await fsp.readdir(path.join(dir, 'archive'))).sort();
    assert.deepEqual(archived, ['t1.json', 't2.json', 't3.json', 't4.json']);
  });

  it('removing a task through the TaskStore removes its journal, and GC then frees its blobs', async () => {
    const journal = await EditJournal.open(dir, {
      io: new NodeTasksIO(),
      log,
      now: () => Date.now() + 3_600_000,
      gcGraceMs: 0,
    });
    const removals: Promise<unknown>[] = [];
    // The wiring the controller does: removed tasks leave the journal too.
    const store = await TaskStore.open(path.join(dir, 'history'), {
      io: new NodeTasksIO(),
      log,
      onRemoved: (ids) => removals.push(Promise.all(ids.map((id) => journal.removeTask(id)))),
    });
    await journal.record({ taskId: 'old', path: 'f', before: 'v0', after: 'v1' });
    await store.save(task('old', 1000));
    await journal.record({ taskId: 'new', path: 'f', before: 'v1', after: 'v2' });
    await store.save(task('new', 2000));
    await store.remove('old');
    await Promise.all(removals);

    assert.deepEqual(await journal.tasksWithEdits(), ['new']);
    assert.deepEqual(
      await journal.collectGarbage(),
      { removedBlobs: 1, freedBytes: 2 },
      'v0 goes, v1 is shared with "new"',
    );
    assert.deepEqual(
      (await journal.entries('new')).map((e) => [e.before, e.after]),
      [['v1', 'v2']],
    );
  });
});

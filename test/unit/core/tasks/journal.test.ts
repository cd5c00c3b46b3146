import * as assert from 'node:assert/strict';
import { promises as fsp } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { EditJournal, type JournalFs } from '../../../../src/core/tasks/journal';
import { sha256 } from '../../../../src/core/tasks/blob-store';
import { NodeTasksIO } from '../../../../src/node/tasks-io';

/** The workspace as the host would expose it: real files under `ws`. */
function workspaceFs(ws: string): JournalFs {
  return {
    async read(p) {
      try {
        return await fsp.readFile(path.join(ws, p), 'utf8');
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
        throw err;
      }
    },
    async write(p, content) {
      await fsp.mkdir(path.dirname(path.join(ws, p)), { recursive: true });
      await fsp.writeFile(path.join(ws, p), content, 'utf8');
    },
    async remove(p) {
      await fsp.rm(path.join(ws, p));
    },
  };
}

describe('tasks/EditJournal', () => {
  let root: string;
  let store: string;
  let ws: string;
  let fs: JournalFs;
  const logs: string[] = [];
  const log = (m: string) => logs.push(m);
  let clock = 1_000;
  const now = () => ++clock;

  beforeEach(async () => {
    root = await fsp.mkdtemp(path.join(os.tmpdir(), 'forge-journal-'));
    store = path.join(root, 'store');
    ws = path.join(root, 'ws');
    await fsp.mkdir(ws, { recursive: true });
    fs = workspaceFs(ws);
    logs.length = 0;
  });
  afterEach(async () => {
    await fsp.rm(root, { recursive: true, force: true, maxRetries: 5 });
  });

  /** Apply an edit to the workspace and journal it, as the host does after the user accepts it. */
  async function edit(j: EditJournal, taskId: string, file: string, after: string | null, toolCallId?: string) {
    const before = await fs.read(file);
    if (after === null) await fs.remove(file);
    else await fs.write(file, after);
    return j.record({ taskId, path: file, before, after, toolCallId });
  }
  const read = (file: string) => fs.read(file);

  it('records edits with increasing seqs and undoes them: created file deleted, multiply-edited file back to the first before', async () => {
    await fs.write('src/a.ts', 'a0');
    await fs.write('src/b.ts', 'b0');
    const j = await EditJournal.open(store, { io: new NodeTasksIO(), log, now });
    const e1 = await edit(j, 't1', 'src/a.ts', 'a1', 'call_1');
    await edit(j, 't1', 'src/new.ts', 'created');
    await edit(j, 't1', 'src/a.ts', 'a2');
    await edit(j, 't1', 'src/b.ts', 'b1');
    await edit(j, 't1', 'src/a.ts', 'a3');
    assert.equal(e1.seq, 1);
    assert.equal(e1.toolCallId, 'call_1');
    assert.equal(e1.before, 'a0');

    const entries = await j.entries('t1');
    assert.deepEqual(
      entries.map((e) => [e.seq, e.path, e.before, e.after]),
      [
        [1, 'src/a.ts', 'a0', 'a1'],
        [2, 'src/new.ts', null, 'created'],
        [3, 'src/a.ts', 'a1', 'a2'],
        [4, 'src/b.ts', 'b0', 'b1'],
        [5, 'src/a.ts', 'a2', 'a3'],
      ],
    );
    assert.deepEqual(await j.tasksWithEdits(), ['t1']);

    // A fresh instance (after a reload) can undo from disk alone.
    const reopened = await EditJournal.open(store, { io: new NodeTasksIO(), log, now });
    const result = await reopened.undoTask('t1', fs);
    assert.deepEqual(result.conflicts, []);
    assert.deepEqual(result.restored.sort(), ['src/a.ts', 'src/b.ts']);
    assert.deepEqual(result.deleted, ['src/new.ts']);
    assert.equal(await read('src/a.ts'), 'a0');
    assert.equal(await read('src/b.ts'), 'b0');
    assert.equal(await read('src/new.ts'), null);
    assert.deepEqual(await reopened.tasksWithEdits(), []);
    assert.ok((await reopened.entries('t1')).every((e) => e.undone === true));
  });

  it('undo twice is a no-op the second time, also after a reopen', async () => {
    await fs.write('f.txt', 'v0');
    const j = await EditJournal.open(store, { io: new NodeTasksIO(), log, now });
    await edit(j, 't', 'f.txt', 'v1');
    assert.deepEqual((await j.undoTask('t', fs)).restored, ['f.txt']);
    await fs.write('f.txt', 'v1'); // whatever is there now must not be touched again
    assert.deepEqual(await j.undoTask('t', fs), { restored: [], deleted: [], conflicts: [] });
    const reopened = await EditJournal.open(store, { io: new NodeTasksIO(), log, now });
    assert.deepEqual(await reopened.undoTask('t', fs), { restored: [], deleted: [], conflicts: [] });
    assert.equal(await read('f.txt'), 'v1');
  });

  it('reports a conflict when the user changed a file since, restores the rest, and force overrides', async () => {
    await fs.write('mine.ts', 'm0');
    await fs.write('other.ts', 'o0');
    const j = await EditJournal.open(store, { io: new NodeTasksIO(), log, now });
    await edit(j, 't', 'mine.ts', 'm1');
    await edit(j, 't', 'other.ts', 'o1');
    await fs.write('mine.ts', 'm1 + user change');

    const first = await j.undoTask('t', fs);
    assert.deepEqual(first.restored, ['other.ts']);
    assert.deepEqual(first.conflicts, [{ path: 'mine.ts', reason: 'modified since the task edited it' }]);
    assert.equal(await read('mine.ts'), 'm1 + user change', 'a conflicting file is left alone');
    assert.equal(await read('other.ts'), 'o0');
    assert.deepEqual(await j.tasksWithEdits(), ['t'], 'the skipped edit can still be undone');

    const forced = await j.undoTask('t', fs, { force: true });
    assert.deepEqual(forced, { restored: ['mine.ts'], deleted: [], conflicts: [] });
    assert.equal(await read('mine.ts'), 'm0');
    assert.deepEqual(await j.tasksWithEdits(), []);
  });

  it('reports a file the user deleted since as a conflict', async () => {
    await fs.write('gone.ts', 'g0');
    const j = await EditJournal.open(store, { io: new NodeTasksIO(), log, now });
    await edit(j, 't', 'gone.ts', 'g1');
    await fs.remove('gone.ts');
    const result = await j.undoTask('t', fs);
    assert.deepEqual(result.conflicts, [{ path: 'gone.ts', reason: 'deleted since the task edited it' }]);
    assert.equal(await read('gone.ts'), null);
  });

  it('redo puts the last undo (a restore) back, also after a reopen; then nothing is left to redo', async () => {
    await fs.write('a.ts', 'a0');
    const j = await EditJournal.open(store, { io: new NodeTasksIO(), log, now });
    const checkpoint = await edit(j, 't', 'a.ts', 'a1');
    await edit(j, 't', 'a.ts', 'a2');
    await edit(j, 't', 'new.ts', 'n1');
    await j.undoTask('t', fs, { toSeq: checkpoint.seq }); // restore to the end of the first edit
    assert.deepEqual([await read('a.ts'), await read('new.ts')], ['a1', null]);
    assert.equal(await j.canRedo('t'), true);

    const reopened = await EditJournal.open(store, { io: new NodeTasksIO(), log, now });
    const redo = await reopened.redoLastUndo('t', fs);
    assert.deepEqual(redo.conflicts, []);
    assert.deepEqual(redo.restored.sort(), ['a.ts', 'new.ts']);
    assert.deepEqual([await read('a.ts'), await read('new.ts')], ['a2', 'n1']);
    assert.ok(
      (await reopened.entries('t')).every((e) => !e.undone),
      'the edits are live again',
    );
    assert.equal(await reopened.canRedo('t'), false);
    assert.deepEqual(await reopened.redoLastUndo('t', fs), { restored: [], deleted: [], conflicts: [] });
    // And the redone edits can be undone again.
    assert.deepEqual((await reopened.undoTask('t', fs, { toSeq: checkpoint.seq })).restored.length, 1);
    assert.equal(await read('a.ts'), 'a1');
  });

  it('redo leaves a file the user changed after the restore alone (a conflict), redoes the rest, and force overrides', async () => {
    await fs.write('mine.ts', 'm0');
    await fs.write('other.ts', 'o0');
    const j = await EditJournal.open(store, { io: new NodeTasksIO(), log, now });
    await edit(j, 't', 'mine.ts', 'm1');
    await edit(j, 't', 'other.ts', 'o1');
    await j.undoTask('t', fs);
    await fs.write('mine.ts', 'm0 + user change after the undo');
    const first = await j.redoLastUndo('t', fs);
    assert.deepEqual(first.restored, ['other.ts']);
    assert.deepEqual(first.conflicts, [{ path: 'mine.ts', reason: 'modified since it was restored' }]);
    assert.equal(await read('mine.ts'), 'm0 + user change after the undo');
    assert.equal(await j.canRedo('t'), true, 'the conflicting file can still be redone');
    const forced = await j.redoLastUndo('t', fs, { force: true });
    assert.deepEqual(forced, { restored: ['mine.ts'], deleted: [], conflicts: [] });
    assert.equal(await read('mine.ts'), 'm1');
    assert.equal(await j.canRedo('t'), false);
  });

  it('undoes to a checkpoint: only edits after toSeq are reverted', async () => {
    await fs.write('a', 'a0');
    const j = await EditJournal.open(store, { io: new NodeTasksIO(), log, now });
    await edit(j, 't', 'a', 'a1'); // seq 1
    const checkpoint = await edit(j, 't', 'b', 'b1'); // seq 2, creates b
    await edit(j, 't', 'a', 'a2'); // seq 3
    await edit(j, 't', 'c', 'c1'); // seq 4, creates c
    await edit(j, 't', 'b', 'b2'); // seq 5

    const result = await j.undoTask('t', fs, { toSeq: checkpoint.seq });
    assert.deepEqual(result.conflicts, []);
    assert.deepEqual(result.restored.sort(), ['a', 'b']);
    assert.deepEqual(result.deleted, ['c']);
    assert.equal(await read('a'), 'a1');
    assert.equal(await read('b'), 'b1');
    assert.equal(await read('c'), null);
    assert.deepEqual(
      (await j.entries('t')).map((e) => [e.seq, !!e.undone]),
      [
        [1, false],
        [2, false],
        [3, true],
        [4, true],
        [5, true],
      ],
    );

    // New edits after the checkpoint undo, then a full undo goes back to the very start.
    await edit(j, 't', 'a', 'a9');
    const seqs = (await j.entries('t')).map((e) => e.seq);
    assert.equal(seqs[seqs.length - 1], 6);
    const all = await j.undoTask('t', fs);
    assert.deepEqual(all.conflicts, []);
    assert.equal(await read('a'), 'a0');
    assert.equal(await read('b'), null);
  });

  it('stores identical contents once (content-addressed blobs)', async () => {
    const big = 'export const x = 1;\n'.repeat(500);
    const j = await EditJournal.open(store, { io: new NodeTasksIO(), log, now });
    await j.record({ taskId: 't1', path: 'one.ts', before: null, after: big });
    await j.record({ taskId: 't2', path: 'two.ts', before: null, after: big });
    await j.record({ taskId: 't2', path: 'two.ts', before: big, after: `${big}// more\n` });
    const blobFiles: string[] = [];
    const blobsDir = path.join(store, 'journal', 'blobs');
    for (const sub of await fsp.readdir(blobsDir)) blobFiles.push(...(await fsp.readdir(path.join(blobsDir, sub))));
    assert.deepEqual(blobFiles.sort(), [sha256(big), sha256(`${big}// more\n`)].sort());
    assert.deepEqual(await j.tasksWithEdits(), ['t2', 't1']);
  });

  it('tolerates a truncated last line (crash mid-append) and keeps appending cleanly', async () => {
    await fs.write('a', 'a0');
    const j = await EditJournal.open(store, { io: new NodeTasksIO(), log, now });
    await edit(j, 't', 'a', 'a1');
    const logFile = path.join(store, 'journal', 'logs', 't.jsonl');
    await fsp.appendFile(logFile, '{"k":"edit","taskId":"t","seq":2,"path":"a","bef', 'utf8');

    const reopened = await EditJournal.open(store, { io: new NodeTasksIO(), log, now });
    assert.deepEqual(
      (await reopened.entries('t')).map((e) => e.seq),
      [1],
    );
    assert.ok(logs.some((m) => m.includes('unreadable line')));
    await edit(reopened, 't', 'a', 'a2');

    const third = await EditJournal.open(store, { io: new NodeTasksIO(), log, now });
    assert.deepEqual(
      (await third.entries('t')).map((e) => [e.seq, e.after]),
      [
        [1, 'a1'],
        [2, 'a2'],
      ],
    );
    assert.deepEqual((await third.undoTask('t', fs)).restored, ['a']);
    assert.equal(await read('a'), 'a0');
  });

  it('rebuilds a missing index, and notices a log that grew after the index was written', async () => {
    const j = await EditJournal.open(store, { io: new NodeTasksIO(), log, now });
    await edit(j, 'old', 'x', 'x1');
    await edit(j, 'new', 'y', 'y1');
    await j.flush();
    const indexFile = path.join(store, 'journal', 'index.json');
    await fsp.rm(indexFile);
    const rebuilt = await EditJournal.open(store, { io: new NodeTasksIO(), log, now });
    assert.deepEqual(await rebuilt.tasksWithEdits(), ['new', 'old']);
    await rebuilt.flush();

    // Undo lands in the log but the index write is lost (crash): the stale index must not offer it again.
    const staleIndex = await fsp.readFile(indexFile, 'utf8');
    await rebuilt.undoTask('new', fs);
    await rebuilt.flush();
    await fsp.writeFile(indexFile, staleIndex, 'utf8');
    const reopened = await EditJournal.open(store, { io: new NodeTasksIO(), log, now });
    assert.deepEqual(await reopened.tasksWithEdits(), ['old']);
  });

  it('serialises concurrent records of one task into distinct seqs', async () => {
    const j = await EditJournal.open(store, { io: new NodeTasksIO(), log, now });
    const recorded = await Promise.all(
      Array.from({ length: 10 }, (_, i) => j.record({ taskId: 't', path: `f${i}`, before: null, after: `c${i}` })),
    );
    assert.deepEqual(
      recorded.map((e) => e.seq),
      [1, 2, 3, 4, 5, 6, 7, 8, 9, 10],
    );
    const reopened = await EditJournal.open(store, { io: new NodeTasksIO(), log, now });
    assert.equal((await reopened.entries('t')).length, 10);
  });
});

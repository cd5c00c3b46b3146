// Storage that fails on demand (full disk, read-only folder, torn writes): nothing is left behind, nothing
// already saved is damaged, the next successful save catches up, and damaged files are kept and salvaged.
import * as assert from 'node:assert/strict';
import { promises as fsp } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Agent } from '../../../src/core/loop/agent';
import { EditJournal } from '../../../src/core/tasks/journal';
import type { AgentSnapshot } from '../../../src/core/tasks/snapshot';
import { TaskStore, type StoreNotice, type TaskRecord } from '../../../src/core/tasks/task-store';
import { TaskSession, type SessionDeps } from '../../../src/host/session/task-session';
import { SessionManager } from '../../../src/host/session/session-manager';
import { StorageHealth } from '../../../src/host/session/storage-health';
import { describeNotice } from '../../../src/host/session/recovery-notes';
import { FakeClock, ScriptedModel, doneTurn } from '../../support/scripted-model';
import { ScriptedApprover } from '../../support/loop-harness';
import { FaultyIO, type Fault } from './faulty-fs';
import { NodeTasksIO } from '../../../src/node/tasks-io';

const log = { info() {}, warn() {}, error() {}, debug() {}, trace() {} } as unknown as SessionDeps['log'];

function snapshot(id: string, messages: number): AgentSnapshot {
  const history: AgentSnapshot['history'] = [];
  for (let i = 0; i < messages; i++)
    history.push(
      i % 2 === 0
        ? { role: 'user', content: `question ${i} ${'x'.repeat(200)}` }
        : { role: 'assistant', content: `answer ${i} ${'y'.repeat(200)}` },
    );
  return {
    version: 1,
    taskId: id,
    mode: 'agent',
    history,
    iterations: 3,
    maxIterations: 25,
    allowedForTask: [],
    usage: { inputTokens: 10, outputTokens: 5 },
    counters: { runs: 1, approvals: 0 },
  };
}

function record(id: string, updatedAt: number, messages = 4, title = `Task ${id}`): TaskRecord {
  return {
    id,
    title,
    createdAt: 1,
    updatedAt,
    mode: 'agent',
    status: 'done',
    iterations: 3,
    snapshot: snapshot(id, messages),
    transcript: { items: [{ id: 'i1', kind: 'user', text: 'hello' }] },
  };
}

async function allFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const e of await fsp.readdir(dir, { withFileTypes: true, recursive: true } as never)) {
    const entry = e as unknown as { name: string; isFile(): boolean; parentPath?: string; path?: string };
    if (entry.isFile()) out.push(path.relative(dir, path.join(entry.parentPath ?? entry.path ?? dir, entry.name)));
  }
  return out.sort();
}

/** Waits for a condition (not for a time): generous, so a loaded machine only makes it slower, never red. */
async function until(probe: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 1000 && !probe(); i++) await new Promise((r) => setTimeout(r, 20));
  assert.ok(probe(), `never happened: ${what}`);
}

describe('durability: storage faults', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'forge-faults-'));
  });
  afterEach(async () => {
    await fsp.rm(dir, { recursive: true, force: true, maxRetries: 5 });
  });

  for (const fault of ['enospc', 'erofs', 'torn'] as Fault[]) {
    it(`task save on ${fault}: rejects, leaves no temp file, keeps the saved record, and the next save catches up`, async () => {
      const io = new FaultyIO();
      const store = await TaskStore.open(dir, { io });
      await store.save(record('a', 1, 4, 'saved before'));
      await store.flush();
      io.fault = fault;
      await assert.rejects(store.save(record('a', 2, 6, 'while failing')));
      assert.ok(io.failures > 0);
      const files = await allFiles(dir);
      assert.deepEqual(
        files.filter((f) => f.endsWith('.tmp')),
        [],
        `temp files left: ${files.join(', ')}`,
      );
      assert.equal(
        (await (await TaskStore.open(dir, { io: new NodeTasksIO() })).load('a'))?.title,
        'saved before',
        'what was saved is intact',
      );
      io.fault = 'none';
      await store.save(record('a', 3, 8, 'caught up'));
      await store.flush();
      const reopened = await (await TaskStore.open(dir, { io: new NodeTasksIO() })).load('a');
      assert.equal(reopened?.title, 'caught up');
      assert.equal((reopened!.snapshot as AgentSnapshot).history.length, 8);
    });
  }

  it('a session whose saves fail keeps retrying on its own until one succeeds (nothing new needs to happen)', async () => {
    const io = new FaultyIO();
    const store = await TaskStore.open(dir, { io });
    const shown: string[] = [];
    const health = new StorageHealth({ show: (m) => shown.push(m), log });
    io.fault = 'enospc';
    const model = new ScriptedModel([doneTurn('the answer')]);
    const session = TaskSession.create({
      makeAgent: (snap?: AgentSnapshot) => {
        const d = { model, tools: [], approver: new ScriptedApprover(), clock: new FakeClock() };
        return snap ? Agent.restore(snap, d) : new Agent(d);
      },
      save: async (r) => {
        try {
          await store.save(r);
          health.succeeded('the task history');
        } catch (err) {
          health.failed('the task history', err);
          throw err;
        }
      },
      log,
      saveDelayMs: 5,
      saveRetryMs: 20,
    });
    await session.run('send', 'a question worth keeping');
    await until(() => io.failures >= 3, 'a few failed attempts (the save and its retries)');
    assert.equal(shown.length, 1, 'the first failure is shown once, not per attempt');
    assert.match(shown[0], /cannot write the task history.*no space left on device/);
    io.fault = 'none';
    await until(() => shown.length >= 2, 'a retried save that succeeds');
    assert.match(shown[1], /can write the task history again/);
    const saved = await (await TaskStore.open(dir, { io: new NodeTasksIO() })).load(session.id);
    assert.equal(saved?.status, 'done');
    assert.equal((saved!.snapshot as AgentSnapshot).history[0].content, 'a question worth keeping');
    session.dispose();
  });

  it('journal intent on a full disk: beginEdit rejects (the edit must not be applied); a torn line does not break later appends', async () => {
    const io = new FaultyIO();
    const journal = await EditJournal.open(dir, { io });
    io.fault = 'torn';
    io.only = 'logs';
    await assert.rejects(
      journal.beginEdit({ taskId: 't', path: '/ws/a.ts', before: 'old', after: 'new', toolCallId: 'c1' }),
    );
    io.fault = 'none';
    const intent = await journal.beginEdit({
      taskId: 't',
      path: '/ws/b.ts',
      before: 'b0',
      after: 'b1',
      toolCallId: 'c2',
    });
    await journal.commitEdit(intent);
    const reopened = await EditJournal.open(dir, { io: new NodeTasksIO() });
    assert.deepEqual(
      (await reopened.entries('t')).map((e) => [e.path, e.after]),
      [['/ws/b.ts', 'b1']],
    );
    assert.deepEqual(await reopened.openIntents('t'), [], 'the torn intent is not taken for an edit');
  });

  it('texts staged while the proposal waits are in the store, so the approved intent only appends a line', async () => {
    const io = new FaultyIO();
    const journal = await EditJournal.open(dir, { io });
    await journal.stageBlobs(['before text', 'after text']);
    // From here every blob write fails: beginEdit can only succeed if it has nothing left to store.
    io.fault = 'enospc';
    io.only = 'blobs';
    const intent = await journal.beginEdit({
      taskId: 't',
      path: '/ws/a.ts',
      before: 'before text',
      after: 'after text',
      toolCallId: 'c1',
    });
    await journal.commitEdit(intent);
    assert.deepEqual(
      (await journal.entries('t')).map((e) => [e.before, e.after]),
      [['before text', 'after text']],
    );
    await assert.rejects(
      journal.beginEdit({ taskId: 't', path: '/ws/a.ts', before: 'after text', after: 'not staged', toolCallId: 'c2' }),
      /no space/,
    );
  });

  it('Undo names the files whose journal contents are missing (instead of "no edits left")', async () => {
    const journal = await EditJournal.open(dir, { io: new NodeTasksIO() });
    await journal.record({ taskId: 't', path: '/ws/a.ts', before: 'a0', after: 'a1' });
    await journal.record({ taskId: 't', path: '/ws/b.ts', before: 'b0', after: 'b1' });
    await fsp.rm(path.join(dir, 'journal', 'blobs'), { recursive: true });
    const reopened = await EditJournal.open(dir, { io: new NodeTasksIO() });
    const summary = await reopened.editSummary('t');
    assert.equal(summary.live.length, 2, 'the edits still count');
    assert.deepEqual(summary.missing.map((m) => m.path).sort(), ['/ws/a.ts', '/ws/b.ts']);
    const undo = await reopened.undoTask('t', {
      read: async () => 'a1',
      write: async () => undefined,
      remove: async () => undefined,
    });
    assert.equal(undo.conflicts.length, 2);
    assert.match(undo.conflicts[0].reason, /missing from the journal/);
  });

  it('a truncated task file: kept aside, every intact message up to the damage recovered, a notice says so, History opens it', async () => {
    const store = await TaskStore.open(dir, { io: new NodeTasksIO() });
    await store.save(record('good', 1));
    await store.save(record('torn', 2, 10, 'Refactor the parser'));
    await store.flush();
    const file = path.join(dir, 'tasks', 'torn.json');
    const text = await fsp.readFile(file, 'utf8');
    const cut = text.indexOf('answer 7'); // inside message 8 of 10
    await fsp.writeFile(file, text.slice(0, cut));

    const reopened = await TaskStore.open(dir, { io: new NodeTasksIO() });
    const notices: StoreNotice[] = [];
    reopened.onNotice((n) => notices.push(n));
    await Promise.resolve();
    assert.deepEqual((await reopened.list()).map((t) => t.id).sort(), ['good', 'torn']);
    const loaded = await reopened.load('torn');
    assert.ok(loaded, 'the recovered task opens');
    const history = (loaded.snapshot as AgentSnapshot).history;
    assert.equal(history.length, 7, 'messages 1-7 are intact, the 8th was cut');
    assert.equal(history[6].content.startsWith('question 6'), true);
    assert.equal(loaded.title, 'Refactor the parser');
    assert.equal(notices.length, 1);
    const n = notices[0] as Extract<StoreNotice, { kind: 'damaged' }>;
    assert.equal(n.recovered?.messages, 7);
    assert.ok(
      n.keptAt && (await fsp.readFile(n.keptAt, 'utf8')) === text.slice(0, cut),
      'the damaged file is kept as it was',
    );
    const message = describeNotice(n);
    assert.match(message, /"Refactor the parser" is damaged/);
    assert.match(message, /7 messages/);
    assert.ok(message.includes(n.keptAt!));
    // The recovered record was saved: the next open is clean.
    await reopened.flush();
    const third = await TaskStore.open(dir, { io: new NodeTasksIO() });
    const again: StoreNotice[] = [];
    third.onNotice((x) => again.push(x));
    await Promise.resolve();
    assert.equal(again.length, 0);
    assert.equal(((await third.load('torn'))!.snapshot as AgentSnapshot).history.length, 7);
  });

  it('a task file damaged while listed (the index still names it) is caught when opened: History stops listing what it cannot open', async () => {
    const store = await TaskStore.open(dir, { io: new NodeTasksIO() });
    await store.save(record('x', 1));
    await store.flush();
    // Same size, garbage content: the open-time size check cannot see it; opening it must.
    const file = path.join(dir, 'tasks', 'x.json');
    const size = (await fsp.stat(file)).size;
    await fsp.writeFile(file, '#'.repeat(size));
    const reopened = await TaskStore.open(dir, { io: new NodeTasksIO() });
    const opened = await reopened.open('x');
    assert.equal(opened.record, undefined);
    assert.equal(opened.damage?.kind, 'damaged');
    assert.deepEqual(await reopened.list(), []);
  });

  it('at startup, a newest task damaged beyond recovery gives way to the next one, and the panel says why', async () => {
    const store = await TaskStore.open(dir, { io: new NodeTasksIO() });
    await store.save(record('older', 1, 4, 'Older task'));
    await store.save(record('newest', 2, 4, 'Newest task'));
    await store.flush();
    const file = path.join(dir, 'tasks', 'newest.json');
    await fsp.writeFile(file, '#'.repeat((await fsp.stat(file)).size)); // same size: found only when opened
    const model = new ScriptedModel([]);
    const manager = new SessionManager({
      store: await TaskStore.open(dir, { io: new NodeTasksIO() }),
      log,
      makeAgent: (snap?: AgentSnapshot) => {
        const d = { model, tools: [], approver: new ScriptedApprover(), clock: new FakeClock() };
        return snap ? Agent.restore(snap, d) : new Agent(d);
      },
    });
    const restored = await manager.restoreLatest();
    assert.equal(restored?.id, 'older');
    const notes = restored!.transcript
      .snapshot()
      .items.filter((i) => i.kind === 'error')
      .map((i) => (i as { message: string }).message);
    assert.ok(
      notes.some((m) => /"Newest task" is damaged.*Nothing of it could be recovered.*kept as/s.test(m)),
      JSON.stringify(notes),
    );
    assert.deepEqual(
      (await manager.history()).map((t) => t.id),
      ['older'],
    );
  });
});

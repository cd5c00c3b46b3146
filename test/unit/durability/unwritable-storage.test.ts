// Storage read-only or full: the conversation the user created is never dropped. Starting or opening another task
// keeps the unsaved one in memory (in History, saved once writing works); a task whose lease cannot be written still
// opens; a task that cannot be reopened at start is named with the reason, never an empty panel without a word.
import * as assert from 'node:assert/strict';
import { Agent } from '../../../src/core/loop/agent';
import type { AgentSnapshot } from '../../../src/core/tasks/snapshot';
import type { TaskRecord } from '../../../src/core/tasks/task-store';
import { SessionManager } from '../../../src/host/session/session-manager';
import type { SessionDeps } from '../../../src/host/session/task-session';
import { StorageHealth } from '../../../src/host/session/storage-health';
import type { TaskLeases } from '../../../src/node/lease';
import { FakeClock, ScriptedModel, doneTurn } from '../../support/scripted-model';
import { ScriptedApprover } from '../../support/loop-harness';

const log = { info() {}, warn() {}, error() {}, debug() {}, trace() {} } as unknown as SessionDeps['log'];
const settle = (ms = 40) => new Promise((r) => setTimeout(r, ms));

/** A task store whose writes fail while `writable` is false (EROFS), recording what reached it. */
function flakyStore(initial: TaskRecord[] = []) {
  const saved = new Map(initial.map((r) => [r.id, r]));
  const state = { writable: false };
  const store = {
    list: async () => [...saved.values()].map((r) => ({ ...r })).sort((a, b) => b.updatedAt - a.updatedAt),
    open: async (id: string) => ({ record: structuredClone(saved.get(id)) }),
    load: async (id: string) => structuredClone(saved.get(id)),
    save: async (r: TaskRecord) => {
      if (!state.writable) throw Object.assign(new Error('EROFS: read-only file system'), { code: 'EROFS' });
      saved.set(r.id, structuredClone(r));
    },
    flush: async () => undefined,
    onDidRemoveTasks: () => ({ dispose() {} }),
    onNotice: () => ({ dispose() {} }),
  } as unknown as ConstructorParameters<typeof SessionManager>[0]['store'];
  return { store, saved, state };
}

function managerOn(store: ConstructorParameters<typeof SessionManager>[0]['store'], over = {}) {
  const model = new ScriptedModel([doneTurn('first answer'), doneTurn('second answer')]);
  const notes: string[] = [];
  const history: string[][] = [];
  const manager = new SessionManager({
    store,
    log,
    saveDelayMs: 5,
    saveRetryMs: 20,
    makeAgent: (snapshot?: AgentSnapshot) => {
      const d = { model, tools: [], approver: new ScriptedApprover(), clock: new FakeClock() };
      return snapshot ? Agent.restore(snapshot, d) : new Agent(d);
    },
    storage: { failed: (what: string) => notes.push(`failed ${what}`), succeeded: () => undefined },
    ...over,
  });
  manager.attach({
    attachTranscript: () => undefined,
    setHistory: (tasks: { title: string }[]) => history.push(tasks.map((t) => t.title)),
  } as never);
  return { manager, notes, history };
}

describe('durability: storage that cannot be written loses no conversation', () => {
  it('a new task started while saving fails keeps the old one in memory, in History, and saves it once writing works', async () => {
    const { store, saved, state } = flakyStore();
    const { manager, history } = managerOn(store);
    const first = manager.current;
    await first.run('send', 'Explain the parser');
    await settle();
    assert.equal(first.unsaved, true, 'its save failed');
    manager.newTask();
    await settle();
    assert.ok(history.at(-1)?.includes('Explain the parser'), 'History still lists the unsaved task');
    // Opening it again from History brings the whole conversation back (nothing was written anywhere).
    const back = await manager.load(first.id);
    assert.equal(back?.id, first.id);
    assert.deepEqual(
      back!.transcript
        .getItems()
        .filter((i) => i.kind === 'user')
        .map((i) => (i as { text: string }).text),
      ['Explain the parser'],
    );
    manager.newTask();
    await settle();
    state.writable = true;
    await settle(100);
    assert.ok(saved.has(first.id), 'saved by the retry once the storage works again');
    assert.equal((saved.get(first.id)!.snapshot as AgentSnapshot).history.length >= 2, true);
    manager.dispose();
  });

  it('says the history is saved again only once every task whose save failed is on disk', async () => {
    const { store, saved, state } = flakyStore();
    const savedWhenSaid: string[][] = [];
    const { manager } = managerOn(store, {
      storage: { failed: () => undefined, succeeded: () => savedWhenSaid.push([...saved.keys()].sort()) },
    });
    const first = manager.current;
    await first.run('send', 'Explain the parser');
    await settle();
    manager.newTask();
    const second = manager.current;
    await second.run('send', 'Now the lexer');
    await settle();
    assert.equal(second.unsaved, true, 'the second task could not be saved either');
    state.writable = true;
    await settle(150);
    assert.ok(savedWhenSaid.length >= 1, 'the recovery was said');
    assert.deepEqual(savedWhenSaid[0], [first.id, second.id].sort(), 'both tasks were on disk when it was said');
    manager.dispose();
  });

  it('what the storage can write now is shown but never saved with the task (after a reload it would be untrue)', () => {
    const { store } = flakyStore();
    const { manager } = managerOn(store);
    manager.note('Forge cannot write the task history: EROFS. Your conversation is kept in memory.', 'storage');
    manager.note('The saved state of "Old" is damaged.');
    const shown = (items: readonly { kind: string; message?: string }[]) =>
      items.filter((i) => i.kind === 'error').map((i) => i.message);
    assert.equal(shown(manager.current.transcript.getItems()).length, 2, 'both are in the panel');
    const saved = manager.current.record().transcript as { items: { kind: string; message?: string }[] };
    assert.deepEqual(shown(saved.items), ['The saved state of "Old" is damaged.']);
    manager.dispose();
  });

  it('once everything is saved, the storage notices that are no longer true give way to one good-news line', () => {
    const { store } = flakyStore();
    const { manager } = managerOn(store);
    manager.note('Forge cannot write the task history: EROFS. Your conversation is kept in memory.', 'storage');
    manager.note('The saved state of "Old" is damaged.');
    manager.note('Forge can write the task history again; everything is saved.', 'storage-ok');
    const errors = manager.current.transcript
      .getItems()
      .filter((i): i is Extract<typeof i, { kind: 'error' }> => i.kind === 'error');
    assert.deepEqual(
      errors.map((i) => [i.message, i.tone]),
      [
        ['The saved state of "Old" is damaged.', undefined],
        ['Forge can write the task history again; everything is saved.', 'ok'],
      ],
    );
    // A new failure: the good news is no longer true either.
    manager.note('Forge cannot write the audit log: ENOSPC.', 'storage');
    assert.deepEqual(
      manager.current.transcript
        .getItems()
        .filter((i): i is Extract<typeof i, { kind: 'error' }> => i.kind === 'error')
        .map((i) => i.message),
      ['The saved state of "Old" is damaged.', 'Forge cannot write the audit log: ENOSPC.'],
    );
    manager.dispose();
  });

  it('a record that writes again does not claim everything is saved while another still fails', () => {
    const shown: string[] = [];
    const health = new StorageHealth({ show: (m) => shown.push(m), log });
    health.failed('the task history', new Error('ENOSPC: no space left on device'));
    health.failed('the audit log', new Error('ENOSPC: no space left on device'));
    health.succeeded('the audit log');
    assert.equal(shown.at(-1), 'Forge can write the audit log again, but still not the task history.');
    health.succeeded('the task history');
    assert.equal(shown.at(-1), 'Forge can write the task history again; everything is saved.');
  });

  it('a task whose lease cannot be written (read-only storage) still opens, and the failure is reported', async () => {
    const record: TaskRecord = {
      id: 't-old',
      title: 'Old work',
      createdAt: 1,
      updatedAt: 2,
      mode: 'agent',
      status: 'done',
      snapshot: {
        version: 1,
        taskId: 't-old',
        mode: 'agent',
        history: [
          { role: 'user', content: 'Old question' },
          { role: 'assistant', content: 'Old answer' },
        ],
        iterations: 1,
        maxIterations: 25,
        allowedForTask: [],
        usage: { inputTokens: 1, outputTokens: 1 },
        counters: { runs: 1, approvals: 0 },
      } satisfies AgentSnapshot,
      transcript: { items: [{ id: 'u1', kind: 'user', text: 'Old question' }] },
    };
    const { store } = flakyStore([record]);
    const leases = {
      holds: () => false,
      holder: async () => undefined,
      acquire: async () => {
        throw Object.assign(new Error('EROFS: read-only file system, open leases/t-old.json'), { code: 'EROFS' });
      },
      release: async () => undefined,
      confirm: async () => true,
    } as unknown as TaskLeases;
    const { manager, notes } = managerOn(store, { leases });
    const restored = await manager.restoreLatest();
    assert.equal(restored?.id, 't-old', 'the latest task is back, not an empty welcome');
    assert.deepEqual(notes, ['failed the task history']);
    manager.dispose();
    // What the panel says: the task is on disk as it opened, not "your conversation is kept in memory".
    const shown: string[] = [];
    const health = new StorageHealth({ show: (m) => shown.push(m), log });
    const told = managerOn(flakyStore([record]).store, { leases, storage: health }).manager;
    await told.restoreLatest();
    assert.equal(shown.length, 1);
    assert.match(shown[0], /EROFS.*This task is on disk as it opened; anything new in it is kept in memory/s);
    assert.doesNotMatch(shown[0], /Your conversation is kept in memory/);
    told.dispose();
  });

  it('a latest task that cannot be reopened at start is named with the reason in the panel', async () => {
    const record = { id: 't-bad', title: 'Broken one', createdAt: 1, updatedAt: 2, mode: 'agent', status: 'done' };
    const store = {
      list: async () => [record],
      open: async () => {
        throw new Error('EIO: i/o error, read');
      },
      save: async () => undefined,
      flush: async () => undefined,
      onDidRemoveTasks: () => ({ dispose() {} }),
      onNotice: () => ({ dispose() {} }),
    } as unknown as ConstructorParameters<typeof SessionManager>[0]['store'];
    const { manager } = managerOn(store);
    assert.equal(await manager.restoreLatest(), undefined);
    const shown = manager.current.transcript
      .getItems()
      .filter((i) => i.kind === 'error')
      .map((i) => (i as { message: string }).message);
    assert.deepEqual(shown, ['Forge could not reopen your latest task "Broken one": EIO: i/o error, read']);
    manager.dispose();
  });
});

import * as assert from 'node:assert';
import { Agent } from '../../../src/core/loop/agent';
import type { TaskRecord } from '../../../src/core/tasks/task-store';
import type { AgentSnapshot } from '../../../src/core/tasks/snapshot';
import { TaskSession, type SessionDeps } from '../../../src/host/controller/session';
import { SessionManager } from '../../../src/host/controller/session-manager';
import { FakeClock, ScriptedModel, doneTurn, type Turn } from '../../support/scripted-model';
import { ScriptedApprover } from '../core/helpers';

const log = { info() {}, warn() {}, error() {}, debug() {}, trace() {} } as unknown as SessionDeps['log'];

function deps(turns: Turn[], saved: TaskRecord[], over: Partial<SessionDeps> = {}): SessionDeps {
  const model = new ScriptedModel(turns);
  return {
    makeAgent: (snapshot?: AgentSnapshot) => {
      const d = { model, tools: [], approver: new ScriptedApprover(), clock: new FakeClock() };
      return snapshot ? Agent.restore(snapshot, d) : new Agent(d);
    },
    save: async (r) => void saved.push(structuredClone(r)),
    log,
    saveDelayMs: 5,
    ...over,
  };
}

const settle = () => new Promise((r) => setTimeout(r, 30));

describe('host/TaskSession persistence', () => {
  it('the save at run end records the final status, not "running"', async () => {
    const saved: TaskRecord[] = [];
    const s = TaskSession.create(deps([doneTurn('ok')], saved));
    const report = await s.run('send', 'do it');
    assert.strictEqual(report?.reason, 'done');
    await settle();
    assert.ok(saved.length > 0);
    assert.strictEqual(saved.at(-1)!.status, 'done', `last saved status: ${saved.map((r) => r.status).join(',')}`);
  });
});

describe('host/TaskSession agent rebuilds', () => {
  it('a rebuild asked for while a run is in flight happens before the next run (settings changed mid-run are not lost)', async () => {
    const saved: TaskRecord[] = [];
    let built = 0;
    const base = deps([{ events: doneTurn('first').slice(), delayMs: 5 }, doneTurn('second')], saved);
    const s = TaskSession.create({ ...base, makeAgent: (snap) => (built++, base.makeAgent(snap)) });
    assert.strictEqual(built, 1);
    const first = s.run('send', 'one');
    assert.strictEqual(s.rebuildAgent(), false, 'not while running');
    await first;
    await s.run('send', 'two');
    assert.strictEqual(built, 2, 'the agent was rebuilt (from its snapshot) before the second run');
    assert.strictEqual(s.dump().history.filter((m) => m.role === 'user').length, 2, 'the conversation survived the rebuild');
  });
});

describe('host/SessionManager', () => {
  it('does not open another task over a run that started while the saved task was loading', async () => {
    const saved: TaskRecord[] = [];
    const d = deps([{ events: doneTurn('x').slice(), delayMs: 20 }], saved);
    // A saved task to open, from another session.
    const other = TaskSession.create(deps([doneTurn('old')], []));
    await other.run('send', 'old task');
    const record = other.record();
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const store = {
      list: async () => [],
      open: async () => (await gate, { record: structuredClone(record) }),
      save: async () => undefined,
      flush: async () => undefined,
      onDidRemoveTasks: () => ({ dispose() {} }),
      onNotice: () => ({ dispose() {} }),
    } as unknown as ConstructorParameters<typeof SessionManager>[0]['store'];
    const manager = new SessionManager({ store, makeAgent: d.makeAgent, log, saveDelayMs: 5 });
    const loading = manager.load(record.id);
    // The user sends a message while the history entry is still being read.
    const run = manager.current.run('send', 'new work');
    release();
    await assert.rejects(loading, /Stop the running task/);
    assert.strictEqual((await run)?.reason, 'done', 'the run was not stopped by the switch');
    assert.notStrictEqual(manager.current.id, record.id);
  });
});

describe('host/SessionManager history order', () => {
  /** A saved, finished task last changed long ago, and a store that records every save. */
  async function setup() {
    const other = TaskSession.create(deps([doneTurn('old')], []));
    await other.run('send', 'old task');
    const record = { ...other.record(), updatedAt: 1_000 };
    const saves: TaskRecord[] = [];
    const store = {
      list: async () => [],
      open: async () => ({ record: structuredClone(record) }),
      save: async (r: TaskRecord) => void saves.push(structuredClone(r)),
      flush: async () => undefined,
      onDidRemoveTasks: () => ({ dispose() {} }),
      onNotice: () => ({ dispose() {} }),
    } as unknown as ConstructorParameters<typeof SessionManager>[0]['store'];
    const d = deps([doneTurn('new answer')], []);
    const manager = new SessionManager({ store, makeAgent: d.makeAgent, log, saveDelayMs: 5 });
    return { manager, record, saves };
  }

  it('viewing an old task and switching away does not bump its updatedAt (it keeps its place in the history)', async () => {
    const { manager, record, saves } = await setup();
    await manager.load(record.id);
    manager.newTask();
    await settle();
    const mine = saves.filter((r) => r.id === record.id);
    assert.ok(mine.length > 0, 'the task was saved on switch');
    assert.deepStrictEqual(mine.map((r) => r.updatedAt), mine.map(() => 1_000));
  });

  it('a run in the old task does bump it', async () => {
    const { manager, record, saves } = await setup();
    const session = await manager.load(record.id);
    await session!.run('send', 'one more thing');
    manager.newTask();
    await settle();
    const last = saves.filter((r) => r.id === record.id).at(-1)!;
    assert.ok(last.updatedAt > 1_000, `updatedAt ${last.updatedAt}`);
  });
});

import * as assert from 'node:assert';
import { Agent } from '../../../../src/core/loop/agent';
import type { TaskRecord } from '../../../../src/core/tasks/task-store';
import type { AgentSnapshot } from '../../../../src/core/tasks/snapshot';
import { restoreTranscript, TaskSession, type SessionDeps } from '../../../../src/host/session/task-session';
import { SessionManager } from '../../../../src/host/session/session-manager';
import { FakeClock, ScriptedModel, callsTurn, doneTurn, type Turn } from '../../../support/scripted-model';
import { fakeWriteTool, ScriptedApprover } from '../../../support/loop-harness';

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

describe('host/TaskSession saves what a crash must not lose at once', () => {
  it('the user message when the run starts, and a pending approval when it is asked (not after the debounce)', async () => {
    const saved: TaskRecord[] = [];
    const approver = new ScriptedApprover(['hang']);
    const model = new ScriptedModel([
      { events: callsTurn(['write_file', { path: 'a.txt', content: 'x' }]), delayMs: 100 },
    ]);
    const s = TaskSession.create({
      ...deps([], saved, { saveDelayMs: 60_000 }),
      makeAgent: () => new Agent({ model, tools: [fakeWriteTool()], approver, clock: new FakeClock() }),
    });
    void s.run('send', 'write a.txt please');
    await new Promise((r) => setTimeout(r, 30));
    assert.ok(
      saved.some((r) => JSON.stringify(r.snapshot).includes('write a.txt please')),
      'the message is on disk before the model answered',
    );
    for (let i = 0; i < 100 && approver.requests.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
    await new Promise((r) => setTimeout(r, 30));
    const last = saved.at(-1)!;
    assert.ok((last.snapshot as { pending?: unknown }).pending, 'the pending approval is saved while it waits');
    s.stop();
  });
});

describe('host/TaskSession restored with a pending approval', () => {
  it('asks again on the same tool card (no "cancelled" card, no second bare one) and the result lands on it', async () => {
    const saved: TaskRecord[] = [];
    const model = new ScriptedModel([callsTurn(['write_file', { path: 'a.txt', content: 'x' }]), doneTurn('ok')]);
    const first = TaskSession.create({
      ...deps([], saved),
      makeAgent: () =>
        new Agent({
          model,
          tools: [fakeWriteTool()],
          approver: new ScriptedApprover(['hang']),
          clock: new FakeClock(),
        }),
    });
    void first.run('send', 'write a.txt');
    for (let i = 0; i < 100 && !saved.some((r) => (r.snapshot as { pending?: unknown }).pending); i++)
      await new Promise((r) => setTimeout(r, 10));
    const record = structuredClone([...saved].reverse().find((r) => (r.snapshot as { pending?: unknown }).pending)!);
    first.dispose();
    // The window crashed here; a new one restores the record and asks again.
    const approver = new ScriptedApprover([{ kind: 'approve' }]);
    const restored = TaskSession.restore(
      {
        ...deps([], []),
        makeAgent: (snap) =>
          Agent.restore(snap!, { model, tools: [fakeWriteTool()], approver, clock: new FakeClock() }),
      },
      record,
    );
    const cardsOf = () =>
      restored.transcript.snapshot().items.filter((it) => it.kind === 'tool' || it.kind === 'approval');
    assert.deepStrictEqual(
      cardsOf().map((it) => `${it.kind}:${it.status}`),
      ['tool:pending'],
      'the old approval card is gone; the tool card waits',
    );
    await restored.run('resume', '');
    const cards = cardsOf();
    const tools = cards.filter((it) => it.kind === 'tool' && (it as { name: string }).name === 'write_file');
    assert.strictEqual(tools.length, 1, `one tool card: ${JSON.stringify(cards.map((c) => [c.kind, c.status]))}`);
    assert.strictEqual(tools[0]!.status, 'done');
    assert.match((tools[0] as { argsSummary: string }).argsSummary, /a\.txt/, 'the card keeps its arguments');
    assert.deepStrictEqual(
      cards.filter((it) => it.kind === 'approval').map((it) => it.status),
      ['approved'],
    );
  });
});

describe('host/restoreTranscript', () => {
  it('a card the crash left running shows the result the restore settled it with; others read cancelled', () => {
    const tool = (id: string, callId: string) => ({
      id,
      ts: 1,
      kind: 'tool',
      toolCallId: callId,
      name: 'execute_command',
      argsText: '',
      argsSummary: '',
      status: 'running',
      startedAt: 1,
      resultTruncated: false,
    });
    const saved = { taskId: 't', items: [tool('i1', 'c1'), tool('i2', 'c2')], status: { state: 'running' } } as never;
    const snapshot = {
      taskId: 't',
      history: [
        {
          role: 'tool',
          toolCallId: 'c1',
          toolName: 'execute_command',
          content: 'Interrupted: Forge was reloaded while this command was running',
          isError: true,
        },
      ],
    } as never;
    const items = restoreTranscript(saved, snapshot).items as { status: string; result?: string }[];
    assert.deepStrictEqual(
      items.map((i) => i.status),
      ['interrupted', 'cancelled'],
    );
    assert.match(items[0]!.result!, /Interrupted: Forge was reloaded/);
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
    assert.strictEqual(
      s.dump().history.filter((m) => m.role === 'user').length,
      2,
      'the conversation survived the rebuild',
    );
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
    assert.deepStrictEqual(
      mine.map((r) => r.updatedAt),
      mine.map(() => 1_000),
    );
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

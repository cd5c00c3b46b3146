// A reload during the run's reflection (its work was over: task_completion had its result): the restored task is
// finished, with its result, not a run to continue.
import * as assert from 'node:assert/strict';
import { Agent } from '../../../../src/core/loop/agent';
import type { MemoryPort } from '../../../../src/core/memory/port';
import type { AgentSnapshot } from '../../../../src/core/tasks/snapshot';
import type { TaskRecord } from '../../../../src/core/tasks/task-store';
import { TaskSession, type SessionDeps } from '../../../../src/host/session/task-session';
import { FakeClock, ScriptedModel, callsTurn, doneTurn } from '../../../support/scripted-model';
import { fakeWriteTool, ScriptedApprover } from '../../../support/loop-harness';

const log = { info() {}, warn() {}, error() {}, debug() {}, trace() {} } as unknown as SessionDeps['log'];
const hangingMemory: MemoryPort = {
  recall: async () => ({ items: [], promptText: '' }),
  reflect: () => new Promise(() => undefined),
};

function sessionDeps(saved: TaskRecord[], memory?: MemoryPort, model = new ScriptedModel([])): SessionDeps {
  return {
    makeAgent: (snapshot?: AgentSnapshot) => {
      const d = {
        model,
        tools: [fakeWriteTool()],
        approver: new ScriptedApprover([{ kind: 'approve' }]),
        clock: new FakeClock(),
        ...(memory ? { memory } : {}),
      };
      return snapshot ? Agent.restore(snapshot, d) : new Agent(d);
    },
    save: async (r) => void saved.push(structuredClone(r)),
    log,
    saveDelayMs: 5,
  };
}

/** Runs the task until its last save before the "crash"; returns that record. */
async function crashedRecord(turns: ReturnType<typeof doneTurn>[], memory?: MemoryPort): Promise<TaskRecord> {
  const saved: TaskRecord[] = [];
  const s = TaskSession.create(sessionDeps(saved, memory, new ScriptedModel(turns)));
  void s.run('send', 'write a.txt');
  const done = (r: TaskRecord) => JSON.stringify(r.snapshot).includes('"toolName":"task_completion"');
  for (let i = 0; i < 200 && !saved.some(done); i++) await new Promise((r) => setTimeout(r, 10));
  await new Promise((r) => setTimeout(r, 50));
  const record = structuredClone(saved.at(-1)!);
  s.dispose();
  return record;
}

describe('host/TaskSession restored after a reload during reflection', () => {
  it('is done, shows the result and says what may be missing; no Continue; saved as done', async () => {
    const record = await crashedRecord(
      [callsTurn(['write_file', { path: 'a.txt', content: 'x' }]), doneTurn('Wrote a.txt.')],
      hangingMemory,
    );
    assert.equal(record.status, 'running', 'the reload came before the run ended');
    const saved: TaskRecord[] = [];
    const restored = TaskSession.restore(sessionDeps(saved), record);
    const items = restored.transcript.snapshot().items;
    const end = items.find((it) => it.kind === 'run_end');
    assert.equal(end?.kind === 'run_end' && end.reason, 'done');
    assert.equal(end?.kind === 'run_end' && end.detail, 'Wrote a.txt.');
    assert.ok(
      items.some((it) => it.kind === 'warning' && /while it drew lessons from it/.test(it.message)),
      JSON.stringify(items.map((it) => it.kind)),
    );
    assert.ok(!items.some((it) => it.kind === 'error'), 'no "reloaded while running" error with Continue');
    await new Promise((r) => setTimeout(r, 20));
    assert.equal(saved.at(-1)?.status, 'done', 'saved as ended');
  });

  it('a run cut off before its end still offers Continue', async () => {
    const record = await crashedRecord(
      [callsTurn(['write_file', { path: 'a.txt', content: 'x' }]), doneTurn('ok')],
      hangingMemory,
    );
    // The record as saved while the write's step was the last: drop the completion to stand for an earlier crash.
    const snap = record.snapshot as AgentSnapshot;
    const cut = { ...record, status: 'running', snapshot: { ...snap, history: snap.history.slice(0, 3) } };
    const restored = TaskSession.restore(sessionDeps([]), cut as TaskRecord);
    const items = restored.transcript.snapshot().items;
    assert.ok(!items.some((it) => it.kind === 'run_end'));
    const err = items.find((it) => it.kind === 'error');
    assert.ok(err?.kind === 'error' && err.actions?.includes('continue'), JSON.stringify(err));
  });

  it('an idle task whose restore found something (a cut-off checkpoint restore) is not said to have been running', async () => {
    const record = await crashedRecord(
      [callsTurn(['write_file', { path: 'a.txt', content: 'x' }]), doneTurn('ok')],
      hangingMemory,
    );
    const restored = TaskSession.restore(sessionDeps([]), { ...record, status: 'done' }, ['A restore was cut off.']);
    const err = restored.transcript.snapshot().items.find((it) => it.kind === 'error');
    assert.equal(
      err?.kind === 'error' && err.message,
      'Forge was reloaded. It checked the disk and the journal:\n- A restore was cut off.',
    );
    assert.ok(err?.kind === 'error' && !err.actions?.includes('continue'), 'no Continue');
  });

  it("saves the run's answer at once, not after the debounce: reflection may follow for seconds", async () => {
    const saved: TaskRecord[] = [];
    const model = new ScriptedModel([doneTurn('Nothing to do.')]);
    const s = TaskSession.create({ ...sessionDeps(saved, hangingMemory, model), saveDelayMs: 60_000 });
    void s.run('send', 'check it');
    const answered = () => saved.some((r) => JSON.stringify(r.snapshot).includes('"content":"Nothing to do."'));
    for (let i = 0; i < 100 && !answered(); i++) await new Promise((r) => setTimeout(r, 10));
    assert.ok(answered(), 'the task_completion result is on disk while the reflection runs');
    s.dispose();
  });
});

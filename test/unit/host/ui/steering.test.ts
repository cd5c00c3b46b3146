import * as assert from 'node:assert';
import { Agent } from '../../../../src/core/loop/agent';
import type { RunReport } from '../../../../src/core/loop/events';
import type { AgentSnapshot } from '../../../../src/core/tasks/snapshot';
import type { TaskRecord } from '../../../../src/core/tasks/task-store';
import {
  restoreTranscript,
  TaskSession,
  type RunKind,
  type SessionDeps,
} from '../../../../src/host/session/task-session';
import { SteeringActions } from '../../../../src/host/ui/steering-actions';
import type { TranscriptState } from '../../../../src/panel/transcript';
import { callsTurn, doneTurn, FakeClock, ScriptedModel, type Turn } from '../../../support/scripted-model';
import { fakeReadTool, ScriptedApprover } from '../../../support/loop-harness';

const log = { info() {}, warn() {}, error() {}, debug() {}, trace() {} } as unknown as SessionDeps['log'];

function setup(turns: Turn[], opts: { saveDelayMs?: number; refuse?: (kind: RunKind, text: string) => boolean } = {}) {
  const saved: TaskRecord[] = [];
  const model = new ScriptedModel(turns);
  const session = TaskSession.create({
    makeAgent: (snapshot?: AgentSnapshot) => {
      const d = { model, tools: [fakeReadTool()], approver: new ScriptedApprover(), clock: new FakeClock() };
      return snapshot ? Agent.restore(snapshot, d) : new Agent(d);
    },
    save: async (r) => void saved.push(structuredClone(r)),
    log,
    saveDelayMs: opts.saveDelayMs ?? 5,
  });
  const started: { kind: RunKind; text: string }[] = [];
  const restores: string[][] = [];
  let actions!: SteeringActions;
  const runs: Promise<RunReport | undefined>[] = [];
  const start = async (kind: RunKind, text: string) => {
    started.push({ kind, text });
    if (opts.refuse?.(kind, text)) return undefined;
    const run = session.run(kind, text);
    runs.push(run);
    const report = await run;
    if (report) actions.afterRun(session, report);
    return report;
  };
  actions = new SteeringActions({
    manager: () => ({ current: session }) as never,
    recovery: () =>
      ({
        restoreBeforeCalls: async (_id: string, calls: string[]) => {
          restores.push(calls);
          return { restored: ['a'], deleted: [], conflicts: [], skipped: [], overwritten: [] };
        },
      }) as never,
    panel: () => undefined,
    start,
  });
  return { session, actions, started, restores, saved, model, runs };
}

const settle = () => new Promise((r) => setTimeout(r, 20));

describe('host/steering: queue, steer, edit and resend', () => {
  it('a steer shows as waiting, then as the user message once the run delivered it', async () => {
    const t: ReturnType<typeof setup> = setup([
      () => {
        t.actions.steer('use b instead');
        assert.deepEqual(
          t.session.transcript.queued.map((q) => [q.text, q.steer]),
          [['use b instead', true]],
        );
        return callsTurn(['read_file', { path: 'a' }]);
      },
      doneTurn('ok'),
    ]);
    const report = await t.session.run('send', 'read a');
    assert.equal(report?.reason, 'done');
    assert.deepEqual(t.session.transcript.queued, []);
    const users = t.session.transcript.getItems().filter((it) => it.kind === 'user');
    assert.deepEqual(
      users.map((u) => [u.text, u.kind === 'user' && !!u.steered]),
      [
        ['read a', false],
        ['use b instead', true],
      ],
    );
  });

  it('a queued message is sent as the next message when the run finishes', async () => {
    const t: ReturnType<typeof setup> = setup([
      () => {
        t.actions.add('then write the docs');
        t.actions.add('and a changelog');
        return doneTurn('first done');
      },
      doneTurn('docs done'),
      doneTurn('changelog done'),
    ]);
    await t.actions.steer('start'); // idle: sent as a message
    await settle();
    await Promise.all(t.runs);
    await settle();
    await Promise.all(t.runs);
    assert.deepEqual(
      t.started.map((s) => s.text),
      ['start', 'then write the docs', 'and a changelog'],
    );
    assert.deepEqual(t.session.transcript.queued, []);
  });

  it('after Stop the queue stays, steers the run never delivered included, and is saved with the task', async () => {
    const t: ReturnType<typeof setup> = setup([
      () => {
        t.actions.add('queued one');
        t.actions.steer('steer one');
        t.actions.update(t.session.transcript.queued[0].id, 'queued one, edited');
        t.session.stop();
        return doneTurn('never');
      },
    ]);
    await t.actions.add('go');
    await Promise.all(t.runs);
    await settle();
    assert.deepEqual(
      t.session.transcript.queued.map((q) => [q.text, !!q.steer]),
      [
        ['queued one, edited', false],
        ['steer one', false],
      ],
    );
    assert.equal(t.started.length, 1, 'nothing is sent after Stop');
    await t.session.save();
    const record = t.saved.at(-1)!;
    const back = restoreTranscript(record.transcript as TranscriptState, record.snapshot as AgentSnapshot);
    assert.deepEqual(
      back.queue?.map((q) => q.text),
      ['queued one, edited', 'steer one'],
    );
    t.actions.remove(t.session.transcript.queued[0].id);
    assert.deepEqual(
      t.session.transcript.queued.map((q) => q.text),
      ['steer one'],
    );
  });

  it('edit and resend: the conversation goes back to the message, the files on request, then the new text runs', async () => {
    const t = setup([
      callsTurn(['read_file', { path: 'a' }]),
      doneTurn('first'),
      callsTurn(['read_file', { path: 'b' }]),
      doneTurn('second'),
      doneTurn('edited answer'),
    ]);
    await t.session.run('send', 'first message');
    const historyAfterFirst = t.session.history.length;
    await t.session.run('send', 'second message');
    const second = t.session.transcript.getItems().find((it) => it.kind === 'user' && it.text === 'second message')!;
    const callsOfSecond = t.session.history
      .slice(historyAfterFirst)
      .flatMap((m) => (m.role === 'assistant' ? (m.toolCalls ?? []).map((c) => c.id) : []));
    await t.actions.editResend({
      type: 'edit_resend',
      requestId: 'r1',
      itemId: second.id,
      text: 'second message, edited',
      restoreFiles: true,
    });
    assert.deepEqual(t.restores, [callsOfSecond]);
    const users = t.session.transcript.getItems().filter((it) => it.kind === 'user');
    assert.deepEqual(
      users.map((u) => u.kind === 'user' && u.text),
      ['first message', 'second message, edited'],
    );
    const contents = t.session.history.filter((m) => m.role === 'user').map((m) => m.content);
    assert.deepEqual(contents, ['first message', 'second message, edited']);
  });

  it('edit and resend without files tells the model the files kept their changes', async () => {
    const t = setup([callsTurn(['read_file', { path: 'a' }]), doneTurn('first'), doneTurn('again')]);
    await t.session.run('send', 'do it');
    const item = t.session.transcript.getItems().find((it) => it.kind === 'user')!;
    await t.actions.editResend({
      type: 'edit_resend',
      requestId: 'r',
      itemId: item.id,
      text: 'do it better',
      restoreFiles: false,
    });
    assert.deepEqual(t.restores, []);
    const user = t.session.history.find((m) => m.role === 'user')!;
    assert.match(user.content, /went back to an earlier message[\s\S]*do it better$/);
  });

  describe('a message is in the queue or in the conversation, never both, never lost (a crash at any save)', () => {
    /** Where `text` is in a saved record: queued, and / or a user turn of the conversation. */
    const placesIn = (r: TaskRecord, text: string) => {
      const t = r.transcript as TranscriptState;
      const s = r.snapshot as AgentSnapshot;
      return (
        (t.queue ?? []).filter((q) => q.text === text).length +
        s.history.filter((m) => m.role === 'user' && m.content === text).length
      );
    };

    it('a queued message is saved at once, and every later save holds it exactly once', async () => {
      let savesAtQueue = 0;
      // No debounced saves: only what the session saves at once counts.
      const t: ReturnType<typeof setup> = setup(
        [
          () => {
            t.actions.add('then the docs');
            savesAtQueue = t.saved.length;
            return callsTurn(['read_file', { path: 'a' }]);
          },
          () => {
            const last = t.saved.at(-1)!;
            assert.equal(placesIn(last, 'then the docs'), 1, 'saved while the run still works');
            return doneTurn('first');
          },
          doneTurn('docs'),
        ],
        { saveDelayMs: 60_000 },
      );
      await t.actions.add('go');
      await settle();
      await Promise.all(t.runs);
      await settle();
      await t.session.save();
      assert.deepEqual(
        t.started.map((s) => s.text),
        ['go', 'then the docs'],
      );
      const after = t.saved.slice(savesAtQueue);
      assert.ok(after.length >= 3);
      for (const r of after) assert.equal(placesIn(r, 'then the docs'), 1);
      assert.deepEqual((t.saved.at(-1)!.transcript as TranscriptState).queue ?? [], []);
    });

    it('a queued message whose send is refused stays in the queue (and in the saved task)', async () => {
      const t: ReturnType<typeof setup> = setup(
        [
          () => {
            t.actions.add('then the docs');
            return doneTurn('first');
          },
        ],
        { refuse: (kind, text) => kind === 'send' && text === 'then the docs' },
      );
      await t.actions.add('go');
      await Promise.all(t.runs);
      await settle();
      assert.deepEqual(
        t.started.map((s) => s.text),
        ['go', 'then the docs'],
      );
      assert.deepEqual(
        t.session.transcript.queued.map((q) => q.text),
        ['then the docs'],
      );
      await t.session.save();
      assert.equal(placesIn(t.saved.at(-1)!, 'then the docs'), 1);
    });

    it('a restore never shows a delivered steer in the queue as well', async () => {
      const t: ReturnType<typeof setup> = setup([
        () => {
          t.actions.steer('use b');
          return callsTurn(['read_file', { path: 'a' }]);
        },
        doneTurn('ok'),
      ]);
      await t.session.run('send', 'read a');
      const record = t.saved.at(-1)!;
      const id = (record.snapshot as AgentSnapshot).history.find((m) => m.role === 'user' && m.content === 'use b')!;
      assert.ok(id.role === 'user' && id.turnId);
      // A transcript saved with the steer still waiting, next to a conversation that has it (never both).
      const stale = { ...(record.transcript as TranscriptState), queue: [{ id: id.turnId!, text: 'use b' }] };
      const back = restoreTranscript(stale, record.snapshot as AgentSnapshot);
      assert.deepEqual(back.queue ?? [], []);
      // A different message that merely shares the text stays queued.
      const other = { ...stale, queue: [{ id: 'queued-x', text: 'use b' }] };
      assert.deepEqual(
        restoreTranscript(other, record.snapshot as AgentSnapshot).queue?.map((q) => q.id),
        ['queued-x'],
      );
    });
  });
});

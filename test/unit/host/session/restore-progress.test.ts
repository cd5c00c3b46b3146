// Issue 26 item 9: the footer's token figures after a reload. A finished task saved to disk (JSON), restored, and
// sent to the webview as a snapshot keeps the run's tokens in its progress, as the footer shows them.
import * as assert from 'node:assert';
import { Agent } from '../../../../src/core/loop/agent';
import type { TaskRecord } from '../../../../src/core/tasks/task-store';
import type { AgentSnapshot } from '../../../../src/core/tasks/snapshot';
import { TaskSession, type SessionDeps } from '../../../../src/host/session/task-session';
import { PanelBridge } from '../../../../src/panel/bridge';
import type { TranscriptState } from '../../../../src/panel/transcript';
import { parseHostMessage } from '../../../../src/protocol/messages';
import type { Approver } from '../../../../src/core/safety/approval';
import { FakeClock, ScriptedModel, callsTurn, doneTurn } from '../../../support/scripted-model';
import { ScriptedApprover, fakeReadTool, fakeWriteTool } from '../../../support/loop-harness';

const log = { info() {}, warn() {}, error() {}, debug() {}, trace() {} } as unknown as SessionDeps['log'];

describe('host/TaskSession restore keeps the footer figures', () => {
  it("a finished task reloaded from disk shows the run's tokens in the webview's snapshot", async () => {
    const saved: TaskRecord[] = [];
    const model = new ScriptedModel([callsTurn(['list_files', { path: '.' }]), doneTurn('ok')]);
    const deps: SessionDeps = {
      makeAgent: (snapshot?: AgentSnapshot) => {
        const d = { model, tools: [], approver: new ScriptedApprover(), clock: new FakeClock() };
        return snapshot ? Agent.restore(snapshot, d) : new Agent(d);
      },
      // As the task store writes it: JSON, so nothing survives that a file would not keep.
      save: async (r) => void saved.push(JSON.parse(JSON.stringify(r)) as TaskRecord),
      log,
      saveDelayMs: 5,
    };
    const live = TaskSession.create(deps);
    await live.run('send', 'look around');
    await new Promise((r) => setTimeout(r, 30));
    const before = live.transcript.snapshot().progress;
    assert.ok(before && before.inputTokens + before.outputTokens > 0, 'the live footer has tokens');

    const restored = TaskSession.restore(deps, saved.at(-1)!);
    const bridge = new PanelBridge({} as never, { info() {}, warn() {}, error() {} } as never);
    bridge.attachTranscript(restored.transcript);
    const parsed = parseHostMessage(JSON.parse(JSON.stringify({ type: 'state', snapshot: bridge.snapshot() })));
    assert.ok(parsed.ok, parsed.ok ? '' : parsed.error);
    const after = parsed.ok && parsed.message.type === 'state' ? parsed.message.snapshot.progress : undefined;
    assert.deepStrictEqual(after && { in: after.inputTokens, out: after.outputTokens, of: after.maxIterations }, {
      in: before.inputTokens,
      out: before.outputTokens,
      of: before.maxIterations,
    });
  });

  // Reproduced in the real VS Code (test/integration/reload-tokens.mjs): reloaded while an approval waited, the
  // footer lost every token, and the resumed run's end showed its own step only.
  it('an approval cut off by a reload keeps its tokens, and the resumed run adds to them', async () => {
    const saved: TaskRecord[] = [];
    // Three steps of 100 in / 10 out: read, the write that waits, done.
    const model = new ScriptedModel([
      callsTurn(['read_file', { path: 'a.txt' }]),
      callsTurn(['write_file', { path: 'b.txt', content: 'b' }]),
      doneTurn('ok'),
    ]);
    let asked = false;
    const waits: Approver = {
      request: (_req, signal) => {
        asked = true;
        return new Promise((_, reject) => signal.addEventListener('abort', () => reject(new Error('aborted'))));
      },
    };
    const deps = (approver: Approver): SessionDeps => ({
      makeAgent: (snapshot?: AgentSnapshot) => {
        const d = { model, tools: [fakeReadTool(), fakeWriteTool()], approver, clock: new FakeClock() };
        return snapshot ? Agent.restore(snapshot, d) : new Agent(d);
      },
      save: async (r) => void saved.push(JSON.parse(JSON.stringify(r)) as TaskRecord),
      log,
      saveDelayMs: 5,
    });
    const live = TaskSession.create(deps(waits));
    void live.run('send', 'write b').catch(() => {});
    for (let i = 0; i < 200 && !asked; i++) await new Promise((r) => setTimeout(r, 5));
    assert.ok(asked, 'the write waits for its approval');
    await new Promise((r) => setTimeout(r, 30));
    const tokens = (p: { inputTokens: number; outputTokens: number } | undefined) =>
      p && `${p.inputTokens}/${p.outputTokens}`;
    assert.equal(tokens(live.transcript.snapshot().progress), '200/20', 'the footer counts the step that waits');
    const record = saved.at(-1)!;
    assert.equal(
      tokens((record.transcript as TranscriptState | undefined)?.progress),
      '200/20',
      'and so does the saved task',
    );

    const restored = TaskSession.restore(deps(new ScriptedApprover()), record);
    assert.equal(tokens(restored.transcript.snapshot().progress), '200/20', 'after the reload');
    const resumed = restored.run('resume', '');
    assert.equal(tokens(restored.transcript.snapshot().progress), '200/20', 'when the resumed run starts');
    await resumed;
    assert.equal(tokens(restored.transcript.snapshot().progress), '300/30', 'the whole run once it ends');
    const end = restored.transcript.snapshot().items.find((it) => it.kind === 'run_end');
    assert.equal(end?.kind === 'run_end' && `${end.inputTokens}/${end.outputTokens}`, '300/30', 'the run-end card too');
  });
});

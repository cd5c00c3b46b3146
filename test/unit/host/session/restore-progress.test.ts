// Issue 26 item 9: the footer's token figures after a reload. A finished task saved to disk (JSON), restored, and
// sent to the webview as a snapshot keeps the run's tokens in its progress, as the footer shows them.
import * as assert from 'node:assert';
import { Agent } from '../../../../src/core/loop/agent';
import type { TaskRecord } from '../../../../src/core/tasks/task-store';
import type { AgentSnapshot } from '../../../../src/core/tasks/snapshot';
import { TaskSession, type SessionDeps } from '../../../../src/host/session/task-session';
import { PanelBridge } from '../../../../src/panel/bridge';
import { parseHostMessage } from '../../../../src/protocol/messages';
import { FakeClock, ScriptedModel, callsTurn, doneTurn } from '../../../support/scripted-model';
import { ScriptedApprover } from '../../../support/loop-harness';

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
});

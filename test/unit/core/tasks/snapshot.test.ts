import assert from 'node:assert/strict';
import { Agent } from '../../../../src/core/loop/agent';
import { callsTurn, doneTurn, FakeClock, ScriptedModel } from '../../../support/scripted-model';
import {
  assertHistoryConsistent,
  fakeReadTool,
  fakeWriteTool,
  harness,
  ScriptedApprover,
} from '../../../support/loop-harness';

function waitFor(pred: () => boolean): Promise<void> {
  return new Promise((resolve) => {
    const tick = () => (pred() ? resolve() : setTimeout(tick, 1));
    tick();
  });
}

describe('core/tasks snapshot: dump and restore', () => {
  it('round-trips a pending approval; restore + resumePending re-asks it and completes the run', async () => {
    const writesA: Parameters<typeof fakeWriteTool>[0] = [];
    const h = harness(
      [
        callsTurn(['read_file', { path: 'x' }]),
        callsTurn(['write_file', { path: 'a.ts', content: 'A' }], ['read_file', { path: 'y' }]),
      ],
      {
        tools: [fakeReadTool(), fakeWriteTool(writesA)],
        config: { mode: 'implement', price: (u) => u.inputTokens / 1e6 },
      },
      new ScriptedApprover(['hang']),
    );
    const running = h.agent.send('write a.ts');
    await waitFor(() => h.ofType('approval_requested').length > 0);
    const snap = JSON.parse(JSON.stringify(h.agent.dump()));
    h.agent.stop(); // the window closes
    await running;

    assert.ok(snap.pending, 'pending approval captured');
    assert.equal(snap.pending.request.toolName, 'write_file');
    assert.deepEqual(
      snap.pending.calls.map((c: { name: string }) => c.name),
      ['write_file', 'read_file'],
    );
    assert.equal(snap.iterations, 2);
    assert.equal(snap.maxIterations, 50);
    assert.equal(snap.mode, 'implement');
    assert.deepEqual(snap.usage, { inputTokens: 200, outputTokens: 20 });
    assert.ok(Math.abs(snap.costUsd - 0.0002) < 1e-12);

    const model = new ScriptedModel([doneTurn('written')]);
    const approver = new ScriptedApprover([{ kind: 'approve' }]);
    const writesB: Parameters<typeof fakeWriteTool>[0] = [];
    const reads: string[] = [];
    const restored = Agent.restore(snap, {
      model,
      approver,
      clock: new FakeClock(),
      tools: [fakeReadTool(reads), fakeWriteTool(writesB)],
      config: { price: (u) => u.inputTokens / 1e6 },
    });
    assert.equal(restored.mode, 'implement');
    assert.equal(restored.history.length, snap.history.length);

    const report = await restored.resumePending();
    assert.ok(report);
    assert.equal(report.reason, 'done');
    assert.equal(report.detail, 'written');
    assert.equal(approver.requests.length, 1);
    assert.equal(approver.requests[0].id, snap.pending.request.id, 'same approval id after reload');
    assert.deepEqual(
      writesB.map((w) => w.path),
      ['a.ts'],
    );
    assert.deepEqual(reads, ['y']);
    assert.equal(writesA.length, 0);
    assert.equal(report.iterations, 3); // counters continued
    assertHistoryConsistent(restored.history);
    assert.equal(restored.dump().pending, undefined);
    assert.equal(await restored.resumePending(), undefined);
  });

  it('restore without a pending approval closes interrupted tool calls and keeps task approvals', async () => {
    const snap = {
      version: 1 as const,
      taskId: 't-9',
      mode: 'agent' as const,
      history: [
        { role: 'user' as const, content: 'go' },
        {
          role: 'assistant' as const,
          content: '',
          toolCalls: [{ id: 'k1', name: 'write_file', args: { path: 'a', content: '' }, rawArgs: '{}' }],
        },
      ],
      iterations: 1,
      maxIterations: 25,
      allowedForTask: ['write_file'],
      usage: { inputTokens: 1, outputTokens: 1 },
      counters: { runs: 1, approvals: 0 },
    };
    const model = new ScriptedModel([callsTurn(['write_file', { path: 'b', content: 'B' }]), doneTurn()]);
    const approver = new ScriptedApprover();
    const agent = Agent.restore(snap, { model, approver, clock: new FakeClock(), tools: [fakeWriteTool()] });
    assertHistoryConsistent(agent.history);
    assert.match(agent.history.at(-1)!.content, /Interrupted/);
    assert.equal(agent.taskId, 't-9');
    await agent.send('continue please');
    assert.equal(approver.requests.length, 0, 'allow-for-task survived the restore');
  });

  it('rejects a foreign snapshot', () => {
    assert.throws(
      () =>
        Agent.restore({ version: 2 } as never, {
          model: new ScriptedModel(),
          approver: new ScriptedApprover(),
          tools: [],
        }),
      /Unsupported agent snapshot version/,
    );
  });
});

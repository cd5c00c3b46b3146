import assert from 'node:assert/strict';
import { CANCELLED_RESULT } from '../../../../src/core/context/history';
import { callsTurn, doneTurn, text } from '../../../support/scripted-model';
import { ModelError } from '../../../../src/core/model/errors';
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

describe('core/loop cancellation', () => {
  it('stop mid-stream with a model that ignores the signal ends within 1 s; continueRun works', async () => {
    const h = harness([{ events: [text('Partial answer')], hang: 'ignore' }]);
    const p = h.agent.send('long task');
    await waitFor(() => h.ofType('text_delta').length > 0);
    const t0 = Date.now();
    h.agent.stop();
    const report = await p;
    assert.ok(Date.now() - t0 < 1000, 'stopped within 1 s');
    assert.equal(report.reason, 'stopped');
    assert.equal(h.model.requests[0].signal.aborted, true, 'the signal reached the model');
    assert.equal(h.agent.running, false);
    assertHistoryConsistent(h.agent.history);
    // What the model already said is kept, marked as interrupted.
    assert.match(h.agent.history.at(-1)!.content, /Partial answer\n\[interrupted by the user\]/);

    h.model.push(doneTurn('resumed'));
    const next = await h.agent.continueRun();
    assert.equal(next.reason, 'done');
    assert.equal(next.detail, 'resumed');
    assert.equal(h.model.requests[1].messages.at(-1)!.role, 'user');
    assertHistoryConsistent(h.agent.history);
  });

  it('stop during tool execution: the dangling call gets a cancelled result; the signal reached the tool', async () => {
    let toolSignal: AbortSignal | undefined;
    const hanging = fakeReadTool([], (_p, ctx) => {
      toolSignal = ctx.signal;
      return new Promise(() => undefined); // ignores the signal
    });
    const h = harness([callsTurn(['read_file', { path: 'a' }], ['read_file', { path: 'b' }])], { tools: [hanging] });
    const p = h.agent.send('t');
    await waitFor(() => toolSignal !== undefined);
    const t0 = Date.now();
    h.agent.stop();
    const report = await p;
    assert.ok(Date.now() - t0 < 1000);
    assert.equal(report.reason, 'stopped');
    assert.equal(toolSignal!.aborted, true);
    const results = h.agent.history.filter((m) => m.role === 'tool');
    assert.equal(results.length, 2);
    for (const r of results) assert.equal(r.content, CANCELLED_RESULT);
    assertHistoryConsistent(h.agent.history);

    h.model.push(doneTurn('ok'));
    assert.equal((await h.agent.continueRun()).reason, 'done');
  });

  it('stop while waiting for approval ends the run; the approval call is cancelled', async () => {
    const approver = new ScriptedApprover(['hang']);
    const h = harness(
      [callsTurn(['write_file', { path: 'a', content: 'x' }])],
      { tools: [fakeReadTool(), fakeWriteTool()] },
      approver,
    );
    const p = h.agent.send('t');
    await waitFor(() => h.ofType('approval_requested').length > 0);
    h.agent.stop();
    const report = await p;
    assert.equal(report.reason, 'stopped');
    assert.equal(approver.signals[0].aborted, true, 'the run signal reached the approver');
    assert.equal(h.agent.dump().pending, undefined);
    assertHistoryConsistent(h.agent.history);
  });

  it('stop during a retry backoff ends the run', async () => {
    const h = harness([{ error: new ModelError('server', 'down') }, doneTurn()]);
    h.clock.sleep = (_ms, signal) =>
      new Promise((_, reject) => signal!.addEventListener('abort', () => reject(new Error('aborted'))));
    const p = h.agent.send('t');
    await waitFor(() => h.ofType('warning').length > 0);
    h.agent.stop();
    assert.equal((await p).reason, 'stopped');
  });
});

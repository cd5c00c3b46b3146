import assert from 'node:assert/strict';
import { systemClock } from '../../../../src/core/loop/config';
import { TIME_BUDGET_RESULT } from '../../../../src/core/loop/deadline';
import type { RunReport } from '../../../../src/core/loop/events';
import type { Model, ModelEvent } from '../../../../src/core/model/types';
import { callsTurn, doneTurn, FakeClock, text } from '../../../support/scripted-model';
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

/** Lets pending promise chains settle (a report that is due resolves by then). */
const settle = () => new Promise((r) => setTimeout(r, 5));

function track(p: Promise<RunReport>): { report?: RunReport } {
  const box: { report?: RunReport } = {};
  p.then((r) => (box.report = r));
  return box;
}

describe('core/loop wall-time deadline', () => {
  it('a hanging tool (ignoring its signal) trips the breaker exactly at the deadline; history stays consistent; continueRun works', async () => {
    const signals: AbortSignal[] = [];
    const hanging = fakeReadTool([], (_p, ctx) => {
      signals.push(ctx.signal);
      return new Promise(() => undefined);
    });
    const h = harness([callsTurn(['read_file', { path: 'a' }], ['read_file', { path: 'b' }])], {
      tools: [hanging],
      config: { maxWallTimeMs: 60_000 },
    });
    const run = track(h.agent.send('t'));
    await waitFor(() => signals.length === 2);
    h.clock.advance(59_999);
    await settle();
    assert.equal(run.report, undefined, 'still running before the deadline');
    assert.equal(signals[0].aborted, false);
    h.clock.advance(1);
    await waitFor(() => run.report !== undefined);
    const report = run.report!;
    assert.equal(report.reason, 'breaker');
    assert.match(report.detail, /^Time budget reached: ran 60 s of 60 s allowed; cut off while running tool read_file/);
    assert.match(report.detail, /2 unfinished tool calls were cut off\. Continue/);
    assert.ok(
      signals.every((s) => s.aborted),
      'the tools were told to stop',
    );
    const results = h.agent.history.filter((m) => m.role === 'tool');
    assert.deepEqual(
      results.map((r) => r.content),
      [TIME_BUDGET_RESULT, TIME_BUDGET_RESULT],
    );
    assertHistoryConsistent(h.agent.history);
    assert.equal(h.clock.pendingTimers, 0, 'no timer outlives the run');
    assert.equal(h.agent.running, false);

    // A continued run gets a fresh budget.
    h.model.push(doneTurn('finished'));
    const next = await h.agent.continueRun();
    assert.equal(next.reason, 'done');
    assert.equal(h.clock.pendingTimers, 0);
    assertHistoryConsistent(h.agent.history);
  });

  it('a model stream that hangs mid-reply trips the breaker; the partial text is kept and marked', async () => {
    const h = harness([{ events: [text('Partial answer')], hang: 'ignore' }], { config: { maxWallTimeMs: 30_000 } });
    const run = track(h.agent.send('t'));
    await waitFor(() => h.ofType('text_delta').length > 0);
    h.clock.advance(30_000);
    await waitFor(() => run.report !== undefined);
    assert.equal(run.report!.reason, 'breaker');
    assert.match(
      run.report!.detail,
      /Time budget reached: ran 30 s of 30 s allowed; cut off while waiting for the model's reply \(step 1\)\. Continue/,
    );
    assert.equal(h.model.requests[0].signal.aborted, true, 'the signal reached the model');
    assert.equal(h.agent.history.at(-1)!.content, 'Partial answer\n[interrupted by the time budget]');
    assert.equal(run.report!.steps[0].error, 'stopped');
    assertHistoryConsistent(h.agent.history);

    h.model.push(doneTurn('resumed'));
    assert.equal((await h.agent.continueRun()).reason, 'done');
    assertHistoryConsistent(h.agent.history);
  });

  it('a model stream that trickles forever (never finishing) is cut off at the deadline', async () => {
    const clock = new FakeClock();
    let streams = 0;
    let trickled = 0;
    const model: Model = {
      info: {
        provider: 'scripted',
        model: 'trickle',
        contextWindow: 100_000,
        maxOutputTokens: 4096,
        nativeTools: true,
      },
      async *stream(): AsyncIterable<ModelEvent> {
        if (++streams > 1) {
          yield* doneTurn('ok');
          return;
        }
        while (true) {
          await new Promise((r) => setImmediate(r));
          clock.advance(1000);
          trickled++;
          yield text('.');
        }
      },
    };
    const h = harness([], { model, clock, config: { maxWallTimeMs: 10_000 } });
    const report = await h.agent.send('t');
    assert.equal(report.reason, 'breaker');
    assert.match(
      report.detail,
      /Time budget reached: ran 10 s of 10 s allowed; cut off while waiting for the model's reply/,
    );
    assert.ok(trickled >= 10 && trickled <= 11, `stopped at the deadline (${trickled} chunks)`);
    assert.match(h.agent.history.at(-1)!.content, /^\.{9,11}\n\[interrupted by the time budget\]$/);
    assert.equal((await h.agent.continueRun()).reason, 'done');
    assertHistoryConsistent(h.agent.history);
  });

  it('the deadline also ends a wait for approval; the pending approval is dropped', async () => {
    const approver = new ScriptedApprover(['hang']);
    const h = harness(
      [callsTurn(['write_file', { path: 'a', content: 'x' }])],
      { tools: [fakeReadTool(), fakeWriteTool()], config: { maxWallTimeMs: 5_000 } },
      approver,
    );
    const run = track(h.agent.send('t'));
    await waitFor(() => h.ofType('approval_requested').length > 0);
    h.clock.advance(5_000);
    await waitFor(() => run.report !== undefined);
    assert.equal(run.report!.reason, 'breaker');
    assert.match(
      run.report!.detail,
      /cut off while waiting for approval of write_file\. 1 unfinished tool call was cut off\./,
    );
    assert.equal(approver.signals[0].aborted, true);
    assert.equal(h.agent.dump().pending, undefined);
    assert.equal(h.agent.history.at(-1)!.content, TIME_BUDGET_RESULT);
    assertHistoryConsistent(h.agent.history);
  });

  it('a stop before the deadline still reports stopped; finished runs leave no timer behind', async () => {
    const hanging = fakeReadTool([], () => new Promise(() => undefined));
    const h = harness([callsTurn(['read_file', { path: 'a' }])], {
      tools: [hanging],
      config: { maxWallTimeMs: 60_000 },
    });
    const p = h.agent.send('t');
    await waitFor(() => h.clock.pendingTimers === 1 && h.ofType('tool_call_end').length > 0);
    h.agent.stop();
    const report = await p;
    assert.equal(report.reason, 'stopped');
    assert.equal(h.clock.pendingTimers, 0);
    assert.match(h.agent.history.at(-1)!.content, /Cancelled by user/);
    h.clock.advance(120_000); // a late deadline must not touch a later run
    h.model.push(doneTurn());
    assert.equal((await h.agent.continueRun()).reason, 'done');
    assert.equal(h.clock.pendingTimers, 0);
  });

  it('with the real clock, a hanging tool ends the run at the deadline', async () => {
    const hanging = fakeReadTool([], () => new Promise(() => undefined));
    const h = harness([callsTurn(['read_file', { path: 'a' }])], {
      tools: [hanging],
      clock: systemClock as FakeClock,
      config: { maxWallTimeMs: 40 },
    });
    const t0 = Date.now();
    const report = await h.agent.send('t');
    const took = Date.now() - t0;
    assert.equal(report.reason, 'breaker');
    assert.match(report.detail, /Time budget reached.*running tool read_file/);
    assert.ok(took >= 39 && took < 1000, `ended at the deadline (${took} ms)`);
    assertHistoryConsistent(h.agent.history);
  });
});

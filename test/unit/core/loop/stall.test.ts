// A stream that goes silent is a 'stall': measured on the loop's Clock (FakeClock here), the attempt's request is
// aborted, the step is retried with the loop's backoff, and the user sees one warning line that updates in place.
import assert from 'node:assert/strict';
import type { AgentEvent } from '../../../../src/core/loop/events';
import { ModelError } from '../../../../src/core/model/errors';
import { Transcript } from '../../../../src/panel/transcript';
import { callsTurn, doneTurn, text, usage } from '../../../support/scripted-model';
import { harness } from '../../../support/loop-harness';

/** Advances the fake clock by `ms` once, right after the first event of `type` (the model is then silent). */
function advanceAfter(
  h: ReturnType<typeof harness>,
  ms: number,
  type: AgentEvent['type'] = 'text_delta',
  times = 1,
): void {
  let left = times;
  h.agent.on((e) => {
    if (e.type === type && left > 0) {
      left--;
      setImmediate(() => h.clock.advance(ms));
    }
  });
}

describe('core/loop stalled streams', () => {
  it('text then silence: the attempt is aborted after the idle timeout, retried with backoff, then succeeds', async () => {
    const h = harness([{ events: [text('Let me look')], hang: 'honour' }, doneTurn('ok')], {
      config: { streamIdleTimeoutMs: 90_000 },
    });
    advanceAfter(h, 90_000);
    const report = await h.agent.send('t');
    assert.equal(report.reason, 'done');
    assert.equal(h.model.requests.length, 2);
    assert.equal(h.model.requests[0].signal.aborted, true, "the stalled attempt's request was aborted");
    assert.equal(h.model.requests[1].signal.aborted, false);
    assert.deepEqual(h.clock.sleeps, [1000], "the loop's model backoff");
    const warnings = h.ofType('warning').filter((w) => w.kind === 'retry');
    assert.equal(new Set(warnings.map((w) => w.key)).size, 1, 'one line');
    assert.match(
      warnings[0].message,
      /^Model stream stalled; retry 1\/3 in 1 s \(the model stream went silent for 90 s\)/,
    );
    assert.match(warnings.at(-1)!.message, /^Model stream stalled; recovered on retry 1\/3/);
    assert.equal(report.steps.length, 1);
    assert.equal(report.steps[0].error, undefined);
  });

  it('a stream that keeps delivering is never a stall, however long it takes in total', async () => {
    const events = Array.from({ length: 20 }, (_, i) => text(`chunk ${i} `));
    const h = harness([{ events: [...events, ...doneTurn('slow but fine')] }], {
      config: { streamIdleTimeoutMs: 10_000 },
    });
    h.agent.on((e) => {
      if (e.type === 'text_delta') h.clock.advance(9_000); // 20 x 9 s = 180 s in total, never 10 s idle
    });
    const report = await h.agent.send('t');
    assert.equal(report.reason, 'done');
    assert.equal(h.model.requests.length, 1);
    assert.equal(h.ofType('warning').length, 0);
  });

  it('before the first event the model gets twice the idle time (prompt processing, model load)', async () => {
    const h = harness([{ events: [], hang: 'honour' }, doneTurn()], { config: { streamIdleTimeoutMs: 30_000 } });
    h.agent.on((e) => {
      if (e.type === 'step_start' && e.iteration === 1) {
        setImmediate(() => {
          h.clock.advance(59_000);
          assert.equal(h.model.requests[0].signal.aborted, false, 'not yet at 59 s');
          h.clock.advance(1_000);
        });
      }
    });
    const report = await h.agent.send('t');
    assert.equal(report.reason, 'done');
    const w = h.ofType('warning').find((e) => e.kind === 'retry')!;
    assert.match(w.message, /the model stream sent nothing for 60 s/);
  });

  it('stalls on every retry: the run ends with a stall error and advice; one warning line says it gave up', async () => {
    const stall = () => ({ events: [text('x')], hang: 'honour' as const });
    const h = harness([stall(), stall(), stall(), stall()], { config: { streamIdleTimeoutMs: 5_000 } });
    advanceAfter(h, 5_000, 'text_delta', 4);
    const report = await h.agent.send('t');
    assert.equal(report.reason, 'error');
    assert.match(report.detail, /Model error \(stall\)/);
    assert.match(report.detail, /forge\.streamIdleTimeoutSeconds/);
    assert.deepEqual(h.clock.sleeps, [1000, 2000, 4000]);
    assert.ok(h.model.requests.every((r) => r.signal.aborted));
    const warnings = h.ofType('warning');
    assert.equal(new Set(warnings.map((w) => w.key)).size, 1);
    assert.match(warnings.at(-1)!.message, /gave up after 3 retries/);
  });

  it('0 turns the watchdog off', async () => {
    const h = harness([[text('hi'), usage(1, 1), ...doneTurn()]], { config: { streamIdleTimeoutMs: 0 } });
    assert.equal((await h.agent.send('t')).reason, 'done');
    assert.equal(h.clock.pendingTimers, 0);
  });

  it('a stall is a typed, retryable ModelError', () => {
    const e = new ModelError('stall', 'silent');
    assert.equal(e.retryable, true);
    assert.match(e.advice, /retries/);
  });

  it('the transcript shows all retries of a step as one warning item, updated in place', async () => {
    const h = harness([
      { error: new ModelError('overloaded', 'Overloaded', { status: 529 }) },
      { error: new ModelError('overloaded', 'Overloaded', { status: 529 }) },
      callsTurn(['read_file', { path: 'a' }]),
      { error: new ModelError('server', 'boom', { status: 500 }) },
      doneTurn(),
    ]);
    const transcript = new Transcript({ now: () => 0 });
    h.agent.on((e) => transcript.apply(e));
    await h.agent.send('t');
    const warnings = transcript.getItems().filter((i) => i.kind === 'warning');
    assert.equal(warnings.length, 2, 'one line per step that needed retries');
    assert.match((warnings[0] as { message: string }).message, /^Model overloaded \(529\); recovered on retry 2\/3/);
    assert.match((warnings[1] as { message: string }).message, /^Model server error \(500\); recovered on retry 1\/3/);
  });
});

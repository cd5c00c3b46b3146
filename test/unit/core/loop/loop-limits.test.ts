import assert from 'node:assert/strict';
import { z } from 'zod';
import type { Tool } from '../../../../src/core/tools/types';
import { callsTurn, doneTurn, type Turn } from '../../../support/scripted-model';
import { assertHistoryConsistent, fakeReadTool, harness } from '../../../support/loop-harness';

/** Turns reading distinct files (progress each time, never stagnant). */
function reading(n: number, from = 0): Turn[] {
  return Array.from({ length: n }, (_, i) => callsTurn(['read_file', { path: `f${from + i}.ts` }]));
}

describe('core/loop limits and breakers', () => {
  it('max_iterations at the limit, 80% warning in the prompt, continueRun extends', async () => {
    const h = harness(reading(5), { config: { maxIterations: 5 } });
    const report = await h.agent.send('big task');
    assert.equal(report.reason, 'max_iterations');
    assert.equal(report.iterations, 5);
    assert.equal(h.model.requests.length, 5);
    // 80% of 5 = iteration 4: warning layer from then on, not before.
    const hasWarning = (i: number) => h.model.requests[i].system.some((l) => l.id === 'iteration-warning');
    assert.equal(hasWarning(2), false);
    assert.equal(hasWarning(3), true);
    assert.equal(hasWarning(4), true);
    assert.match(h.model.systemText(3), /Iteration 4 of 5/);
    assert.equal(h.ofType('warning').filter((w) => w.kind === 'iteration_limit').length, 1);
    // Stable layers come before dynamic ones.
    const stable = h.model.requests[3].system.map((l) => l.stable);
    assert.deepEqual(
      stable,
      [...stable].sort((a, b) => Number(b) - Number(a)),
    );

    h.model.push(...reading(2, 10), doneTurn('finished'));
    const more = await h.agent.continueRun(3);
    assert.equal(more.reason, 'done');
    assert.equal(more.iterations, 8);
    assert.equal(h.ofType('run_start').at(-1)!.maxIterations, 8);
    assertHistoryConsistent(h.agent.history);
  });

  it('continueRun without arguments extends by the mode limit once the limit was reached', async () => {
    const h = harness(reading(2), { config: { maxIterations: 2 } });
    assert.equal((await h.agent.send('t')).reason, 'max_iterations');
    h.model.push(...reading(2, 5));
    const again = await h.agent.continueRun();
    assert.equal(again.reason, 'max_iterations');
    assert.equal(again.iterations, 4);
  });

  it('iteration counts reset per user message', async () => {
    const h = harness([...reading(3), ...reading(3, 10)], { config: { maxIterations: 3 } });
    assert.equal((await h.agent.send('one')).iterations, 3);
    const second = await h.agent.send('two');
    assert.equal(second.reason, 'max_iterations');
    assert.equal(second.iterations, 3);
    assert.equal(h.model.requests.length, 6);
  });

  it('mode limits: test mode stops after 5, deploy after 3; setMode applies the limit on the next message', async () => {
    const h = harness(reading(5), { config: { mode: 'test' } });
    const report = await h.agent.send('run tests');
    assert.equal(report.reason, 'max_iterations');
    assert.equal(report.iterations, 5);
    assert.equal(h.ofType('run_start')[0].maxIterations, 5);
    assert.equal(h.ofType('run_start')[0].mode, 'test');
    h.agent.setMode('deploy');
    assert.equal(h.agent.mode, 'deploy');
    h.model.push(...reading(3, 20));
    assert.equal((await h.agent.send('deploy')).iterations, 3);
    assert.match(h.model.systemText(5), /Deploy mode/);
  });

  it('a tool outside the mode is hidden from the model and refused; repeated attempts trip the guardrail', async () => {
    const write: Tool = {
      name: 'write_file',
      description: 'w',
      risk: 'write',
      input: z.object({ path: z.string() }),
      execute: async () => ({ content: 'wrote' }),
    };
    const h = harness(
      [
        callsTurn(['write_file', { path: 'a' }]),
        callsTurn(['write_file', { path: 'b' }]),
        callsTurn(['write_file', { path: 'c' }]),
      ],
      {
        tools: [fakeReadTool(), write],
        config: { mode: 'plan' },
      },
    );
    const report = await h.agent.send('plan it');
    assert.equal(
      h.model.requests[0].tools.some((t) => t.name === 'write_file'),
      false,
    );
    assert.match(h.model.requests[1].messages.at(-1)!.content, /not available in Plan mode/);
    assert.equal(report.reason, 'guardrail');
    assert.match(report.detail, /not available in this mode 3 times/);
  });

  it('cost budget breaker trips once the priced cost reaches the budget', async () => {
    const h = harness(reading(10), {
      config: { price: (u) => (u.inputTokens + u.outputTokens) / 1000, maxCostUsd: 0.4 },
    });
    const report = await h.agent.send('t');
    // Each step costs 0.11 USD: after 3 steps 0.33 (>= 80%: warning), after 4 steps 0.44 >= 0.4: trip.
    assert.equal(report.reason, 'breaker');
    assert.match(report.detail, /Cost budget/);
    assert.equal(report.iterations, 4);
    assert.ok(Math.abs(report.costUsd! - 0.44) < 1e-9);
    assert.ok(Math.abs(report.steps[0].costUsd! - 0.11) < 1e-9);
    assert.equal(h.ofType('warning').filter((w) => w.kind === 'budget').length, 1);
    assert.ok(Math.abs(h.ofType('iteration')[0].costUsd! - 0.11) < 1e-9);
  });

  it('wall-time breaker trips when the run exceeds its time budget', async () => {
    const slow = fakeReadTool([], async (path) => {
      h.clock.advance(40_000);
      return { content: path, effects: { read: [path] } };
    });
    const h = harness(reading(10), { tools: [slow], config: { maxWallTimeMs: 100_000 } });
    const report = await h.agent.send('t');
    assert.equal(report.reason, 'breaker');
    assert.match(report.detail, /Time budget/);
    assert.equal(report.iterations, 3);
  });

  it('three consecutive tool errors trip the breaker', async () => {
    const failing = fakeReadTool([], async (p) => ({ content: `cannot read ${p}`, isError: true }));
    const h = harness(reading(5), { tools: [failing] });
    const report = await h.agent.send('t');
    assert.equal(report.reason, 'breaker');
    assert.match(report.detail, /3 consecutive tool errors/);
    assert.match(report.detail, /cannot read f2\.ts/);
    assert.equal(report.iterations, 3);
  });

  it('error-rate breaker: more than half of at least 6 calls failed', async () => {
    let n = 0;
    const flaky = fakeReadTool([], async (p) =>
      n++ % 3 === 2 ? { content: p, effects: { read: [p] } } : { content: `err ${p}`, isError: true },
    );
    const h = harness(reading(10), { tools: [flaky] });
    const report = await h.agent.send('t');
    assert.equal(report.reason, 'breaker');
    assert.match(report.detail, /error rate too high: 4 of 6/i);
  });
});

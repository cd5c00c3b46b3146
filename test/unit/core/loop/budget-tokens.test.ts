// The token budget: a breaker like the cost budget (warn at 80%, stop at 100%) that works when the price is
// unknown — proven over the real OpenAI SDK against an OpenAI-compatible "local" model with no price.
import assert from 'node:assert/strict';
import { Agent } from '../../../../src/core/loop/agent';
import type { AgentEvent } from '../../../../src/core/loop/events';
import { createModel } from '../../../../src/providers';
import { Transcript } from '../../../../src/panel/transcript';
import { startLlmServer, type LlmServer, type LlmTurn } from '../../../support/llm-server';
import { callsTurn, doneTurn, FakeClock, text } from '../../../support/scripted-model';
import { fakeReadTool, harness, ScriptedApprover } from '../../../support/loop-harness';

const read = (path: string): LlmTurn => ({
  toolCalls: [{ name: 'read_file', args: { path } }],
  usage: { inputTokens: 120, outputTokens: 20 },
});

describe('token budget (real OpenAI SDK, unknown price)', () => {
  let srv: LlmServer;
  before(async () => {
    srv = await startLlmServer({ chunkBytes: 9 });
  });
  after(async () => srv.close());
  beforeEach(() => srv.reset());

  it('stops a run on a model with no price: warns at 80%, trips at 100%, tokens only in the report', async () => {
    srv.script([read('a.ts'), read('b.ts'), read('c.ts'), read('d.ts'), read('e.ts')]);
    const model = createModel({
      provider: 'openai-compatible',
      model: 'llama3',
      baseUrl: srv.openaiBaseUrl,
      apiKey: 'k',
    });
    const clock = new FakeClock();
    const agent = new Agent({
      model,
      tools: [fakeReadTool()],
      approver: new ScriptedApprover(),
      clock,
      taskId: 't1',
      // The host's price function: undefined for a model without a price. A cost budget cannot stop this run.
      config: {
        maxTokens: 330,
        maxCostUsd: 0.01,
        price: () => undefined,
        stagnation: { identicalCalls: 9, noProgressIterations: 9, repeatedErrors: 9 },
      },
    });
    const events: AgentEvent[] = [];
    agent.on((e) => events.push(e));
    const transcript = new Transcript({ now: () => 0 });
    agent.on((e) => transcript.apply(e));
    const report = await agent.send('read everything');
    assert.equal(report.reason, 'breaker');
    assert.match(report.detail, /^Token budget reached: 420 of 330 tokens used/);
    assert.equal(srv.requests.length, 3, '140 tokens a step: warned at 280 (>= 80%), stopped at 420');
    assert.equal(report.usage.inputTokens + report.usage.outputTokens, 420);
    assert.equal(report.costUsd, undefined);
    const budget = events.filter(
      (e): e is Extract<AgentEvent, { type: 'warning' }> => e.type === 'warning' && e.kind === 'budget',
    );
    assert.equal(budget.length, 1);
    assert.equal(budget[0].message, '280 tokens used: 84% of the 330 token budget.');
    const types = events.map((e) => (e.type === 'warning' ? `warning:${e.kind}` : e.type));
    assert.ok(types.indexOf('warning:budget') < types.lastIndexOf('step_start'), 'warned before the last step');
    for (const e of events)
      if (e.type === 'iteration') assert.equal(e.costUsd, undefined, 'no cost while streaming either');
    // The panel's run-end card and progress carry tokens, no cost.
    const end = transcript.getItems().find((i) => i.kind === 'run_end')!;
    assert.equal((end as { costUsd?: number }).costUsd, undefined);
    assert.equal(transcript.snapshot().progress?.costUsd, undefined);
    // Continue gets a fresh allowance (the budget is per run, like cost and time).
    srv.script([
      {
        toolCalls: [{ name: 'task_completion', args: { result: 'ok' } }],
        usage: { inputTokens: 100, outputTokens: 5 },
      },
    ]);
    assert.equal((await agent.continueRun()).reason, 'done');
  });
});

describe('token budget (scripted)', () => {
  it('warns once at 80%, then stops before the step after the budget is crossed', async () => {
    const read = (p: string) => callsTurn(['read_file', { path: p }]);
    const h = harness([read('a'), read('b'), read('c'), read('d'), doneTurn()], { config: { maxTokens: 250 } });
    const report = await h.agent.send('t'); // 110 tokens a step: 220 >= 200 (80%) after step 2, 330 >= 250 after step 3
    assert.equal(report.reason, 'breaker');
    assert.equal(h.model.requests.length, 3);
    assert.equal(h.ofType('warning').filter((w) => w.kind === 'budget').length, 1);
    assert.match(report.detail, /Continue to allow another 250/);
  });

  it('a step without provider usage is estimated, so the budget still counts it', async () => {
    const long = 'x'.repeat(4000); // ~1000 tokens of output
    const h = harness(
      [[text(long), ...callsTurn(['read_file', { path: 'a' }]).filter((e) => e.type !== 'usage')], doneTurn()],
      { config: { maxTokens: 900 } },
    );
    const report = await h.agent.send('t');
    assert.equal(report.reason, 'breaker');
    assert.equal(report.steps[0].usageEstimated, true);
    assert.ok(report.steps[0].usage!.outputTokens >= 1000);
  });

  it('a stopped run on a model with no price reports no cost at all (never $0)', async () => {
    const h = harness([{ events: [text('thinking about it')], hang: 'honour' }], {
      config: { price: () => undefined },
    });
    h.agent.on((e) => {
      if (e.type === 'text_delta') setImmediate(() => h.agent.stop());
    });
    const report = await h.agent.send('t');
    assert.equal(report.reason, 'stopped');
    assert.equal(report.costUsd, undefined);
    assert.equal(h.agent.dump().costUsd, undefined);
  });

  it('a free model (known price 0) reports $0', async () => {
    const h = harness([doneTurn()], { config: { price: () => 0 } });
    const report = await h.agent.send('t');
    assert.equal(report.costUsd, 0);
  });
});

// Provider fallback over the real SDKs: after the retries are spent on 529 / 503 / unreachable, the run switches to
// the fallback model (announced) for the rest of the run; never after 401 or 400.
import assert from 'node:assert/strict';
import { Agent } from '../../../../src/core/loop/agent';
import type { AgentEvent } from '../../../../src/core/loop/events';
import { ModelError } from '../../../../src/core/model/errors';
import { createModel } from '../../../../src/providers';
import { startLlmServer, type LlmServer, type LlmTurn } from '../../../support/llm-server';
import { doneTurn, FakeClock, ScriptedModel, text } from '../../../support/scripted-model';
import { assertHistoryConsistent, fakeReadTool, harness, ScriptedApprover } from '../../../support/loop-harness';

const read = (path: string): LlmTurn => ({
  toolCalls: [{ name: 'read_file', args: { path } }],
  usage: { inputTokens: 120, outputTokens: 20 },
});
const done = (result = 'all good'): LlmTurn => ({
  toolCalls: [{ name: 'task_completion', args: { result } }],
  usage: { inputTokens: 150, outputTokens: 10 },
});

describe('provider fallback (real SDKs, loopback server)', () => {
  let primary: LlmServer;
  let backup: LlmServer;
  before(async () => {
    primary = await startLlmServer({ chunkBytes: 11 });
    backup = await startLlmServer({ chunkBytes: 11 });
  });
  after(async () => {
    await primary.close();
    await backup.close();
  });
  beforeEach(() => {
    primary.reset();
    backup.reset();
  });

  function setup(primaryProvider: 'anthropic' | 'openai', fallback = true) {
    const model =
      primaryProvider === 'anthropic'
        ? createModel({
            provider: 'anthropic',
            model: 'claude-sonnet-4-6',
            baseUrl: primary.anthropicBaseUrl,
            apiKey: 'k',
          })
        : createModel({ provider: 'openai', model: 'gpt-4.1', baseUrl: primary.openaiBaseUrl, apiKey: 'k' });
    const fallbackModel = createModel({
      provider: 'openai-compatible',
      model: 'llama3',
      baseUrl: backup.openaiBaseUrl,
      apiKey: 'k',
    });
    const clock = new FakeClock();
    const agent = new Agent({
      model,
      tools: [fakeReadTool()],
      approver: new ScriptedApprover(),
      clock,
      taskId: 't1',
      config: {
        ...(fallback ? { fallbackModel: () => fallbackModel } : {}),
        price: (u, info) => (info?.model === 'llama3' ? undefined : (u.inputTokens + u.outputTokens) / 1e6),
      },
    });
    const events: AgentEvent[] = [];
    agent.on((e) => events.push(e));
    const warnings = () => events.filter((e): e is Extract<AgentEvent, { type: 'warning' }> => e.type === 'warning');
    return { agent, clock, events, warnings };
  }

  for (const [provider, status] of [
    ['anthropic', 529],
    ['openai', 503],
  ] as const) {
    it(`${provider}: repeated ${status} -> retries spent -> the fallback finishes the run, announced once`, async () => {
      primary.script([1, 2, 3, 4].map(() => ({ fault: 'http', status }) as LlmTurn));
      backup.script([read('src/a.ts'), done('via fallback')]);
      const { agent, clock, warnings } = setup(provider);
      const report = await agent.send('go');
      assert.equal(report.reason, 'done', report.detail);
      assert.equal(report.detail, 'via fallback');
      assert.equal(primary.requests.length, 4, 'the first try and 3 retries on the primary');
      assert.deepEqual(clock.sleeps, [1000, 2000, 4000]);
      assert.equal(backup.requests.length, 2, 'the rest of the run stayed on the fallback');
      const announced = warnings().filter((w) => w.kind === 'fallback');
      assert.equal(announced.length, 1);
      assert.match(
        announced[0].message,
        new RegExp(
          `keeps failing \\(overloaded ${status}\\); switched to the fallback model openai-compatible:llama3 for the rest of this run`,
        ),
      );
      assert.match(
        warnings().find((w) => w.kind === 'retry')!.message,
        new RegExp(`^Model overloaded \\(${status}\\)`),
      );
      assert.equal(report.fallback?.to, 'openai-compatible:llama3');
      assert.deepEqual(
        report.steps.map((s) => s.model),
        ['openai-compatible:llama3', 'openai-compatible:llama3'],
      );
      assert.equal(report.costUsd, undefined, 'the fallback has no known price: tokens only');
      assert.equal(report.usage.inputTokens, 270);
      assertHistoryConsistent(agent.history);

      // The next message starts on the primary again.
      primary.script([done('primary is back')]);
      const next = await agent.send('again');
      assert.equal(next.detail, 'primary is back');
      assert.equal(next.fallback, undefined);
    });
  }

  for (const status of [401, 400]) {
    it(`HTTP ${status} never falls back: the run stops with the error`, async () => {
      primary.script([{ fault: 'http', status }]);
      backup.script([done('must not be used')]);
      const { agent, clock, warnings } = setup('anthropic');
      const report = await agent.send('go');
      assert.equal(report.reason, 'error');
      assert.equal(backup.requests.length, 0);
      assert.equal(clock.sleeps.length, 0);
      assert.equal(warnings().filter((w) => w.kind === 'fallback').length, 0);
      assert.equal(report.fallback, undefined);
    });
  }

  it('unreachable primary (connection refused) falls back', async () => {
    const dead = await startLlmServer();
    const url = dead.openaiBaseUrl;
    await dead.close();
    backup.script([done('fallback reached')]);
    const model = createModel({ provider: 'openai', model: 'gpt-4.1', baseUrl: url, apiKey: 'k' });
    const fallbackModel = createModel({
      provider: 'openai-compatible',
      model: 'llama3',
      baseUrl: backup.openaiBaseUrl,
      apiKey: 'k',
    });
    const agent = new Agent({
      model,
      tools: [fakeReadTool()],
      approver: new ScriptedApprover(),
      clock: new FakeClock(),
      config: { fallbackModel },
    });
    const report = await agent.send('go');
    assert.equal(report.detail, 'fallback reached');
    assert.match(report.fallback!.reason, /^network/);
  });

  it('without a fallback the outage ends the run as before', async () => {
    primary.script([1, 2, 3, 4].map(() => ({ fault: 'http', status: 529 }) as LlmTurn));
    const { agent, warnings } = setup('anthropic', false);
    const report = await agent.send('go');
    assert.equal(report.reason, 'error');
    assert.match(report.detail, /overloaded 529/);
    assert.match(warnings().at(-1)!.message, /gave up after 3 retries/);
  });
});

describe('provider fallback (scripted models)', () => {
  it('a stream that stalls on every retry falls back too', async () => {
    const stall = () => ({ events: [text('…')], hang: 'honour' as const });
    const fallback = new ScriptedModel([doneTurn('fallback')], { provider: 'backup', model: 'b1' });
    const h = harness([stall(), stall(), stall(), stall()], {
      config: { streamIdleTimeoutMs: 1000, fallbackModel: fallback },
    });
    h.agent.on((e) => {
      if (e.type === 'text_delta') setImmediate(() => h.clock.advance(1000));
    });
    const report = await h.agent.send('t');
    assert.equal(report.detail, 'fallback');
    assert.match(report.fallback!.reason, /^stall/);
  });

  it('the fallback failing too ends the run with its error (no second switch)', async () => {
    const err = () => ({ error: new ModelError('server', 'down', { status: 500 }) });
    const fallback = new ScriptedModel([err(), err(), err(), err()], { provider: 'backup', model: 'b1' });
    const h = harness([err(), err(), err(), err()], { config: { fallbackModel: fallback } });
    const report = await h.agent.send('t');
    assert.equal(report.reason, 'error');
    assert.equal(fallback.requests.length, 4);
    assert.equal(h.ofType('warning').filter((w) => w.kind === 'fallback').length, 1);
  });

  it("a rate limit (the user's own quota) does not switch providers", async () => {
    const err = () => ({ error: new ModelError('rate_limit', 'slow down', { status: 429 }) });
    const fallback = new ScriptedModel([doneTurn()], { provider: 'backup', model: 'b1' });
    const h = harness([err(), err(), err(), err()], { config: { fallbackModel: fallback } });
    assert.equal((await h.agent.send('t')).reason, 'error');
    assert.equal(fallback.requests.length, 0);
  });
});

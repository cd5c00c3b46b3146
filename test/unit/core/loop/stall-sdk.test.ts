// A stall mid-stream over the real openai and @anthropic-ai/sdk clients: the loopback server sends headers and the
// first text, then nothing. The loop's watchdog (FakeClock) aborts the SDK call, retries, and the step succeeds.
import assert from 'node:assert/strict';
import { Agent } from '../../../../src/core/loop/agent';
import type { AgentEvent } from '../../../../src/core/loop/events';
import type { Model, ModelRequest } from '../../../../src/core/model/types';
import { createModel } from '../../../../src/providers';
import { startLlmServer, type LlmServer, type LlmTurn } from '../../../support/llm-server';
import { FakeClock } from '../../../support/scripted-model';
import { assertHistoryConsistent, fakeReadTool, ScriptedApprover } from '../../../support/loop-harness';

const done = (result = 'all good'): LlmTurn => ({
  toolCalls: [{ name: 'task_completion', args: { result } }],
  usage: { inputTokens: 150, outputTokens: 10 },
});

/** Records the AbortSignal each SDK call was given. */
function recordingSignals(model: Model): { model: Model; signals: AbortSignal[] } {
  const signals: AbortSignal[] = [];
  return {
    signals,
    model: {
      get info() {
        return model.info;
      },
      stream: (r: ModelRequest) => (signals.push(r.signal), model.stream(r)),
    },
  };
}

for (const provider of ['openai', 'anthropic'] as const) {
  describe(`stalled stream over the real ${provider} SDK`, () => {
    let srv: LlmServer;
    before(async () => {
      srv = await startLlmServer({ chunkBytes: 7 });
    });
    after(async () => srv.close());
    beforeEach(() => srv.reset());

    it('some bytes, then silence: aborted after the idle time, retried, then succeeds', async () => {
      srv.script([{ fault: 'hang', text: 'Let me look' }, done('recovered')]);
      const base =
        provider === 'openai'
          ? createModel({ provider: 'openai-compatible', model: 'llama3', baseUrl: srv.openaiBaseUrl, apiKey: 'k' })
          : createModel({
              provider: 'anthropic',
              model: 'claude-sonnet-4-6',
              baseUrl: srv.anthropicBaseUrl,
              apiKey: 'k',
            });
      const { model, signals } = recordingSignals(base);
      const clock = new FakeClock();
      const agent = new Agent({
        model,
        tools: [fakeReadTool()],
        approver: new ScriptedApprover(),
        clock,
        taskId: 't1',
        config: { streamIdleTimeoutMs: 90_000 },
      });
      const events: AgentEvent[] = [];
      let advanced = false;
      agent.on((e) => {
        events.push(e);
        // The first text arrived over the wire; the server now sends nothing. 90 s pass on the loop's clock.
        if (e.type === 'text_delta' && !advanced) {
          advanced = true;
          setTimeout(() => clock.advance(90_000), 20);
        }
      });
      const t0 = Date.now();
      const report = await agent.send('go');
      assert.equal(report.reason, 'done', report.detail);
      assert.equal(report.detail, 'recovered');
      assert.ok(Date.now() - t0 < 5000, 'no real waiting');
      assert.equal(srv.requests.length, 2);
      assert.equal(signals[0].aborted, true, 'the SDK call of the stalled attempt got the abort');
      assert.equal(signals[1].aborted, false);
      assert.deepEqual(clock.sleeps, [1000]);
      const retries = events.filter(
        (e): e is Extract<AgentEvent, { type: 'warning' }> => e.type === 'warning' && e.kind === 'retry',
      );
      assert.match(retries[0].message, /^Model stream stalled; retry 1\/3 in 1 s/);
      assert.equal(new Set(retries.map((w) => w.key)).size, 1);
      assertHistoryConsistent(agent.history);
      assert.ok(
        !agent.history.some((m) => m.role === 'assistant' && m.content.includes('Let me look')),
        'the stalled partial left nothing behind',
      );
    });
  });
}

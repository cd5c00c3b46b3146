// The whole loop on the real openai and @anthropic-ai/sdk clients against the loopback server: the scripted
// provider faults must be survived (or reported) by the Agent exactly as DESIGN.md section 2 says.
import assert from 'node:assert/strict';
import { Agent } from '../../../../src/core/loop/agent';
import type { AgentEvent, RunReport } from '../../../../src/core/loop/events';
import { createModel } from '../../../../src/providers';
import { createWorkspaceTools } from '../../../../src/core/tools/builtin';
import { FakeCommandRunner, FsEditApplier, MemoryFs } from '../../../../src/core/workspace/memory-fs';
import { startLlmServer, type LlmServer, type LlmTurn } from '../../../support/llm-server';
import { FakeClock } from '../../../support/scripted-model';
import { ScriptedApprover, assertHistoryConsistent } from '../../../support/loop-harness';

type Provider = 'openai' | 'anthropic';

const read = (path: string): LlmTurn => ({
  toolCalls: [{ name: 'read_file', args: { path } }],
  usage: { inputTokens: 120, outputTokens: 20 },
});
const done = (result = 'all good'): LlmTurn => ({
  toolCalls: [{ name: 'task_completion', args: { result } }],
  usage: { inputTokens: 150, outputTokens: 10 },
});

function setup(srv: LlmServer, provider: Provider, opts: { nativeTools?: boolean } = {}) {
  const fs = new MemoryFs(['/ws'], { '/ws/src/a.ts': 'export const a = 1;\n', '/ws/.env': 'SECRET=1' });
  const tools = createWorkspaceTools({
    fs,
    runner: new FakeCommandRunner(),
    applier: new FsEditApplier(fs),
    sandbox: { trusted: true },
  });
  const model =
    provider === 'openai'
      ? createModel({
          provider: 'openai-compatible',
          model: 'gpt-4.1',
          baseUrl: srv.openaiBaseUrl,
          apiKey: 'k',
          nativeTools: opts.nativeTools,
        })
      : createModel({ provider: 'anthropic', model: 'claude-sonnet-4-6', baseUrl: srv.anthropicBaseUrl, apiKey: 'k' });
  const clock = new FakeClock();
  const approver = new ScriptedApprover();
  const agent = new Agent({ model, tools, approver, clock, taskId: 't1' });
  const events: AgentEvent[] = [];
  agent.on((e) => events.push(e));
  return { agent, clock, events, fs };
}

/** The tool results Forge sent back to the provider in its last request, in the provider's own wire format. */
function lastToolResults(srv: LlmServer): string[] {
  const req = srv.requests.at(-1)!;
  const msgs: any[] = req.body.messages;
  if (req.provider === 'openai') return msgs.filter((m) => m.role === 'tool').map((m) => String(m.content));
  const out: string[] = [];
  for (const m of msgs) {
    if (m.role !== 'user' || !Array.isArray(m.content)) continue;
    for (const b of m.content)
      if (b.type === 'tool_result') out.push(typeof b.content === 'string' ? b.content : JSON.stringify(b.content));
  }
  return out;
}

for (const provider of ['openai', 'anthropic'] as Provider[]) {
  describe(`loop over the real ${provider} SDK`, () => {
    let srv: LlmServer;
    before(async () => {
      srv = await startLlmServer({ chunkBytes: 7, eol: '\r\n' });
    });
    after(async () => srv.close());
    beforeEach(() => srv.reset());

    it('happy path: read a file, complete; the file content reaches the model', async () => {
      srv.script([read('src/a.ts'), done()]);
      const { agent, events } = setup(srv, provider);
      const report = await agent.send('what is a?');
      assert.equal(report.reason, 'done');
      assert.equal(report.detail, 'all good');
      assert.equal(srv.requests.length, 2);
      assert.ok(lastToolResults(srv).some((r) => r.includes('export const a = 1;')));
      assert.ok(report.usage.inputTokens >= 270, 'provider-reported usage is accounted');
      assert.ok(events.some((e) => e.type === 'tool_call_end' && e.name === 'read_file'));
      assertHistoryConsistent(agent.history);
    });

    it('429 with retry-after: the loop waits what the provider asked, then succeeds', async () => {
      srv.script([{ fault: 'http', status: 429, retryAfter: 7 }, done()]);
      const { agent, clock, events } = setup(srv, provider);
      const report = await agent.send('go');
      assert.equal(report.reason, 'done');
      assert.deepEqual(clock.sleeps, [7000]);
      assert.ok(events.some((e) => e.type === 'warning' && e.kind === 'retry'));
    });

    for (const status of [500, 529]) {
      it(`HTTP ${status} is retried with backoff, then succeeds`, async () => {
        srv.script([{ fault: 'http', status }, done()]);
        const { agent, clock } = setup(srv, provider);
        assert.equal((await agent.send('go')).reason, 'done');
        assert.equal(clock.sleeps.length, 1);
      });
    }

    it('a stream cut mid tool call is discarded and the step retried; history stays valid', async () => {
      srv.script([{ fault: 'cut_mid_tool_call' }, read('src/a.ts'), done()]);
      const { agent } = setup(srv, provider);
      const report = await agent.send('go');
      assert.equal(report.reason, 'done');
      assert.equal(srv.requests.length, 3);
      assertHistoryConsistent(agent.history);
      assert.equal(agent.history.filter((m) => m.role === 'assistant').length, 2, 'the cut turn left nothing behind');
    });

    it('an error frame mid-stream is retried', async () => {
      srv.script([{ fault: 'error_frame' }, done()]);
      const { agent } = setup(srv, provider);
      assert.equal((await agent.send('go')).reason, 'done');
    });

    it('invalid JSON arguments become an error result the model fixes', async () => {
      srv.script([{ fault: 'invalid_json_args', name: 'read_file' }, read('src/a.ts'), done()]);
      const { agent } = setup(srv, provider);
      assert.equal((await agent.send('go')).reason, 'done');
      const first = srv.requests[1];
      const sent = JSON.stringify(first.body.messages);
      assert.match(sent, /Could not parse the arguments of \\"read_file\\"/);
    });

    it('a zod validation error is quoted to the model, which then fixes the call', async () => {
      srv.script([{ toolCalls: [{ name: 'read_file', args: { file: 'src/a.ts' } }] }, read('src/a.ts'), done()]);
      const { agent } = setup(srv, provider);
      assert.equal((await agent.send('go')).reason, 'done');
      assert.match(JSON.stringify(srv.requests[1].body.messages), /path/);
    });

    it('a sandbox refusal (.env) is an error result, never the secret', async () => {
      srv.script([read('.env'), done()]);
      const { agent } = setup(srv, provider);
      await agent.send('go');
      const results = lastToolResults(srv).join('\n');
      assert.doesNotMatch(results, /SECRET=1/);
      assert.match(results, /secret|refus/i);
    });

    it('401 stops the run with advice the user can act on, and keeps the user message', async () => {
      srv.script([{ fault: 'http', status: 401 }]);
      const { agent, clock } = setup(srv, provider);
      const report: RunReport = await agent.send('please fix the bug');
      assert.equal(report.reason, 'error');
      assert.match(report.detail, /Set API Key/);
      assert.equal(clock.sleeps.length, 0, 'auth errors are not retried');
      assert.deepEqual(agent.history[0], { role: 'user', content: 'please fix the bug', turnId: 't1-turn-1' });
    });

    it('stop mid-stream ends the run within 1 s; the conversation can continue', async () => {
      srv.script([{ fault: 'hang', text: 'Let me look' }]);
      const { agent } = setup(srv, provider);
      const running = agent.send('go');
      await new Promise((r) => setTimeout(r, 150));
      const t0 = Date.now();
      agent.stop();
      const report = await running;
      assert.equal(report.reason, 'stopped');
      assert.ok(Date.now() - t0 < 1000, `stopped in ${Date.now() - t0} ms`);
      assertHistoryConsistent(agent.history);
      srv.script([done('resumed')]);
      const next = await agent.continueRun();
      assert.equal(next.reason, 'done');
      assert.equal(next.detail, 'resumed');
    });
  });
}

describe('loop over the OpenAI SDK in XML text mode (no native tools)', () => {
  let srv: LlmServer;
  before(async () => {
    srv = await startLlmServer({ chunkBytes: 5 });
  });
  after(async () => srv.close());

  it('detects calls split across chunks, runs them, and a malformed call becomes a precise error', async () => {
    srv.script([
      {
        text: '<thinking>look first</thinking><tool>{"server_name": "local", "tool_name": "read_file", "arguments": {"path": "src/a.ts"}}</tool>',
        deltaSize: 3,
      },
      { text: '<tool>{"server_name": "local", "tool_name": "read_file", "arguments": {"path": </tool>', deltaSize: 4 },
      {
        text: '<tool>{"server_name": "local", "tool_name": "task_completion", "arguments": {"result": "read it"}}</tool>',
      },
    ]);
    const { agent, events } = setup(srv, 'openai', { nativeTools: false });
    const report = await agent.send('read a');
    assert.equal(report.reason, 'done');
    assert.equal(report.detail, 'read it');
    assert.equal(srv.requests[0].body.tools, undefined, 'no native tools are sent in text mode');
    assert.match(JSON.stringify(srv.requests[1].body.messages), /export const a = 1;/);
    const malformed = JSON.stringify(srv.requests[2].body.messages);
    assert.match(malformed, /Could not parse the arguments/);
    assert.ok(events.some((e) => e.type === 'thinking_delta'));
  });
});

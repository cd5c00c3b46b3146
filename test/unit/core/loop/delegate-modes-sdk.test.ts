// delegate_task and the modes' own context on the real openai and @anthropic-ai/sdk clients against the loopback
// server: what the sub-agent and the mode gatherers add must reach the provider's wire, and be counted.
import assert from 'node:assert/strict';
import { Agent, type AgentDeps } from '../../../../src/core/loop/agent';
import { createDelegateTool } from '../../../../src/core/loop/delegate';
import type { AgentEvent } from '../../../../src/core/loop/events';
import { createModeContextGatherer } from '../../../../src/core/modes/context';
import { createWorkspaceTools } from '../../../../src/core/tools/builtin';
import { FakeCommandRunner, FsEditApplier, MemoryFs } from '../../../../src/core/workspace/memory-fs';
import { createModel } from '../../../../src/providers';
import { startLlmServer, type LlmServer, type LlmTurn } from '../../../support/llm-server';
import { FakeClock } from '../../../support/scripted-model';
import { assertHistoryConsistent, ScriptedApprover } from '../../../support/loop-harness';

type Provider = 'openai' | 'anthropic';
const call = (name: string, args: unknown, usage = { inputTokens: 100, outputTokens: 10 }): LlmTurn => ({
  toolCalls: [{ name, args }],
  usage,
});

/** Everything the request carried as text (system prompt, messages), in either wire format. */
function requestText(body: any): string {
  return JSON.stringify([body.system ?? '', body.messages ?? []]);
}

function setup(
  srv: LlmServer,
  provider: Provider,
  mode: 'agent' | 'plan' | 'review' = 'agent',
  maxIterations?: number,
) {
  const fs = new MemoryFs(['/ws'], {
    '/ws/package.json': '{ "name": "demo-app", "scripts": { "test": "mocha" } }',
    '/ws/src/a.ts': 'export const a = 1;\n',
    '/ws/test/a.test.ts': 'it("works")',
  });
  const git = new FakeCommandRunner((req) =>
    /status --porcelain/.test(req.command)
      ? { exitCode: 0, output: ' M src/a.ts\n' }
      : /--stat/.test(req.command)
        ? { exitCode: 0, output: ' src/a.ts | 2 +-' }
        : { exitCode: 0, output: 'diff --git a/src/a.ts b/src/a.ts\n-export const a = 0;\n+export const a = 1;\n' },
  );
  const tools = createWorkspaceTools({
    fs,
    runner: new FakeCommandRunner(),
    applier: new FsEditApplier(fs),
    sandbox: { trusted: true },
  });
  const model =
    provider === 'openai'
      ? createModel({ provider: 'openai-compatible', model: 'gpt-4.1', baseUrl: srv.openaiBaseUrl, apiKey: 'k' })
      : createModel({ provider: 'anthropic', model: 'claude-sonnet-4-6', baseUrl: srv.anthropicBaseUrl, apiKey: 'k' });
  const deps: AgentDeps = {
    model,
    tools,
    approver: new ScriptedApprover(),
    clock: new FakeClock(),
    taskId: 't1',
    config: {
      mode,
      ...(maxIterations ? { maxIterations } : {}),
      modeContext: createModeContextGatherer({ fs, sandbox: { trusted: true }, runner: git }),
    },
  };
  let agent: Agent | undefined;
  deps.tools = [...tools, createDelegateTool({ ...deps }, () => agent?.history ?? []) as never];
  agent = new Agent(deps);
  const events: AgentEvent[] = [];
  agent.on((e) => events.push(e));
  return { agent, events, git };
}

for (const provider of ['openai', 'anthropic'] as Provider[]) {
  describe(`delegation and mode context over the real ${provider} SDK`, () => {
    let srv: LlmServer;
    before(async () => {
      srv = await startLlmServer({ chunkBytes: 11 });
    });
    after(async () => srv.close());
    beforeEach(() => srv.reset());

    it('a review sub-agent gets its own mode, the diff, a copy of the conversation; its spend and steps count in the parent', async () => {
      srv.script([
        call('delegate_task', { task: 'Review the change to src/a.ts', mode: 'review' }),
        call('read_file', { path: 'src/a.ts' }, { inputTokens: 200, outputTokens: 20 }),
        call('task_completion', { result: 'The change to a is correct.' }, { inputTokens: 300, outputTokens: 30 }),
        call('task_completion', { result: 'Reviewed: fine.' }),
      ]);
      const { agent, events } = setup(srv, provider);
      const report = await agent.send('Please get the change reviewed');
      assert.equal(report.reason, 'done');
      assert.equal(report.detail, 'Reviewed: fine.');
      assert.equal(srv.requests.length, 4);
      const child = requestText(srv.requests[1].body);
      assert.match(child, /Review mode/);
      assert.match(child, /Working-tree changes \(gathered for review\)/);
      assert.match(child, /\+export const a = 1;/);
      assert.match(child, /Please get the change reviewed/, 'the helper sees the conversation');
      assert.doesNotMatch(JSON.stringify(srv.requests[1].body.tools ?? []), /delegate_task/, 'no recursion');
      // The parent's next request carries the helper's answer as the tool result.
      assert.match(requestText(srv.requests[3].body), /The change to a is correct\./);
      assert.equal(report.iterations, 4, "2 own steps + the helper's 2");
      assert.equal(report.spend?.sub_agents?.usage.inputTokens, 500);
      assert.equal(report.usage.inputTokens, 700);
      const nested = events.filter((e): e is Extract<AgentEvent, { type: 'sub_agent' }> => e.type === 'sub_agent');
      assert.ok(nested.some((e) => e.event.type === 'mode_context'));
      assert.ok(
        nested.some(
          (e) =>
            e.event.type === 'tool_result' &&
            e.event.name === 'read_file' &&
            /export const a = 1/.test(e.event.content),
        ),
      );
      assertHistoryConsistent(agent.history);
    });

    it('plan mode gathers the manifest and the tree before its first step', async () => {
      srv.script([call('task_completion', { result: '1. Do it' })]);
      const { agent, events } = setup(srv, provider, 'plan');
      await agent.send('Plan a feature');
      const sent = requestText(srv.requests[0].body);
      assert.match(sent, /Project context \(gathered for planning\)/);
      assert.match(sent, /demo-app/);
      assert.match(sent, /src\//);
      const ctx = events.find((e) => e.type === 'mode_context');
      assert.ok(ctx && ctx.type === 'mode_context' && ctx.sources.includes('package.json'));
    });

    it('Stop while the helper waits for the model ends both runs; the conversation stays consistent', async () => {
      srv.script([call('delegate_task', { task: 'dig' }), { fault: 'hang' }]);
      const { agent, events } = setup(srv, provider);
      const running = agent.send('go');
      const t0 = Date.now();
      while (srv.requests.length < 2 && Date.now() - t0 < 5000) await new Promise((r) => setTimeout(r, 10));
      agent.stop();
      const report = await running;
      assert.equal(report.reason, 'stopped');
      const childEnd = events.find((e) => e.type === 'sub_agent' && e.event.type === 'run_end');
      assert.ok(
        childEnd &&
          childEnd.type === 'sub_agent' &&
          childEnd.event.type === 'run_end' &&
          childEnd.event.report.reason === 'stopped',
      );
      assertHistoryConsistent(agent.history);
    });
  });
}

// Reflection, compaction summaries and sub-agents spend on the run's account: they count in the run's tokens, cost
// and budget breakers and appear (by source) in the run report. Real OpenAI SDK + real reflector over loopback.
import assert from 'node:assert/strict';
import { promises as fsp } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Agent, type AgentDeps } from '../../../../src/core/loop/agent';
import { createDelegateTool } from '../../../../src/core/loop/delegate';
import { openForgeMemory } from '../../../../src/core/memory';
import type { ChatMessage, Usage } from '../../../../src/core/model/types';
import { NodeWorkspaceFs } from '../../../../src/node';
import { createModel } from '../../../../src/providers';
import { Transcript } from '../../../../src/panel/transcript';
import { startLlmServer, type LlmServer, type LlmTurn } from '../../../support/llm-server';
import { call, callsTurn, doneTurn, FakeClock, ScriptedModel, textTurn, usage } from '../../../support/scripted-model';
import { fakeReadTool, harness, ScriptedApprover } from '../../../support/loop-harness';
import { NodeMemoryFileIO } from '../../../../src/node/memory-file-io';

const turn = (name: string, args: unknown, inputTokens: number, outputTokens: number): LlmTurn => ({
  toolCalls: [{ name, args }],
  usage: { inputTokens, outputTokens },
});
/** $1 per million tokens, in and out: easy sums. */
const flatPrice = (u: Usage) => (u.inputTokens + u.outputTokens) / 1e6;

describe('run spend: reflection and sub-agents over the real OpenAI SDK', () => {
  let srv: LlmServer;
  let dir: string;
  beforeEach(async () => {
    srv = await startLlmServer({ chunkBytes: 13 });
    dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'forge-spend-'));
  });
  afterEach(async () => {
    await srv.close();
    await fsp.rm(dir, { recursive: true, force: true });
  });

  async function setup(config: AgentDeps['config'] = {}) {
    const model = createModel({ provider: 'openai', model: 'gpt-4o', baseUrl: srv.openaiBaseUrl, apiKey: 'k' });
    const memory = await openForgeMemory({
      io: new NodeMemoryFileIO(),
      workspaceRoot: dir,
      workspaceFs: new NodeWorkspaceFs([dir]),
      reflection: { budgetUsd: 0.05 },
    });
    const deps: AgentDeps = {
      model,
      memory,
      approver: new ScriptedApprover(),
      clock: new FakeClock(),
      tools: [fakeReadTool()],
      taskId: 'p',
      config: { price: flatPrice, ...config },
    };
    let history: () => readonly ChatMessage[] = () => [];
    deps.tools.push(createDelegateTool(deps, () => history()) as never);
    const agent = new Agent(deps);
    history = () => agent.history;
    return agent;
  }

  it('the report counts the sub-agent and the run-end reflection, by source, in tokens and cost', async () => {
    srv.script([
      turn('delegate_task', { task: 'find the config file' }, 100, 10), // parent step 1
      turn('task_completion', { result: 'config.json' }, 50, 5), // the sub-agent
      turn('task_completion', { result: 'done' }, 120, 8), // parent step 2
      { text: '[]', usage: { inputTokens: 30, outputTokens: 3 } }, // run-end reflection
    ]);
    const agent = await setup();
    const transcript = new Transcript({ now: () => 0 });
    agent.on((e) => transcript.apply(e));
    const report = await agent.send('set things up');
    assert.equal(report.reason, 'done');
    assert.equal(srv.requests.length, 4);
    assert.match(JSON.stringify(srv.requests[3].body), /reflection step of Forge/, 'the last call was the reflection');
    assert.deepEqual(report.spend?.steps?.usage, { inputTokens: 220, outputTokens: 18 });
    assert.deepEqual(report.spend?.sub_agents?.usage, { inputTokens: 50, outputTokens: 5 });
    assert.deepEqual(report.spend?.reflection?.usage, { inputTokens: 30, outputTokens: 3 });
    assert.deepEqual(report.usage, { inputTokens: 300, outputTokens: 26 });
    assert.ok(Math.abs(report.costUsd! - 326e-6) < 1e-12, String(report.costUsd));
    assert.ok(Math.abs(report.spend!.reflection!.costUsd! - 33e-6) < 1e-12);
    // The task's totals too.
    assert.deepEqual(agent.dump().usage, { inputTokens: 300, outputTokens: 26 });
    // The run-end card shows the breakdown.
    const end = transcript.getItems().find((i) => i.kind === 'run_end') as {
      spend?: { source: string; tokens: number }[];
      inputTokens: number;
    };
    assert.equal(end.inputTokens, 300);
    assert.deepEqual(
      end.spend?.map((l) => [l.source, l.tokens]),
      [
        ['steps', 238],
        ['reflection', 33],
        ['sub_agents', 55],
      ],
    );
  });

  it("a sub-agent gets only what is left of the parent's token budget, and its spend trips the parent's breaker", async () => {
    srv.script([
      turn('delegate_task', { task: 'read everything' }, 100, 10), // parent: 110
      turn('read_file', { path: 'a.ts' }, 850, 50), // sub-agent: 900 >= 1000 - 110 = 890 -> its breaker
      { text: '[]', usage: { inputTokens: 1, outputTokens: 1 } }, // (no reflection: the budget is used up)
    ]);
    const agent = await setup({ maxTokens: 1000 });
    const report = await agent.send('go');
    assert.equal(report.reason, 'breaker');
    assert.match(report.detail, /^Token budget reached: 1,010 of 1,000 tokens/);
    assert.equal(srv.requests.length, 2, 'the parent never took another step, and no reflection ran over budget');
    assert.deepEqual(report.spend?.sub_agents?.usage, { inputTokens: 850, outputTokens: 50 });
    const toolResult = agent.history.find((m) => m.role === 'tool')!;
    assert.match(
      toolResult.content,
      /The sub-task ended without finishing \(breaker\): Token budget reached: 900 of 890/,
    );
  });
});

describe('run spend (scripted)', () => {
  it('compaction summaries count against the run (steps + compaction = total)', async () => {
    const summarizer = new ScriptedModel([
      [...textTurn('## Goal\ng\n## Next steps\nn').slice(0, 1), usage(400, 40), { type: 'finish', reason: 'stop' }],
    ]);
    const turns = Array.from({ length: 6 }, (_, i) => callsTurn(['read_file', { path: `f${i}.ts` }]));
    turns[5] = [...call('read_file', { path: 'f5.ts' }), usage(1850, 10), { type: 'finish', reason: 'tool_calls' }];
    const h = harness([...turns, doneTurn()], { summarizer, config: { contextWindow: 2000, price: flatPrice } });
    const report = await h.agent.send('Read all the files');
    assert.equal(h.ofType('compaction').length, 1);
    assert.deepEqual(report.spend?.compaction, {
      usage: { inputTokens: 400, outputTokens: 40 },
      costUsd: 440e-6,
      calls: 1,
    });
    const steps = report.spend!.steps!.usage;
    assert.equal(report.usage.inputTokens, steps.inputTokens + 400);
    assert.equal(report.usage.outputTokens, steps.outputTokens + 40);
  });

  it('reflection after tool errors counts, and is skipped once the budget is used up', async () => {
    const reflections: string[] = [];
    const memory = {
      recall: async () => ({ items: [], promptText: '' }),
      reflect: async (input: {
        trigger: string;
        model: import('../../../../src/core/model/types').Model;
        signal: AbortSignal;
      }) => {
        reflections.push(input.trigger);
        for await (const _ of input.model.stream({
          system: [],
          messages: [{ role: 'user', content: 'reflect' }],
          tools: [],
          signal: input.signal,
        }))
          void _;
        return [];
      },
    };
    const failing = fakeReadTool([], async () => ({ content: 'boom', isError: true }));
    const model = new ScriptedModel([
      callsTurn(['read_file', { path: 'a' }]),
      [usage(500, 500), { type: 'finish', reason: 'stop' }], // the tool-error reflection
      doneTurn(),
    ]);
    const h = harness([], { model, memory, tools: [failing], config: { maxTokens: 1000 } });
    const report = await h.agent.send('t');
    assert.deepEqual(reflections, ['tool_error'], 'no run-end reflection: 110 + 1000 + 110 tokens is over the budget');
    assert.deepEqual(report.spend?.reflection?.usage, { inputTokens: 500, outputTokens: 500 });
  });
});

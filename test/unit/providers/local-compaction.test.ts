// An 8k-window local model (Ollama num_ctx 8192, discovered over its API) compacts at 90% of its window and
// the task goes on: the whole loop over the real openai SDK and the loopback server.
import assert from 'node:assert/strict';
import { Agent } from '../../../src/core/loop/agent';
import type { AgentEvent } from '../../../src/core/loop/events';
import { createWorkspaceTools } from '../../../src/core/tools/builtin';
import { SUMMARY_MARKER } from '../../../src/core/context/compaction';
import { FakeCommandRunner, FsEditApplier, MemoryFs } from '../../../src/core/workspace/memory-fs';
import { createEndpointModel } from '../../../src/providers/local-model';
import { startLlmServer, type LlmServer, type LlmTurn } from '../../support/llm-server';
import { startFakeLocalServer, type FakeLocalServer } from '../../support/llm-server/ollama-wire';
import { FakeClock } from '../../support/scripted-model';
import { ScriptedApprover, assertHistoryConsistent } from '../../support/loop-harness';

describe('an 8k-window local model compacts at 90% and goes on', () => {
  let llm: LlmServer;
  let ollama: FakeLocalServer;
  before(async () => {
    llm = await startLlmServer({ chunkBytes: 11 });
    ollama = await startFakeLocalServer({
      flavour: 'ollama',
      models: [{ id: 'qwen2.5-coder:7b', contextLength: 32768, numCtx: 8192, arch: 'qwen2' }],
      upstream: llm,
    });
  });
  after(async () => {
    await ollama.close();
    await llm.close();
  });

  async function run(contextWindowOverride?: number) {
    llm.reset();
    const built = await createEndpointModel({
      provider: 'openai-compatible',
      model: 'qwen2.5-coder:7b',
      baseUrl: ollama.baseUrl,
      contextWindowOverride,
    });
    const files: Record<string, string> = {};
    for (let i = 1; i <= 6; i++) files[`/ws/src/f${i}.ts`] = `export const f${i} = ${i};\n`;
    const fs = new MemoryFs(['/ws'], files);
    const tools = createWorkspaceTools({
      fs,
      runner: new FakeCommandRunner(),
      applier: new FsEditApplier(fs),
      sandbox: { trusted: true },
    });
    const agent = new Agent({
      model: built.model,
      tools,
      approver: new ScriptedApprover(),
      clock: new FakeClock(),
      taskId: 't1',
    });
    const events: AgentEvent[] = [];
    agent.on((e) => events.push(e));
    // Prompt sizes as the server reports them: 1.2k .. 7.5k tokens; 7.5k >= 0.9 * 8192 = 7373.
    const prompts = [1200, 2400, 3600, 4800, 6000, 7500];
    const reads: LlmTurn[] = prompts.map((p, i) => ({
      toolCalls: [{ name: 'read_file', args: { path: `src/f${i + 1}.ts` } }],
      usage: { inputTokens: p, outputTokens: 20 },
    }));
    llm.script([
      ...reads,
      {
        text: '## Goal\nsum the files\n## Decisions\nnone\n## Files touched\nsrc/f1.ts..f6.ts\n## Open errors\nnone\n## Next steps\nfinish',
        usage: { inputTokens: 900, outputTokens: 60 },
      },
      {
        toolCalls: [{ name: 'task_completion', args: { result: 'sum is 21' } }],
        usage: { inputTokens: 1500, outputTokens: 10 },
      },
    ]);
    const report = await agent.send('read src/f1.ts .. src/f6.ts and add the numbers');
    return { built, agent, events, report };
  }

  it('compaction fires once the provider-reported prompt passes 0.9 x 8192, then the task completes', async () => {
    const { built, agent, events, report } = await run();
    assert.equal(built.model.info.contextWindow, 8192);
    assert.equal(report.reason, 'done');
    assert.equal(report.detail, 'sum is 21');
    const compactions = events.filter((e) => e.type === 'compaction');
    assert.equal(compactions.length, 1, 'compacted once');
    const c = compactions[0] as Extract<AgentEvent, { type: 'compaction' }>;
    assert.ok(c.beforeTokens >= 0.9 * 8192, `before ${c.beforeTokens}`);
    assert.ok(c.afterTokens < c.beforeTokens);
    // Request 7 is the summariser; request 8 continues the task from the compacted history.
    assert.equal(llm.requests.length, 8);
    const after = JSON.stringify(llm.requests[7].body.messages);
    assert.ok(after.includes(SUMMARY_MARKER), 'the next request carries the summary');
    assert.match(after, /read src\/f1\.ts \.\. src\/f6\.ts/, 'the task itself is kept');
    assertHistoryConsistent(agent.history);
  });

  it('control: with the old assumed 128k window the same task never compacts', async () => {
    const { events } = await run(128_000);
    assert.equal(events.filter((e) => e.type === 'compaction').length, 0);
  });
});

// Context build for a 150k-token history, including the compaction decision: the time from send() to the
// moment the model receives the request (system layers, tool specs, token count, compaction check, copy).
// Variants: without a usage anchor (everything estimated), with the OpenAI adapter's request serialisation,
// and a history over the threshold (compaction with a zero-latency summariser).
import { Agent } from '../src/core/loop/agent';
import type { Model } from '../src/core/model/types';
import type { AgentSnapshot } from '../src/core/tasks/snapshot';
import { OpenAIModel } from '../src/providers/openai';
import { allowAll, doneTurn, historyChars, InstantModel, makeHistory, probeTool, summaryTurn } from './lib/fixtures';
import { emit, figure, log, now, QUICK } from './lib/harness';

const TARGET_TOKENS = 150_000;

function history150k() {
  // 1,200-char tool results: ~300 tokens per turn -> ~1,000 messages for 150k tokens.
  let n = 200;
  let h = makeHistory(n, 1200);
  while (historyChars(h) / 4 < TARGET_TOKENS) h = makeHistory((n += 50), 1200);
  return h;
}

function snapshot(history: AgentSnapshot['history'], anchored: boolean): AgentSnapshot {
  const tokens = Math.ceil(historyChars(history) / 4);
  return {
    version: 1, taskId: 'bench-ctx', mode: 'agent', history, iterations: 0, maxIterations: 25, allowedForTask: [],
    usage: { inputTokens: 0, outputTokens: 0 }, counters: { runs: 0, approvals: 0 },
    ...(anchored ? { anchor: { inputTokens: tokens, messageCount: history.length } } : {}),
  };
}

async function once(history: AgentSnapshot['history'], opts: { anchored: boolean; window: number; model: (mark: () => void) => Model; summarizer?: Model }): Promise<number> {
  let reachedAt = 0;
  const mark = () => void (reachedAt ||= now());
  const agent = Agent.restore(snapshot(history, opts.anchored), {
    model: opts.model(mark), summarizer: opts.summarizer, tools: [probeTool()], approver: allowAll,
    config: { contextWindow: opts.window },
  });
  let compactions = 0;
  agent.on((e) => void (e.type === 'compaction' && compactions++));
  const t0 = now();
  const report = await agent.send('Now update the tests for the gateway client.');
  if (report.reason !== 'done') throw new Error(`context run ended with ${report.reason}: ${report.detail}`);
  if ((compactions > 0) !== !!opts.summarizer) throw new Error(`expected ${opts.summarizer ? 'a' : 'no'} compaction, saw ${compactions}`);
  return reachedAt - t0;
}

function instant(mark: () => void): Model {
  const m = new InstantModel(() => doneTurn());
  m.onStream = mark;
  return m;
}

/** The real OpenAI adapter; its fetch marks the time the serialised body is handed to the transport. */
function openai(mark: () => void): Model {
  const sse = `data: ${JSON.stringify({ id: 'x', object: 'chat.completion.chunk', created: 1, model: 'gpt-4o', choices: [{ index: 0, delta: { role: 'assistant', tool_calls: [{ index: 0, id: 'c1', type: 'function', function: { name: 'task_completion', arguments: '{"result":"ok"}' } }] }, finish_reason: null }] })}\n\n` +
    `data: ${JSON.stringify({ id: 'x', object: 'chat.completion.chunk', created: 1, model: 'gpt-4o', choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls' }] })}\n\ndata: [DONE]\n\n`;
  const fakeFetch = (async () => {
    mark();
    return new Response(sse, { status: 200, headers: { 'content-type': 'text/event-stream' } });
  }) as typeof fetch;
  return new OpenAIModel({ info: { provider: 'openai', model: 'gpt-4o', contextWindow: 200_000, maxOutputTokens: 4096, nativeTools: true }, apiKey: 'bench', baseUrl: 'http://127.0.0.1:9/v1', fetch: fakeFetch });
}

async function main() {
  const h = history150k();
  const tokens = Math.round(historyChars(h) / 4);
  const n = QUICK ? 8 : 40;
  const input = { historyTokens: tokens, historyMessages: h.length, contextWindow: 200_000 };
  const variants: { name: string; input: Record<string, unknown>; run: () => Promise<number> }[] = [
    { name: 'context.build.h150k', input: { ...input, anchor: 'provider usage', compaction: 'checked, not needed' }, run: () => once(h, { anchored: true, window: 200_000, model: instant }) },
    { name: 'context.build.h150k.estimated', input: { ...input, anchor: 'none (all estimated, e.g. vscode-lm)', compaction: 'checked, not needed' }, run: () => once(h, { anchored: false, window: 200_000, model: instant }) },
    { name: 'context.build.h150k.openai', input: { ...input, anchor: 'none', compaction: 'checked, not needed', through: 'OpenAI adapter: messages mapped + body serialised' }, run: () => once(h, { anchored: false, window: 200_000, model: openai }) },
    {
      name: 'context.build.h150k.compacting', input: { ...input, contextWindow: 160_000, anchor: 'none', compaction: 'runs (zero-latency summariser)' },
      run: () => once(h, { anchored: false, window: 160_000, model: instant, summarizer: new InstantModel(() => summaryTurn()) }),
    },
  ];
  for (const v of variants) {
    for (let i = 0; i < 3; i++) await v.run();
    const samples: number[] = [];
    for (let i = 0; i < n; i++) samples.push(await v.run());
    const f = emit(figure({ name: v.name, unit: 'ms', input: v.input, goal: { max: 20 }, budget: { max: 200 } }, samples));
    log(`${v.name}: median ${f.median} ms p95 ${f.p95} ms`);
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});

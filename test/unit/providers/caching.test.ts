// Prompt caching that hits: per-step text goes after the cached prefix (tools -> system -> history), proved on the
// real SDKs against the loopback server's cache simulation (test/support/llm-server/cache-sim.ts).
import assert from 'node:assert/strict';
import { buildSystemLayers, STEP_CONTEXT_HEADER } from '../../../src/core/context/prompt';
import { costOf, priceFor } from '../../../src/core/model/pricing';
import type { ChatMessage, ModelRequest, SystemLayer, ToolSpec } from '../../../src/core/model/types';
import { getMode } from '../../../src/core/modes';
import { toAnthropicPrompt } from '../../../src/providers/anthropic';
import { toOpenAIMessages } from '../../../src/providers/openai';
import { startLlmServer, type LlmServer } from '../../support/llm-server';
import { canonicalJson, CacheSim } from '../../support/llm-server/cache-sim';
import { runCachingTask, sourceText, type CachingTaskResult } from '../../support/llm-server/caching-task';
import { collect, collectError, modelFor } from './helpers';

const marked = (blocks: any[]) => blocks.filter((b) => b?.cache_control);
const allBlocks = (body: any): any[] => [
  ...(body.tools ?? []),
  ...(body.system ?? []),
  ...body.messages.flatMap((m: any) => (Array.isArray(m.content) ? m.content : [])),
];

function layers(iteration: number, extra: Partial<Parameters<typeof buildSystemLayers>[0]> = {}): SystemLayer[] {
  return buildSystemLayers({
    mode: getMode('agent'),
    iteration,
    maxIterations: 10,
    warnRatio: 0.8,
    environment: `Time: t${iteration}`,
    ...extra,
  });
}

const TOOLS: ToolSpec[] = [
  {
    name: 'read_file',
    description: `Read a file. ${sourceText(6000, 99)}`,
    inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
  },
];

describe('prompt caching: per-step text after the cached prefix', () => {
  describe('a 20-step Anthropic task through @anthropic-ai/sdk and the Agent', () => {
    let cached: CachingTaskResult;
    let old: CachingTaskResult;
    before(async () => {
      cached = await runCachingTask({ provider: 'anthropic', thinking: true });
      old = await runCachingTask({ provider: 'anthropic', thinking: true, layout: 'old-layout' });
    });

    it('reads at least 90% of its input tokens from cache after the second step', () => {
      assert.equal(cached.report.reason, 'done', cached.report.detail);
      assert.equal(cached.steps.length, 20);
      assert.ok(cached.readShareAfterStep2 >= 0.9, `read share after step 2: ${cached.readShareAfterStep2.toFixed(3)}`);
    });

    it('every step reads back everything the previous steps wrote (nothing written is wasted)', () => {
      for (let i = 1; i < cached.steps.length; i++) {
        const prev = cached.steps[i - 1].usage;
        const cur = cached.steps[i].usage;
        assert.equal(cur.cacheReadTokens, (prev.cacheReadTokens ?? 0) + (prev.cacheWriteTokens ?? 0), `step ${i + 1}`);
        // What is written each step is only the new turn (assistant + tool result), not the history again.
        assert.ok((cur.cacheWriteTokens ?? 0) < 1000, `step ${i + 1} wrote ${cur.cacheWriteTokens}`);
      }
    });

    it('the old layout (per-step text in the system prompt) misses: it pays cache writes on the whole history', () => {
      assert.equal(old.report.reason, 'done');
      assert.ok(old.readShareAfterStep2 < 0.3, `old layout read share: ${old.readShareAfterStep2.toFixed(3)}`);
      // Only tools + role + rules are ever read; the whole history after them is written again at every step.
      const stablePrefix = old.steps[1].usage.cacheReadTokens!;
      for (const s of old.steps.slice(1)) {
        assert.equal(s.usage.cacheReadTokens, stablePrefix, `step ${s.iteration}`);
        assert.ok(
          s.usage.cacheWriteTokens! >= s.usage.inputTokens - stablePrefix - 200,
          `step ${s.iteration} rewrote its history`,
        );
      }
      // Whether it costs a little more or a little less than no caching at all depends on how big the stable prefix
      // (the tool catalogue) is; either way it saves next to nothing, and far more than the per-step layout pays.
      assert.ok(
        old.costUsd > old.uncachedCostUsd * 0.9,
        `the miss-every-step layout saves next to nothing ($${old.costUsd.toFixed(4)} vs $${old.uncachedCostUsd.toFixed(4)} uncached)`,
      );
      assert.ok(old.costUsd > cached.costUsd * 2, 'and costs over twice the per-step layout');
    });

    it('cost per step and per task uses the cache-read and cache-write prices', () => {
      const price = priceFor('anthropic', 'claude-sonnet-4-6')!;
      assert.deepEqual(price, { input: 3, output: 15, cacheWrite: 3.75, cacheRead: 0.3 });
      for (const [i, s] of cached.report.steps.entries()) {
        const u = s.usage!;
        const uncached = u.inputTokens - (u.cacheReadTokens ?? 0) - (u.cacheWriteTokens ?? 0);
        const expected =
          (uncached * 3 + (u.cacheReadTokens ?? 0) * 0.3 + (u.cacheWriteTokens ?? 0) * 3.75 + u.outputTokens * 15) /
          1e6;
        assert.ok(Math.abs(s.costUsd! - expected) < 1e-12, `step ${i + 1}: ${s.costUsd} vs ${expected}`);
      }
      assert.ok(Math.abs(cached.report.costUsd! - cached.costUsd) < 1e-12, 'the run total is the sum of the steps');
      assert.ok(
        cached.costUsd < cached.uncachedCostUsd * 0.3,
        `cached $${cached.costUsd.toFixed(4)} vs uncached $${cached.uncachedCostUsd.toFixed(4)}`,
      );
    });

    it('requests: tools -> system -> history cached, per-step text last and never stored, pairing and thinking valid', () => {
      const bodies = cached.requests as any[];
      assert.equal(bodies.length, 20);
      for (const [i, body] of bodies.entries()) {
        assert.deepEqual(
          Object.keys(body).filter((k) => ['tools', 'system', 'messages'].includes(k)),
          ['tools', 'system', 'messages'],
        );
        const system = JSON.stringify(body.system);
        assert.doesNotMatch(
          system,
          /Iteration|Environment|Time:/,
          `step ${i + 1}: nothing per-step in the system prompt`,
        );
        const final = body.messages.at(-1);
        const step = final.content.at(-1);
        assert.equal(final.role, 'user');
        assert.equal(step.type, 'text');
        assert.ok(step.text.startsWith(STEP_CONTEXT_HEADER));
        assert.match(step.text, new RegExp(`Iteration: ${i + 1}/20`));
        assert.equal(step.cache_control, undefined, 'the per-step text is after the last breakpoint');
        assert.ok(final.content.at(-2).cache_control, 'the block right before it is the history breakpoint');
        // Tool results first in their turn; the text after them.
        const kinds = final.content.map((b: any) => b.type);
        assert.deepEqual(
          kinds,
          [...kinds].sort((a: string, b: string) => Number(a !== 'tool_result') - Number(b !== 'tool_result')),
        );
        assert.ok(marked(allBlocks(body)).length <= 4);
        assert.ok(body.system.at(-1).cache_control, 'the stable system prefix is a breakpoint');
        // Earlier steps' per-step text is gone: only the final turn carries one.
        assert.equal(JSON.stringify(body.messages.slice(0, -1)).includes(STEP_CONTEXT_HEADER), false);
        for (const m of body.messages.filter((m: any) => m.role === 'assistant'))
          assert.equal(m.content[0].type, 'thinking');
      }
      // From 80% of the limit the wrap-up warning rides in the per-step text.
      assert.match(bodies[15].messages.at(-1).content.at(-1).text, /Iteration 16 of 20: only 4 iterations left/);
      // The prefix each request cached is byte-identical (cache marks aside) at the start of the next request.
      for (let i = 1; i < bodies.length; i++) {
        const prev = bodies[i - 1].messages;
        const cur = bodies[i].messages;
        const prevHistory = [...prev.slice(0, -1), { ...prev.at(-1), content: prev.at(-1).content.slice(0, -1) }];
        assert.equal(
          canonicalJson(cur.slice(0, prevHistory.length)).startsWith(canonicalJson(prevHistory).slice(0, -2)),
          true,
          `request ${i + 1}`,
        );
      }
    });
  });

  it('a 20-step OpenAI task reads at least 90% of its input from the automatic cache after the second step', async () => {
    const r = await runCachingTask({ provider: 'openai' });
    assert.equal(r.report.reason, 'done');
    assert.ok(r.readShareAfterStep2 >= 0.9, `read share: ${r.readShareAfterStep2.toFixed(3)}`);
    for (const s of r.steps.slice(1)) assert.equal((s.usage.cacheReadTokens ?? 0) % 128, 0);
    const price = priceFor('openai', 'gpt-4.1')!;
    const s = r.report.steps[5];
    assert.equal(s.costUsd, costOf(s.usage!, price));
    assert.ok(r.costUsd < r.uncachedCostUsd * 0.5);
    for (const body of r.requests as any[]) {
      assert.doesNotMatch(body.messages[0].content, /Iteration|Environment/, 'the system message is stable');
      assert.ok(['user', 'tool'].includes(body.messages.at(-1).role));
      assert.ok(body.messages.at(-1).content.includes(STEP_CONTEXT_HEADER));
      assert.equal(
        body.messages.slice(0, -1).some((m: any) => String(m.content ?? '').includes(STEP_CONTEXT_HEADER)),
        false,
      );
    }
    const old = await runCachingTask({ provider: 'openai', layout: 'old-layout' });
    assert.ok(old.readShareAfterStep2 < 0.3, `old layout: ${old.readShareAfterStep2.toFixed(3)}`);
  });

  describe('adapters', () => {
    const history: ChatMessage[] = [
      { role: 'user', content: 'Fix the bug.' },
      {
        role: 'assistant',
        content: 'Reading.',
        thinking: [{ text: 'Look first.', signature: 's1' }],
        toolCalls: [{ id: 'c1', name: 'read_file', args: { path: 'a' }, rawArgs: '{"path":"a"}' }],
      },
      { role: 'tool', toolCallId: 'c1', toolName: 'read_file', content: 'A' },
    ];
    const request = (
      messages: ChatMessage[],
      system = layers(3),
    ): Pick<ModelRequest, 'system' | 'messages' | 'tools'> => ({ system, messages, tools: TOOLS });

    it('anthropic: breakpoints on the stable system and the last history block; per-step text after the tool results', () => {
      const p = toAnthropicPrompt(request(history));
      assert.equal(p.system.length, 2);
      assert.ok(p.system[1].cache_control);
      const final = p.messages.at(-1)!;
      assert.equal(final.role, 'user');
      const content = final.content as any[];
      assert.deepEqual(
        content.map((b) => b.type),
        ['tool_result', 'text'],
      );
      assert.ok(content[0].cache_control);
      assert.match(content[1].text, /Environment:\nIteration: 3\/10\nTime: t3/);
      assert.equal(marked([...p.tools, ...p.system, ...p.messages.flatMap((m) => m.content as any[])]).length, 2);
    });

    it('anthropic: a turn after a text-only reply, a first step, and an assistant-last history stay valid', () => {
      const first = toAnthropicPrompt(request([{ role: 'user', content: 'Go.' }], layers(1)));
      assert.deepEqual(
        (first.messages[0].content as any[]).map((b) => [b.type, !!b.cache_control]),
        [
          ['text', true],
          ['text', false],
        ],
      );
      const assistantLast = toAnthropicPrompt(
        request([
          { role: 'user', content: 'Go.' },
          { role: 'assistant', content: 'Partial [interrupted]' },
        ]),
      );
      assert.equal(assistantLast.messages.length, 3);
      assert.ok(
        (assistantLast.messages[1].content as any[])[0].cache_control,
        'the breakpoint may sit on an assistant block',
      );
      const thinkingOnly = toAnthropicPrompt(
        request([
          { role: 'user', content: 'Go.' },
          { role: 'assistant', content: '', thinking: [{ text: 't', signature: 's' }], toolCalls: [] },
        ]),
      );
      const blocks = thinkingOnly.messages.flatMap((m) => m.content as any[]);
      assert.equal(marked(blocks.filter((b) => b.type === 'thinking')).length, 0, 'never on a thinking block');
    });

    it('anthropic: a step with many parallel calls also marks the previous breakpoint (beyond the ~20-block lookback)', async () => {
      const calls = Array.from({ length: 12 }, (_, i) => ({
        id: `p${i}`,
        name: 'read_file',
        args: { path: `f${i}` },
        rawArgs: '{}',
      }));
      const wide: ChatMessage[] = [
        ...history,
        { role: 'assistant', content: 'Reading all.', toolCalls: calls },
        ...calls.map((c): ChatMessage => ({
          role: 'tool',
          toolCallId: c.id,
          toolName: 'read_file',
          content: sourceText(400, 7),
        })),
      ];
      const p = toAnthropicPrompt(request(wide));
      assert.equal(marked(p.messages.flatMap((m) => m.content as any[])).length, 2);
      assert.ok((p.messages[2].content as any[])[0].cache_control, "the previous step's breakpoint");
      // Against the simulated cache: the wide step reads the earlier prefix; without that mark it would not.
      const sim = new CacheSim();
      const body = (pr: ReturnType<typeof toAnthropicPrompt>) => ({ model: 'claude-sonnet-4-6', ...pr });
      sim.usageFor('anthropic', body(toAnthropicPrompt(request(history))), 1);
      const withMark = sim.usageFor('anthropic', body(p), 1);
      assert.ok(withMark.ok && withMark.usage.cacheReadTokens! > 0);
      const sim2 = new CacheSim();
      sim2.usageFor('anthropic', body(toAnthropicPrompt(request(history))), 1);
      const stripped = body(toAnthropicPrompt(request(wide)));
      delete (stripped.messages[2].content as any[])[0].cache_control;
      const withoutMark = sim2.usageFor('anthropic', stripped, 1);
      assert.ok(withoutMark.ok && withoutMark.usage.cacheReadTokens! < withMark.usage.cacheReadTokens!);
    });

    it('openai: stable system message; per-step text appended to the final tool or user message only', () => {
      const msgs = toOpenAIMessages(request(history));
      assert.doesNotMatch(String(msgs[0].content), /Iteration|Time:/);
      assert.deepEqual(
        msgs.map((m) => m.role),
        ['system', 'user', 'assistant', 'tool'],
      );
      assert.ok(String(msgs.at(-1)!.content).startsWith(`A\n\n${STEP_CONTEXT_HEADER}`));
      assert.match(String(msgs.at(-1)!.content), /Iteration: 3\/10/);
      const assistantLast = toOpenAIMessages(
        request([
          { role: 'user', content: 'Go.' },
          { role: 'assistant', content: 'Partial' },
        ]),
      );
      assert.deepEqual(
        assistantLast.map((m) => m.role),
        ['system', 'user', 'assistant', 'user'],
      );
      const first = toOpenAIMessages(request([{ role: 'user', content: 'Go.' }], layers(1)));
      assert.deepEqual(
        first.map((m) => m.role),
        ['system', 'user'],
      );
      assert.ok(String(first[1].content).startsWith(`Go.\n\n${STEP_CONTEXT_HEADER}`));
    });

    it('memory stays in the system prompt (constant within a run); warnings and environment are per step', () => {
      const l = layers(9, { memoryText: 'Use pnpm.', stagnationWarning: 'Warning: stuck.' });
      assert.deepEqual(
        l.filter((x) => x.perStep).map((x) => x.id),
        ['iteration-warning', 'stagnation-warning', 'environment'],
      );
      const p = toAnthropicPrompt(request(history, l));
      assert.deepEqual(
        p.system.map((b) => b.text.slice(0, 9)),
        [l[0].text.slice(0, 9), l[1].text.slice(0, 9), 'Use pnpm.'],
      );
      assert.ok(p.system[1].cache_control, 'the breakpoint stays on the last stable layer, shared across tasks');
      const step = (p.messages.at(-1)!.content as any[]).at(-1).text;
      assert.match(step, /Iteration 9 of 10[\s\S]*Warning: stuck\.[\s\S]*Environment:/);
    });
  });

  describe('the loopback cache simulation', () => {
    let srv: LlmServer;
    before(async () => {
      srv = await startLlmServer({ cache: true });
    });
    after(async () => srv.close());
    beforeEach(() => srv.reset());

    const big = (system: SystemLayer[]) => ({
      system,
      tools: TOOLS,
      messages: [{ role: 'user' as const, content: 'hi' }],
    });

    it('anthropic: the same prefix is written once and read back; a changed system prompt misses', async () => {
      const model = modelFor(srv, 'anthropic');
      srv.script([{ text: 'a' }, { text: 'b' }, { text: 'c' }]);
      const usage = async (system: SystemLayer[]) =>
        (await collect(model, big(system))).find((e) => e.type === 'usage')!;
      const stable = [{ id: 'role', text: 'You are Forge.', stable: true }];
      const u1 = await usage(stable);
      const u2 = await usage(stable);
      const u3 = await usage([{ id: 'role', text: 'You are Forge (v2).', stable: true }]);
      assert.ok(u1.type === 'usage' && u2.type === 'usage' && u3.type === 'usage');
      assert.ok(u1.usage.cacheWriteTokens! > 1024 && !u1.usage.cacheReadTokens);
      assert.equal(u2.usage.cacheReadTokens, u1.usage.cacheWriteTokens);
      assert.ok(!u3.usage.cacheReadTokens, 'a different system prompt is a miss');
      assert.equal(srv.cache!.log.length, 3);
    });

    it('anthropic: a prefix under the minimum cacheable length is not cached (and is no error)', async () => {
      srv.script([{ text: 'a' }, { text: 'b' }]);
      const model = modelFor(srv, 'anthropic');
      for (let i = 0; i < 2; i++) {
        const u = (await collect(model, {})).find((e) => e.type === 'usage')!;
        assert.ok(u.type === 'usage' && !u.usage.cacheReadTokens && !u.usage.cacheWriteTokens);
      }
    });

    it('anthropic: more than 4 breakpoints, or a tool_use without its tool_result, is a 400 like the API', async () => {
      const sim = new CacheSim();
      const text = (t: string) => ({ type: 'text', text: t, cache_control: { type: 'ephemeral' } });
      const five = sim.usageFor(
        'anthropic',
        {
          model: 'm',
          system: [text('a'), text('b'), text('c')],
          messages: [{ role: 'user', content: [text('d'), text('e')] }],
        },
        1,
      );
      assert.ok(!five.ok && /maximum of 4/.test(five.message));
      const unpaired = sim.usageFor(
        'anthropic',
        {
          model: 'm',
          messages: [
            { role: 'user', content: 'go' },
            { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'x', input: {} }] },
            {
              role: 'user',
              content: [
                { type: 'text', text: 'ctx' },
                { type: 'tool_result', tool_use_id: 't1', content: 'r' },
              ],
            },
          ],
        },
        1,
      );
      assert.ok(!unpaired.ok && /tool_result/.test(unpaired.message));
      srv.script([{ text: 'never' }]);
      const { error } = await collectError(modelFor(srv, 'anthropic'), {
        messages: [
          { role: 'user', content: 'go' },
          { role: 'assistant', content: '', toolCalls: [{ id: 't1', name: 'x', args: {}, rawArgs: '{}' }] },
          { role: 'user', content: 'no result' },
        ],
      });
      assert.equal(error.status, 400);
    });

    it('openai: prompts from 1,024 tokens are cached in 128-token steps; a changed start misses', () => {
      const sim = new CacheSim();
      const body = (first: string, more = '') => ({
        model: 'gpt-4.1',
        messages: [
          { role: 'system', content: first },
          { role: 'user', content: sourceText(6000, 1) + more },
        ],
      });
      const a = sim.usageFor('openai', body('stable'), 1);
      const b = sim.usageFor('openai', body('stable', sourceText(2000, 2)), 1);
      const c = sim.usageFor('openai', body('changed', sourceText(2000, 2)), 1);
      const short = sim.usageFor('openai', { model: 'gpt-4.1', messages: [{ role: 'user', content: 'hi' }] }, 1);
      assert.ok(a.ok && b.ok && c.ok && short.ok);
      assert.equal(a.usage.cacheReadTokens, 0);
      assert.ok(b.usage.cacheReadTokens! >= 1024 && b.usage.cacheReadTokens! % 128 === 0);
      assert.ok(
        b.usage.cacheReadTokens! > a.record.totalTokens - 128 - 1 - 10,
        'all but the last partial block and the changed tail',
      );
      assert.equal(c.usage.cacheReadTokens, 0);
      assert.equal(short.usage.cacheReadTokens, 0);
    });
  });
});

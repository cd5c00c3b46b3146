// A realistic N-step coding task driven through the real SDK and the Agent against the loopback server with its
// prompt-cache simulation: what a task really reads from and writes to the provider's cache, step by step, and
// what it costs. Shared by test/unit/providers/caching*.test.ts and bench/caching.bench.ts.
import { Agent } from '../../../src/core/loop/agent';
import type { RunReport } from '../../../src/core/loop/events';
import { costOf, priceFor, type Price } from '../../../src/core/model/pricing';
import type { Model, ModelRequest, Usage } from '../../../src/core/model/types';
import type { Approver } from '../../../src/core/safety/approval';
import { createWorkspaceTools } from '../../../src/core/tools/builtin';
import { FakeCommandRunner, FsEditApplier, MemoryFs } from '../../../src/core/workspace/memory-fs';
import { createModel } from '../../../src/providers';
import { startLlmServer, type LlmServer, type LlmTurn } from '../llm-server';
import { FakeClock } from '../scripted-model';

export type CachingProvider = 'anthropic' | 'openai';

/**
 * 'cached': the prompt as Forge sends it. 'old-layout': the per-step layers (iteration, environment, warnings)
 * left in the system prompt ahead of the history, as before the fix, for comparison.
 */
export type PromptLayout = 'cached' | 'old-layout';

export interface CachingTaskOptions {
  provider: CachingProvider;
  steps?: number;
  layout?: PromptLayout;
  /** Anthropic extended thinking on every step (signed thinking blocks are sent back). */
  thinking?: boolean;
  /** Characters of each file the task reads. */
  fileChars?: number;
  /** Reuse a server (its cache is reset first). */
  server?: LlmServer;
}

export interface StepFigures {
  iteration: number;
  usage: Usage;
  /** USD at the model's real prices (cache reads and writes at their own rates). */
  costUsd: number;
  /** USD if the same tokens were all billed at the plain input price (no caching at all). */
  uncachedCostUsd: number;
}

export interface CachingTaskResult {
  model: string;
  price: Price;
  report: RunReport;
  steps: StepFigures[];
  /** Share of input tokens read from cache over the steps after the second. */
  readShareAfterStep2: number;
  totalInputTokens: number;
  costUsd: number;
  uncachedCostUsd: number;
  /** The raw request bodies the server received. */
  requests: unknown[];
}

export const CACHING_MODELS: Record<CachingProvider, string> = { anthropic: 'claude-sonnet-4-6', openai: 'gpt-4.1' };

const allowAll: Approver = { request: async () => ({ kind: 'approve' }) };

/** Deterministic source-like text, distinct per seed. */
export function sourceText(chars: number, seed: number): string {
  let s = (seed * 2654435761) >>> 0 || 1;
  const words =
    'const let return function import export async await interface type string number if else for of new this value result'.split(
      ' ',
    );
  let out = `// file ${seed}\n`;
  let line = '';
  while (out.length < chars) {
    s = (s * 1664525 + 1013904223) >>> 0;
    line += words[s % words.length] + ' ';
    if (line.length > 60) {
      out += line.trimEnd() + ';\n';
      line = '';
    }
  }
  return out.slice(0, chars);
}

/** The 'old-layout' wrapper: strips the perStep flag so the adapters put that text in the system prompt. */
function oldLayout(model: Model): Model {
  return {
    info: model.info,
    stream: (request: ModelRequest) =>
      model.stream({ ...request, system: request.system.map(({ perStep: _drop, ...l }) => l) }),
  };
}

export async function runCachingTask(options: CachingTaskOptions): Promise<CachingTaskResult> {
  const steps = options.steps ?? 20;
  const provider = options.provider;
  const modelName = CACHING_MODELS[provider];
  const price = priceFor(provider, modelName)!;
  const server = options.server ?? (await startLlmServer({ cache: true }));
  server.reset();
  try {
    const files: Record<string, string> = {};
    for (let i = 1; i < steps; i++) files[`/ws/src/mod${i}.ts`] = sourceText(options.fileChars ?? 2400, i);
    const fs = new MemoryFs(['/ws'], files);
    const tools = createWorkspaceTools({
      fs,
      runner: new FakeCommandRunner(),
      applier: new FsEditApplier(fs),
      sandbox: { trusted: true },
    });
    const turns: LlmTurn[] = [];
    const thinking = (i: number) =>
      options.thinking
        ? { thinking: `Step ${i}: the next module to check is mod${i}.ts.`, thinkingSignature: `sig-${i}` }
        : {};
    for (let i = 1; i < steps; i++) {
      turns.push({
        ...thinking(i),
        text: `Reading module ${i}.`,
        toolCalls: [{ id: `toolu_${i}`, name: 'read_file', args: { path: `src/mod${i}.ts` } }],
        usage: { inputTokens: 0, outputTokens: 40 },
      });
    }
    turns.push({
      ...thinking(steps),
      toolCalls: [
        { id: `toolu_${steps}`, name: 'task_completion', args: { result: `Reviewed ${steps - 1} modules.` } },
      ],
      usage: { inputTokens: 0, outputTokens: 30 },
    });
    server.script(turns);

    const base = createModel({
      provider,
      model: modelName,
      apiKey: 'k',
      baseUrl: provider === 'openai' ? server.openaiBaseUrl : server.anthropicBaseUrl,
    });
    const model = options.layout === 'old-layout' ? oldLayout(base) : base;
    let tick = 0;
    const agent = new Agent({
      model,
      tools,
      approver: allowAll,
      clock: new FakeClock(),
      taskId: `caching-${provider}`,
      config: {
        maxIterations: steps,
        price: (u) => costOf(u, price),
        // Host facts that change every step (as a clock or the active editor would).
        environment: () =>
          `Workspace: /ws\nOS: linux\nActive editor: src/mod${++tick}.ts\nTime: 2026-01-01T10:${String(tick % 60).padStart(2, '0')}:00Z`,
        ...(options.thinking ? { thinkingBudgetTokens: 2048 } : {}),
      },
    });
    const report = await agent.send('Review every module under src/ one by one and report when done.');
    const figures: StepFigures[] = report.steps.flatMap((s) =>
      s.usage
        ? [
            {
              iteration: s.iteration,
              usage: s.usage,
              costUsd: costOf(s.usage, price),
              uncachedCostUsd: costOf({ inputTokens: s.usage.inputTokens, outputTokens: s.usage.outputTokens }, price),
            },
          ]
        : [],
    );
    const later = figures.filter((f) => f.iteration > 2);
    const laterInput = later.reduce((n, f) => n + f.usage.inputTokens, 0);
    const laterRead = later.reduce((n, f) => n + (f.usage.cacheReadTokens ?? 0), 0);
    return {
      model: modelName,
      price,
      report,
      steps: figures,
      readShareAfterStep2: laterInput ? laterRead / laterInput : 0,
      totalInputTokens: figures.reduce((n, f) => n + f.usage.inputTokens, 0),
      costUsd: figures.reduce((n, f) => n + f.costUsd, 0),
      uncachedCostUsd: figures.reduce((n, f) => n + f.uncachedCostUsd, 0),
      requests: server.requests.map((r) => r.body),
    };
  } finally {
    if (!options.server) await server.close();
  }
}

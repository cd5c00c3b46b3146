// Prompt caching: cost of a 20-step coding task (read 19 modules of ~2.4 KB, then complete) through the real
// SDKs and the Agent, against the loopback server's prompt-cache simulation (tokens = chars / 4; Anthropic
// breakpoints with a ~20-block lookback and a 1,024-token minimum, OpenAI automatic 128-token steps from 1,024).
// Three ways: as Forge sends it (per-step text after the cached history), the old layout (per-step text in the
// system prompt ahead of the history) and no caching at all (every input token at the input price).
import { runCachingTask, type CachingProvider } from '../test/support/llm-server/caching-task';
import { emit, figure, log, round } from './lib/harness';

const STEPS = 20;

async function main() {
  for (const provider of ['anthropic', 'openai'] as CachingProvider[]) {
    const thinking = provider === 'anthropic';
    const cached = await runCachingTask({ provider, steps: STEPS, thinking });
    const old = await runCachingTask({ provider, steps: STEPS, thinking, layout: 'old-layout' });
    for (const r of [cached, old]) if (r.report.reason !== 'done') throw new Error(`${provider}: run ended with ${r.report.reason}: ${r.report.detail}`);
    const input = { steps: STEPS, model: cached.model, price: cached.price, thinking, fileChars: 2400, tokens: 'chars/4' };
    const extra = {
      costUsd: { cached: round(cached.costUsd), oldLayout: round(old.costUsd), noCache: round(cached.uncachedCostUsd) },
      inputTokens: cached.totalInputTokens,
      perStepUsd: cached.steps.map((s) => round(s.costUsd)),
    };
    // Goal: within 0.2 of the floor set by the cache-read discount (Anthropic 0.1x input, gpt-4.1 0.25x).
    const floor = (cached.price.cacheRead ?? cached.price.input) / cached.price.input;
    const goal = { max: round(cached.uncachedCostUsd * (floor + 0.2)) };
    emit(figure({ name: `caching.${provider}.task.usd`, unit: 'USD', input, goal, budget: { max: round(cached.uncachedCostUsd * (floor + 0.4)) }, extra }, [cached.costUsd]));
    emit(figure({ name: `caching.${provider}.task.old-layout.usd`, unit: 'USD', input, extra: { costUsd: extra.costUsd } }, [old.costUsd]));
    emit(figure({ name: `caching.${provider}.task.no-cache.usd`, unit: 'USD', input }, [cached.uncachedCostUsd]));
    emit(figure({ name: `caching.${provider}.read-share-after-step2`, unit: 'ratio', input, goal: { min: 0.9 }, budget: { min: 0.85 }, extra: { oldLayout: round(old.readShareAfterStep2) } }, [cached.readShareAfterStep2]));
    log(
      `${provider} ${cached.model}, ${STEPS} steps: cached $${cached.costUsd.toFixed(4)} | old layout $${old.costUsd.toFixed(4)} | no cache $${cached.uncachedCostUsd.toFixed(4)}; ` +
        `read from cache after step 2: ${(cached.readShareAfterStep2 * 100).toFixed(1)}% (old layout ${(old.readShareAfterStep2 * 100).toFixed(1)}%)`,
    );
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});

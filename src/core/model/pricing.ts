// Price table (USD per 1M tokens). Unknown models have no price: the UI then shows tokens, never a made-up cost.
import type { Usage } from './types';

export interface Price {
  input: number;
  output: number;
  cacheRead?: number;
  cacheWrite?: number;
}

/** Overrides keyed by "provider/model" or just "model" (from user settings). */
type PriceOverrides = Record<string, Price>;

// OpenAI: cached input is billed at cacheRead; there is no separate cache-write charge.
const OPENAI: Record<string, Price> = {
  'gpt-5.2': { input: 1.75, output: 14, cacheRead: 0.175 },
  'gpt-5.1': { input: 1.25, output: 10, cacheRead: 0.125 },
  'gpt-5': { input: 1.25, output: 10, cacheRead: 0.125 },
  'gpt-5-mini': { input: 0.25, output: 2, cacheRead: 0.025 },
  'gpt-5-nano': { input: 0.05, output: 0.4, cacheRead: 0.005 },
  'gpt-4.1': { input: 2, output: 8, cacheRead: 0.5 },
  'gpt-4.1-mini': { input: 0.4, output: 1.6, cacheRead: 0.1 },
  'gpt-4.1-nano': { input: 0.1, output: 0.4, cacheRead: 0.025 },
  'gpt-4o': { input: 2.5, output: 10, cacheRead: 1.25 },
  'gpt-4o-mini': { input: 0.15, output: 0.6, cacheRead: 0.075 },
  o3: { input: 2, output: 8, cacheRead: 0.5 },
  'o3-mini': { input: 1.1, output: 4.4, cacheRead: 0.55 },
  'o4-mini': { input: 1.1, output: 4.4, cacheRead: 0.275 },
  o1: { input: 15, output: 60, cacheRead: 7.5 },
};

// Anthropic: 5-minute cache writes cost 1.25x input, cache reads 0.1x.
const claude = (input: number, output: number): Price => ({
  input,
  output,
  cacheWrite: input * 1.25,
  cacheRead: input / 10,
});
const ANTHROPIC: Record<string, Price> = {
  'claude-opus-4-8': claude(5, 25),
  'claude-opus-4-7': claude(5, 25),
  'claude-opus-4-6': claude(5, 25),
  'claude-opus-4-5': claude(5, 25),
  'claude-opus-4-1': claude(15, 75),
  'claude-opus-4-0': claude(15, 75),
  'claude-opus-4': claude(15, 75),
  'claude-sonnet-4-6': claude(3, 15),
  'claude-sonnet-4-5': claude(3, 15),
  'claude-sonnet-4-0': claude(3, 15),
  'claude-sonnet-4': claude(3, 15),
  'claude-3-7-sonnet': claude(3, 15),
  'claude-haiku-4-5': claude(1, 5),
  'claude-3-5-haiku': claude(0.8, 4),
  'claude-3-haiku': { input: 0.25, output: 1.25, cacheWrite: 0.3, cacheRead: 0.03 },
};

const TABLES: Record<string, Record<string, Price>> = { openai: OPENAI, anthropic: ANTHROPIC };

/** Drops a dated snapshot suffix: gpt-4o-2024-08-06 -> gpt-4o, claude-sonnet-4-5-20250929 -> claude-sonnet-4-5. */
function undated(model: string): string {
  return model.replace(/-(\d{4}-\d{2}-\d{2}|\d{8})$/, '').replace(/-latest$/, '');
}

export function priceFor(provider: string, model: string, overrides: PriceOverrides = {}): Price | undefined {
  const m = model.trim().toLowerCase();
  const override =
    overrides[`${provider}/${model}`] ??
    overrides[model] ??
    overrides[`${provider}/${undated(m)}`] ??
    overrides[undated(m)];
  if (override) return override;
  const table = TABLES[provider];
  if (!table) return undefined;
  return table[m] ?? table[undated(m)];
}

/**
 * USD cost of one step. `usage.inputTokens` is the whole prompt (cached parts included), as every Forge
 * adapter reports it; the cached parts are billed at their own rates.
 */
export function costOf(usage: Usage, price: Price): number {
  const cacheRead = usage.cacheReadTokens ?? 0;
  const cacheWrite = usage.cacheWriteTokens ?? 0;
  const uncached = Math.max(0, usage.inputTokens - cacheRead - cacheWrite);
  const usd =
    uncached * price.input +
    cacheRead * (price.cacheRead ?? price.input) +
    cacheWrite * (price.cacheWrite ?? price.input) +
    usage.outputTokens * price.output;
  return usd / 1_000_000;
}

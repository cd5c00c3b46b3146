// Usage arithmetic. Cost stays undefined as soon as any part of it is unknown: never report a wrong total.
import type { Usage } from '../model/types';

export const ZERO_USAGE: Usage = { inputTokens: 0, outputTokens: 0 };

export function addUsage(a: Usage, b: Usage | undefined): Usage {
  if (!b) return { ...a };
  const out: Usage = { inputTokens: a.inputTokens + b.inputTokens, outputTokens: a.outputTokens + b.outputTokens };
  const cacheRead = (a.cacheReadTokens ?? 0) + (b.cacheReadTokens ?? 0);
  const cacheWrite = (a.cacheWriteTokens ?? 0) + (b.cacheWriteTokens ?? 0);
  if (cacheRead) out.cacheReadTokens = cacheRead;
  if (cacheWrite) out.cacheWriteTokens = cacheWrite;
  return out;
}

/** Merges usage events of one step: providers either repeat cumulative counts or split input/output. */
export function mergeStepUsage(a: Usage | undefined, b: Usage): Usage {
  if (!a) return { ...b };
  const max = (x?: number, y?: number) => (x === undefined && y === undefined ? undefined : Math.max(x ?? 0, y ?? 0));
  const out: Usage = {
    inputTokens: Math.max(a.inputTokens, b.inputTokens),
    outputTokens: Math.max(a.outputTokens, b.outputTokens),
  };
  const cr = max(a.cacheReadTokens, b.cacheReadTokens);
  const cw = max(a.cacheWriteTokens, b.cacheWriteTokens);
  if (cr !== undefined) out.cacheReadTokens = cr;
  if (cw !== undefined) out.cacheWriteTokens = cw;
  return out;
}

export function addCost(a: number | undefined, b: number | undefined): number | undefined {
  return a === undefined || b === undefined ? undefined : a + b;
}

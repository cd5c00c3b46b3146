// What a continued run adds to: Continue, or a resume after a reload, goes on with the same message, so the footer
// and the run-end card count on from the figures already shown instead of starting again from zero (the agent's
// own account is per run, for its budgets).
import { addCost } from '../../core/loop/usage';
import type { Progress } from '../../protocol/state';

export interface Carried {
  inputTokens: number;
  outputTokens: number;
  costUsd?: number;
  elapsedMs: number;
}

/** A run's figures so far, as the agent reports them. */
export interface RunFigures {
  usage: { inputTokens: number; outputTokens: number };
  costUsd?: number;
  elapsedMs: number;
}

/** The figures a continued run starts from: those shown so far, or nothing for a new message. */
export function carriedFrom(shown: Progress | undefined, continued: boolean): Carried | undefined {
  if (!continued || !shown) return undefined;
  const { inputTokens, outputTokens, costUsd, elapsedMs } = shown;
  return { inputTokens, outputTokens, elapsedMs, ...(costUsd !== undefined ? { costUsd } : {}) };
}

/** The run's figures on top of what it carried. */
export function withCarried<T extends RunFigures>(carried: Carried | undefined, r: T): T {
  if (!carried) return r;
  // Nothing spent before has no price either: the run's own cost stands.
  const spent = carried.inputTokens + carried.outputTokens > 0;
  const costUsd = spent ? addCost(carried.costUsd, r.costUsd) : r.costUsd;
  return {
    ...r,
    usage: {
      ...r.usage,
      inputTokens: carried.inputTokens + r.usage.inputTokens,
      outputTokens: carried.outputTokens + r.usage.outputTokens,
    },
    ...(costUsd !== undefined ? { costUsd } : {}),
    elapsedMs: carried.elapsedMs + Math.max(0, r.elapsedMs),
  };
}

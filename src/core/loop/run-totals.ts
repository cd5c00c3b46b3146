// The run report's totals: time waiting for the model, time running tools, calls and failed calls.
import type { StepReport } from './events';

export function runTotals(
  steps: readonly (Pick<StepReport, 'latencyMs'> & {
    toolCalls: readonly Pick<StepReport['toolCalls'][number], 'latencyMs' | 'error'>[];
  })[],
): { modelMs: number; toolMs: number; toolCalls: number; toolErrors: number } {
  let modelMs = 0;
  let toolMs = 0;
  let toolCalls = 0;
  let toolErrors = 0;
  for (const s of steps) {
    modelMs += s.latencyMs;
    for (const c of s.toolCalls) {
      toolMs += c.latencyMs;
      toolCalls++;
      if (c.error) toolErrors++;
    }
  }
  return { modelMs, toolMs, toolCalls, toolErrors };
}

// Breakers and guardrails: end a run that is failing, too costly, too slow, or pushing against policy.
import type { AgentConfig } from './config';

export type CallKind = 'ok' | 'error' | 'rejected' | 'denied' | 'disallowed' | 'control';

interface Trip {
  reason: 'breaker' | 'guardrail';
  detail: string;
}

export class RunMonitors {
  private consecutiveErrors = 0;
  private calls = 0;
  private errors = 0;
  private denials: string[] = [];
  private disallowed: string[] = [];
  private lastErrors: string[] = [];

  constructor(private readonly config: AgentConfig) {}

  recordCall(kind: CallKind, toolName: string, content: string): void {
    switch (kind) {
      case 'ok':
        this.calls++;
        this.consecutiveErrors = 0;
        break;
      case 'error':
        this.calls++;
        this.errors++;
        this.consecutiveErrors++;
        this.lastErrors.push(`${toolName}: ${content.split('\n')[0].slice(0, 160)}`);
        if (this.lastErrors.length > this.config.maxConsecutiveToolErrors) this.lastErrors.shift();
        break;
      case 'denied':
        this.denials.push(toolName);
        break;
      case 'disallowed':
        this.disallowed.push(toolName);
        break;
      default:
        break; // rejections are the user's choice, not a fault
    }
  }

  /** Error-driven trips, checked after each step. */
  checkCalls(): Trip | undefined {
    const c = this.config;
    if (this.consecutiveErrors >= c.maxConsecutiveToolErrors) {
      return {
        reason: 'breaker',
        detail: `${this.consecutiveErrors} consecutive tool errors:\n${this.lastErrors.map((e) => `- ${e}`).join('\n')}\nReview the errors, then continue or rephrase the task.`,
      };
    }
    if (this.calls >= c.errorRate.minCalls && this.errors / this.calls > c.errorRate.threshold) {
      return {
        reason: 'breaker',
        detail: `Tool error rate too high: ${this.errors} of ${this.calls} calls failed. Review the errors, then continue or rephrase the task.`,
      };
    }
    if (this.denials.length >= c.guardrail.maxPolicyDenials) {
      return {
        reason: 'guardrail',
        detail: `The approval policy denied ${this.denials.length} calls (${[...new Set(this.denials)].join(', ')}). Change the policy or the task.`,
      };
    }
    if (this.disallowed.length >= c.guardrail.maxDisallowedToolCalls) {
      return {
        reason: 'guardrail',
        detail: `The model called tools not available in this mode ${this.disallowed.length} times (${[...new Set(this.disallowed)].join(', ')}). Switch mode or rephrase the task.`,
      };
    }
    return undefined;
  }

  /** Budget trips, checked before each step. `tokens`: everything the run spent so far (all sources). */
  checkBudgets(elapsedMs: number, costUsd: number | undefined, tokens = 0): Trip | undefined {
    const c = this.config;
    if (c.maxWallTimeMs !== undefined && elapsedMs >= c.maxWallTimeMs) {
      return {
        reason: 'breaker',
        detail: `Time budget reached: ran ${Math.round(elapsedMs / 1000)} s of ${Math.round(c.maxWallTimeMs / 1000)} s allowed. Continue to keep going.`,
      };
    }
    if (c.maxCostUsd !== undefined && costUsd !== undefined && costUsd >= c.maxCostUsd) {
      return {
        reason: 'breaker',
        detail: `Cost budget reached: $${costUsd.toFixed(4)} of $${c.maxCostUsd.toFixed(4)}. Raise the budget to continue.`,
      };
    }
    if (c.maxTokens !== undefined && tokens >= c.maxTokens) {
      return {
        reason: 'breaker',
        detail: `Token budget reached: ${formatTokenCount(tokens)} of ${formatTokenCount(c.maxTokens)} tokens used (model steps, compaction, reflection and sub-agents). Continue to allow another ${formatTokenCount(c.maxTokens)}, or raise ${c.controls?.tokenBudget ?? 'forge.tokenBudget'}.`,
      };
    }
    return undefined;
  }
}

/** 1234 -> "1,234"; 2_500_000 -> "2.5M". */
export function formatTokenCount(n: number): string {
  if (n >= 1_000_000) return `${Math.round(n / 100_000) / 10}M`;
  return Math.round(n).toLocaleString('en-US');
}

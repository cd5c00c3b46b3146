// A run's account as the run uses it: each model call booked on the run and the task (priced for the model that
// made it), the budgets it may still spend, a port for sub-agents, and the warnings at 80% of a budget.
import type { Usage, ModelInfo } from '../model/types';
import type { AgentConfig } from './config';
import type { AgentEvent } from './events';
import { formatTokenCount } from './monitors';
import { SpendAccount, type SpendPort, type SpendSource } from './spend';
import type { AgentState } from './state';
import { addCost, addUsage } from './usage';

export class RunSpend extends SpendAccount {
  private costWarned = false;
  private tokensWarned = false;

  constructor(
    priced: boolean,
    private readonly state: AgentState,
    private readonly config: AgentConfig,
    private readonly runId: string,
    private readonly emit: (event: AgentEvent) => void,
  ) {
    super(priced);
  }

  /** Books a model call's usage on the run (and the task), priced for the model that made it. */
  record(source: SpendSource, usage: Usage, info: ModelInfo | undefined, calls = 1): number | undefined {
    const price = this.config.price;
    const cost = price ? price(usage, info) : undefined;
    this.charge(source, usage, cost, calls);
    return cost;
  }

  /** Books usage whose cost is known already (a sub-agent's). */
  charge(source: SpendSource, usage: Usage, cost: number | undefined, calls = 1): void {
    this.add(source, usage, cost, calls);
    this.state.usage = addUsage(this.state.usage, usage);
    this.state.costUsd = addCost(this.state.costUsd, cost);
    // Model steps report through step_end; what else spent (summaries, reflection, sub-agents) says so here.
    if (source !== 'steps')
      this.emit({
        type: 'model_usage',
        runId: this.runId,
        source,
        usage,
        ...(cost !== undefined ? { costUsd: cost } : {}),
        calls,
      });
  }

  /** Why the run may not spend more (a budget is used up), or undefined. */
  overBudget(): string | undefined {
    const c = this.config;
    if (c.maxTokens !== undefined && this.tokens >= c.maxTokens)
      return `the token budget is used up (${formatTokenCount(this.tokens)} of ${formatTokenCount(c.maxTokens)})`;
    const cost = this.costUsd;
    if (c.maxCostUsd !== undefined && cost !== undefined && cost >= c.maxCostUsd)
      return `the cost budget is used up ($${cost.toFixed(4)} of $${c.maxCostUsd})`;
    return undefined;
  }

  /** The run's account as tools see it: a sub-agent gets what is left of the budgets and books its spend here. */
  port(): SpendPort {
    return {
      remaining: () => {
        const c = this.config;
        const cost = this.costUsd;
        return {
          ...(c.maxTokens !== undefined ? { tokens: Math.max(0, c.maxTokens - this.tokens) } : {}),
          ...(c.maxCostUsd !== undefined && cost !== undefined ? { costUsd: Math.max(0, c.maxCostUsd - cost) } : {}),
        };
      },
      record: (source, usage, cost, calls) => this.charge(source, usage, cost, calls),
    };
  }

  /** Warns once each when the cost or the tokens reach 80% of their budget. */
  warnNearBudgets(): void {
    const cost = this.costUsd;
    const tokens = this.tokens;
    const max = this.config.maxCostUsd;
    if (!this.costWarned && max !== undefined && cost !== undefined && cost >= max * 0.8) {
      this.costWarned = true;
      this.emit({
        type: 'warning',
        runId: this.runId,
        kind: 'budget',
        key: 'budget-cost',
        message: `Cost $${cost.toFixed(4)} is at 80% of the $${max} budget.`,
      });
    }
    const maxTokens = this.config.maxTokens;
    if (!this.tokensWarned && maxTokens !== undefined && tokens >= maxTokens * 0.8) {
      this.tokensWarned = true;
      this.emit({
        type: 'warning',
        runId: this.runId,
        kind: 'budget',
        key: 'budget-tokens',
        message: `${formatTokenCount(tokens)} tokens used: ${Math.floor((100 * tokens) / maxTokens)}% of the ${formatTokenCount(maxTokens)} token budget.`,
      });
    }
  }
}

// What a run spent, by source: the model steps, compaction summaries, reflection and sub-agents all draw on one
// account, so the run's tokens, cost and budget breakers see every model call the run caused.
import { estimateRequestTokens, estimateTextTokens } from '../context/tokens';
import type { Model, ModelEvent, ModelInfo, ModelRequest, Usage } from '../model/types';
import type { ToolContext } from '../tools/types';
import { addCost, addUsage, mergeStepUsage, ZERO_USAGE } from './usage';

export type SpendSource = 'steps' | 'compaction' | 'reflection' | 'sub_agents';

interface SpendLine {
  usage: Usage;
  /** undefined when any part of it has no known price. */
  costUsd?: number;
  calls: number;
}

export type SpendBreakdown = Partial<Record<SpendSource, SpendLine>>;

/** Tokens counted against a token budget: everything the provider processed or produced. */
function tokensOf(usage: Usage): number {
  return usage.inputTokens + usage.outputTokens;
}

/** The run's account as a tool sees it (sub-agents draw on what is left and report what they spent). */
export interface SpendPort {
  /** What is left of the run's budgets; a field is absent when that budget is off (or the cost is unknown). */
  remaining(): { tokens?: number; costUsd?: number };
  record(source: SpendSource, usage: Usage, costUsd: number | undefined, calls?: number): void;
}

/** The ToolContext the loop hands to tools: with the run's account (read by delegate_task). */
export interface LoopToolContext extends ToolContext {
  spend?: SpendPort;
}

export class SpendAccount {
  private totalUsage: Usage = { ...ZERO_USAGE };
  private totalCost: number | undefined;
  private readonly lines: SpendBreakdown = {};

  /** `priced`: the model has a known price (cost starts at 0); otherwise cost stays unknown. */
  constructor(priced: boolean) {
    this.totalCost = priced ? 0 : undefined;
  }

  get usage(): Usage {
    return this.totalUsage;
  }

  get costUsd(): number | undefined {
    return this.totalCost;
  }

  get tokens(): number {
    return tokensOf(this.totalUsage);
  }

  /** `costUsd` undefined = unknown price: the total cost becomes unknown (never a wrong total). */
  add(source: SpendSource, usage: Usage, costUsd: number | undefined, calls = 1): void {
    this.totalUsage = addUsage(this.totalUsage, usage);
    this.totalCost = addCost(this.totalCost, costUsd);
    const line = this.lines[source];
    this.lines[source] = line
      ? { usage: addUsage(line.usage, usage), costUsd: addCost(line.costUsd, costUsd), calls: line.calls + calls }
      : { usage: { ...usage }, costUsd, calls };
  }

  breakdown(): SpendBreakdown {
    return structuredClone(this.lines);
  }
}

/**
 * A Model that reports the usage of every stream that passes through it (once per stream, when it ends, whether it
 * finished, failed or was abandoned). Used for the calls the loop does not stream itself: reflection, compaction.
 * A stream that produced output but no usage (some local servers) is estimated, so a token budget still sees it.
 */
export function meteredModel(model: Model, onUsage: (usage: Usage, info: ModelInfo) => void): Model {
  return {
    get info() {
      return model.info;
    },
    async *stream(request: ModelRequest): AsyncIterable<ModelEvent> {
      let usage: Usage | undefined;
      let output = '';
      let events = 0;
      try {
        for await (const event of model.stream(request)) {
          events++;
          if (event.type === 'usage') usage = mergeStepUsage(usage, event.usage);
          else if (event.type === 'text' || event.type === 'thinking') output += event.delta;
          else if (event.type === 'tool_call_delta') output += event.argsDelta;
          yield event;
        }
      } finally {
        if (!usage && events > 0) {
          usage = {
            inputTokens: estimateRequestTokens(request.system, request.messages, request.tools),
            outputTokens: estimateTextTokens(output),
          };
        }
        if (usage) onUsage(usage, model.info);
      }
    },
  };
}

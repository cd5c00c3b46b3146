// The settings both surfaces build an agent from: the extension passes its forge.* settings (ForgeSettings has
// every field), the CLI its flags and environment. What a run is configured with comes from here, once.
import type { AgentConfig } from '../../core/loop/config';
import type { SurfaceControls } from '../../core/loop/surface';
import { memoryBudget } from '../../core/memory';
import type { Model, ModelInfo, Usage } from '../../core/model/types';
import type { ModeName } from '../../core/modes';

export type SurfaceProvider = 'vscode-lm' | 'openai' | 'anthropic' | 'openai-compatible';

export interface SurfaceSettings {
  provider: SurfaceProvider;
  model: string;
  baseUrl: string;
  mode: ModeName;
  /** undefined = the mode's default. */
  maxIterations: number | undefined;
  /** 0 = no limit (the same for the other budgets). */
  costBudgetUsd: number;
  tokenBudget: number;
  timeBudgetMinutes: number;
  /** A model stream silent this long is retried (0 = off). */
  streamIdleTimeoutSeconds: number;
  /** "<provider>:<model>" used after repeated provider outages; '' = none. */
  fallbackModel: string;
  maxOutputTokens: number;
  temperature: number | undefined;
  thinkingBudgetTokens: number;
  /** auto: native tool calls, switching to the XML text format when the endpoint or model cannot do them. */
  toolCallFormat: 'auto' | 'native' | 'xml';
  /** Tokens; 0 = what the server reports or the known model limits. */
  contextWindow: number;
  /** Whether the model takes images: auto (or unset) = what the model says, on / off = the user knows better. */
  imageInput?: 'auto' | 'on' | 'off';
}

/** What the run config needs of the model: its limits, its fallback and its price. */
export interface ConfigModel {
  readonly info: ModelInfo;
  readonly fallback?: Model;
  price(usage: Usage, info?: ModelInfo): number | undefined;
}

/**
 * Settings -> the run's limits, budgets and model options. The surface adds only what is its own: the environment
 * layer and the standing approvals (`policy`).
 */
export function surfaceConfig(s: SurfaceSettings, model: ConfigModel, controls: SurfaceControls): Partial<AgentConfig> {
  const window = model.info.contextWindow;
  return {
    mode: s.mode,
    ...(s.maxIterations !== undefined ? { maxIterations: s.maxIterations } : {}),
    ...(s.costBudgetUsd > 0 ? { maxCostUsd: s.costBudgetUsd } : {}),
    ...(s.timeBudgetMinutes > 0 ? { maxWallTimeMs: s.timeBudgetMinutes * 60_000 } : {}),
    ...(s.tokenBudget > 0 ? { maxTokens: s.tokenBudget } : {}),
    streamIdleTimeoutMs: s.streamIdleTimeoutSeconds * 1000,
    // Asked when the model keeps failing: the fallback resolved with the current model (settings changes apply).
    fallbackModel: () => model.fallback,
    price: (usage, info) => model.price(usage, info),
    // The memory share of the prompt budget (60/30/10 split of what the output reservation leaves).
    memoryTokenBudget: memoryBudget(window, Math.min(s.maxOutputTokens, window / 2)).memory,
    maxOutputTokens: s.maxOutputTokens,
    ...(s.temperature !== undefined ? { temperature: s.temperature } : {}),
    ...(s.thinkingBudgetTokens > 0 ? { thinkingBudgetTokens: s.thinkingBudgetTokens } : {}),
    controls,
  };
}

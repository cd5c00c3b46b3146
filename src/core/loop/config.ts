// Agent configuration and the injectable clock (tests use a fake one so backoffs cost no real time).
import type { Model, ModelInfo, Usage } from '../model/types';
import type { ModeDefinition, ModeName } from '../modes';
import type { ModeContextGatherer } from '../modes/context';
import type { HookPort } from '../hooks/types';
import type { PolicyConfig } from '../safety/policy';
import type { SurfaceControls } from './surface';

export interface Clock {
  now(): number;
  /** Resolves after `ms`, rejects early when `signal` aborts. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  /**
   * Resolves once `ms` have passed on this clock (a timer, not a wait the caller spends: a fake clock fires it
   * when its time is advanced, never advances time for it); rejects and clears the timer when `signal` aborts.
   * Optional: without it the run's wall-time deadline falls back to a real timer.
   */
  timeout?(ms: number, signal: AbortSignal): Promise<void>;
}

/** setTimeout's limit (~24.8 days); longer waits fire early, so callers that need exactness re-arm. */
const MAX_TIMER_MS = 2 ** 31 - 1;

function realTimer(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(new Error('aborted'));
    const timer = setTimeout(
      () => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      },
      Math.min(Math.max(0, ms), MAX_TIMER_MS),
    );
    const onAbort = () => {
      clearTimeout(timer);
      reject(new Error('aborted'));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: realTimer,
  timeout: realTimer,
};

/** `clock.timeout`, or a real timer for clocks without one. */
export function clockTimeout(clock: Clock, ms: number, signal: AbortSignal): Promise<void> {
  return clock.timeout ? clock.timeout(ms, signal) : realTimer(ms, signal);
}

export interface RetryConfig {
  /** Retries after the first attempt. */
  retries: number;
  baseMs: number;
  capMs: number;
}

export interface AgentConfig {
  /** Initial mode. */
  mode: ModeName;
  /** Overrides the mode's iteration limit. */
  maxIterations?: number;
  /** From this share of the limit the prompt carries a wrap-up warning. */
  iterationWarningRatio: number;
  /** Cost budget per run (USD); needs `price`. Compaction, reflection and sub-agents count against it. */
  maxCostUsd?: number;
  /**
   * Token budget per run (input + output tokens of every model call: steps, compaction, reflection, sub-agents).
   * Works when the price is unknown (vscode.lm, local models). Warns at 80%, stops at 100% like the cost budget.
   */
  maxTokens?: number;
  /**
   * A model stream that delivers no event for this long is a stall: the attempt is aborted and retried like a
   * network error. The wait for the first event gets twice as long (prompt processing, model load). 0 = off.
   */
  streamIdleTimeoutMs: number;
  /**
   * Used for the rest of a run once the model keeps failing with provider faults (overloaded, 5xx, unreachable,
   * stalled) after its retries; never for auth or bad-request errors. A function is asked when it is needed.
   */
  fallbackModel?: Model | (() => Model | undefined);
  /** Wall-time budget per run (ms). */
  maxWallTimeMs?: number;
  maxConsecutiveToolErrors: number;
  /** Error-rate breaker: trips when errors / calls > threshold once at least minCalls calls ran. */
  errorRate: { threshold: number; minCalls: number };
  /** Guardrail: ends the run when policy denies this many calls, or the model calls tools outside the mode this often. */
  guardrail: { maxPolicyDenials: number; maxDisallowedToolCalls: number };
  stagnation: { identicalCalls: number; noProgressIterations: number; repeatedErrors: number };
  toolRetry: RetryConfig;
  modelRetry: RetryConfig;
  /** Overrides model.info.contextWindow. */
  contextWindow?: number;
  /** Compact when context tokens reach this share of the window. */
  compactAt: number;
  keepRecentTurns: number;
  toolOutputCapChars: number;
  /**
   * USD for a usage of `model` (the model that produced it; absent = the primary); undefined when unknown (reports
   * then carry tokens only). A price of 0 is a known free model.
   */
  price?: (usage: Usage, model?: ModelInfo) => number | undefined;
  policy?: Partial<PolicyConfig>;
  /** Memory share of the prompt (tokens); default 5% of the window, max 2000. */
  memoryTokenBudget?: number;
  /** Reflections triggered by tool errors per run (run-end reflection is always attempted). */
  maxErrorReflectionsPerRun: number;
  maxOutputTokens?: number;
  temperature?: number;
  thinkingBudgetTokens?: number;
  /** Host facts for the dynamic environment layer (workspace, OS, open file...). */
  environment?: string | (() => string);
  /** The team's custom agents as modes (read every step: agent files may change between runs). */
  customModes?: () => readonly ModeDefinition[];
  /** The skills the model may load (names and descriptions only), for the stable prompt prefix. */
  skillIndex?: string | (() => string);
  /** Tool names the run is narrowed to (an active skill's allowed-tools); undefined = no narrowing. */
  narrowTools?: () => readonly string[] | undefined;
  /** Gathers the mode's own context before the first step of a run (see core/modes/context.ts). */
  modeContext?: ModeContextGatherer;
  /** The project's rules text (AGENTS.md...) for the stable prompt prefix; read every step (nested rules may join). */
  projectRules?: string | (() => string);
  /** The surface's own controls, named in messages and the role prompt (default: the extension's). */
  controls?: SurfaceControls;
  /** The user's and the allowed workspace hooks (core/hooks): prompt and compaction events fire here. */
  hooks?: HookPort;
}

const DEFAULT_CONFIG: AgentConfig = {
  mode: 'agent',
  iterationWarningRatio: 0.8,
  maxConsecutiveToolErrors: 3,
  errorRate: { threshold: 0.5, minCalls: 6 },
  guardrail: { maxPolicyDenials: 3, maxDisallowedToolCalls: 3 },
  stagnation: { identicalCalls: 3, noProgressIterations: 6, repeatedErrors: 3 },
  toolRetry: { retries: 3, baseMs: 1000, capMs: 10_000 },
  modelRetry: { retries: 3, baseMs: 1000, capMs: 30_000 },
  streamIdleTimeoutMs: 90_000,
  compactAt: 0.9,
  keepRecentTurns: 4,
  toolOutputCapChars: 16_000,
  maxErrorReflectionsPerRun: 2,
};

export function resolveConfig(partial: Partial<AgentConfig> = {}): AgentConfig {
  return {
    ...DEFAULT_CONFIG,
    ...partial,
    errorRate: { ...DEFAULT_CONFIG.errorRate, ...partial.errorRate },
    guardrail: { ...DEFAULT_CONFIG.guardrail, ...partial.guardrail },
    stagnation: { ...DEFAULT_CONFIG.stagnation, ...partial.stagnation },
    toolRetry: { ...DEFAULT_CONFIG.toolRetry, ...partial.toolRetry },
    modelRetry: { ...DEFAULT_CONFIG.modelRetry, ...partial.modelRetry },
  };
}

/** Exponential backoff: base * 2^(attempt-1), capped. `attempt` starts at 1. */
export function backoffMs(attempt: number, retry: RetryConfig): number {
  return Math.min(retry.capMs, retry.baseMs * 2 ** (attempt - 1));
}

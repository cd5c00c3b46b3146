// The command line's own controls, named wherever core, the sandbox or the model builder tell a person (or the
// model) what to change: flags and environment variables, never a VS Code command or setting.
import type { SurfaceControls } from '../core/loop/surface';
import type { SandboxControls } from '../node/sandbox/command-sandbox';
import type { ModelControls } from '../node/surface/model';
import type { SurfaceSettings } from '../node/surface/settings';
import type { CliOptions } from './args';

export const CLI_CONTROLS: SurfaceControls = {
  workplace: "a folder on the user's machine, run headless from the forge command line",
  setApiKey: 'set OPENAI_API_KEY or ANTHROPIC_API_KEY (or FORGE_API_KEY) in the environment',
  selectModel: '--provider and --model',
  tokenBudget: '--max-tokens',
  streamIdleTimeout: '--stream-idle-timeout',
  fallbackModel: '--fallback-model',
};

export const CLI_MODEL_CONTROLS: ModelControls = {
  setApiKey: CLI_CONTROLS.setApiKey,
  selectModel: CLI_CONTROLS.selectModel,
  setBaseUrl: 'Pass --base-url (or set FORGE_BASE_URL) to your endpoint',
  contextWindow: '--context-window',
  toolCallFormat: '--tool-call-format',
};

export const CLI_SANDBOX_CONTROLS: SandboxControls = {
  off: { summary: 'no sandbox (--no-sandbox)', reason: 'The sandbox is turned off with --no-sandbox.' },
  network: '--network',
  allowedHosts: '--network allowlist --allow-host',
};

/** The flags as the settings both surfaces build a run from (unset budgets: no limit). */
export function cliSurfaceSettings(opts: CliOptions): SurfaceSettings {
  return {
    provider: opts.provider,
    model: opts.model,
    baseUrl: opts.baseUrl ?? '',
    mode: opts.mode ?? 'agent',
    maxIterations: opts.maxIterations,
    costBudgetUsd: opts.maxCostUsd ?? 0,
    tokenBudget: opts.maxTokens ?? 0,
    timeBudgetMinutes: opts.maxMinutes ?? 0,
    streamIdleTimeoutSeconds: opts.streamIdleTimeoutSeconds ?? 90,
    fallbackModel: opts.fallbackModel ?? '',
    maxOutputTokens: 8192,
    temperature: undefined,
    thinkingBudgetTokens: 0,
    toolCallFormat: opts.toolCallFormat,
    contextWindow: opts.contextWindow ?? 0,
  };
}

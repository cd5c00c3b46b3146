// Typed reader for the forge.* settings declared in package.json (contributes.configuration).
import * as vscode from 'vscode';

export type ProviderId = 'vscode-lm' | 'openai' | 'anthropic' | 'openai-compatible';
export type ModeId = 'agent' | 'plan' | 'implement' | 'review' | 'test' | 'deploy';

export interface AutoApproveSettings {
  read: boolean;
  write: boolean;
  execute: boolean;
  network: boolean;
}

export interface ForgeSettings {
  provider: ProviderId;
  model: string;
  baseUrl: string;
  mode: ModeId;
  /** undefined = the mode's default */
  maxIterations: number | undefined;
  costBudgetUsd: number;
  /** Tokens per run (all model calls: steps, compaction, reflection, sub-agents); 0 = no limit. */
  tokenBudget: number;
  /** A model stream silent this long is retried (0 = off). */
  streamIdleTimeoutSeconds: number;
  /** "<provider>:<model>" used after repeated provider outages; '' = none. */
  fallbackModel: string;
  timeBudgetMinutes: number;
  maxOutputTokens: number;
  temperature: number | undefined;
  thinkingBudgetTokens: number;
  autoApprove: AutoApproveSettings;
  commandAllowList: string[];
  commandDenyList: string[];
  commandTimeoutSeconds: number;
  /** forge.toolTimeoutSeconds: one limit for every file tool, or per tool name ("*" for the rest); undefined = defaults. */
  toolTimeoutSeconds: number | Record<string, number> | undefined;
  commandOutputCapChars: number;
  useShellIntegration: boolean;
  reflection: { enabled: boolean; budgetUsd: number };
  memoryEnabled: boolean;
  /** forge.history.maxTasks: tasks kept in the history; older ones are archived, never deleted. */
  historyMaxTasks: number;
  showDiffOnProposal: boolean;
  sandbox: { enabled: boolean; network: 'off' | 'allowlist' | 'on'; allowedHosts: string[]; envAllowList: string[] };
  /** auto: native tool calls, switching to the XML text format when the endpoint or model cannot do them. */
  toolCallFormat: 'auto' | 'native' | 'xml';
  /** Tokens; 0 = what the server reports (Ollama, LM Studio, vLLM, OpenRouter...) or the known model limits. */
  contextWindow: number;
}

const PROVIDERS: ProviderId[] = ['vscode-lm', 'openai', 'anthropic', 'openai-compatible'];
const MODES: ModeId[] = ['agent', 'plan', 'implement', 'review', 'test', 'deploy'];

function oneOf<T extends string>(value: unknown, allowed: T[], fallback: T): T {
  return allowed.includes(value as T) ? (value as T) : fallback;
}
function num(value: unknown, fallback: number, min = -Infinity): number {
  return typeof value === 'number' && Number.isFinite(value) && value >= min ? value : fallback;
}
/** A positive number, or an object of positive numbers by tool name; anything else: undefined (the defaults). */
function toolTimeouts(value: unknown): number | Record<string, number> | undefined {
  if (typeof value === 'number') return Number.isFinite(value) && value > 0 ? value : undefined;
  if (!value || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const out: Record<string, number> = {};
  for (const [k, v] of Object.entries(value)) if (typeof v === 'number' && Number.isFinite(v) && v > 0) out[k] = v;
  return Object.keys(out).length ? out : undefined;
}
function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string' && v.trim() !== '') : [];
}

/** Reads every forge.* setting with defaults and type checks (settings.json can hold anything). */
export function readSettings(scope?: vscode.ConfigurationScope): ForgeSettings {
  const c = vscode.workspace.getConfiguration('forge', scope);
  const auto = c.get<Partial<AutoApproveSettings>>('autoApprove') ?? {};
  const maxIterations = c.get<number | null>('maxIterations');
  const temperature = c.get<number | null>('temperature');
  return {
    provider: oneOf(c.get('provider'), PROVIDERS, 'vscode-lm'),
    model: String(c.get('model') ?? '').trim(),
    baseUrl: String(c.get('baseUrl') ?? '').trim(),
    mode: oneOf(c.get('mode'), MODES, 'agent'),
    maxIterations: typeof maxIterations === 'number' && maxIterations >= 1 ? Math.floor(maxIterations) : undefined,
    costBudgetUsd: num(c.get('costBudgetUsd'), 2, 0),
    tokenBudget: Math.floor(num(c.get('tokenBudget'), 2_000_000, 0)),
    streamIdleTimeoutSeconds: num(c.get('streamIdleTimeoutSeconds'), 90, 0),
    fallbackModel: String(c.get('fallbackModel') ?? '').trim(),
    timeBudgetMinutes: num(c.get('timeBudgetMinutes'), 30, 0),
    maxOutputTokens: num(c.get('maxOutputTokens'), 8192, 1),
    temperature: typeof temperature === 'number' ? temperature : undefined,
    thinkingBudgetTokens: num(c.get('thinkingBudgetTokens'), 0, 0),
    autoApprove: {
      read: auto.read !== false,
      write: auto.write === true,
      execute: auto.execute === true,
      network: auto.network === true,
    },
    commandAllowList: strings(c.get('commandAllowList')),
    commandDenyList: strings(c.get('commandDenyList')),
    commandTimeoutSeconds: num(c.get('commandTimeoutSeconds'), 120, 1),
    toolTimeoutSeconds: toolTimeouts(c.get('toolTimeoutSeconds')),
    commandOutputCapChars: num(c.get('commandOutputCapChars'), 20_000, 1000),
    useShellIntegration: c.get('terminal.useShellIntegration') === true,
    reflection: { enabled: c.get('reflection.enabled') !== false, budgetUsd: num(c.get('reflection.budgetUsd'), 0.05, 0) },
    memoryEnabled: c.get('memory.enabled') !== false,
    historyMaxTasks: Math.floor(num(c.get('history.maxTasks'), 1000, 10)),
    showDiffOnProposal: c.get('showDiffOnProposal') !== false,
    sandbox: {
      enabled: c.get('sandbox.enabled') !== false,
      network: oneOf(c.get('sandbox.network'), ['off', 'allowlist', 'on'], 'off'),
      allowedHosts: strings(c.get('sandbox.allowedHosts')),
      envAllowList: strings(c.get('sandbox.envAllowList')),
    },
    toolCallFormat: oneOf(c.get('toolCallFormat'), ['auto', 'native', 'xml'], 'auto'),
    contextWindow: Math.floor(num(c.get('contextWindow'), 0, 0)),
  };
}

/** Fires `listener` with fresh settings whenever a forge.* setting changes. */
export function onSettingsChanged(listener: (settings: ForgeSettings) => void): vscode.Disposable {
  return vscode.workspace.onDidChangeConfiguration((e) => {
    if (e.affectsConfiguration('forge')) listener(readSettings());
  });
}

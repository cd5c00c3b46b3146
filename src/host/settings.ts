// Typed reader for the forge.* settings declared in package.json (contributes.configuration). The settings that widen
// what Forge may do, or where a key is sent, come through settings-consent.ts: a workspace's value applies only when
// the user allowed it for that workspace (narrower values always apply).
import * as vscode from 'vscode';
import { decideFor, onDidChangeConsent } from './settings-consent';
import {
  checkedChoice,
  checkedNumber,
  describeAdjustment,
  NUMBER_SETTINGS,
  type SettingAdjustment,
} from './setting-values';

export type ProviderId = 'vscode-lm' | 'openai' | 'anthropic' | 'openai-compatible';
type ModeId = 'agent' | 'plan' | 'implement' | 'review' | 'test' | 'deploy';

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
  /**
   * forge.baseUrl / the fallback's own endpoint came from the workspace without the user's consent, only because no
   * API key was stored: the model factory never sends a stored key there.
   */
  keylessEndpoints: { baseUrl: boolean; fallbackModel: boolean };
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
  sandbox: {
    enabled: boolean;
    network: 'off' | 'allowlist' | 'on';
    allowedHosts: string[];
    envAllowList: string[];
    /** Who set forge.sandbox.enabled as it is: the user (or the default), or this workspace with the user's consent. */
    enabledBy: 'user' | 'workspace';
  };
  /** forge.mcp.autoApprove in effect ({ server: true | [tool names] }). */
  mcpAutoApprove: unknown;
  /** auto: native tool calls, switching to the XML text format when the endpoint or model cannot do them. */
  toolCallFormat: 'auto' | 'native' | 'xml';
  /** Tokens; 0 = what the server reports (Ollama, LM Studio, vLLM, OpenRouter...) or the known model limits. */
  contextWindow: number;
  /** Whether the model takes images: auto = what the model or VS Code says, on / off = the user knows better. */
  imageInput: 'auto' | 'on' | 'off';
  /** Settings whose written value is not the one in effect (out of range, not a number, not a choice). */
  adjustments: SettingAdjustment[];
}

const PROVIDERS: ProviderId[] = ['vscode-lm', 'openai', 'anthropic', 'openai-compatible'];
const MODES: ModeId[] = ['agent', 'plan', 'implement', 'review', 'test', 'deploy'];

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
  // The widening settings: the values in effect (a workspace's widening value only with the user's consent).
  const { values: w, sources, keyless } = decideFor(c);
  const auto = (w.autoApprove ?? {}) as Partial<AutoApproveSettings>;
  const maxIterations = c.get<number | null>('maxIterations');
  const temperature = c.get<number | null>('temperature');
  const adjustments: SettingAdjustment[] = [];
  const num = (key: keyof typeof NUMBER_SETTINGS, raw: unknown = c.get(key)) =>
    checkedNumber(key, raw, NUMBER_SETTINGS[key], adjustments);
  const oneOf = <T extends string>(key: string, raw: unknown, allowed: T[], fallback: T) =>
    checkedChoice(key, raw, allowed, fallback, adjustments);
  return {
    provider: oneOf('provider', c.get('provider'), PROVIDERS, 'vscode-lm'),
    model: String(c.get('model') ?? '').trim(),
    baseUrl: String(w.baseUrl ?? '').trim(),
    keylessEndpoints: { baseUrl: keyless.includes('baseUrl'), fallbackModel: keyless.includes('fallbackModel') },
    mode: oneOf('mode', c.get('mode'), MODES, 'agent'),
    maxIterations: typeof maxIterations === 'number' && maxIterations >= 1 ? Math.floor(maxIterations) : undefined,
    costBudgetUsd: num('costBudgetUsd', w.costBudgetUsd),
    tokenBudget: num('tokenBudget', w.tokenBudget),
    streamIdleTimeoutSeconds: num('streamIdleTimeoutSeconds'),
    fallbackModel: String(w.fallbackModel ?? '').trim(),
    timeBudgetMinutes: num('timeBudgetMinutes'),
    maxOutputTokens: num('maxOutputTokens'),
    temperature: typeof temperature === 'number' ? temperature : undefined,
    thinkingBudgetTokens: num('thinkingBudgetTokens'),
    autoApprove: {
      read: auto.read !== false,
      write: auto.write === true,
      execute: auto.execute === true,
      network: auto.network === true,
    },
    commandAllowList: strings(w.commandAllowList),
    commandDenyList: strings(w.commandDenyList),
    commandTimeoutSeconds: num('commandTimeoutSeconds'),
    toolTimeoutSeconds: toolTimeouts(c.get('toolTimeoutSeconds')),
    commandOutputCapChars: num('commandOutputCapChars'),
    useShellIntegration: c.get('terminal.useShellIntegration') === true,
    reflection: {
      enabled: c.get('reflection.enabled') !== false,
      budgetUsd: num('reflection.budgetUsd'),
    },
    memoryEnabled: c.get('memory.enabled') !== false,
    historyMaxTasks: num('history.maxTasks'),
    showDiffOnProposal: c.get('showDiffOnProposal') !== false,
    sandbox: {
      enabled: w['sandbox.enabled'] !== false,
      network: oneOf('sandbox.network', w['sandbox.network'], ['off', 'allowlist', 'on'], 'off'),
      allowedHosts: strings(w['sandbox.allowedHosts']),
      envAllowList: strings(w['sandbox.envAllowList']),
      enabledBy: sources['sandbox.enabled'] === 'workspace' ? 'workspace' : 'user',
    },
    mcpAutoApprove: w['mcp.autoApprove'],
    toolCallFormat: oneOf('toolCallFormat', c.get('toolCallFormat'), ['auto', 'native', 'xml'], 'auto'),
    contextWindow: num('contextWindow'),
    adjustments,
    imageInput: oneOf('imageInput', c.get('imageInput'), ['auto', 'on', 'off'], 'auto'),
  };
}

/** Fires `listener` with fresh settings whenever a forge.* setting changes. */
export function onSettingsChanged(listener: (settings: ForgeSettings) => void): vscode.Disposable {
  return vscode.Disposable.from(
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('forge')) listener(readSettings());
    }),
    // The user allowed (or refused) this workspace's widening settings: the values in effect may have changed.
    onDidChangeConsent(() => listener(readSettings())),
  );
}

/** The sandbox is off by a setting: whose (for the approval card and the warning). */
export function sandboxOffBy(): 'user' | 'workspace' | undefined {
  const s = readSettings().sandbox;
  return s.enabled ? undefined : s.enabledBy;
}

const reportedAdjustments = new Set<string>();

/**
 * Tells the user, once per value, about each setting Forge does not use as written (the log keeps every one), with
 * a button to that setting.
 */
export function reportSettingAdjustments(settings: ForgeSettings, log: (message: string) => void): void {
  for (const a of settings.adjustments) {
    const text = describeAdjustment(a);
    log(text);
    if (reportedAdjustments.has(text)) continue;
    reportedAdjustments.add(text);
    void vscode.window.showWarningMessage(`Forge: ${text}`, 'Open Setting').then((pick) => {
      if (pick) void vscode.commands.executeCommand('workbench.action.openSettings', `forge.${a.key}`);
    });
  }
}

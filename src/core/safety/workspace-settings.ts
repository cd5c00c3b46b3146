// Settings that widen what Forge may do, or where an API key is sent, are taken from a workspace (its
// .vscode/settings.json or .code-workspace file, which come with the repository) only when the user allowed them for
// that workspace. Without that consent the user's own value (or the default) applies; a workspace value that is
// MORE restrictive always applies. One pure decision, so the rule is testable without VS Code and the host only
// reads the scopes (WorkspaceConfiguration.inspect) and stores the answers (globalState, never the workspace).
import { createHash } from 'node:crypto';

/** A setting's value per scope, as WorkspaceConfiguration.inspect() reports it. */
export interface ScopedValues {
  defaultValue?: unknown;
  globalValue?: unknown;
  workspaceValue?: unknown;
  workspaceFolderValue?: unknown;
}

/** Where the value in effect comes from. */
type SettingSource = 'default' | 'user' | 'workspace';

/** The widening settings, by key under `forge.` (autoApprove is judged per field). */
export const WIDENING_SETTINGS = [
  'sandbox.enabled',
  'autoApprove',
  'sandbox.network',
  'sandbox.allowedHosts',
  'sandbox.envAllowList',
  'commandAllowList',
  'commandDenyList',
  'baseUrl',
  'fallbackModel',
  'costBudgetUsd',
  'tokenBudget',
  'mcp.autoApprove',
] as const;
export type WideningKey = (typeof WIDENING_SETTINGS)[number];

/**
 * The user's answers for one workspace, per judged setting ('autoApprove.execute', 'baseUrl' ...): the digest of
 * the workspace value they allowed or refused. A different value has a different digest, so it is asked again.
 */
export type ConsentRecord = Record<string, { allowed?: string; refused?: string }>;

interface WidenedSetting {
  /** The judged setting under `forge.` ('sandbox.enabled', 'autoApprove.execute', 'mcp.autoApprove'). */
  key: string;
  /** The workspace's value (for autoApprove fields: the boolean). */
  value: unknown;
  /** What applies instead until the user allows it. */
  userValue: unknown;
  /** For the question: what the value does ("turn the sandbox off"). */
  says: string;
  /** Digest of the workspace value (stored with the answer; a changed value asks again). */
  digest: string;
  consent: 'allowed' | 'refused' | 'unasked';
}

export interface WorkspaceSettingsDecision {
  /** The value in effect for each widening setting, in the raw shape settings.json holds (the reader normalises). */
  values: Record<WideningKey, unknown>;
  /** Who set the value in effect (a workspace value equal to the user's counts as the user's). */
  sources: Record<WideningKey, SettingSource>;
  /** Every widening value the workspace sets, allowed or not. */
  widened: WidenedSetting[];
  /** Those the user has not answered yet: the one-time question. */
  toAsk: WidenedSetting[];
  /**
   * Endpoints in effect that the workspace named and the user did not allow, applied only because no key is stored:
   * they must never be sent a stored key (the model factory sends none to them).
   */
  keyless: ('baseUrl' | 'fallbackModel')[];
}

const DEFAULTS: Record<WideningKey, unknown> = {
  autoApprove: { read: true, write: false, execute: false, network: false },
  'sandbox.enabled': true,
  'sandbox.network': 'off',
  'sandbox.allowedHosts': [],
  'sandbox.envAllowList': [],
  commandAllowList: [],
  commandDenyList: [],
  baseUrl: '',
  fallbackModel: '',
  costBudgetUsd: 2,
  tokenBudget: 2_000_000,
  'mcp.autoApprove': {},
};

/** A digest of a value, stable across key order. */
function valueDigest(value: unknown): string {
  return createHash('sha256').update(canonical(value)).digest('hex').slice(0, 32);
}

function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    const o = value as Record<string, unknown>;
    return `{${Object.keys(o)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical(o[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

const isRecord = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);
const strings = (v: unknown): string[] =>
  Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string' && s.trim() !== '') : [];

/**
 * The user's side (user settings over the default) and the workspace's side (workspace, then folder, over it; objects
 * merge by key as VS Code merges them, anything else is replaced). `set`: whether the workspace gives a value at all.
 */
function sides(
  s: ScopedValues | undefined,
  fallback: unknown,
): { base: unknown; baseSource: SettingSource; ws: unknown; set: boolean } {
  const def = s?.defaultValue !== undefined ? s.defaultValue : fallback;
  const hasUser = s?.globalValue !== undefined;
  const base =
    isRecord(def) && isRecord(s?.globalValue) ? { ...def, ...s.globalValue } : hasUser ? s!.globalValue : def;
  const layers = [s?.workspaceValue, s?.workspaceFolderValue].filter((v) => v !== undefined);
  let ws = base;
  for (const layer of layers) ws = isRecord(ws) && isRecord(layer) ? { ...ws, ...layer } : layer;
  return { base, baseSource: hasUser ? 'user' : 'default', ws, set: layers.length > 0 };
}

/** How the reader takes each value (mirrors host/settings.ts), so "wider" compares what would really apply. */
const asEnabled = (v: unknown) => v !== false;
const NETWORK_RANK: Record<string, number> = { off: 0, allowlist: 1, on: 2 };
const networkRank = (v: unknown) => NETWORK_RANK[typeof v === 'string' ? v : 'off'] ?? 0;
const budget = (v: unknown, fallback: number) => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : fallback);
/** A budget's room: 0 is no limit at all. */
const room = (v: number) => (v <= 0 ? Infinity : v);
const urlOf = (v: unknown) => (typeof v === 'string' ? v.trim().replace(/\/+$/, '') : '');
/** "openai-compatible:model@http://host/v1" names its own endpoint; other fallbacks use the primary's. */
const fallbackUrl = (v: unknown) => (typeof v === 'string' ? (/@(https?:\/\/\S+)$/.exec(v.trim())?.[1] ?? '') : '');

type McpApprovals = Record<string, true | string[]>;
function mcpApprovals(v: unknown): McpApprovals {
  const out: McpApprovals = {};
  if (!isRecord(v)) return out;
  for (const [server, entry] of Object.entries(v)) {
    if (entry === true) out[server] = true;
    else if (Array.isArray(entry)) out[server] = strings(entry);
  }
  return out;
}

const AUTO_SAYS: Record<string, string> = {
  read: 'let files be read without asking',
  write: 'let edits be written without asking',
  execute: 'let commands run without asking',
  network: 'let network and MCP tools run without asking',
};

const list = (items: readonly string[], max = 5) => {
  const shown = items.slice(0, max).map((i) => `"${i}"`);
  return items.length > max ? `${shown.join(', ')} and ${items.length - max} more` : shown.join(', ');
};

interface DecideOptions {
  /**
   * Whether an API key is stored (for any provider: the workspace may also pick the provider). false: an endpoint the
   * workspace names receives no secret, so it applies without a question (a repository's local Ollama, say). Unknown
   * (undefined) counts as stored.
   */
  keyStored?: boolean;
}

/**
 * The decision: values in effect, who set them, and the workspace's widening values with the user's answers.
 * `consent`: this workspace's stored answers (empty when none).
 */
export function decideWorkspaceSettings(
  inspected: Partial<Record<WideningKey, ScopedValues | undefined>>,
  consent: ConsentRecord = {},
  opts: DecideOptions = {},
): WorkspaceSettingsDecision {
  const keyAtStake = opts.keyStored !== false;
  const keyless: WorkspaceSettingsDecision['keyless'] = [];
  const values = {} as Record<WideningKey, unknown>;
  const sources = {} as Record<WideningKey, SettingSource>;
  const widened: WidenedSetting[] = [];

  /** Records a widening value; true when the user allowed it for this workspace. */
  const judge = (key: string, value: unknown, userValue: unknown, says: string): boolean => {
    const digest = valueDigest(value);
    const answer = consent[key];
    const state = answer?.allowed === digest ? 'allowed' : answer?.refused === digest ? 'refused' : 'unasked';
    widened.push({ key, value, userValue, says, digest, consent: state });
    return state === 'allowed';
  };

  for (const key of WIDENING_SETTINGS) {
    const { base, baseSource, ws, set } = sides(inspected[key], DEFAULTS[key]);
    let value: unknown = base;
    let fromWorkspace = false;
    if (set) {
      switch (key) {
        case 'autoApprove': {
          const b = isRecord(base) ? base : {};
          const w = isRecord(ws) ? ws : {};
          const out: Record<string, unknown> = { ...b };
          for (const field of ['read', 'write', 'execute', 'network']) {
            const on = (v: unknown) => (field === 'read' ? v !== false : v === true);
            if (on(w[field]) === on(b[field])) continue;
            // Off where the user has it on: narrower, applies. On where the user has it off: only when allowed.
            if (!on(w[field]) || judge(`autoApprove.${field}`, true, false, AUTO_SAYS[field]!)) {
              out[field] = on(w[field]);
              fromWorkspace = true;
            }
          }
          value = out;
          break;
        }
        case 'sandbox.enabled':
          if (asEnabled(ws) === asEnabled(base)) break;
          if (asEnabled(ws) || judge(key, false, true, 'turn the sandbox off (commands run with your full rights)')) {
            value = ws;
            fromWorkspace = true;
          }
          break;
        case 'sandbox.network': {
          const wider = networkRank(ws) > networkRank(base);
          if (networkRank(ws) === networkRank(base)) break;
          if (
            !wider ||
            judge(key, ws, base, ws === 'on' ? 'open the network to commands' : 'let commands reach the allowed hosts')
          ) {
            value = ws;
            fromWorkspace = true;
          }
          break;
        }
        case 'sandbox.allowedHosts':
        case 'sandbox.envAllowList':
        case 'commandAllowList': {
          const b = strings(base);
          const w = strings(ws);
          const extra = w.filter((x) => !b.includes(x));
          const says =
            key === 'sandbox.allowedHosts'
              ? `let commands reach ${list(extra)}`
              : key === 'sandbox.envAllowList'
                ? `pass ${list(extra)} from your environment to commands`
                : `let ${list(extra)} run without asking`;
          if (extra.length && judge(key, w, b, says)) value = w;
          else value = w.filter((x) => b.includes(x)); // what both allow: the workspace may only take away
          fromWorkspace = canonical(value) !== canonical(b);
          break;
        }
        case 'commandDenyList': {
          const b = strings(base);
          const w = strings(ws);
          const dropped = b.filter((x) => !w.includes(x));
          if (dropped.length && judge(key, w, b, `stop refusing ${list(dropped)}`)) value = w;
          else value = [...b, ...w.filter((x) => !b.includes(x))]; // the workspace may only add
          fromWorkspace = canonical(value) !== canonical(b);
          break;
        }
        case 'baseUrl': {
          const url = urlOf(ws);
          if (!url || url === urlOf(base)) {
            if (url) value = ws;
            break;
          }
          if (!keyAtStake) keyless.push(key);
          if (!keyAtStake || judge(key, url, urlOf(base), `send model requests, with your stored API key, to ${url}`)) {
            value = ws;
            fromWorkspace = true;
          }
          break;
        }
        case 'fallbackModel': {
          const url = fallbackUrl(ws);
          if (typeof ws === 'string' && ws.trim() === (typeof base === 'string' ? base.trim() : '')) break;
          if (url && url !== fallbackUrl(base) && !keyAtStake) keyless.push(key);
          if (
            !url ||
            url === fallbackUrl(base) ||
            !keyAtStake ||
            judge(
              key,
              ws,
              base,
              `send model requests, with your stored API key, to ${url} when the model keeps failing`,
            )
          ) {
            value = ws;
            fromWorkspace = true;
          }
          break;
        }
        case 'costBudgetUsd':
        case 'tokenBudget': {
          const fallback = DEFAULTS[key] as number;
          const b = budget(base, fallback);
          const w = budget(ws, fallback);
          if (w === b) break;
          const says =
            key === 'costBudgetUsd'
              ? w <= 0
                ? 'remove the cost budget (spend on your key without a limit)'
                : `raise the cost budget to $${w} per run`
              : w <= 0
                ? 'remove the token budget (spend on your key without a limit)'
                : `raise the token budget to ${w} tokens per run`;
          if (room(w) < room(b) || judge(key, w, b, says)) {
            value = w;
            fromWorkspace = true;
          }
          break;
        }
        case 'mcp.autoApprove': {
          const b = mcpApprovals(base);
          const w = mcpApprovals(ws);
          const extra: string[] = [];
          const both: McpApprovals = {};
          for (const [server, entry] of Object.entries(w)) {
            const mine = b[server];
            if (entry === true && mine !== true) extra.push(`${server} (every tool)`);
            else if (Array.isArray(entry)) {
              const more = mine === true ? [] : entry.filter((t) => !(mine ?? []).includes(t));
              if (more.length) extra.push(`${server}: ${more.join(', ')}`);
            }
            if (mine === true) both[server] = entry;
            else if (mine) both[server] = entry === true ? mine : entry.filter((t) => mine.includes(t));
          }
          if (
            extra.length &&
            judge(
              key,
              w,
              b,
              `let MCP tools run without asking (${extra.slice(0, 5).join('; ')}${extra.length > 5 ? '; ...' : ''})`,
            )
          )
            value = w;
          else value = both;
          fromWorkspace = canonical(value) !== canonical(b);
          break;
        }
      }
    }
    values[key] = value;
    sources[key] = fromWorkspace ? 'workspace' : baseSource;
  }
  return { values, sources, widened, toAsk: widened.filter((w) => w.consent === 'unasked'), keyless };
}

/** The one-time question: "This workspace's settings turn the sandbox off and let commands run without asking." */
export function consentQuestion(toAsk: readonly WidenedSetting[]): { message: string; detail: string } {
  const says = toAsk.map((w) => w.says);
  const joined = says.length > 1 ? `${says.slice(0, -1).join(', ')} and ${says.at(-1)}` : (says[0] ?? '');
  return {
    message: `This workspace's settings ${joined}.`,
    detail:
      toAsk
        .map((w) => `forge.${w.key} = ${JSON.stringify(w.value)} (yours: ${JSON.stringify(w.userValue)})`)
        .join('\n') +
      '\n\nThey came with the workspace (.vscode/settings.json or the .code-workspace file). Until you allow them here, Forge uses your own settings. A changed value is asked again.',
  };
}

/** The user's answer, recorded for these values. */
export function recordAnswer(
  consent: ConsentRecord,
  answered: readonly WidenedSetting[],
  allow: boolean,
): ConsentRecord {
  const next: ConsentRecord = { ...consent };
  for (const w of answered) next[w.key] = allow ? { allowed: w.digest } : { refused: w.digest };
  return next;
}

/** Why commands run without a sandbox when forge.sandbox.enabled is false, naming who turned it off. */
export function sandboxOffReason(source: SettingSource): string {
  return source === 'workspace'
    ? "The sandbox is turned off by this workspace's settings (forge.sandbox.enabled: false in .vscode/settings.json or the .code-workspace file), which you allowed for this workspace."
    : 'The sandbox is turned off in your user settings (forge.sandbox.enabled: false).';
}

// Settings -> the Model for an API endpoint (OpenAI, Anthropic, any OpenAI-compatible server), the same for both
// surfaces: the context window the server really runs with (or the one the settings give), the tool-call format
// (auto: native until the server refuses tools, then Forge's XML format) and the fallback model. vscode.lm stays
// the extension's own (it needs VS Code).
import type { SurfaceControls } from '../../core/loop/surface';
import { costOf, priceFor } from '../../core/model/pricing';
import type { Model, ModelInfo, Usage } from '../../core/model/types';
import { ContextWindowCache, isLoopbackUrl, PLACEHOLDER_KEY } from '../../providers/endpoint-discovery';
import { createEndpointModel } from '../../providers/local-model';
import type { ToolFormatStore } from '../../providers/tool-format';
import type { SurfaceProvider, SurfaceSettings } from './settings';

export type EndpointProvider = Exclude<SurfaceProvider, 'vscode-lm'>;

export const PROVIDER_LABELS: Record<SurfaceProvider, string> = {
  'vscode-lm': 'VS Code chat model',
  openai: 'OpenAI',
  anthropic: 'Anthropic',
  'openai-compatible': 'OpenAI-compatible endpoint',
};

/** Defaults when no model is named. */
export const DEFAULT_MODELS: Partial<Record<SurfaceProvider, string>> = {
  openai: 'gpt-4.1',
  anthropic: 'claude-sonnet-4-5',
};

/** How a surface names the controls a model problem sends the user to. */
export interface ModelControls extends Pick<SurfaceControls, 'setApiKey' | 'selectModel'> {
  /** "Set forge.baseUrl to your endpoint" / "pass --base-url". */
  setBaseUrl: string;
  /** The setting or flag that names the context window ("forge.contextWindow" / "--context-window"). */
  contextWindow: string;
  /** The setting or flag of the tool-call format. */
  toolCallFormat: string;
}

export interface EndpointModelDeps {
  /** The stored or environment key for a provider (undefined: none). */
  apiKey(provider: EndpointProvider): Promise<string | undefined> | string | undefined;
  controls: ModelControls;
  /** Where auto remembers the tool-call format (default: memory only). */
  toolFormats?: ToolFormatStore;
  windows?: ContextWindowCache;
  /** Connection check / discovery timeout per request (ms; default 2000). */
  timeoutMs?: number;
  fetch?: typeof fetch;
  onToolFormatChange?: () => void;
  log?: (message: string) => void;
}

export interface EndpointModelResult {
  model?: Model;
  /** Why there is no model (what to do, in the surface's words). */
  problem?: string;
  modelName?: string;
  toolFormat?: 'native' | 'xml';
  toolFormatReason?: string;
  contextWindow?: number;
  contextWindowSource?: string;
  /** The endpoint answered oddly but may still work (no /models route, an unlisted model...). */
  warning?: string;
}

/** The model of an endpoint provider from the settings. */
export async function buildEndpointModel(
  s: SurfaceSettings & { provider: EndpointProvider },
  deps: EndpointModelDeps,
  /** The endpoint came from a workspace without the user's consent: no stored key is sent there. */
  keyless = false,
): Promise<EndpointModelResult> {
  const { provider } = s;
  const c = deps.controls;
  const label = PROVIDER_LABELS[provider];
  const modelName = s.model || DEFAULT_MODELS[provider];
  if (!modelName) return { problem: `Set the model name for the ${label}: ${c.selectModel}.` };
  if (provider === 'openai-compatible' && !s.baseUrl)
    return { problem: `${c.setBaseUrl} (e.g. http://localhost:11434/v1 for Ollama).`, modelName };
  let apiKey = keyless && s.baseUrl ? undefined : await deps.apiKey(provider);
  if (!apiKey && provider === 'openai-compatible' && isLoopbackUrl(s.baseUrl)) apiKey = PLACEHOLDER_KEY;
  if (!apiKey) return { problem: `No API key for ${label}: ${c.setApiKey}.`, modelName };
  const built = await createEndpointModel({
    provider,
    model: modelName,
    apiKey,
    baseUrl: s.baseUrl || undefined,
    maxOutputTokens: s.maxOutputTokens,
    toolCallFormat: s.toolCallFormat,
    ...(s.imageInput && s.imageInput !== 'auto' ? { images: s.imageInput === 'on' } : {}),
    contextWindowOverride: s.contextWindow,
    store: deps.toolFormats,
    windows: deps.windows,
    timeoutMs: deps.timeoutMs ?? 2000,
    fetch: deps.fetch,
    onToolFormatChange: () => deps.onToolFormatChange?.(),
    log: deps.log,
  });
  const check = built.check;
  // A refused key or a base URL that is not a URL cannot work: say so now, not at the first message. The rest
  // (nothing listening yet, no /models route, an unlisted model name) is a warning: servers without /models,
  // aliases and models loaded on demand still answer chat requests.
  if (
    check &&
    !check.ok &&
    (check.problem === 'auth' || (check.problem === 'unreachable' && /is not a URL/.test(check.message ?? '')))
  ) {
    return { problem: withControls(check.message ?? 'The endpoint is not usable.', c), modelName };
  }
  const format = built.adaptive?.state ?? {
    format: built.model.info.nativeTools ? 'native' : 'xml',
    reason: `${c.toolCallFormat} is "${s.toolCallFormat}"`,
  };
  return {
    model: built.model,
    modelName,
    toolFormat: format.format,
    toolFormatReason: withControls(format.reason, c),
    contextWindow: built.contextWindow.tokens,
    contextWindowSource: withControls(built.contextWindow.source, c),
    ...(check && !check.ok && check.message ? { warning: withControls(check.message, c) } : {}),
  };
}

/** The providers' messages name the extension's command and settings; another surface gets its own words. */
function withControls(message: string, c: ModelControls): string {
  return message
    .replace(/run "Forge: Set API Key"/g, c.setApiKey)
    .replace(/forge\.contextWindow/g, c.contextWindow)
    .replace(/forge\.toolCallFormat/g, c.toolCallFormat);
}

/**
 * The fallback model ("<provider>:<model>", "openai-compatible:<model>@<url>") as a Model; { problem } when it is
 * set but cannot be used. The primary's base URL applies to a fallback of the same provider.
 */
export async function buildFallbackModel(
  s: SurfaceSettings,
  deps: EndpointModelDeps,
  keyless: { baseUrl: boolean; fallbackModel: boolean } = { baseUrl: false, fallbackModel: false },
  primary?: (s: SurfaceSettings) => Promise<{ model?: Model; problem?: string }>,
): Promise<{ model?: Model; problem?: string }> {
  const spec = parseModelId(s.fallbackModel);
  if (!spec)
    return s.fallbackModel ? { problem: 'expected "<provider>:<model>", e.g. "anthropic:claude-haiku-4-5"' } : {};
  const at = spec.provider === 'openai-compatible' ? splitModelAtUrl(spec.model) : undefined;
  // The primary's base URL belongs to its provider; an OpenAI-compatible fallback may bring its own ("model@url").
  const baseUrl =
    at?.baseUrl ?? (spec.provider === s.provider || spec.provider === 'openai-compatible' ? s.baseUrl : '');
  const next: SurfaceSettings = {
    ...s,
    provider: spec.provider,
    model: at?.model ?? spec.model,
    baseUrl,
    fallbackModel: '',
  };
  if (next.provider === 'vscode-lm') {
    if (!primary) return { problem: 'a VS Code chat model is not available here' };
    return primary(next);
  }
  // A workspace's endpoint the user did not allow gets no stored key (here: the fallback's own, or the base URL).
  const noKey = at ? keyless.fallbackModel : baseUrl !== '' && keyless.baseUrl;
  const r = await buildEndpointModel(next as SurfaceSettings & { provider: EndpointProvider }, deps, noKey);
  return r.model ? { model: r.model } : { problem: r.problem ?? 'not available' };
}

/** USD for a usage at a model's list price; undefined when unknown (local models, vscode.lm). */
export function priceOf(usage: Usage, info: ModelInfo): number | undefined {
  const p = priceFor(info.provider, info.model);
  return p ? costOf(usage, p) : undefined;
}

const PROVIDER_IDS: SurfaceProvider[] = ['vscode-lm', 'openai', 'anthropic', 'openai-compatible'];

/** "anthropic:claude-haiku-4-5" -> { provider, model }; the model part may contain ':' (e.g. "llama3.1:8b"). */
export function parseModelId(id: string): { provider: SurfaceProvider; model: string } | undefined {
  const i = id.indexOf(':');
  if (i <= 0) return undefined;
  const provider = id.slice(0, i).trim() as SurfaceProvider;
  const model = id.slice(i + 1).trim();
  return PROVIDER_IDS.includes(provider) && model ? { provider, model } : undefined;
}

/** "llama3.1:8b@http://127.0.0.1:11434/v1" -> model + base URL (choices of detected local servers). */
export function splitModelAtUrl(value: string): { model: string; baseUrl: string } | undefined {
  const m = /^(.+)@(https?:\/\/\S+)$/.exec(value);
  return m ? { model: m[1], baseUrl: m[2] } : undefined;
}

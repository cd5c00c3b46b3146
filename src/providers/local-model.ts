// Settings -> a Model for an endpoint, with what the endpoint says about itself: the context window it really
// runs with (forge.contextWindow overrides) and the tool-call format (forge.toolCallFormat, auto by default).
import type { Model } from '../core/model/types';
import { checkEndpoint, ContextWindowCache, type EndpointCheck } from './endpoint-discovery';
import { createModel, type ProviderConfig } from './index';
import { limitsFor } from './models';
import {
  AdaptiveToolModel,
  toolFormatKey,
  type ToolCallFormat,
  type ToolFormatState,
  type ToolFormatStore,
  MemoryToolFormatStore,
} from './tool-format';

interface EndpointModelConfig extends ProviderConfig {
  toolCallFormat?: ToolCallFormat;
  /** Remembers auto's decisions per endpoint + model (default: in memory). */
  store?: ToolFormatStore;
  /** Shared cache of discovered windows (default: a fresh one). */
  windows?: ContextWindowCache;
  /** forge.contextWindow: > 0 overrides whatever the server says. */
  contextWindowOverride?: number;
  /** Per discovery request (default 2500 ms). */
  timeoutMs?: number;
  onToolFormatChange?: (state: ToolFormatState) => void;
  log?: (message: string) => void;
}

interface EndpointModel {
  model: Model;
  /** Present for OpenAI-compatible endpoints (the format can change while running). */
  adaptive?: AdaptiveToolModel;
  contextWindow: { tokens: number; source: string };
  /** The connection check (OpenAI-compatible endpoints only). */
  check?: EndpointCheck;
}

export async function createEndpointModel(config: EndpointModelConfig): Promise<EndpointModel> {
  const format = config.toolCallFormat ?? 'auto';
  const override =
    config.contextWindowOverride && config.contextWindowOverride > 0
      ? Math.floor(config.contextWindowOverride)
      : undefined;
  if (config.provider !== 'openai-compatible') {
    const tokens = override ?? config.contextWindow ?? limitsFor(config.model).contextWindow;
    const model = createModel({ ...config, contextWindow: tokens, nativeTools: format !== 'xml' });
    return { model, contextWindow: { tokens, source: override ? 'forge.contextWindow' : 'known model limits' } };
  }
  if (!config.baseUrl)
    throw new Error('an OpenAI-compatible provider needs a base URL (e.g. http://127.0.0.1:11434/v1)');
  const endpoint = { baseUrl: config.baseUrl, apiKey: config.apiKey, fetch: config.fetch, timeoutMs: config.timeoutMs };
  const check = await checkEndpoint({ ...endpoint, model: config.model });
  let contextWindow: { tokens: number; source: string };
  if (override) contextWindow = { tokens: override, source: 'forge.contextWindow' };
  else {
    const windows = config.windows ?? new ContextWindowCache();
    const found =
      check.problem === 'refused' || check.problem === 'timeout'
        ? undefined
        : await windows
            .get({ ...endpoint, model: config.model, models: check.ok ? check.models : undefined })
            .catch(() => undefined);
    contextWindow = found
      ? { tokens: found.tokens, source: found.source }
      : {
          tokens: config.contextWindow ?? limitsFor(config.model).contextWindow,
          source: 'assumed: the server did not say (set forge.contextWindow)',
        };
  }
  const native = createModel({ ...config, contextWindow: contextWindow.tokens, nativeTools: true });
  const adaptive = new AdaptiveToolModel({
    native,
    setting: format,
    store: config.store ?? new MemoryToolFormatStore(),
    key: toolFormatKey(config.baseUrl, config.model),
    onChange: config.onToolFormatChange,
    log: config.log,
  });
  return { model: adaptive, adaptive, contextWindow, check };
}

// createModel: one entry point from settings to a Model (native tools, or the text-mode wrapper).
import { modelTakesImages } from '../core/model/images';
import type { Model, ModelInfo } from '../core/model/types';
import { withTextModeTools } from '../core/tools/text-mode';
import { AnthropicModel } from './anthropic';
import { limitsFor } from './models';
import { OpenAIModel } from './openai';

export interface ProviderConfig {
  provider: 'openai' | 'anthropic' | 'openai-compatible';
  model: string;
  apiKey?: string;
  /** e.g. http://localhost:11434/v1 (Ollama), https://openrouter.ai/api/v1 */
  baseUrl?: string;
  contextWindow?: number;
  maxOutputTokens?: number;
  /** false -> tools are described in the prompt and parsed from the text (XML format). Default true. */
  nativeTools?: boolean;
  headers?: Record<string, string>;
  /** Whether the model takes images; undefined: known from its name (modelTakesImages). */
  images?: boolean;
  /** Custom fetch (proxies, tests). */
  fetch?: typeof fetch;
}

export function createModel(config: ProviderConfig): Model {
  if (!config.model?.trim()) throw new Error('createModel: no model name configured');
  const limits = limitsFor(config.model);
  const nativeTools = config.nativeTools ?? true;
  const info: ModelInfo = {
    provider: config.provider,
    model: config.model,
    contextWindow: config.contextWindow ?? limits.contextWindow,
    maxOutputTokens: config.maxOutputTokens ?? limits.maxOutputTokens,
    nativeTools: true,
    images: config.images ?? modelTakesImages(config.model),
  };
  let model: Model;
  switch (config.provider) {
    case 'anthropic':
      model = new AnthropicModel({
        info,
        apiKey: config.apiKey,
        baseUrl: config.baseUrl,
        headers: config.headers,
        fetch: config.fetch,
      });
      break;
    case 'openai':
    case 'openai-compatible':
      if (config.provider === 'openai-compatible' && !config.baseUrl) {
        throw new Error('createModel: an OpenAI-compatible provider needs a base URL (e.g. http://localhost:11434/v1)');
      }
      model = new OpenAIModel({
        info,
        apiKey: config.apiKey,
        baseUrl: config.baseUrl,
        headers: config.headers,
        fetch: config.fetch,
        maxTokensParam: config.provider === 'openai' ? 'max_completion_tokens' : 'max_tokens',
      });
      break;
    default:
      throw new Error(`createModel: unknown provider "${(config as { provider: string }).provider}"`);
  }
  return nativeTools ? model : withTextModeTools(model);
}

export { AnthropicModel } from './anthropic';
export { OpenAIModel } from './openai';
export { limitsFor, DEFAULT_LIMITS } from './models';
export { toModelError, retryAfterMs } from './errors';

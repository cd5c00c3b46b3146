// Known context windows and output caps. Unknown models fall back to 128k / 8k (overridable in settings).

interface ModelLimits {
  contextWindow: number;
  maxOutputTokens: number;
}

export const DEFAULT_LIMITS: ModelLimits = { contextWindow: 128_000, maxOutputTokens: 8_192 };

// First match wins, so more specific patterns come first.
const KNOWN: Array<[RegExp, ModelLimits]> = [
  [/^gpt-5/, { contextWindow: 400_000, maxOutputTokens: 128_000 }],
  [/^gpt-4\.1/, { contextWindow: 1_047_576, maxOutputTokens: 32_768 }],
  [/^(gpt-4o|chatgpt-4o)/, { contextWindow: 128_000, maxOutputTokens: 16_384 }],
  [/^gpt-4-turbo/, { contextWindow: 128_000, maxOutputTokens: 4_096 }],
  [/^o[134]/, { contextWindow: 200_000, maxOutputTokens: 100_000 }],
  [/^claude-(opus|sonnet)-4-[5-9]|^claude-(opus|sonnet|haiku)-5/, { contextWindow: 200_000, maxOutputTokens: 32_000 }],
  [/^claude-haiku-4-5/, { contextWindow: 200_000, maxOutputTokens: 32_000 }],
  [/^claude-opus-4/, { contextWindow: 200_000, maxOutputTokens: 32_000 }],
  [/^claude-(sonnet-4|3-7-sonnet)/, { contextWindow: 200_000, maxOutputTokens: 32_000 }],
  [/^claude-/, { contextWindow: 200_000, maxOutputTokens: 8_192 }],
];

export function limitsFor(model: string): ModelLimits {
  const m = model
    .trim()
    .toLowerCase()
    .replace(/^[\w-]+\//, ''); // OpenRouter style "anthropic/claude-..."
  for (const [re, limits] of KNOWN) if (re.test(m)) return limits;
  return DEFAULT_LIMITS;
}

/**
 * The context window an OpenAI-style /v1/models entry carries, if any: OpenRouter `context_length` (or
 * `top_provider.context_length`), vLLM `max_model_len`, LM Studio-style `loaded_context_length` /
 * `max_context_length`, other servers' `context_window` / `context_length`, llama.cpp `meta.n_ctx_train`
 * (the trained length, not the runtime one: the caller treats it as a last resort).
 */
export function windowFromModelEntry(entry: Record<string, unknown>): { tokens: number; field: string } | undefined {
  const pos = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) && v > 0 ? Math.floor(v) : undefined);
  for (const field of [
    'loaded_context_length',
    'max_model_len',
    'context_length',
    'context_window',
    'max_context_length',
    'max_input_tokens',
  ]) {
    const n = pos(entry[field]);
    if (n) return { tokens: n, field };
  }
  const top = entry.top_provider as Record<string, unknown> | undefined;
  const fromTop = pos(top?.context_length);
  if (fromTop) return { tokens: fromTop, field: 'top_provider.context_length' };
  const meta = entry.meta as Record<string, unknown> | undefined;
  const trained = pos(meta?.n_ctx_train);
  if (trained) return { tokens: trained, field: 'meta.n_ctx_train' };
  return undefined;
}

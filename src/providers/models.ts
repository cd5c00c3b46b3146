// Known context windows and output caps. Unknown models fall back to 128k / 8k (overridable in settings).

export interface ModelLimits {
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
  const m = model.trim().toLowerCase().replace(/^[\w-]+\//, ''); // OpenRouter style "anthropic/claude-..."
  for (const [re, limits] of KNOWN) if (re.test(m)) return limits;
  return DEFAULT_LIMITS;
}

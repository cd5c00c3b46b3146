// The prompt budget split the loop uses at perceive: memories / conversation / environment = 60 / 30 / 10.

export interface PromptBudget {
  /** Tokens available for the prompt: the context window minus what is reserved (output, tool schemas...). */
  total: number;
  memory: number;
  conversation: number;
  environment: number;
}

export const BUDGET_SHARES = { memory: 0.6, conversation: 0.3, environment: 0.1 } as const;

export function memoryBudget(contextWindow: number, reservedTokens: number): PromptBudget {
  const total = Math.max(0, Math.floor(contextWindow - reservedTokens));
  const memory = Math.floor(total * BUDGET_SHARES.memory);
  const conversation = Math.floor(total * BUDGET_SHARES.conversation);
  return { total, memory, conversation, environment: total - memory - conversation };
}

// Token accounting: anchored on what the provider reported for the last request, estimated (chars/4) after it.
import { imageTokens, imagesOf } from '../model/images';
import type { ChatMessage, SystemLayer, ToolSpec } from '../model/types';

const CHARS_PER_TOKEN = 4;

export function estimateTextTokens(text: string): number {
  return Math.ceil(text.length / CHARS_PER_TOKEN);
}

function estimateMessageTokens(message: ChatMessage): number {
  let chars = message.content.length + 8; // role + framing overhead
  if (message.role === 'assistant') {
    for (const call of message.toolCalls ?? []) chars += call.name.length + call.rawArgs.length + 16;
    for (const block of message.thinking ?? []) chars += block.text.length;
  }
  // An image costs what its pixels do, not its base64 length.
  const images = imagesOf(message).reduce((n, i) => n + imageTokens(i.width, i.height), 0);
  return Math.ceil(chars / CHARS_PER_TOKEN) + images;
}

export function estimateMessagesTokens(messages: readonly ChatMessage[]): number {
  return messages.reduce((sum, m) => sum + estimateMessageTokens(m), 0);
}

export function estimateRequestTokens(
  system: readonly SystemLayer[],
  messages: readonly ChatMessage[],
  tools: readonly ToolSpec[],
): number {
  const systemChars = system.reduce((n, l) => n + l.text.length, 0);
  const toolChars = tools.reduce(
    (n, t) => n + t.name.length + t.description.length + JSON.stringify(t.inputSchema).length,
    0,
  );
  return Math.ceil((systemChars + toolChars) / CHARS_PER_TOKEN) + estimateMessagesTokens(messages);
}

/** The provider's input-token count for a request that contained the first `messageCount` messages. */
export interface TokenAnchor {
  inputTokens: number;
  messageCount: number;
}

/**
 * Current context size: the anchor's reported input tokens plus an estimate for messages appended after it.
 * Without a usable anchor (none yet, or history was rewritten) everything is estimated.
 */
export function contextTokens(
  anchor: TokenAnchor | undefined,
  history: readonly ChatMessage[],
  overhead: { system: readonly SystemLayer[]; tools: readonly ToolSpec[] },
): number {
  if (anchor && anchor.messageCount <= history.length && anchor.inputTokens > 0) {
    return anchor.inputTokens + estimateMessagesTokens(history.slice(anchor.messageCount));
  }
  return estimateRequestTokens(overhead.system, history, overhead.tools);
}

// History invariants: every assistant tool call has exactly one tool result right after its turn.
import type { ChatMessage, ToolCall } from '../model/types';

export const CANCELLED_RESULT = 'Cancelled by user: this tool call did not run to completion.';

/** Tool calls of the last assistant turn that still lack a result. */
export function danglingToolCalls(history: readonly ChatMessage[]): ToolCall[] {
  for (let i = history.length - 1; i >= 0; i--) {
    const msg = history[i];
    if (msg.role === 'assistant') {
      const answered = new Set(history.slice(i + 1).flatMap((m) => (m.role === 'tool' ? [m.toolCallId] : [])));
      return (msg.toolCalls ?? []).filter((c) => !answered.has(c.id));
    }
    if (msg.role === 'user') return [];
  }
  return [];
}

/** Appends a result for every dangling call so the history is valid for any provider. Returns how many. */
export function closeDanglingToolCalls(history: ChatMessage[], content = CANCELLED_RESULT): number {
  const dangling = danglingToolCalls(history);
  for (const call of dangling) {
    history.push({ role: 'tool', toolCallId: call.id, toolName: call.name, content, isError: true });
  }
  return dangling.length;
}

/** A deep copy of the history without a trailing, still-unanswered tool-call turn (for sub-agents). */
export function forkHistory(history: readonly ChatMessage[]): ChatMessage[] {
  const copy = structuredClone(history as ChatMessage[]);
  if (danglingToolCalls(copy).length === 0) return copy;
  for (let i = copy.length - 1; i >= 0; i--) {
    if (copy[i].role === 'assistant') return copy.slice(0, i);
  }
  return copy;
}

/** Start index of each turn: a user message, or an assistant message together with its tool results. */
export function turnStarts(history: readonly ChatMessage[]): number[] {
  const starts: number[] = [];
  history.forEach((m, i) => {
    if (m.role !== 'tool') starts.push(i);
  });
  return starts;
}

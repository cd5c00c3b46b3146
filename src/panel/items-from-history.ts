// The panel's view rebuilt from a task's conversation, for when its own items were lost (a damaged task file):
// the user's messages, the model's text, and each tool call as a compact row with its result when one was saved.
import { SUMMARY_MARKER } from '../core/context/compaction';
import type { ChatMessage } from '../core/model/types';
import { loopControlText } from '../core/tools/loop-control';
import type { TranscriptItem } from '../protocol/messages';
import { cap, prettyArgs, safeId, summarizeArgs } from './itemFormat';

/** Characters of a tool result a rebuilt row keeps (the model still has all of it). */
const RESULT_CHARS = 4_000;
const ARGS_CHARS = 20_000;
const LOOP_CONTROL = new Set(['task_completion', 'ask_question', 'converse']);

/** Forge's own turns in the history (nudges, a compaction's summary): never typed by the user. */
function internal(content: string): boolean {
  return content.startsWith('[Forge]') || content.startsWith(SUMMARY_MARKER);
}

/**
 * Items for `history`, in order. `pendingCallIds`: calls a restore will run again (their rows wait for that run).
 * A call whose result is not in the history shows as interrupted: what became of it is unknown.
 */
export function itemsFromHistory(
  history: readonly ChatMessage[],
  ts: number,
  pendingCallIds: ReadonlySet<string> = new Set(),
): TranscriptItem[] {
  const results = new Map<string, Extract<ChatMessage, { role: 'tool' }>>();
  for (const m of history) if (m.role === 'tool') results.set(m.toolCallId, m);
  const items: TranscriptItem[] = [];
  const id = () => `i${items.length + 1}`;
  for (const m of history) {
    if (m.role === 'user') {
      if (!m.turnId && internal(m.content)) continue;
      items.push({ id: id(), ts, kind: 'user', text: m.content, ...(m.turnId ? { turnId: safeId(m.turnId) } : {}) });
    } else if (m.role === 'assistant') {
      if (m.content.trim()) items.push({ id: id(), ts, kind: 'assistant', text: m.content, streaming: false });
      for (const call of m.toolCalls ?? []) {
        if (LOOP_CONTROL.has(call.name)) {
          const text = loopControlText(call.name, call.args);
          if (text.trim()) items.push({ id: id(), ts, kind: 'assistant', text, streaming: false });
          continue;
        }
        const r = results.get(call.id);
        const result = r ? cap(r.content, RESULT_CHARS) : undefined;
        items.push({
          id: id(),
          ts,
          kind: 'tool',
          toolCallId: safeId(call.id),
          name: call.name.slice(0, 1000),
          argsText: prettyArgs(call.args ?? call.rawArgs, ARGS_CHARS),
          argsSummary: summarizeArgs(call.args ?? call.rawArgs),
          status: r ? (r.isError ? 'error' : 'done') : pendingCallIds.has(call.id) ? 'pending' : 'interrupted',
          ...(result ? { result: result.text } : {}),
          resultTruncated: result?.truncated ?? false,
        });
      }
    }
  }
  return items;
}

// Compaction: keep the task and the latest turns, summarise the middle into a structured summary.
import type { ChatMessage, Model, Usage } from '../model/types';
import { iterateWithAbort } from '../loop/abort';
import { turnStarts } from './history';

const SUMMARY_SECTIONS = ['Goal', 'Decisions', 'Files touched', 'Open errors', 'Next steps'] as const;
export const SUMMARY_MARKER = '[Summary of the earlier conversation, compacted by Forge]';

interface CompactionOptions {
  model: Model;
  signal: AbortSignal;
  /** How many of the latest turns stay verbatim (a turn = user message, or assistant + its tool results). */
  keepRecentTurns: number;
  /** Facts the loop tracked (files read/edited, commands) to ground the summary. */
  facts?: string;
  /** Per-message cap in the transcript sent to the summariser. */
  maxCharsPerMessage?: number;
}

interface CompactionResult {
  history: ChatMessage[];
  summary: string;
  usage?: Usage;
}

const INSTRUCTIONS = `You compress an AI coding agent's working conversation so it can continue with less context.
Write a faithful, dense summary in exactly these Markdown sections:
## Goal
## Decisions
## Files touched
## Open errors
## Next steps
Keep exact file paths, identifiers, commands and error messages. Do not invent anything. Write "none" for an empty section.`;

function renderTranscript(messages: readonly ChatMessage[], cap: number): string {
  const clip = (s: string) => (s.length > cap ? `${s.slice(0, cap)} [...${s.length - cap} chars clipped]` : s);
  return messages
    .map((m) => {
      if (m.role === 'user') return `USER: ${clip(m.content)}`;
      if (m.role === 'tool') return `TOOL RESULT (${m.toolName}${m.isError ? ', error' : ''}): ${clip(m.content)}`;
      const calls = (m.toolCalls ?? []).map((c) => `\n  CALL ${c.name} ${clip(c.rawArgs)}`).join('');
      return `ASSISTANT: ${clip(m.content)}${calls}`;
    })
    .join('\n');
}

/** Adds any section the summariser left out, so the structure is guaranteed. */
export function ensureSections(summary: string): string {
  let out = summary.trim();
  for (const section of SUMMARY_SECTIONS) {
    if (!new RegExp(`^#+\\s*${section}\\b`, 'mi').test(out)) out += `\n\n## ${section}\n(not stated)`;
  }
  return out.trim();
}

/**
 * Returns the compacted history, or undefined when there is no middle to summarise.
 * Cut points are turn starts, so an assistant tool call is never separated from its results.
 */
export async function compactHistory(
  history: readonly ChatMessage[],
  opts: CompactionOptions,
): Promise<CompactionResult | undefined> {
  const firstUser = history.findIndex((m) => m.role === 'user');
  if (firstUser < 0) return undefined;
  const starts = turnStarts(history).filter((i) => i > firstUser);
  if (starts.length <= opts.keepRecentTurns) return undefined;
  const cut = starts[starts.length - opts.keepRecentTurns];
  const middle = history.slice(firstUser + 1, cut);
  if (middle.length === 0) return undefined;

  const transcript = renderTranscript(middle, opts.maxCharsPerMessage ?? 2000);
  const task = history[firstUser].content;
  const prompt = `The user's task:\n${task}\n\n${opts.facts ? `Tracked facts:\n${opts.facts}\n\n` : ''}Conversation to summarise:\n${transcript}`;
  let text = '';
  let usage: Usage | undefined;
  const stream = opts.model.stream({
    system: [{ id: 'summarizer', stable: true, text: INSTRUCTIONS }],
    messages: [{ role: 'user', content: prompt }],
    tools: [],
    signal: opts.signal,
  });
  for await (const event of iterateWithAbort(stream, opts.signal)) {
    if (event.type === 'text') text += event.delta;
    else if (event.type === 'usage') usage = event.usage;
  }
  const summary = ensureSections(text);
  const compacted: ChatMessage[] = [
    ...history.slice(0, firstUser + 1),
    { role: 'user', content: `${SUMMARY_MARKER}\n${summary}` },
    ...history.slice(cut),
  ];
  return { history: structuredClone(compacted), summary, usage };
}

// What fills the model's window now, for the /context view: the system prompt, the tool definitions, project rules,
// recalled memory, the mode's gathered context, the conversation and what the user attached (@-mentions), in
// tokens, against the window and the point where compaction starts.
import type { ChatMessage, SystemLayer, ToolSpec } from '../model/types';
import { contextTokens, estimateMessagesTokens, estimateTextTokens, type TokenAnchor } from './tokens';

/** The line messageWithContext (core/mentions) puts before the attached blocks. */
export const ATTACHED_MARKER = '[Context the user attached with @-mentions]';

export interface ContextPart {
  id: 'system' | 'tools' | 'rules' | 'memory' | 'mode-context' | 'history' | 'attachments';
  label: string;
  tokens: number;
}

export interface ContextUsage {
  window: number;
  /** Tokens at which the next step compacts the conversation. */
  compactAtTokens: number;
  /** The current size: anchored on the provider's last report when there is one, else estimated. */
  total: number;
  /** total comes from the provider's count (plus an estimate of what came after). */
  reported: boolean;
  parts: ContextPart[];
  messages: number;
}

interface UsageInput {
  system: readonly SystemLayer[];
  tools: readonly ToolSpec[];
  history: readonly ChatMessage[];
  anchor?: TokenAnchor;
  window: number;
  /** Ratio of the window (0.9). */
  compactAt: number;
}

export function contextUsage(u: UsageInput): ContextUsage {
  const layer = (ids: string[]) =>
    u.system.filter((l) => ids.includes(l.id)).reduce((n, l) => n + estimateTextTokens(l.text), 0);
  const known = ['project-rules', 'memory', 'mode-context'];
  const systemTokens = u.system
    .filter((l) => !known.includes(l.id))
    .reduce((n, l) => n + estimateTextTokens(l.text), 0);
  const toolTokens = u.tools.reduce(
    (n, t) => n + estimateTextTokens(t.name + t.description + JSON.stringify(t.inputSchema)),
    0,
  );
  let attached = 0;
  for (const m of u.history) {
    if (m.role !== 'user') continue;
    const at = m.content.indexOf(ATTACHED_MARKER);
    if (at >= 0) attached += estimateTextTokens(m.content.slice(at));
  }
  const historyTokens = Math.max(0, estimateMessagesTokens(u.history) - attached);
  const parts: ContextPart[] = [
    { id: 'system', label: 'System prompt', tokens: systemTokens },
    { id: 'tools', label: `Tools (${u.tools.length})`, tokens: toolTokens },
    { id: 'rules', label: 'Project rules', tokens: layer(['project-rules']) },
    { id: 'memory', label: 'Memory', tokens: layer(['memory']) },
    { id: 'mode-context', label: 'Mode context', tokens: layer(['mode-context']) },
    { id: 'history', label: 'Conversation', tokens: historyTokens },
    { id: 'attachments', label: 'Attachments (@)', tokens: attached },
  ];
  const estimated = parts.reduce((n, p) => n + p.tokens, 0);
  const reported = !!u.anchor && u.anchor.inputTokens > 0 && u.anchor.messageCount <= u.history.length;
  const total = reported ? contextTokens(u.anchor, u.history, { system: u.system, tools: u.tools }) : estimated;
  return {
    window: u.window,
    compactAtTokens: Math.floor(u.window * u.compactAt),
    total,
    reported,
    parts,
    messages: u.history.length,
  };
}

function k(n: number): string {
  return n >= 10_000 ? `${Math.round(n / 1000)}k` : n >= 1000 ? `${(n / 1000).toFixed(1)}k` : String(n);
}

function pct(n: number, of: number): string {
  if (!(of > 0)) return '–';
  const p = (n / of) * 100;
  return n > 0 && p < 1 ? '<1%' : `${Math.round(p)}%`;
}

/** The /context view as Markdown: the total and how close compaction is first, then one row per part. */
export function formatContextUsage(c: ContextUsage): string {
  const rows = c.parts.map((p) => `| ${p.label} | ${k(p.tokens)} | ${pct(p.tokens, c.window)} |`);
  const estimated = c.parts.reduce((n, p) => n + p.tokens, 0);
  const left = c.compactAtTokens - c.total;
  const compaction =
    left > 0
      ? `Compaction starts at ${k(c.compactAtTokens)} tokens (${pct(c.compactAtTokens, c.window)} of the window): ${k(left)} tokens from now.`
      : `Over the compaction point (${k(c.compactAtTokens)} tokens): the next step compacts the conversation.`;
  // The provider's count and the parts' estimate (4 characters a token) can differ: both are said.
  const source = c.reported ? ` as the provider counted (the parts are estimated: ${k(estimated)})` : ', estimated';
  return [
    `**Context: ${k(c.total)} of ${k(c.window)} tokens (${pct(c.total, c.window)})**${source}.`,
    `${compaction} ${c.messages} message${c.messages === 1 ? '' : 's'} in the conversation; /compact summarises it now.`,
    '',
    '| Part | Tokens | Of window |',
    '|---|---:|---:|',
    ...rows,
  ].join('\n');
}

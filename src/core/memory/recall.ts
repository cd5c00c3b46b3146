// Turns ranked memories into the prompt layer the loop inserts at perceive, within a token budget.
import type { MemoryItem, RecallResult } from './port';
import type { ScoredMemory } from './rank';
import { estimateTokens } from './text';

export const RECALL_HEADER =
  '## Learnings from earlier runs\n' +
  'Lessons Forge recorded in previous runs (the user can edit them). Follow them when they apply; ' +
  'if what you observe now contradicts one, trust the observation.\n';

interface FillOptions {
  /** Hard cap on the number of memories, whatever the budget. */
  maxItems?: number;
}

export function formatMemoryLine(item: MemoryItem): string {
  const when = item.context ? ` (when: ${oneLine(item.context)})` : '';
  const tags = item.tags.length ? ` [${item.tags.join(', ')}]` : '';
  return `- ${oneLine(item.content)}${when}${tags} — ${item.type}, confidence ${item.confidence.toFixed(2)}`;
}

/** Greedy fill in rank order; an item that does not fit is skipped so a smaller, lower-ranked one may still fit. */
export function fillRecall(ranked: readonly ScoredMemory[], tokenBudget: number, opts: FillOptions = {}): RecallResult {
  const maxItems = opts.maxItems ?? 20;
  let used = estimateTokens(RECALL_HEADER);
  if (!(tokenBudget > used)) return { items: [], promptText: '' };
  const items: MemoryItem[] = [];
  const lines: string[] = [];
  for (const { item } of ranked) {
    if (items.length >= maxItems) break;
    const line = formatMemoryLine(item);
    const cost = estimateTokens(line + '\n');
    if (used + cost > tokenBudget) continue;
    used += cost;
    items.push(item);
    lines.push(line);
  }
  if (items.length === 0) return { items: [], promptText: '' };
  return { items, promptText: `${RECALL_HEADER}${lines.join('\n')}\n` };
}

function oneLine(s: string): string {
  return s.replace(/\s+/g, ' ').trim();
}

// Recall ranking: BM25 over content + context + tags (local, no embeddings, no network), then weighted by
// tag match, confidence and recency. Relevance gates: a memory that shares nothing with the task is not
// recalled, however confident — unless the user pinned it with the tag "always".
import type { MemoryItem } from './port';
import { tokenize } from './text';

export interface RankWeights {
  /** Added to the normalised BM25 relevance when one of the memory's tags matches the task/query tags. */
  tag: number;
  /** Base multiplier every relevant memory gets. */
  base: number;
  /** Multiplier share scaled by confidence (0..1). */
  confidence: number;
  /** Multiplier share scaled by recency (0..1). */
  recency: number;
}

export const DEFAULT_RANK_WEIGHTS: RankWeights = { tag: 0.3, base: 0.5, confidence: 0.3, recency: 0.2 };

export interface RankOptions {
  now?: Date;
  /** Extra tags to match (e.g. the mode, the language of the open file). */
  tags?: readonly string[];
  weights?: Partial<RankWeights>;
  /** Recency halves every this many days since last use (or creation). */
  halfLifeDays?: number;
  /** Relevance floor for memories tagged "always" (user-pinned rules). */
  pinnedRelevance?: number;
}

export interface ScoredMemory {
  item: MemoryItem;
  score: number;
  /** Normalised BM25 (0..1) plus the tag bonus. */
  relevance: number;
  bm25: number;
  tagMatch: boolean;
  recency: number;
}

const K1 = 1.2;
const B = 0.75;

/** Ranks memories for a query, best first. Memories with no relevance are left out. */
export function rankMemories(items: readonly MemoryItem[], query: string, opts: RankOptions = {}): ScoredMemory[] {
  const w = { ...DEFAULT_RANK_WEIGHTS, ...opts.weights };
  const now = (opts.now ?? new Date()).getTime();
  const halfLifeMs = (opts.halfLifeDays ?? 30) * 86_400_000;
  const queryTerms = [...new Set(tokenize(query))];
  const queryTagTerms = new Set([...queryTerms, ...(opts.tags ?? []).flatMap((t) => tokenize(t))]);

  const docs = items.map((item) => tokenize(`${item.content} ${item.context} ${item.tags.join(' ')}`));
  const avgLen = docs.reduce((n, d) => n + d.length, 0) / Math.max(1, docs.length) || 1;
  const docFreq = new Map<string, number>();
  for (const d of docs) for (const t of new Set(d)) docFreq.set(t, (docFreq.get(t) ?? 0) + 1);

  const bm25 = docs.map((doc) => {
    const tf = new Map<string, number>();
    for (const t of doc) tf.set(t, (tf.get(t) ?? 0) + 1);
    let s = 0;
    for (const q of queryTerms) {
      const f = tf.get(q);
      if (!f) continue;
      const n = docFreq.get(q) ?? 0;
      const idf = Math.log(1 + (docs.length - n + 0.5) / (n + 0.5)); // always > 0, even in tiny corpora
      s += (idf * f * (K1 + 1)) / (f + K1 * (1 - B + (B * doc.length) / avgLen));
    }
    return s;
  });
  const maxBm25 = Math.max(0, ...bm25);

  const scored: ScoredMemory[] = [];
  items.forEach((item, i) => {
    const tagMatch = item.tags.some((tag) => tokenize(tag).some((t) => queryTagTerms.has(t)));
    let relevance = (maxBm25 > 0 ? bm25[i] / maxBm25 : 0) + (tagMatch ? w.tag : 0);
    if (item.tags.some((t) => t.toLowerCase() === 'always'))
      relevance = Math.max(relevance, opts.pinnedRelevance ?? 0.5);
    if (relevance <= 0) return;
    const recency = recencyOf(item, now, halfLifeMs);
    const confidence = Math.min(1, Math.max(0, item.confidence));
    const score = relevance * (w.base + w.confidence * confidence + w.recency * recency);
    scored.push({ item, score, relevance, bm25: bm25[i], tagMatch, recency });
  });
  return scored.sort((a, b) => b.score - a.score || a.item.id.localeCompare(b.item.id));
}

function recencyOf(item: MemoryItem, now: number, halfLifeMs: number): number {
  const at = Date.parse(item.lastUsedAt ?? item.createdAt);
  if (Number.isNaN(at)) return 0;
  const age = Math.max(0, now - at);
  return Math.pow(0.5, age / halfLifeMs);
}

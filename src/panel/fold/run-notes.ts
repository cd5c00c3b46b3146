// The notes a run leaves between its tool cards: the context its mode gathered, a compaction, memories recalled
// or learned, and warnings (a retried step updates its one line instead of adding another).
import type { AgentEvent } from '../../core/loop/events';
import { LIMITS, type PatchOp } from '../../protocol/messages';
import { cap } from '../itemFormat';
import type { TranscriptItems } from './items';

type EventOf<T extends AgentEvent['type']> = Extract<AgentEvent, { type: T }>;

export class RunNotes {
  /** Per run: warning key -> item id. */
  private warningItems = new Map<string, string>();

  constructor(
    private readonly items: TranscriptItems,
    private readonly now: () => number,
  ) {}

  /** A new run or a replaced transcript: warning keys start over. */
  forgetKeys(): void {
    this.warningItems.clear();
  }

  context(ops: PatchOp[], e: EventOf<'mode_context'>): void {
    this.items.append(ops, {
      id: this.items.nextId(),
      ts: this.now(),
      kind: 'context',
      mode: e.mode.slice(0, LIMITS.label),
      sources: e.sources.slice(0, 50).map((s) => s.slice(0, LIMITS.label)),
      tokens: Math.max(0, Math.round(e.tokens)),
    });
  }

  compaction(ops: PatchOp[], e: EventOf<'compaction'>): void {
    this.items.append(ops, {
      id: this.items.nextId(),
      ts: this.now(),
      kind: 'compaction',
      beforeTokens: e.beforeTokens,
      afterTokens: e.afterTokens,
      summary: cap(e.summary, LIMITS.preview).text,
    });
  }

  memory(ops: PatchOp[], e: EventOf<'memory_recalled' | 'memory_learned'>): void {
    this.items.append(ops, {
      id: this.items.nextId(),
      ts: this.now(),
      kind: 'memory',
      direction: e.type === 'memory_recalled' ? 'recalled' : 'learned',
      memories: e.memories.slice(0, 100).map((m) => ({
        id: m.id.slice(0, LIMITS.label),
        content: cap(m.content, LIMITS.preview).text,
        type: m.type.slice(0, LIMITS.label),
      })),
    });
  }

  warning(ops: PatchOp[], e: EventOf<'warning'>): void {
    const message = cap(e.message, LIMITS.preview).text;
    const existing = e.key === undefined ? undefined : this.items.get(this.warningItems.get(e.key) ?? '');
    if (existing?.kind === 'warning') {
      this.items.update(ops, { ...existing, warningKind: e.kind, message });
      return;
    }
    const id = this.items.nextId();
    if (e.key !== undefined) this.warningItems.set(e.key, id);
    this.items.append(ops, { id, ts: this.now(), kind: 'warning', warningKind: e.kind, message });
  }
}

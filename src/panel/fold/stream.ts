// The assistant's text and thinking as they stream: deltas extend the open item until something else happens.
import { LIMITS, type ItemOf, type PatchOp } from '../../protocol/messages';
import type { TranscriptItems } from './items';

type Streamed = ItemOf<'assistant'> | ItemOf<'thinking'>;

export class StreamedText {
  private open: Streamed | undefined;

  constructor(
    private readonly items: TranscriptItems,
    private readonly now: () => number,
  ) {}

  /** The transcript was replaced: nothing is open any more. */
  forget(): void {
    this.open = undefined;
  }

  delta(ops: PatchOp[], kind: Streamed['kind'], delta: string): void {
    if (!delta) return;
    const open = this.open;
    if (open && open.kind === kind) {
      if (open.text.length >= LIMITS.itemText) return;
      const d = delta.slice(0, LIMITS.itemText - open.text.length);
      const next = { ...open, text: open.text + d };
      this.items.replace(next);
      this.open = next;
      ops.push({ op: 'delta', id: open.id, field: 'text', delta: d });
      return;
    }
    this.close(ops);
    const item: Streamed = {
      id: this.items.nextId(),
      ts: this.now(),
      kind,
      text: delta.slice(0, LIMITS.itemText),
      streaming: true,
    };
    this.items.append(ops, item);
    this.open = item;
  }

  close(ops: PatchOp[]): void {
    const open = this.open;
    if (!open) return;
    this.open = undefined;
    this.items.replace({ ...(this.items.get(open.id) as Streamed), streaming: false });
    ops.push({ op: 'end_stream', id: open.id });
  }
}

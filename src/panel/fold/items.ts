// The transcript's items in order, found by id, each change recorded as a PatchOp. Items are replaced, never
// mutated, once handed out (snapshots share them).
import type { PatchOp, TranscriptItem } from '../../protocol/messages';

export class TranscriptItems {
  private list: TranscriptItem[] = [];
  private index = new Map<string, number>();
  private counter = 0;
  /** While folding a sub-agent's event: the delegate card new items are nested under. */
  nestParent: string | undefined;

  all(): readonly TranscriptItem[] {
    return this.list;
  }

  /** Replaces the whole list (a reset, a load, errors dropped); ids go on counting past every id seen. */
  replaceAll(items: TranscriptItem[]): void {
    this.list = items;
    this.index = new Map(items.map((it, i) => [it.id, i]));
    for (const it of items) {
      const m = /^i(\d+)$/.exec(it.id);
      if (m) this.counter = Math.max(this.counter, Number(m[1]));
    }
  }

  nextId(): string {
    return `i${++this.counter}`;
  }

  get(id: string): TranscriptItem | undefined {
    const i = this.index.get(id);
    return i === undefined ? undefined : this.list[i];
  }

  append(ops: PatchOp[], next: TranscriptItem): void {
    const item = this.nestParent !== undefined ? { ...next, parentId: this.nestParent } : next;
    this.index.set(item.id, this.list.length);
    this.list.push(item);
    ops.push({ op: 'append', item });
  }

  /** Swaps in the new version of an item without telling anyone (a delta op carries the change). */
  replace(item: TranscriptItem): void {
    const i = this.index.get(item.id);
    if (i !== undefined) this.list[i] = item;
  }

  update(ops: PatchOp[], item: TranscriptItem): void {
    this.replace(item);
    ops.push({ op: 'update', item });
  }
}

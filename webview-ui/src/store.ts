// The webview's mirror of the host transcript. Applies a snapshot or patch ops and tells the views what changed.
import type {
  ModeChoiceView,
  PatchOp,
  Progress,
  ProviderStatus,
  RunStatus,
  Snapshot,
  TaskSummary,
  TranscriptItem,
} from '../../src/protocol/messages';

interface StoreListener {
  reset(items: readonly TranscriptItem[]): void;
  append(item: TranscriptItem): void;
  update(item: TranscriptItem, prev: TranscriptItem): void;
  delta(item: TranscriptItem, field: 'text' | 'argsText'): void;
  endStream(item: TranscriptItem): void;
  chrome(): void;
}

export class Store {
  items: TranscriptItem[] = [];
  private index = new Map<string, number>();
  status: RunStatus = { state: 'idle' };
  progress: Progress | undefined;
  /** When progress arrived (performance.now) so elapsed time can tick locally between updates. */
  progressAt = 0;
  provider: ProviderStatus = { configured: true };
  history: TaskSummary[] = [];
  modes: ModeChoiceView[] | undefined;
  mode: string | undefined;
  taskId: string | undefined;
  seq = -1;
  hasSnapshot = false;

  constructor(private readonly view: StoreListener) {}

  get(id: string): TranscriptItem | undefined {
    const i = this.index.get(id);
    return i === undefined ? undefined : this.items[i];
  }

  /** Oldest approval still waiting: the one the loop is blocked on and the shortcuts act on. */
  pendingApproval(): Extract<TranscriptItem, { kind: 'approval' }> | undefined {
    let found: Extract<TranscriptItem, { kind: 'approval' }> | undefined;
    for (let i = this.items.length - 1; i >= 0; i--) {
      const it = this.items[i]!;
      if (it.kind === 'run_end') break;
      if (it.kind === 'approval' && it.status === 'pending') found = it;
    }
    return found;
  }

  applySnapshot(s: Snapshot): void {
    this.items = s.items.slice();
    this.index = new Map(this.items.map((it, i) => [it.id, i]));
    this.status = s.status;
    this.setProgress(s.progress);
    this.provider = s.provider;
    this.history = s.history;
    this.modes = s.modes ?? this.modes;
    this.mode = s.mode ?? s.status.mode ?? this.mode;
    this.taskId = s.taskId;
    this.seq = s.seq;
    this.hasSnapshot = true;
    this.view.reset(this.items);
    this.view.chrome();
  }

  /** Returns false when the patch does not follow the last one (the caller asks for a snapshot). */
  applyPatch(seq: number, ops: readonly PatchOp[]): boolean {
    if (!this.hasSnapshot || seq !== this.seq + 1) return false;
    this.seq = seq;
    let consistent = true;
    let chrome = false;
    for (const op of ops) {
      switch (op.op) {
        case 'append':
          if (this.index.has(op.item.id)) {
            consistent = this.replace(op.item) && consistent;
          } else {
            this.index.set(op.item.id, this.items.length);
            this.items.push(op.item);
            this.view.append(op.item);
          }
          break;
        case 'update':
          consistent = this.replace(op.item) && consistent;
          break;
        case 'delta': {
          const it = this.get(op.id);
          if (op.field === 'text' && it && (it.kind === 'assistant' || it.kind === 'thinking')) {
            this.set({ ...it, text: it.text + op.delta });
          } else if (op.field === 'argsText' && it && it.kind === 'tool') {
            this.set({ ...it, argsText: it.argsText + op.delta });
          } else {
            consistent = false;
            break;
          }
          this.view.delta(this.get(op.id)!, op.field);
          break;
        }
        case 'end_stream': {
          const it = this.get(op.id);
          if (it && (it.kind === 'assistant' || it.kind === 'thinking')) {
            this.set({ ...it, streaming: false });
            this.view.endStream(this.get(op.id)!);
          } else consistent = false;
          break;
        }
        case 'progress':
          this.setProgress(op.progress);
          chrome = true;
          break;
        case 'status':
          this.status = op.status;
          chrome = true;
          break;
      }
    }
    if (chrome) this.view.chrome();
    return consistent;
  }

  setProvider(p: ProviderStatus): void {
    this.provider = p;
    this.view.chrome();
  }

  setMode(mode: string): void {
    this.mode = mode;
    this.view.chrome();
  }

  setHistory(h: TaskSummary[]): void {
    this.history = h;
    this.view.chrome();
  }

  private setProgress(p: Progress | undefined): void {
    this.progress = p;
    this.progressAt = performance.now();
  }

  private set(item: TranscriptItem): void {
    const i = this.index.get(item.id);
    if (i !== undefined) this.items[i] = item;
  }

  private replace(item: TranscriptItem): boolean {
    const prev = this.get(item.id);
    if (!prev) return false;
    this.set(item);
    this.view.update(item, prev);
    return true;
  }
}

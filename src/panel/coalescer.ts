// Batches transcript PatchOps so a fast token stream becomes at most one postMessage per interval (~16 ms):
// consecutive deltas are concatenated, deltas to a just-appended item fold into it, later updates replace earlier.
import type { PatchOp, TranscriptItem } from '../protocol/messages';

export interface Scheduler {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

const realScheduler: Scheduler = {
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (h) => clearTimeout(h as ReturnType<typeof setTimeout>),
};

interface CoalescerOptions {
  intervalMs?: number;
  scheduler?: Scheduler;
}

function opItemId(op: PatchOp): string | undefined {
  switch (op.op) {
    case 'append':
    case 'update':
      return op.item.id;
    case 'delta':
    case 'end_stream':
      return op.id;
    default:
      return undefined;
  }
}

function withDelta(item: TranscriptItem, field: 'text' | 'argsText', delta: string): TranscriptItem | undefined {
  if (field === 'text' && (item.kind === 'assistant' || item.kind === 'thinking'))
    return { ...item, text: item.text + delta };
  if (field === 'argsText' && item.kind === 'tool') return { ...item, argsText: item.argsText + delta };
  return undefined;
}

export class PatchCoalescer {
  private pending: PatchOp[] = [];
  private timer: unknown;
  private readonly intervalMs: number;
  private readonly scheduler: Scheduler;

  constructor(
    private readonly sink: (ops: PatchOp[]) => void,
    opts: CoalescerOptions = {},
  ) {
    this.intervalMs = opts.intervalMs ?? 16;
    this.scheduler = opts.scheduler ?? realScheduler;
  }

  get pendingCount(): number {
    return this.pending.length;
  }

  push(ops: readonly PatchOp[]): void {
    for (const op of ops) this.merge(op);
    if (this.pending.length > 0 && this.timer === undefined) {
      this.timer = this.scheduler.setTimeout(() => {
        this.timer = undefined;
        this.flush();
      }, this.intervalMs);
    }
  }

  flush(): void {
    this.cancelTimer();
    if (this.pending.length === 0) return;
    const ops = this.pending;
    this.pending = [];
    this.sink(ops);
  }

  /** Drops pending ops: a full snapshot was just sent and already contains them. */
  discard(): void {
    this.cancelTimer();
    this.pending = [];
  }

  dispose(): void {
    this.discard();
  }

  private cancelTimer(): void {
    if (this.timer !== undefined) this.scheduler.clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** Index of the latest pending op that touches the item, or -1. */
  private lastFor(id: string): number {
    for (let i = this.pending.length - 1; i >= 0; i--) if (opItemId(this.pending[i]!) === id) return i;
    return -1;
  }

  private merge(op: PatchOp): void {
    const p = this.pending;
    switch (op.op) {
      case 'delta': {
        const i = this.lastFor(op.id);
        const prev = i >= 0 ? p[i]! : undefined;
        if (prev?.op === 'delta' && prev.field === op.field) {
          p[i] = { ...prev, delta: prev.delta + op.delta };
          return;
        }
        if (prev && (prev.op === 'append' || prev.op === 'update')) {
          const item = withDelta(prev.item, op.field, op.delta);
          if (item) {
            p[i] = { ...prev, item };
            return;
          }
        }
        p.push(op);
        return;
      }
      case 'update': {
        // Everything pending for this item is superseded by the full item, except its append (kept in place).
        let appendAt = -1;
        for (let i = p.length - 1; i >= 0; i--) {
          const o = p[i]!;
          if (opItemId(o) !== op.item.id) continue;
          if (o.op === 'append') appendAt = i;
          else if (o.op !== 'end_stream') p.splice(i, 1);
        }
        if (appendAt >= 0) p[appendAt] = { op: 'append', item: op.item };
        else p.push(op);
        return;
      }
      case 'progress':
      case 'status': {
        const i = p.findIndex((o) => o.op === op.op);
        if (i >= 0) p.splice(i, 1);
        p.push(op);
        return;
      }
      default:
        p.push(op);
    }
  }
}

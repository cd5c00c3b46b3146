// The run's wall-time budget as a deadline: one signal that aborts on the user's stop OR when the budget runs
// out, so a hanging tool, approval or a model stream that trickles forever cannot outlive the budget.
import { clockTimeout, type Clock } from './config';

export const TIME_BUDGET_RESULT = 'Cut off by the time budget: this tool call did not run to completion.';

export class RunDeadline {
  /** Aborts when the parent (user stop) aborts or the deadline passes. Hand this to all in-flight work. */
  readonly signal: AbortSignal;
  private readonly controller = new AbortController();
  private readonly timerStop = new AbortController();
  private readonly work = new Map<string, string>();
  private cutOff?: string;
  private readonly onParentAbort = () => this.end();

  constructor(
    private readonly parent: AbortSignal,
    private readonly clock: Clock,
    private readonly started: number,
    private readonly budgetMs: number | undefined,
  ) {
    this.signal = this.controller.signal;
    if (parent.aborted) {
      this.end();
      return;
    }
    parent.addEventListener('abort', this.onParentAbort, { once: true });
    if (budgetMs !== undefined) this.arm();
  }

  /** True when the deadline (not the user) ended the work. */
  get expired(): boolean {
    return this.cutOff !== undefined;
  }

  /** What was running when the deadline passed. */
  get interrupted(): string {
    return this.cutOff ?? '';
  }

  /** Records work in flight under `key` (undefined clears it), so a trip can say what it cut off. */
  track(key: string, what: string | undefined): void {
    if (what === undefined) this.work.delete(key);
    else this.work.set(key, what);
  }

  /** Runs `work` recorded as in flight under `key`. */
  async during<T>(key: string, what: string, work: () => Promise<T>): Promise<T> {
    this.track(key, what);
    try {
      return await work();
    } finally {
      this.track(key, undefined);
    }
  }

  /** Clears the timer and the link to the parent; call when the run ends. */
  dispose(): void {
    this.timerStop.abort();
    this.parent.removeEventListener('abort', this.onParentAbort);
  }

  private arm(): void {
    const remaining = this.budgetMs! - (this.clock.now() - this.started);
    clockTimeout(this.clock, Math.max(0, remaining), this.timerStop.signal).then(
      () => {
        if (this.signal.aborted) return;
        // Real timers may fire a hair early (or cap long waits): re-arm until the clock agrees.
        if (this.clock.now() - this.started < this.budgetMs!) return this.arm();
        this.cutOff = [...this.work.values()].join('; ') || 'between steps';
        this.end();
      },
      () => undefined, // cleared by dispose() or a stop
    );
  }

  private end(): void {
    this.timerStop.abort();
    this.controller.abort();
  }
}

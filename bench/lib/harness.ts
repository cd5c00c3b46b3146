// Shared benchmark plumbing: sampling, statistics and the one-JSON-object-per-line output contract.
// Every figure is {name, unit, median, p95, n, input, goal, withinGoal} (+ optional budget and extra fields).
import { monitorEventLoopDelay } from 'node:perf_hooks';

export const QUICK = process.env.BENCH_QUICK === '1';

/** A goal is an upper bound (max) or a lower bound (min) on the median, in the figure's unit. */
export interface Goal {
  max?: number;
  min?: number;
}

export interface Figure {
  name: string;
  unit: string;
  median: number;
  p95: number;
  n: number;
  input: Record<string, unknown>;
  goal: Goal | null;
  withinGoal: boolean | null;
  /** CI regression limit (generous); the run fails only when a figure is past its budget. */
  budget?: Goal;
  withinBudget?: boolean;
  /** What limits the figure when it misses its goal (filled in by the benchmark when known). */
  limitedBy?: string;
  [extra: string]: unknown;
}

export function quantile(sorted: number[], q: number): number {
  if (sorted.length === 0) return NaN;
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (pos - lo);
}

export function round(x: number, digits = 4): number {
  if (!Number.isFinite(x)) return x;
  const p = 10 ** Math.max(0, digits - Math.max(0, Math.floor(Math.log10(Math.abs(x) || 1)) + 1));
  return Math.round(x * p) / p;
}

function check(value: number, goal: Goal | null | undefined): boolean | null {
  if (!goal) return null;
  if (goal.max !== undefined && !(value < goal.max)) return false;
  if (goal.min !== undefined && !(value > goal.min)) return false;
  return true;
}

export interface FigureSpec {
  name: string;
  unit: string;
  input: Record<string, unknown>;
  goal?: Goal | null;
  budget?: Goal;
  /** Judge the goal on this statistic (default median). */
  judgeOn?: 'median' | 'p95' | 'max';
  extra?: Record<string, unknown>;
  limitedBy?: string;
}

export function figure(spec: FigureSpec, samples: number[]): Figure {
  const sorted = [...samples].sort((a, b) => a - b);
  const median = quantile(sorted, 0.5);
  const p95 = quantile(sorted, 0.95);
  const max = sorted[sorted.length - 1] ?? NaN;
  const judged = spec.judgeOn === 'p95' ? p95 : spec.judgeOn === 'max' ? max : median;
  const withinGoal = check(judged, spec.goal);
  const f: Figure = {
    name: spec.name,
    unit: spec.unit,
    median: round(median),
    p95: round(p95),
    n: samples.length,
    input: spec.input,
    goal: spec.goal ?? null,
    withinGoal,
  };
  if (spec.judgeOn && spec.judgeOn !== 'median') f.judgedOn = spec.judgeOn;
  if (spec.judgeOn === 'max') f.max = round(max);
  if (spec.budget) {
    f.budget = spec.budget;
    f.withinBudget = check(judged, spec.budget) ?? true;
  }
  if (spec.extra) Object.assign(f, spec.extra);
  if (withinGoal === false && spec.limitedBy) f.limitedBy = spec.limitedBy;
  return f;
}

/** Prints one figure as a JSON line (the runner collects these from stdout). */
export function emit(f: Figure): Figure {
  process.stdout.write(JSON.stringify(f) + '\n');
  return f;
}

export function skip(name: string, reason: string, input: Record<string, unknown> = {}): void {
  process.stdout.write(JSON.stringify({ name, skipped: reason, input }) + '\n');
}

export function log(message: string): void {
  process.stderr.write(`[bench] ${message}\n`);
}

export const now = (): number => performance.now();

/** Runs `fn` `warmup` times untimed, then `n` times, returning per-call milliseconds. */
export async function sample(n: number, fn: () => unknown | Promise<unknown>, warmup = Math.min(20, Math.ceil(n / 5))): Promise<number[]> {
  for (let i = 0; i < warmup; i++) await fn();
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = now();
    await fn();
    out.push(now() - t0);
  }
  return out;
}

/** Measures the longest event-loop stall while `fn` runs (ms), with a 1 ms-resolution histogram. */
export async function withLoopMonitor<T>(fn: () => Promise<T>): Promise<{ value: T; maxBlockMs: number }> {
  const h = monitorEventLoopDelay({ resolution: 1 });
  h.enable();
  // A timer that must keep firing: its lateness is the blocking the monitor sees.
  const keepAlive = setInterval(() => undefined, 1);
  try {
    const value = await fn();
    await new Promise((r) => setTimeout(r, 3));
    return { value, maxBlockMs: h.max / 1e6 };
  } finally {
    clearInterval(keepAlive);
    h.disable();
  }
}

export function gc(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

export function mb(bytes: number): number {
  return round(bytes / (1024 * 1024), 4);
}

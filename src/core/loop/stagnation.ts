// Stagnation: the same call over and over, or no progress (no new read, no edit, no new command; same error).
import type { ToolResult } from '../tools/types';

export interface CallObservation {
  name: string;
  args: unknown;
  isError: boolean;
  content: string;
  effects?: ToolResult['effects'];
  /** false when the call never ran (rejected, denied, invalid): it cannot make progress. */
  ran: boolean;
}

export interface StagnationConfig {
  identicalCalls: number;
  noProgressIterations: number;
  repeatedErrors: number;
}

/** Deterministic JSON (sorted keys) so {a,b} and {b,a} are the same call. */
export function stableStringify(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'undefined';
  if (Array.isArray(value)) return `[${value.map(stableStringify).join(',')}]`;
  const obj = value as Record<string, unknown>;
  return `{${Object.keys(obj)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${stableStringify(obj[k])}`)
    .join(',')}}`;
}

function short(text: string, max = 120): string {
  const one = text.replace(/\s+/g, ' ').trim();
  return one.length > max ? `${one.slice(0, max)}…` : one;
}

export class StagnationDetector {
  private lastSignature = '';
  private identicalCount = 0;
  private iterationsWithoutProgress = 0;
  private readonly reads = new Set<string>();
  private readonly commands = new Set<string>();
  private readonly recentErrors: string[] = [];
  private readonly tried: string[] = [];

  constructor(private readonly config: StagnationConfig) {}

  /** Feeds one iteration's tool calls (in call order). */
  observeIteration(calls: readonly CallObservation[]): void {
    let progress = false;
    for (const call of calls) {
      const signature = `${call.name}:${stableStringify(call.args)}`;
      this.identicalCount = signature === this.lastSignature ? this.identicalCount + 1 : 1;
      this.lastSignature = signature;
      this.tried.push(`${call.name} ${short(stableStringify(call.args), 80)} -> ${call.isError ? `error: ${short(call.content, 100)}` : 'ok'}`);
      if (this.tried.length > 8) this.tried.shift();

      this.recentErrors.push(call.isError ? call.content : '');
      if (this.recentErrors.length > this.config.repeatedErrors * 2) this.recentErrors.shift();

      if (!call.ran || call.isError) continue;
      if (this.isProgress(call)) progress = true;
    }
    this.iterationsWithoutProgress = progress ? 0 : this.iterationsWithoutProgress + 1;
  }

  private isProgress(call: CallObservation): boolean {
    const effects = call.effects;
    // A tool that reports no effects at all cannot be judged by them; its successful run counts.
    if (!effects) return true;
    let progress = false;
    for (const path of effects.read ?? []) {
      if (!this.reads.has(path)) progress = true;
      this.reads.add(path);
    }
    if (effects.edited?.length) progress = true;
    if (effects.command !== undefined) {
      if (!this.commands.has(effects.command)) progress = true;
      this.commands.add(effects.command);
    }
    return progress;
  }

  /** Why the run looks stuck right now, or undefined. */
  detect(): string | undefined {
    if (this.identicalCount >= this.config.identicalCalls) {
      return `the same call was made ${this.identicalCount} times in a row`;
    }
    const counts = new Map<string, number>();
    for (const e of this.recentErrors) if (e) counts.set(e, (counts.get(e) ?? 0) + 1);
    for (const [error, n] of counts) {
      if (n >= this.config.repeatedErrors) return `the same error repeated ${n} times: "${short(error, 160)}"`;
    }
    if (this.iterationsWithoutProgress >= this.config.noProgressIterations) {
      return `${this.iterationsWithoutProgress} iterations without reading a new file, editing, or running a new command`;
    }
    return undefined;
  }

  /** What was tried recently, for the user when the run is escalated. */
  summary(): string {
    return this.tried.map((t) => `- ${t}`).join('\n');
  }
}

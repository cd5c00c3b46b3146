// Stagnation: the same call over and over, or no progress (nothing new learned, no edit, no new command; same error).
// "Nothing new learned": every read, list, search or page of output returned a result already seen in this run
// (same digest, whatever the arguments were). A result that changed (the file was edited in between) is new.
import type { ToolResult } from '../tools/types';

interface CallObservation {
  name: string;
  args: unknown;
  isError: boolean;
  content: string;
  effects?: ToolResult['effects'];
  /** false when the call never ran (rejected, denied, invalid): it cannot make progress. */
  ran: boolean;
}

interface StagnationConfig {
  identicalCalls: number;
  noProgressIterations: number;
  repeatedErrors: number;
}

/** Deterministic JSON (sorted keys) so {a,b} and {b,a} are the same call. */
function stableStringify(value: unknown): string {
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

/**
 * Digest of a tool result, independent of line order (a search backend may return files in any order) and of
 * line-ending style. Two 32-bit hashes per line, summed over lines, plus the line count and length: ~64 bits,
 * O(length), no allocation beyond the output string.
 */
export function resultDigest(text: string): string {
  let sumA = 0;
  let sumB = 0;
  let lines = 0;
  let a = 0x811c9dc5;
  let b = 0x9747b28c;
  const endLine = () => {
    // Finalise (avalanche) each line's hashes so the sum does not cancel between similar lines.
    a = Math.imul(a ^ (a >>> 16), 0x85ebca6b);
    a = Math.imul(a ^ (a >>> 13), 0xc2b2ae35);
    b = Math.imul(b ^ (b >>> 15), 0x2c1b3c6d);
    b = Math.imul(b ^ (b >>> 12), 0x297a2d39);
    sumA = (sumA + ((a ^ (a >>> 16)) >>> 0)) >>> 0;
    sumB = (sumB + ((b ^ (b >>> 16)) >>> 0)) >>> 0;
    lines++;
    a = 0x811c9dc5;
    b = 0x9747b28c;
  };
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 10) {
      endLine();
      continue;
    }
    if (c === 13 && text.charCodeAt(i + 1) === 10) continue;
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995) ^ (b >>> 15);
  }
  endLine();
  return `${sumA.toString(36)}.${sumB.toString(36)}.${lines}`;
}

export class StagnationDetector {
  private lastSignature = '';
  private identicalCount = 0;
  private iterationsWithoutProgress = 0;
  private readonly reads = new Set<string>();
  private readonly commands = new Set<string>();
  /** Keys (tool + result digest) of every result seen in this run. */
  private readonly observed = new Set<string>();
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

      this.recentErrors.push(call.isError ? call.content : '');
      if (this.recentErrors.length > this.config.repeatedErrors * 2) this.recentErrors.shift();

      const ok = call.ran && !call.isError;
      const fresh = ok && this.isProgress(call);
      if (fresh) progress = true;
      const outcome = call.isError
        ? `error: ${short(call.content, 100)}`
        : !call.ran || fresh
          ? 'ok'
          : 'ok (nothing new)';
      this.tried.push(`${call.name} ${short(stableStringify(call.args), 80)} -> ${outcome}`);
      if (this.tried.length > 8) this.tried.shift();
    }
    this.iterationsWithoutProgress = progress ? 0 : this.iterationsWithoutProgress + 1;
  }

  private isProgress(call: CallObservation): boolean {
    const effects = call.effects;
    let progress = false;
    if (effects?.edited?.length) progress = true;
    if (effects?.command !== undefined) {
      if (!this.commands.has(effects.command)) progress = true;
      this.commands.add(effects.command);
    }
    for (const path of effects?.read ?? []) {
      if (!this.reads.has(path)) progress = true;
      this.reads.add(path);
    }
    // What the call brought: a read, a list, a search, a page of output, or any tool that reports no effects.
    // Edits and commands are actions and are judged above (a command's output carries timings; not digested).
    const acts = !!effects?.edited?.length || effects?.command !== undefined;
    if (effects?.observed !== undefined || effects?.read?.length || !acts) {
      const key = `${call.name}\u0000${effects?.observed ?? resultDigest(call.content)}`;
      if (!this.observed.has(key)) progress = true;
      this.observed.add(key);
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
      return `${this.iterationsWithoutProgress} iterations without progress: every read, list or search returned what was already seen, no edit, no new command`;
    }
    return undefined;
  }

  /** What was tried recently, for the user when the run is escalated. */
  summary(): string {
    return this.tried.map((t) => `- ${t}`).join('\n');
  }
}

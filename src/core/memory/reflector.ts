// Reflection: ask the model for 1-3 learnings as JSON, validate each, drop the bad ones, never throw.
// Bounded per run by a USD budget (and a count cap, which also holds when the model's price is unknown).
import type { Model, Usage } from '../model/types';
import type { RunReport } from '../loop/events';
import type { MemoryItem, ReflectionInput } from './port';
import { buildReflectionPrompt, REFLECTION_SYSTEM_PROMPT } from './reflection-prompt';
import { formatIssues, learningDraftSchema, type LearningDraft } from './schema';
import { estimateTokens } from './text';
import { plural } from '../plural';

export interface ReflectorOptions {
  /** Model used to reflect; defaults to the run's model (input.model). */
  model?: Model;
  /** Maximum USD spent on reflection per run. */
  budgetUsd: number;
  /** USD for a usage; undefined when the price is unknown (then only maxReflectionsPerRun limits). */
  price?: (usage: Usage) => number | undefined;
  /** Skip rule: a run_end with fewer iterations than this and no errors is trivial. Default 2. */
  minIterations?: number;
  /** Hard cap on reflection calls per run. Default 4. */
  maxReflectionsPerRun?: number;
  /** Default 3. */
  maxLearnings?: number;
  maxTranscriptChars?: number;
  maxOutputTokens?: number;
  log?: (message: string) => void;
}

export interface ReflectorInput extends ReflectionInput {
  /** Earlier episodic memories, given to the model as context. */
  episodic?: readonly MemoryItem[];
  /** Memories that already exist, so the model does not restate them. */
  known?: readonly MemoryItem[];
}

interface RunSpend {
  usd: number;
  calls: number;
}

const MAX_TRACKED_RUNS = 200;

export class Reflector {
  private readonly spend = new Map<unknown, RunSpend>();
  private readonly log: (message: string) => void;

  constructor(private readonly opts: ReflectorOptions) {
    this.log = opts.log ?? (() => undefined);
  }

  /** USD spent on reflection for a run so far (by runId, or by the run's AbortSignal). */
  spentUsd(run: string | AbortSignal): number {
    return this.spend.get(run)?.usd ?? 0;
  }

  async reflect(input: ReflectorInput): Promise<LearningDraft[]> {
    try {
      return await this.reflectUnsafe(input);
    } catch (err) {
      this.log(`reflection: failed, nothing learned: ${(err as Error)?.message ?? String(err)}`);
      return [];
    }
  }

  private async reflectUnsafe(input: ReflectorInput): Promise<LearningDraft[]> {
    const skip = this.skipReason(input);
    if (skip) {
      this.log(`reflection: skipped (${skip})`);
      return [];
    }
    const spend = this.spendFor([input.runId, input.report?.runId, input.signal]);
    const maxCalls = this.opts.maxReflectionsPerRun ?? 4;
    if (spend.calls >= maxCalls) {
      this.log(`reflection: refused, ${plural(spend.calls, 'reflection')} already ran for this run (cap ${maxCalls})`);
      return [];
    }
    const model = this.opts.model ?? input.model;
    const maxOutputTokens = this.opts.maxOutputTokens ?? 800;
    const prompt = buildReflectionPrompt({
      trigger: input.trigger,
      report: input.report,
      history: input.history,
      episodic: input.episodic,
      known: input.known,
      maxTranscriptChars: this.opts.maxTranscriptChars ?? 12_000,
    });
    const inputTokens = estimateTokens(REFLECTION_SYSTEM_PROMPT) + estimateTokens(prompt);
    const projected = this.opts.price?.({ inputTokens, outputTokens: maxOutputTokens });
    if (spend.usd >= this.opts.budgetUsd || (projected !== undefined && spend.usd + projected > this.opts.budgetUsd)) {
      this.log(
        `reflection: refused, budget $${this.opts.budgetUsd} for this run (spent $${spend.usd.toFixed(4)}` +
          (projected !== undefined ? `, next call ~$${projected.toFixed(4)})` : ')'),
      );
      return [];
    }

    spend.calls += 1;
    let text = '';
    let usage: Usage | undefined;
    try {
      for await (const ev of model.stream({
        system: [{ id: 'forge.reflection', text: REFLECTION_SYSTEM_PROMPT, stable: true }],
        messages: [{ role: 'user', content: prompt }],
        tools: [],
        maxOutputTokens,
        temperature: 0.2,
        signal: input.signal,
      })) {
        if (ev.type === 'text') text += ev.delta;
        else if (ev.type === 'usage') usage = maxUsage(usage, ev.usage);
      }
    } finally {
      const used = usage ?? { inputTokens, outputTokens: estimateTokens(text) };
      const cost = this.opts.price?.(used);
      if (cost !== undefined) spend.usd += cost;
    }
    return this.parse(text);
  }

  /** Extracts and validates learnings; every rejected item is logged with the reason. */
  parse(text: string): LearningDraft[] {
    const raw = extractJsonArray(text);
    if (!raw) {
      this.log(`reflection: dropped model output, no JSON array found: ${JSON.stringify(text.slice(0, 200))}`);
      return [];
    }
    const max = this.opts.maxLearnings ?? 3;
    const out: LearningDraft[] = [];
    raw.forEach((candidate, i) => {
      const parsed = learningDraftSchema.safeParse(candidate);
      if (!parsed.success) {
        this.log(`reflection: dropped learning #${i + 1}: ${formatIssues(parsed.error)}`);
      } else if (out.length >= max) {
        this.log(`reflection: dropped learning #${i + 1}: more than ${max} learnings`);
      } else {
        out.push(parsed.data);
      }
    });
    return out;
  }

  private skipReason(input: ReflectorInput): string | undefined {
    if (input.signal.aborted) return 'the run was cancelled';
    if (input.trigger !== 'run_end') return undefined;
    const minIterations = this.opts.minIterations ?? 2;
    const iterations = input.report?.iterations ?? input.history.filter((m) => m.role === 'assistant').length;
    if (iterations < minIterations && !hadErrors(input.report, input)) {
      return `trivial run: ${plural(iterations, 'iteration')}, no errors`;
    }
    return undefined;
  }

  /**
   * One account per run, found by any of its keys: a tool-error reflection may only know the run's signal, the
   * run-end one also its report.runId — both must draw on the same budget.
   */
  private spendFor(keys: readonly unknown[]): RunSpend {
    const present = keys.filter((k) => k !== undefined);
    const s = present.map((k) => this.spend.get(k)).find(Boolean) ?? { usd: 0, calls: 0 };
    for (const k of present) this.spend.set(k, s);
    while (this.spend.size > MAX_TRACKED_RUNS) this.spend.delete(this.spend.keys().next().value);
    return s;
  }
}

const FAILED_REASONS = new Set<RunReport['reason']>(['error', 'breaker', 'stagnation', 'guardrail', 'max_iterations']);

function hadErrors(report: RunReport | undefined, input: ReflectionInput): boolean {
  if (report && FAILED_REASONS.has(report.reason)) return true;
  if (report?.steps.some((s) => s.error || s.toolCalls.some((c) => c.error))) return true;
  return input.history.some((m) => m.role === 'tool' && m.isError);
}

// Providers report usage either once or cumulatively; the largest figure is the turn's total either way. Cache
// reads/writes are kept: without them a cached prompt would be charged at the full input price.
function maxUsage(a: Usage | undefined, b: Usage): Usage {
  if (!a) return { ...b };
  const out: Usage = {
    inputTokens: Math.max(a.inputTokens, b.inputTokens),
    outputTokens: Math.max(a.outputTokens, b.outputTokens),
  };
  const cacheRead = Math.max(a.cacheReadTokens ?? 0, b.cacheReadTokens ?? 0);
  const cacheWrite = Math.max(a.cacheWriteTokens ?? 0, b.cacheWriteTokens ?? 0);
  if (cacheRead) out.cacheReadTokens = cacheRead;
  if (cacheWrite) out.cacheWriteTokens = cacheWrite;
  return out;
}

/**
 * Finds the learnings array in model output: bare JSON, ```json fences, JSON embedded in prose,
 * `{"learnings": [...]}`, or a single learning object.
 */
export function extractJsonArray(text: string): unknown[] | undefined {
  const candidates: string[] = [];
  for (const m of text.matchAll(/```(?:json|JSON)?\s*\n?([\s\S]*?)```/g)) candidates.push(m[1]);
  candidates.push(text.trim());
  const a = text.indexOf('[');
  const b = text.lastIndexOf(']');
  if (a >= 0 && b > a) candidates.push(text.slice(a, b + 1));
  const c = text.indexOf('{');
  const d = text.lastIndexOf('}');
  if (c >= 0 && d > c) candidates.push(text.slice(c, d + 1));
  for (const candidate of candidates) {
    let value: unknown;
    try {
      value = JSON.parse(candidate);
    } catch {
      continue;
    }
    if (Array.isArray(value)) return value;
    if (value && typeof value === 'object') {
      const learnings = (value as { learnings?: unknown }).learnings;
      if (Array.isArray(learnings)) return learnings;
      if ('content' in value) return [value];
    }
  }
  return undefined;
}

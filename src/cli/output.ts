// What the runner prints: readable progress for people on stderr, the loop's typed events as JSON Lines on
// stdout (--json), and the exit code that says how the run ended.
import type { AgentEvent, RunReport, TerminationReason } from '../core/loop/events';
import type { Plan } from '../core/tools/builtin/update-plan';
import type { Style } from './approvals';
import { ControlStripper, plain, safeJson, SecretMasker } from './terminal-safe';
import { plural } from '../core/plural';

export const EXIT = {
  done: 0,
  error: 1,
  needsInput: 2,
  stopped: 3,
  limit: 4,
  breaker: 5,
  stagnation: 6,
  /** The final result is not valid against --output-schema. */
  invalidOutput: 7,
  usage: 64,
} as const;

const BUDGET = /^(Time|Cost|Token) budget reached/;

/** How a run ended -> the process exit code (documented in docs/cli.md). */
export function exitCodeFor(report: Pick<RunReport, 'reason' | 'detail'>): number {
  const reason: TerminationReason = report.reason;
  switch (reason) {
    case 'done':
      return EXIT.done;
    case 'asked':
    case 'converse':
      return EXIT.needsInput;
    case 'stopped':
      return EXIT.stopped;
    case 'max_iterations':
      return EXIT.limit;
    case 'breaker':
      return BUDGET.test(report.detail) ? EXIT.limit : EXIT.breaker;
    case 'guardrail':
      return EXIT.breaker;
    case 'stagnation':
      return EXIT.stagnation;
    default:
      return EXIT.error;
  }
}

/**
 * One JSON line per event; the CLI adds a final `{"type":"cli_exit"}` line of its own. JSON escapes every C0
 * control (ESC included); DEL, C1 controls and U+2028/9 are escaped as well, so the line is plain ASCII-safe
 * text for a terminal that shows it.
 */
export function jsonLine(value: unknown): string {
  return `${safeJson(value)}\n`;
}

type DeltaEvent = Extract<AgentEvent, { type: 'text_delta' | 'thinking_delta' }>;

/**
 * The loop's events as JSON Lines, with known secrets masked in the streamed text even when a key arrives in
 * two deltas: a delta that ends with what could be the start of a key is cut there, and the rest comes with
 * the next delta of its stream, or as a delta of its own before any other event.
 */
export class JsonLinesWriter {
  private readonly streams = new Map<DeltaEvent['type'], { masker: SecretMasker; last: DeltaEvent }>();

  constructor(
    private readonly write: (line: string) => void,
    private readonly secrets: readonly (string | undefined)[] = [],
  ) {}

  on(e: AgentEvent): void {
    if (e.type === 'text_delta' || e.type === 'thinking_delta') {
      const stream = this.streams.get(e.type) ?? { masker: new SecretMasker(this.secrets), last: e };
      stream.last = e;
      this.streams.set(e.type, stream);
      const delta = stream.masker.push(e.delta);
      if (delta) this.write(jsonLine({ ...e, delta }));
      return;
    }
    this.flush();
    this.write(jsonLine(e));
  }

  /** Writes the held-back ends of the streams (call before any line of the CLI's own). */
  flush(): void {
    for (const stream of this.streams.values()) {
      const rest = stream.masker.end();
      if (rest) this.write(jsonLine({ ...stream.last, delta: rest }));
    }
  }
}

interface ProgressOptions {
  write: (text: string) => void;
  style: Style;
  verbose: boolean;
  /** Known secrets (the API keys): masked in the streamed text even when split across deltas. */
  secrets?: readonly (string | undefined)[];
}

/** A stream of untrusted text on its way to the terminal: controls removed, then secrets masked across writes. */
class SafeStream {
  private strip = new ControlStripper();
  readonly masker: SecretMasker;

  constructor(secrets: readonly (string | undefined)[]) {
    this.masker = new SecretMasker(secrets);
  }

  push(delta: string): string {
    return this.masker.push(this.strip.push(delta));
  }

  end(): string {
    return this.masker.push(this.strip.end()) + this.masker.end();
  }
}

/**
 * Folds the event stream into short lines for people. Text from the model streams as it comes. Everything
 * that came from the model or a tool is printed without terminal controls (see terminal-safe.ts).
 */
export class ProgressPrinter {
  private inText = false;
  private readonly calls = new Map<string, string>();
  private readonly text: SafeStream;
  private readonly thinking: SafeStream;

  constructor(private readonly o: ProgressOptions) {
    this.text = new SafeStream(o.secrets ?? []);
    this.thinking = new SafeStream(o.secrets ?? []);
  }

  on(e: AgentEvent): void {
    const { style: s } = this.o;
    switch (e.type) {
      case 'run_start':
        this.line(s.bold(`forge: ${plain(e.mode)} mode, up to ${e.maxIterations} iterations, task ${plain(e.taskId)}`));
        break;
      case 'step_start':
        this.line(s.dim(`-- step ${e.iteration}/${e.maxIterations}`));
        break;
      case 'text_delta': {
        this.endThinking();
        this.inText = true;
        const out = this.text.push(e.delta);
        if (out) this.o.write(out);
        break;
      }
      case 'thinking_delta': {
        if (!this.o.verbose) break;
        this.endText();
        const out = this.thinking.push(e.delta);
        if (out) this.o.write(s.dim(out));
        break;
      }
      case 'tool_call_start':
      case 'step_end':
      case 'approval_requested':
        this.endStreams();
        break;
      case 'tool_call_end':
        this.calls.set(e.id, plain(`${e.name} ${summarizeArgs(e.args)}`.trim()));
        break;
      case 'tool_result': {
        const what = this.calls.get(e.id) ?? plain(e.name);
        const mark = e.isError ? s.red('x') : s.green('+');
        const first = e.isError ? ` ${s.red(firstLine(plain(e.content)))}` : '';
        this.line(`${mark} ${what} ${s.dim(`(${e.latencyMs} ms)`)}${first}`);
        if (this.o.verbose && !e.isError) this.line(s.dim(indent(plain(e.content.slice(0, 2000)))));
        break;
      }
      case 'warning':
        this.line(s.yellow(`! ${plain(e.message)}`));
        break;
      case 'plan_updated':
        this.plan(e.plan);
        break;
      case 'compaction':
        this.line(s.dim(`context compacted: ${e.beforeTokens} -> ${e.afterTokens} tokens`));
        break;
      case 'memory_recalled':
        if (e.memories.length)
          this.line(s.dim(`recalled ${e.memories.length} memor${e.memories.length === 1 ? 'y' : 'ies'}`));
        break;
      case 'memory_learned':
        for (const m of e.memories) this.line(s.dim(`learned (${plain(m.type)}): ${plain(m.content)}`));
        break;
      case 'run_end':
        this.report(e.report);
        break;
      default:
        break;
    }
  }

  /** A line of its own (ends a streaming text first). Known secrets in it are masked. */
  line(text: string): void {
    this.endStreams();
    if (this.inText) {
      this.o.write('\n');
      this.inText = false;
    }
    this.o.write(`${this.text.masker.mask(text)}\n`);
  }

  /** Prints what the streams hold back (the end of a text that could have been the start of a key). */
  endStreams(): void {
    this.endThinking();
    this.endText();
  }

  private endText(): void {
    const rest = this.text.end();
    if (rest) this.o.write(rest);
  }

  private endThinking(): void {
    const rest = this.thinking.end();
    if (rest) this.o.write(this.o.style.dim(rest));
  }

  /** The live plan as a checklist, printed again whenever the model changes it (as the panel shows it). */
  private plan(plan: Plan): void {
    const s = this.o.style;
    const mark = { done: s.green('[x]'), in_progress: s.cyan('[>]'), skipped: s.dim('[-]'), pending: '[ ]' };
    const done = plan.steps.filter((x) => x.status === 'done' || x.status === 'skipped').length;
    this.line(`${s.bold('plan:')} ${plain(plan.goal)} ${s.dim(`(${done}/${plan.steps.length})`)}`);
    for (const step of plan.steps.slice(0, 50)) this.line(`  ${mark[step.status]} ${oneLine(plain(step.text), 160)}`);
  }

  private report(r: RunReport): void {
    const s = this.o.style;
    const tokens = r.usage.inputTokens + r.usage.outputTokens;
    const cost = r.costUsd !== undefined ? `, $${r.costUsd.toFixed(4)}` : '';
    const head = r.reason === 'done' ? s.green('done') : r.reason === 'error' ? s.red(r.reason) : s.yellow(r.reason);
    this.line(
      `${s.bold('forge:')} ${head} after ${plural(r.iterations, 'iteration')}, ${tokens} tokens${cost}, ${(r.elapsedMs / 1000).toFixed(1)} s`,
    );
    if (r.detail) this.line(plain(r.detail));
  }
}

function summarizeArgs(args: unknown): string {
  if (!args || typeof args !== 'object') return '';
  const a = args as Record<string, unknown>;
  const v = a.path ?? a.command ?? a.pattern ?? a.result ?? a.question;
  return typeof v === 'string' ? oneLine(v, 100) : '';
}

function firstLine(text: string): string {
  return oneLine(text.split('\n').find((l) => l.trim()) ?? '', 160);
}

function oneLine(text: string, max: number): string {
  const t = text.replace(/\s+/g, ' ').trim();
  return t.length > max ? `${t.slice(0, max - 3)}...` : t;
}

function indent(text: string): string {
  return text
    .split('\n')
    .map((l) => `    ${l}`)
    .join('\n');
}

// What the runner prints: readable progress for people on stderr, the loop's typed events as JSON Lines on
// stdout (--json), and the exit code that says how the run ended.
import type { AgentEvent, RunReport, TerminationReason } from '../core/loop/events';
import type { Style } from './approvals';

export const EXIT = {
  done: 0,
  error: 1,
  needsInput: 2,
  stopped: 3,
  limit: 4,
  breaker: 5,
  stagnation: 6,
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

/** One JSON line per event; the CLI adds a final `{"type":"cli_exit"}` line of its own. */
export function jsonLine(value: unknown): string {
  return `${JSON.stringify(value)}\n`;
}

export interface ProgressOptions {
  write: (text: string) => void;
  style: Style;
  verbose: boolean;
}

/** Folds the event stream into short lines for people. Text from the model streams as it comes. */
export class ProgressPrinter {
  private inText = false;
  private readonly calls = new Map<string, string>();

  constructor(private readonly o: ProgressOptions) {}

  on(e: AgentEvent): void {
    const { style: s } = this.o;
    switch (e.type) {
      case 'run_start':
        this.line(s.bold(`forge: ${e.mode} mode, up to ${e.maxIterations} iterations, task ${e.taskId}`));
        break;
      case 'step_start':
        this.line(s.dim(`-- step ${e.iteration}/${e.maxIterations}`));
        break;
      case 'text_delta':
        this.inText = true;
        this.o.write(e.delta);
        break;
      case 'thinking_delta':
        if (this.o.verbose) this.o.write(s.dim(e.delta));
        break;
      case 'tool_call_end':
        this.calls.set(e.id, `${e.name} ${summarizeArgs(e.args)}`.trim());
        break;
      case 'tool_result': {
        const what = this.calls.get(e.id) ?? e.name;
        const mark = e.isError ? s.red('x') : s.green('+');
        const first = e.isError ? ` ${s.red(firstLine(e.content))}` : '';
        this.line(`${mark} ${what} ${s.dim(`(${e.latencyMs} ms)`)}${first}`);
        if (this.o.verbose && !e.isError) this.line(s.dim(indent(e.content.slice(0, 2000))));
        break;
      }
      case 'warning':
        this.line(s.yellow(`! ${e.message}`));
        break;
      case 'compaction':
        this.line(s.dim(`context compacted: ${e.beforeTokens} -> ${e.afterTokens} tokens`));
        break;
      case 'memory_recalled':
        if (e.memories.length) this.line(s.dim(`recalled ${e.memories.length} memor${e.memories.length === 1 ? 'y' : 'ies'}`));
        break;
      case 'memory_learned':
        for (const m of e.memories) this.line(s.dim(`learned (${m.type}): ${m.content}`));
        break;
      case 'run_end':
        this.report(e.report);
        break;
      default:
        break;
    }
  }

  /** A line of its own (ends a streaming text first). */
  line(text: string): void {
    if (this.inText) {
      this.o.write('\n');
      this.inText = false;
    }
    this.o.write(`${text}\n`);
  }

  private report(r: RunReport): void {
    const s = this.o.style;
    const tokens = r.usage.inputTokens + r.usage.outputTokens;
    const cost = r.costUsd !== undefined ? `, $${r.costUsd.toFixed(4)}` : '';
    const head = r.reason === 'done' ? s.green('done') : r.reason === 'error' ? s.red(r.reason) : s.yellow(r.reason);
    this.line(`${s.bold('forge:')} ${head} after ${r.iterations} iteration(s), ${tokens} tokens${cost}, ${(r.elapsedMs / 1000).toFixed(1)} s`);
    if (r.detail) this.line(r.detail);
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
  return text.split('\n').map((l) => `    ${l}`).join('\n');
}

// Run reports stored with the task: one JSON line per run in <dir>/reports/<task stem>.jsonl, the newest
// `keep` runs kept. Tool arguments are left out (they can be whole files, or hold secrets): a report says how
// the run went (per step: model latency, usage, finish reason; per call: latency, result size, error), not what
// was written. The task's history holds that.
import * as path from 'node:path';
import type { RunReport, StepReport, ToolCallReport } from '../loop/events';
import { safeFileStem, type TasksIO } from './io';
import { KeyedQueue } from './keyed-queue';

type StoredToolCall = Omit<ToolCallReport, 'args'>;
type StoredStep = Omit<StepReport, 'toolCalls'> & { toolCalls: StoredToolCall[] };
export type StoredRunReport = Omit<RunReport, 'steps'> & { steps: StoredStep[]; endedAt: number };

interface RunReportStoreOptions {
  /** Disk access: src/node/tasks-io.ts in the extension and the CLI. */
  io: TasksIO;
  /** Runs kept per task (default 50). */
  keep?: number;
  now?: () => number;
  log?: (m: string) => void;
}

function toStored(report: RunReport, endedAt: number): StoredRunReport {
  return {
    ...report,
    steps: report.steps.map((s) => ({ ...s, toolCalls: s.toolCalls.map(({ args: _args, ...c }) => c) })),
    endedAt,
  };
}

export class RunReportStore {
  private readonly io: TasksIO;
  private readonly keep: number;
  private readonly now: () => number;
  private readonly log: (m: string) => void;
  private readonly queues = new KeyedQueue();

  constructor(
    private readonly dir: string,
    opts: RunReportStoreOptions,
  ) {
    this.io = opts.io;
    this.keep = Math.max(1, opts.keep ?? 50);
    this.now = opts.now ?? Date.now;
    this.log = opts.log ?? (() => undefined);
  }

  /** Appends a run's report; past `keep` runs the oldest go (one rewrite). */
  append(taskId: string, report: RunReport): Promise<void> {
    return this.exclusive(taskId, async () => {
      const file = this.fileOf(taskId);
      await this.io.append(file, `${JSON.stringify(toStored(report, this.now()))}\n`);
      const lines = await this.lines(file);
      if (lines.length > this.keep) await this.io.writeAtomic(file, `${lines.slice(-this.keep).join('\n')}\n`);
    });
  }

  /** The task's stored reports, oldest first (unreadable lines skipped). */
  list(taskId: string): Promise<StoredRunReport[]> {
    return this.exclusive(taskId, async () => {
      const out: StoredRunReport[] = [];
      for (const line of await this.lines(this.fileOf(taskId))) {
        try {
          const r = JSON.parse(line) as StoredRunReport;
          if (r && typeof r.runId === 'string' && Array.isArray(r.steps)) out.push(r);
        } catch {
          this.log(`[reports] skipped an unreadable line for ${taskId}`);
        }
      }
      return out;
    });
  }

  removeTask(taskId: string): Promise<void> {
    return this.exclusive(taskId, () => this.io.remove(this.fileOf(taskId)));
  }

  private async lines(file: string): Promise<string[]> {
    return ((await this.io.read(file)) ?? '').split('\n').filter((l) => l.trim());
  }

  private fileOf(taskId: string): string {
    return path.join(this.dir, 'reports', `${safeFileStem(taskId)}.jsonl`);
  }

  private exclusive<T>(taskId: string, fn: () => Promise<T>): Promise<T> {
    return this.queues.run(taskId, fn);
  }
}

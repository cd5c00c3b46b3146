// Reflection: ask the memory port to learn from tool errors (bounded per run) and from the finished run.
// The run hands in a metered summarizer, so what reflection spends counts against the run's budgets and report.
import type { MemoryItem, ReflectionInput } from '../memory/port';
import type { ChatMessage } from '../model/types';
import { raceAbort } from './abort';
import type { RunReport } from './events';
import type { RunDeps, RunOptions } from './run-deps';
import { errorText } from '../error-text';

export class Reflections {
  private errorReflections = 0;
  private readonly inFlight: Promise<void>[] = [];

  constructor(
    private readonly deps: RunDeps,
    private readonly opts: RunOptions,
    private readonly history: () => readonly ChatMessage[],
    /** Why the run may not spend more (a budget is used up); no reflection then. */
    private readonly overBudget: () => string | undefined = () => undefined,
  ) {}

  /** Runs in the background (never blocks the loop); awaited before the run-end reflection. */
  onToolError(): void {
    if (!this.deps.memory || this.errorReflections >= this.deps.config.maxErrorReflectionsPerRun) return;
    if (this.overBudget()) return;
    this.errorReflections++;
    this.inFlight.push(this.reflect({ trigger: 'tool_error' }));
  }

  async atRunEnd(report: RunReport): Promise<void> {
    if (!this.deps.memory) return;
    await Promise.all(this.inFlight);
    await this.reflect({ trigger: 'run_end', report });
  }

  private async reflect(input: Pick<ReflectionInput, 'trigger' | 'report'>): Promise<void> {
    const memory = this.deps.memory;
    if (!memory) return;
    const { runId, signal } = this.opts;
    try {
      const learned: MemoryItem[] = await raceAbort(
        memory.reflect({ ...input, runId, history: [...this.history()], model: this.deps.summarizer, signal }),
        signal,
      );
      if (learned.length) {
        this.opts.emit({
          type: 'memory_learned',
          runId,
          memories: learned.map((m) => ({ id: m.id, content: m.content, type: m.type })),
        });
      }
    } catch (err) {
      const message = `Reflection (${input.trigger}) failed: ${errorText(err)}`;
      this.deps.log(message);
      this.opts.emit({ type: 'warning', runId, kind: 'other', message });
    }
  }
}

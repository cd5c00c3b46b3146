// Background tasks, each in its own git worktree (worktrees.ts), several at once under a concurrency limit.
// A task is queued, runs, commits its work on its branch and waits for the user's decision: review, apply to
// the working tree, merge the branch, or discard. No 'vscode' here: the extension (host/ui) and tests
// drive it; the Agent for a worktree comes from the injected factory.
import * as path from 'node:path';
import type { Agent } from '../core/loop/agent';
import type { AgentEvent, RunReport } from '../core/loop/events';
import {
  applyToWorkingTree,
  BRANCH_PREFIX,
  commitTaskWork,
  createTaskWorktree,
  discardTaskWorktree,
  git,
  listTaskWorktrees,
  mergeTaskBranch,
  taskChanges,
  type FileChange,
  type IntegrateResult,
  type TaskWorktree,
} from './worktrees';
import { errorText } from '../core/error-text';

type BackgroundStatus = 'queued' | 'starting' | 'running' | 'ready' | 'failed' | 'applied' | 'merged' | 'discarded';

export interface BackgroundTask {
  id: string;
  title: string;
  text: string;
  status: BackgroundStatus;
  worktree?: TaskWorktree;
  /** How the run ended (set when it did). */
  report?: RunReport;
  /** What the task changed on its branch (set when it finished). */
  changes?: FileChange[];
  error?: string;
  iteration: number;
  maxIterations: number;
  /** Set by integrate(): the files that conflicted. */
  conflicts?: string[];
}

interface ParallelTasksOptions {
  /** The user's repository (any folder inside it). */
  repo: string;
  /** Read each time a slot frees up, so a settings change applies at once. */
  maxTasks: () => number;
  /** Where worktrees go (see createTaskWorktree). */
  worktreeDir?: string;
  /** An Agent whose workspace is the worktree. */
  makeAgent(worktree: TaskWorktree, task: BackgroundTask): Agent;
  /** Status changes (queued, running, iteration, finished, integrated). */
  onChange?(task: BackgroundTask): void;
  /** Every loop event of every task. */
  onEvent?(task: BackgroundTask, event: AgentEvent): void;
  log?(message: string): void;
}

const ACTIVE: ReadonlySet<BackgroundStatus> = new Set(['starting', 'running']);

let seq = 0;

export class ParallelTasks {
  private readonly tasks = new Map<string, BackgroundTask>();
  private readonly agents = new Map<string, Agent>();
  private readonly runs = new Map<string, Promise<void>>();
  private readonly queue: string[] = [];

  constructor(private readonly o: ParallelTasksOptions) {}

  list(): BackgroundTask[] {
    return [...this.tasks.values()].map((t) => ({ ...t }));
  }

  get(id: string): BackgroundTask | undefined {
    const t = this.tasks.get(id);
    return t ? { ...t } : undefined;
  }

  get activeCount(): number {
    return [...this.tasks.values()].filter((t) => ACTIVE.has(t.status)).length;
  }

  /** Queues a task; it starts as soon as fewer than maxTasks run. */
  start(text: string, title = titleOf(text)): BackgroundTask {
    const task: BackgroundTask = {
      id: `bg-${Date.now().toString(36)}-${(++seq).toString(36)}`,
      title,
      text,
      status: 'queued',
      iteration: 0,
      maxIterations: 0,
    };
    this.tasks.set(task.id, task);
    this.queue.push(task.id);
    this.changed(task);
    this.pump();
    return { ...task };
  }

  /** Stops a running task (its work so far is committed and reviewable) or drops a queued one. */
  stop(id: string): void {
    const task = this.tasks.get(id);
    if (!task) return;
    if (task.status === 'queued') {
      this.queue.splice(this.queue.indexOf(id), 1);
      task.status = 'discarded';
      this.changed(task);
      return;
    }
    this.agents.get(id)?.stop();
  }

  /**
   * Brings back the forge/* worktrees an earlier session left (a window reload, a crash): each becomes a task
   * ready for review, with whatever its worktree holds committed on its branch. Only worktrees under
   * `worktreeDir` when one is set.
   */
  async adoptExisting(): Promise<BackgroundTask[]> {
    const known = new Set([...this.tasks.values()].map((t) => t.worktree?.path));
    const inside = (p: string) => !this.o.worktreeDir || !path.relative(this.o.worktreeDir, p).startsWith('..');
    const adopted: BackgroundTask[] = [];
    for (const wt of await listTaskWorktrees(this.o.repo)) {
      if (known.has(wt.path) || !inside(wt.path)) continue;
      const task: BackgroundTask = {
        id: `bg-${Date.now().toString(36)}-${(++seq).toString(36)}`,
        title: wt.branch.slice(BRANCH_PREFIX.length),
        text: '',
        status: 'ready',
        worktree: wt,
        iteration: 0,
        maxIterations: 0,
      };
      try {
        await commitTaskWork(wt, 'forge: work left by an earlier session');
        task.changes = await taskChanges(wt);
      } catch (err) {
        task.status = 'failed';
        task.error = errorText(err);
      }
      this.tasks.set(task.id, task);
      adopted.push({ ...task });
      this.changed(task);
    }
    return adopted;
  }

  /** Resolves when nothing is queued or running. */
  async whenIdle(): Promise<void> {
    while (this.runs.size || this.queue.length) await Promise.all([...this.runs.values()]);
  }

  apply(id: string): Promise<IntegrateResult> {
    return this.integrate(id, 'applied', applyToWorkingTree);
  }

  merge(id: string): Promise<IntegrateResult> {
    return this.integrate(id, 'merged', (wt) =>
      mergeTaskBranch(wt, `Merge ${wt.branch}: ${this.tasks.get(id)?.title ?? ''}`.trim()),
    );
  }

  async discard(id: string): Promise<void> {
    const task = this.need(id);
    if (ACTIVE.has(task.status)) throw new Error('Stop the task before discarding it.');
    if (task.worktree) await discardTaskWorktree(task.worktree);
    task.status = 'discarded';
    this.changed(task);
  }

  /** Stops every running task and waits for them (deactivate). */
  async dispose(): Promise<void> {
    this.queue.length = 0;
    for (const agent of this.agents.values()) agent.stop();
    await Promise.all([...this.runs.values()]);
  }

  private async integrate(
    id: string,
    done: BackgroundStatus,
    how: (wt: TaskWorktree) => Promise<IntegrateResult>,
  ): Promise<IntegrateResult> {
    const task = this.need(id);
    if (task.status !== 'ready' || !task.worktree)
      throw new Error(
        `Task "${task.title}" has nothing to ${done === 'applied' ? 'apply' : 'merge'} (${task.status}).`,
      );
    const result = await how(task.worktree);
    task.conflicts = result.conflicts;
    if (result.ok) {
      task.status = done;
      // The branch stays after a merge (it is history); after an apply the worktree is no longer needed.
      if (done === 'applied')
        await discardTaskWorktree(task.worktree).catch((e) =>
          this.o.log?.(`could not remove ${task.worktree?.path}: ${String(e)}`),
        );
      else await discardWorktreeKeepBranch(task.worktree, this.o.log);
    }
    this.changed(task);
    return result;
  }

  private need(id: string): BackgroundTask {
    const task = this.tasks.get(id);
    if (!task) throw new Error(`No background task ${id}`);
    return task;
  }

  private pump(): void {
    while (this.queue.length && this.activeCount < Math.max(1, this.o.maxTasks())) {
      const id = this.queue.shift()!;
      const task = this.tasks.get(id)!;
      task.status = 'starting';
      this.changed(task);
      const run = this.launch(task).finally(() => {
        this.runs.delete(id);
        this.agents.delete(id);
        this.pump();
      });
      this.runs.set(id, run);
    }
  }

  private async launch(task: BackgroundTask): Promise<void> {
    try {
      task.worktree = await createTaskWorktree(this.o.repo, task.title, { baseDir: this.o.worktreeDir });
      const agent = this.o.makeAgent(task.worktree, task);
      this.agents.set(task.id, agent);
      agent.on((e) => {
        if (e.type === 'run_start' || e.type === 'step_start') {
          task.status = 'running';
          task.iteration = e.type === 'step_start' ? e.iteration : 0;
          task.maxIterations = e.maxIterations;
          this.changed(task);
        }
        this.o.onEvent?.(task, e);
      });
      task.report = await agent.send(task.text);
      await commitTaskWork(
        task.worktree,
        `forge: ${task.title}\n\n${task.report.reason}: ${task.report.detail}`.slice(0, 4000),
      );
      task.changes = await taskChanges(task.worktree);
      task.status = 'ready';
    } catch (err) {
      task.error = errorText(err);
      task.status = 'failed';
      this.o.log?.(`background task ${task.id} failed: ${task.error}`);
    }
    this.changed(task);
  }

  private changed(task: BackgroundTask): void {
    try {
      this.o.onChange?.({ ...task });
    } catch (err) {
      this.o.log?.(`background task listener failed: ${String(err)}`);
    }
  }
}

async function discardWorktreeKeepBranch(wt: TaskWorktree, log?: (m: string) => void): Promise<void> {
  const r = await git(wt.repo, ['worktree', 'remove', '--force', wt.path]);
  if (r.code !== 0) log?.(`could not remove the worktree ${wt.path}: ${r.stderr.trim()}`);
}

function titleOf(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > 60 ? `${line.slice(0, 57)}...` : line || 'Background task';
}

// The current task and the task history: new, load, restore-at-activation. Persists through TaskStore under
// globalStorage/tasks/<workspace key> so each workspace has its own history and nothing lands in the repo.
import * as crypto from 'node:crypto';
import * as path from 'node:path';
import type { AgentEvent } from '../../core/loop/events';
import type { TaskStore, TaskSummary as StoredSummary } from '../../core/tasks/task-store';
import type { TaskSummary } from '../../protocol/messages';
import type { Transcript } from '../../panel/transcript';
import type { Logger } from '../logger';
import { TaskSession, type SessionDeps } from './session';

export interface HistorySink {
  attachTranscript(transcript: Transcript): void;
  setHistory(tasks: TaskSummary[]): void;
  /** The current task's mode (the panel's mode switch). */
  setMode?(mode: string): void;
}

export interface SessionManagerDeps {
  store: TaskStore;
  makeAgent: SessionDeps['makeAgent'];
  log: Logger;
  onEvent?: (session: TaskSession, event: AgentEvent) => void;
  /** Called when the current session changes (new task, load). */
  onSwitch?: (session: TaskSession) => void;
  saveDelayMs?: number;
}

/** Stable per-workspace key (the folder paths), so task histories of different projects never mix. */
export function workspaceKey(folders: readonly string[]): string {
  if (folders.length === 0) return 'no-workspace';
  const name = path.basename(folders[0]).replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 40) || 'workspace';
  const hash = crypto.createHash('sha256').update(folders.join('\n')).digest('hex').slice(0, 12);
  return `${name}-${hash}`;
}

export class SessionManager {
  private session: TaskSession;
  private sink: HistorySink | undefined;
  private readonly sessionDeps: SessionDeps;
  /** What the panel's history shows per task (title + status), to publish only on change. */
  private readonly published = new Map<string, string>();

  constructor(private readonly deps: SessionManagerDeps) {
    this.sessionDeps = {
      makeAgent: deps.makeAgent,
      log: deps.log,
      saveDelayMs: deps.saveDelayMs,
      // An empty task (no message yet) is not worth a history entry.
      save: async (record) => {
        const history = (record.snapshot as { history?: unknown[] }).history;
        if (!history?.length) return;
        await deps.store.save(record);
        // The panel's history list changes when a task appears, is renamed or changes status.
        const shown = `${record.title}\n${record.status}`;
        if (this.published.get(record.id) !== shown) {
          this.published.set(record.id, shown);
          void this.publishHistory();
        }
      },
      onEvent: (s, e) => deps.onEvent?.(s, e),
    };
    this.session = TaskSession.create(this.sessionDeps);
  }

  get current(): TaskSession {
    return this.session;
  }

  /** Connects the panel: it mirrors the current session's transcript and shows the history. */
  attach(sink: HistorySink): void {
    this.sink = sink;
    sink.attachTranscript(this.session.transcript);
    sink.setMode?.(this.session.dump().mode);
    void this.publishHistory();
  }

  /**
   * Restores the most recent task of this workspace (activation). A task whose run was cut by a reload comes
   * back stopped (Continue resumes it); one waiting for an approval asks again.
   */
  async restoreLatest(): Promise<TaskSession | undefined> {
    const [latest] = await this.deps.store.list();
    if (!latest) return undefined;
    return this.load(latest.id);
  }

  async load(taskId: string): Promise<TaskSession | undefined> {
    if (taskId === this.session.id) return this.session;
    const busy = 'Stop the running task before opening another one.';
    if (this.session.running) throw new Error(busy);
    const record = await this.deps.store.load(taskId);
    if (!record) return undefined;
    // A run may have started (or another task been opened) while the record was read.
    if (taskId === this.session.id) return this.session;
    if (this.session.running) throw new Error(busy);
    let next: TaskSession;
    try {
      next = TaskSession.restore(this.sessionDeps, record);
    } catch (err) {
      this.deps.log.error(`Forge could not restore task ${taskId}: ${err instanceof Error ? err.message : String(err)}`);
      throw new Error(`Task "${record.title}" could not be restored (its saved state is damaged). See the Forge log.`);
    }
    this.switchTo(next);
    return next;
  }

  /** Starts an empty task (the previous one is saved and stays in the history). */
  newTask(): TaskSession {
    this.switchTo(TaskSession.create(this.sessionDeps));
    return this.session;
  }

  /** Tasks pruned or removed from the history (TaskStore.onDidRemoveTasks). */
  onTasksRemoved(listener: (ids: string[]) => void): { dispose(): void } {
    return this.deps.store.onDidRemoveTasks(listener);
  }

  /** Deletes a task from the history (never the current one: open another first). */
  async remove(taskId: string): Promise<void> {
    if (taskId === this.session.id) throw new Error('the open task cannot be deleted');
    await this.deps.store.remove(taskId);
    this.published.delete(taskId);
    await this.publishHistory();
  }

  async history(): Promise<StoredSummary[]> {
    return this.deps.store.list();
  }

  async publishHistory(): Promise<void> {
    if (!this.sink) return;
    try {
      const tasks = await this.deps.store.list();
      this.sink.setHistory(
        tasks.map((t) => ({
          id: t.id, title: t.title.slice(0, 1000) || 'Untitled task', updatedAt: t.updatedAt, status: t.status.slice(0, 40),
          ...(t.tokens !== undefined ? { tokens: t.tokens } : {}), ...(t.costUsd !== undefined && t.costUsd >= 0 ? { costUsd: t.costUsd } : {}),
        })),
      );
    } catch (err) {
      this.deps.log.warn(`Forge could not list the task history: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  /** Saves the current task and waits for every write (deactivate). */
  async flush(): Promise<void> {
    await this.session.save();
    await this.deps.store.flush();
  }

  dispose(): void {
    this.session.dispose();
  }

  private switchTo(next: TaskSession): void {
    const prev = this.session;
    const run = prev.currentRun;
    if (run) {
      // Let the stopped run finish (it ends within a second) so its final state is what gets saved.
      prev.stop();
      void run.finally(() => prev.dispose());
    } else {
      void prev.save();
      prev.dispose();
    }
    this.session = next;
    this.sink?.attachTranscript(next.transcript);
    this.sink?.setMode?.(next.dump().mode);
    this.deps.onSwitch?.(next);
    void this.publishHistory();
  }
}

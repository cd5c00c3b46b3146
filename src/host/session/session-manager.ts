// The current task and the task history: new, load, restore-at-activation. Persists through TaskStore under
// globalStorage/tasks/<workspace key> so each workspace has its own history and nothing lands in the repo.
import * as crypto from 'node:crypto';
import * as path from 'node:path';
import type { AgentEvent } from '../../core/loop/events';
import type { LeaseInfo, TaskLeases } from '../../node/lease';
import type { StoreNotice, TaskRecord, TaskStore, TaskSummary as StoredSummary } from '../../core/tasks/task-store';
import type { TaskSummary } from '../../protocol/messages';
import type { Transcript } from '../../panel/transcript';
import type { Logger } from '../logger';
import type { StorageReporter } from '../../core/tasks/effects';
import { describeNotice, openElsewhere } from './recovery-notes';
import { TaskSession, type SessionDeps } from './task-session';
import { errorText } from '../../core/error-text';

interface HistorySink {
  attachTranscript(transcript: Transcript): void;
  setHistory(tasks: TaskSummary[]): void;
  /** The current task's mode (the panel's mode switch). */
  setMode?(mode: string): void;
}

interface SessionManagerDeps {
  store: TaskStore;
  makeAgent: SessionDeps['makeAgent'];
  log: Logger;
  onEvent?: (session: TaskSession, event: AgentEvent) => void;
  /** Called when the current session changes (new task, load). */
  onSwitch?: (session: TaskSession) => void;
  saveDelayMs?: number;
  saveRetryMs?: number;
  /** Per-task ownership between windows: a task is saved only by the window holding its lease. */
  leases?: TaskLeases;
  /** Settles what a crash cut off (edits, commands) before a saved task is restored; returns the record to restore. */
  reconcile?: (record: TaskRecord) => Promise<{ record: TaskRecord; notes: string[]; changed: boolean }>;
  /** Hears task-history write failures and recoveries (the first failure is shown in the panel). */
  storage?: StorageReporter;
}

type NoteTopic = 'storage' | 'storage-ok';

/** A task opened on storage Forge cannot write is on disk as it opened: only what is added to it waits in memory. */
const OPENED_UNWRITABLE =
  'This task is on disk as it opened; anything new in it is kept in memory until writing works again (closing VS Code before then would lose it). ';

/** Stable per-workspace key (the folder paths), so task histories of different projects never mix. */
export function workspaceKey(folders: readonly string[]): string {
  if (folders.length === 0) return 'no-workspace';
  const name =
    path
      .basename(folders[0])
      .replace(/[^A-Za-z0-9._-]/g, '_')
      .slice(0, 40) || 'workspace';
  const hash = crypto.createHash('sha256').update(folders.join('\n')).digest('hex').slice(0, 12);
  return `${name}-${hash}`;
}

export class SessionManager {
  private session: TaskSession;
  private sink: HistorySink | undefined;
  private readonly sessionDeps: SessionDeps;
  /** What the panel's history shows per task (title + status), to publish only on change. */
  private readonly published = new Map<string, string>();
  /** Tasks another window took over: this window stops saving them (it would overwrite that window's work). */
  private readonly ownedElsewhere = new Set<string>();
  /** Messages for the panel that wait until a task being opened is shown. */
  private readonly notes: { message: string; topic?: NoteTopic }[] = [];
  private opening = 0;
  private readonly noticeSub: { dispose(): void };
  /**
   * Tasks left behind (another task started or opened) while their storage could not be written: kept here, listed
   * in History and saved as soon as writing works. Dropping them would lose the conversation for good.
   */
  private readonly unsaved = new Map<string, TaskSession>();
  private unsavedTimer: ReturnType<typeof setInterval> | undefined;
  /** Tasks whose last save failed: "everything is saved" is said only once none is left. */
  private readonly failedSaves = new Set<string>();

  constructor(private readonly deps: SessionManagerDeps) {
    this.sessionDeps = {
      makeAgent: deps.makeAgent,
      log: deps.log,
      saveDelayMs: deps.saveDelayMs,
      saveRetryMs: deps.saveRetryMs,
      // An empty task (no message yet) is not worth a history entry.
      save: async (record) => {
        const history = (record.snapshot as { history?: unknown[] }).history;
        if (!history?.length || this.ownedElsewhere.has(record.id)) return;
        if (deps.leases && !(await deps.leases.confirm(record.id).catch(() => true))) {
          this.lostTask(record.id, await deps.leases.holder(record.id));
          return;
        }
        try {
          await deps.store.save(record);
        } catch (err) {
          this.failedSaves.add(record.id);
          deps.storage?.failed('the task history', err);
          throw err;
        }
        this.savedOne(record.id);
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
    // (Optional calls: stores faked in tests may predate notices and open().)
    this.noticeSub = deps.store.onNotice?.((n) => this.onStoreNotice(n)) ?? { dispose() {} };
  }

  /**
   * Shows a message in the panel (in the current task; after the switch when a task is being opened). Topic
   * 'storage': true only now (what can be written), so never saved with the task; 'storage-ok': the storage works
   * again, and the earlier storage notices go.
   */
  note(message: string, topic?: NoteTopic): void {
    this.notes.push({ message, topic });
    if (!this.opening) this.flushNotes();
  }

  private flushNotes(): void {
    for (const { message, topic } of this.notes.splice(0))
      if (topic) this.session.transcript.storageNote(message, topic === 'storage-ok');
      else this.session.transcript.addError(message, ['show_logs']);
  }

  private onStoreNotice(n: StoreNotice): void {
    this.note(describeNotice(n));
    void this.publishHistory();
  }

  /** Another window took this task over: stop saving it here and say so (once). */
  private lostTask(taskId: string, holder: LeaseInfo | undefined): void {
    if (this.ownedElsewhere.has(taskId)) return;
    this.ownedElsewhere.add(taskId);
    this.deps.log.warn(
      `task ${taskId} is now owned by another window (${holder?.label ?? holder?.owner ?? 'unknown'}); not saving it here`,
    );
    this.note(
      'Another VS Code window opened this task and now owns it. This window no longer saves it, so neither window overwrites the other; continue it in that window, or start a new task here.',
    );
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
   * back stopped (Continue resumes it); one waiting for an approval asks again. A task open in another window is
   * left to it (this window starts empty and says so); a damaged one that held nothing gives way to the next.
   */
  async restoreLatest(): Promise<TaskSession | undefined> {
    // Notices of the store's open (a damaged task kept aside) wait for the task this shows.
    this.opening++;
    try {
      return await this.restoreLatestNow();
    } finally {
      if (--this.opening === 0) this.flushNotes();
    }
  }

  private async restoreLatestNow(): Promise<TaskSession | undefined> {
    for (const latest of (await this.deps.store.list()).slice(0, 5)) {
      const holder =
        this.deps.leases && !this.deps.leases.holds(latest.id) ? await this.deps.leases.holder(latest.id) : undefined;
      if (holder) {
        this.note(
          `Your latest task "${latest.title}" is open in another VS Code window, so this window starts a new task. ${openElsewhere(holder, false)}`,
        );
        return undefined;
      }
      try {
        const restored = await this.load(latest.id);
        if (restored) return restored;
      } catch (err) {
        // Damaged beyond recovery or unreadable: the next newest task is restored instead, and the panel says why.
        const reason = errorText(err);
        this.deps.log.warn(`could not restore task ${latest.id}: ${reason}`);
        this.note(`Forge could not reopen your latest task "${latest.title}": ${reason}`);
        if (this.session.running) return undefined;
      }
    }
    return undefined;
  }

  async load(taskId: string): Promise<TaskSession | undefined> {
    if (taskId === this.session.id) return this.session;
    const busy = 'Stop the running task before opening another one.';
    if (this.session.running) throw new Error(busy);
    const kept = this.unsaved.get(taskId);
    if (kept) {
      // Never saved: its only copy is this window's memory.
      this.unsaved.delete(taskId);
      const next = TaskSession.restore(this.sessionDeps, kept.record(), []);
      this.switchTo(next);
      void next.save();
      return next;
    }
    this.opening++;
    try {
      return await this.loadNow(taskId, busy);
    } finally {
      if (--this.opening === 0) this.flushNotes();
    }
  }

  private async loadNow(taskId: string, busy: string): Promise<TaskSession | undefined> {
    const { leases } = this.deps;
    if (leases) {
      const lease = await leases.acquire(taskId).catch((err: unknown) => ({ ok: 'unwritable' as const, err }));
      if (lease.ok === 'unwritable') {
        // Storage read-only or full: no window can save this task, so it opens here, in memory, and the panel says so.
        this.deps.log.warn(`no lease for task ${taskId}: ${errorText(lease.err)}`);
        this.deps.storage?.failed('the task history', lease.err, OPENED_UNWRITABLE);
      } else if (!lease.ok) throw new Error(openElsewhere(lease.holder, true));
      this.ownedElsewhere.delete(taskId);
    }
    let keep = false;
    try {
      const opened = this.deps.store.open
        ? await this.deps.store.open(taskId)
        : { record: await this.deps.store.load(taskId) };
      if (!opened.record) {
        if (opened.error) throw new Error(`Forge could not read this task: ${opened.error}. See the Forge log.`);
        if (opened.damage) throw new Error(describeNotice(opened.damage));
        return undefined;
      }
      let record = opened.record;
      // A run may have started (or another task been opened) while the record was read.
      if (taskId === this.session.id) return this.session;
      if (this.session.running) throw new Error(busy);
      let reconciled: { notes: string[]; changed: boolean } = { notes: [], changed: false };
      if (this.deps.reconcile) {
        try {
          const r = await this.deps.reconcile(record);
          record = r.record;
          reconciled = r;
        } catch (err) {
          this.deps.log.error(`Forge could not reconcile task ${taskId} with the disk: ${errorText(err)}`);
        }
      }
      let next: TaskSession;
      try {
        next = TaskSession.restore(this.sessionDeps, record, reconciled.notes);
      } catch (err) {
        this.deps.log.error(`Forge could not restore task ${taskId}: ${errorText(err)}`);
        throw new Error(
          `Task "${record.title}" could not be restored (its saved state is damaged). See the Forge log.`,
          { cause: err },
        );
      }
      keep = true;
      this.switchTo(next);
      if (reconciled.changed || opened.damage) void next.save();
      return next;
    } finally {
      if (!keep && leases && taskId !== this.session.id) void leases.release(taskId);
    }
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
      const stored = await this.deps.store.list();
      const kept = [...this.unsaved.values()].filter((u) => !stored.some((t) => t.id === u.id)).map((u) => u.record());
      const tasks = [...kept, ...stored].sort((a, b) => b.updatedAt - a.updatedAt);
      this.sink.setHistory(
        tasks.map((t) => ({
          id: t.id,
          title: t.title.slice(0, 1000) || 'Untitled task',
          updatedAt: t.updatedAt,
          status: t.status.slice(0, 40),
          ...(t.tokens !== undefined ? { tokens: t.tokens } : {}),
          ...(t.costUsd !== undefined && t.costUsd >= 0 ? { costUsd: t.costUsd } : {}),
        })),
      );
    } catch (err) {
      this.deps.log.warn(`Forge could not list the task history: ${errorText(err)}`);
    }
  }

  /** Saves the current task and waits for every write (deactivate). */
  async flush(): Promise<void> {
    await Promise.all([...this.unsaved.values()].map((u) => u.save()));
    await this.session.save();
    await this.deps.store.flush();
  }

  dispose(): void {
    if (this.unsavedTimer) clearInterval(this.unsavedTimer);
    this.noticeSub.dispose();
    this.session.dispose();
  }

  private releaseLease(taskId: string): void {
    if (taskId !== this.session.id) void this.deps.leases?.release(taskId).catch(() => undefined);
  }

  private switchTo(next: TaskSession): void {
    const prev = this.session;
    const run = prev.currentRun;
    const saveLeft = () =>
      void prev.save().then(() => (prev.unsaved ? this.keepUnsaved(prev) : this.releaseLease(prev.id)));
    if (run) {
      // Let the stopped run finish (it ends within a second) so its final state is what gets saved.
      prev.stop();
      void run.finally(() => {
        prev.dispose();
        saveLeft();
      });
    } else {
      saveLeft();
      prev.dispose();
    }
    this.session = next;
    this.sink?.attachTranscript(next.transcript);
    this.sink?.setMode?.(next.dump().mode);
    this.deps.onSwitch?.(next);
    void this.publishHistory();
  }

  /** A task left behind that could not be saved: kept in memory, in History, and saved once writing works. */
  private keepUnsaved(prev: TaskSession): void {
    if (this.unsaved.has(prev.id)) return;
    this.unsaved.set(prev.id, prev);
    this.note(
      `Task "${prev.record().title}" could not be saved, so Forge keeps it in this window's memory (it is in History) and saves it as soon as writing works again. Do not close VS Code until then.`,
      'storage',
    );
    void this.publishHistory();
    this.unsavedTimer ??= setInterval(() => void this.retryUnsaved(), this.deps.saveRetryMs ?? 10_000);
  }

  /**
   * One task saved is not all of them: the others whose saves failed (the current one, those left behind) are saved
   * now rather than at their next retry, and the panel hears that the history is saved only when none is left.
   */
  private savedOne(taskId: string): void {
    this.failedSaves.delete(taskId);
    // A task neither open nor kept in memory any more (deleted, or another window took it) waits for nothing.
    for (const id of this.failedSaves) if (id !== this.session.id && !this.unsaved.has(id)) this.failedSaves.delete(id);
    if (!this.failedSaves.size) {
      this.deps.storage?.succeeded('the task history');
      return;
    }
    if (this.failedSaves.has(this.session.id)) void this.session.save();
    if (this.unsaved.size) void this.retryUnsaved();
  }

  private async retryUnsaved(): Promise<void> {
    for (const [id, kept] of this.unsaved) {
      await kept.save();
      if (kept.unsaved || this.unsaved.get(id) !== kept) continue;
      this.unsaved.delete(id);
      this.releaseLease(id);
      this.deps.log.info(`task ${id}, kept in memory, is saved now`);
    }
    if (!this.unsaved.size && this.unsavedTimer) {
      clearInterval(this.unsavedTimer);
      this.unsavedTimer = undefined;
    }
  }
}

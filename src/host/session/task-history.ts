// The task history: opening a saved task, the palette's history picker, deleting a task, and the edit journal
// following the history (tasks pruned or removed take their recorded edits along).
import * as vscode from 'vscode';
import type { EditJournal } from '../../core/tasks/journal';
import type { ImageStore } from '../../node/image-store';
import type { ForgePanelProvider } from '../../panel/provider';
import type { WebviewHandlers } from '../../panel/webview-handlers';
import type { CommandHandlers } from '../ui/commands';
import type { Logger } from '../logger';
import { pickTask } from '../ui/pickers';
import type { Recovery } from './recovery';
import type { TaskSession } from './task-session';
import type { SessionManager } from './session-manager';
import { errorText } from '../../core/error-text';

interface TaskHistoryDeps {
  manager: SessionManager;
  journal: EditJournal;
  log: Logger;
  recovery?: Pick<Recovery, 'forgetTasks'>;
  /** The image store: images only removed tasks named go with its next collection. */
  images?: Partial<Pick<ImageStore, 'collectGarbageSoon' | 'put'>>;
}

export class TaskHistory {
  private removals: { dispose(): void };

  constructor(
    private readonly deps: () => TaskHistoryDeps,
    private readonly panel: () => ForgePanelProvider | undefined,
    /** A loaded task that waited for an approval asks again. */
    private readonly resumeIfPending: () => unknown,
  ) {
    const { manager, journal } = deps();
    this.removals = manager.onTasksRemoved((ids) => this.forgetEdits(ids));
    // Blobs of tasks that left the history while Forge was not running: reclaim them in the background.
    journal.collectGarbageSoon();
  }

  /** Follows a new session manager's removals instead of the old one's (tests simulate a reload). */
  follow(manager: SessionManager): void {
    this.removals.dispose();
    this.removals = manager.onTasksRemoved((ids) => this.forgetEdits(ids));
  }

  async load(id: string): Promise<TaskSession | undefined> {
    const session = await this.deps().manager.load(id);
    if (!session) {
      void vscode.window.showWarningMessage('Forge: that task is no longer in the history.');
      await this.deps().manager.publishHistory();
      return undefined;
    }
    await this.panel()?.reveal();
    void this.resumeIfPending();
    return session;
  }

  async show(): Promise<void> {
    // The panel has its own searchable history: open it there; the quick pick serves when there is no panel.
    const panel = this.panel();
    if (panel) {
      await panel.reveal();
      panel.post({ type: 'show', view: 'history' });
      return;
    }
    const id = await pickTask(await this.deps().manager.history());
    if (id) await this.load(id);
  }

  async remove(taskId: string): Promise<void> {
    const { manager } = this.deps();
    if (taskId === manager.current.id) {
      if (manager.current.running) throw new Error('stop it first');
      manager.newTask();
    }
    await manager.remove(taskId);
  }

  /** Tasks pruned or removed from the history take their edit journal along (their blobs go with the next GC). */
  private forgetEdits(ids: string[]): void {
    const { manager, journal, recovery, log, images } = this.deps();
    // The open task may have been pruned before its next save brings it back: keep its undo.
    const gone = ids.filter((id) => id !== manager.current.id);
    if (!gone.length) return;
    recovery?.forgetTasks(gone);
    images?.collectGarbageSoon?.();
    void Promise.all(gone.map((id) => journal.removeTask(id))).then(
      () => journal.collectGarbageSoon(),
      (err) => log.warn(`edit journal: could not remove pruned tasks: ${errorText(err)}`),
    );
  }
}

type PanelOf = () => ForgePanelProvider | undefined;

export const historyMessages = (history: TaskHistory, manager: () => SessionManager, panel: PanelOf) =>
  ({
    new_task: () => {
      manager().newTask();
    },
    load_task: (m) => void history.load(m.id).catch((err) => panel()?.showError(errorText(err))),
    delete_task: (m) =>
      void history
        .remove(m.id)
        .catch((err) => panel()?.showError(`Forge could not delete that task: ${errorText(err)}`)),
  }) satisfies Partial<WebviewHandlers>;

export const historyCommands = (history: TaskHistory) =>
  ({
    'forge.showTaskHistory': () => history.show(),
  }) satisfies Partial<CommandHandlers>;

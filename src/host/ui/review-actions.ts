// The controller's review half: per-hunk decisions between the panel and the diff editor (the approval card
// mirrors DiffApproval's state), and a task's changes at a glance (the completion block, the multi-file diff,
// undo or keep one file).
import * as vscode from 'vscode';
import { hunkViews } from '../../core/review/hunks';
import type { EditJournal, JournalFs } from '../../core/tasks/journal';
import type { WebviewHandlers, WebviewMessageOf } from '../../panel/webview-handlers';
import type { HunkState } from '../../protocol/messages';
import type { CommandHandlers } from './commands';
import type { SessionManager } from '../session/session-manager';
import type { Toolkit } from '../wiring/toolkit';
import { errorText } from '../../core/error-text';

type ChangesAction = WebviewMessageOf<'changes_action'>['action'];

interface ReviewDeps {
  manager: SessionManager;
  toolkit: Toolkit;
  journal: EditJournal;
  log: { warn(m: string): void };
}

export class ReviewActions {
  private readonly subscription: vscode.Disposable | undefined;

  constructor(private readonly deps: () => ReviewDeps) {
    const { toolkit } = deps();
    // A decision on a hunk, from the panel or the diff editor: the approval card shows it. (Test doubles of the
    // toolkit may come without a diff surface.)
    this.subscription = toolkit.diffApproval?.onDidChangeHunks((review) => {
      const views = hunkViews(review.original, review.hunks, review.decisions);
      this.deps().manager.current.transcript.setHunkReview(review.id, views);
    });
  }

  onHunkDecision(requestId: string, index: number, state: HunkState, reason?: string): void {
    if (!this.deps().toolkit.diffApproval.setHunk(requestId, index, state, reason)) {
      this.deps().log.warn(`hunk ${index + 1} of ${requestId} was decided but the proposal is no longer pending`);
    }
  }

  /** After a run: the task's changed files as the completion block (nothing when the task changed nothing). */
  async showChanges(taskId = this.deps().manager.current.id): Promise<void> {
    const { manager, toolkit, journal } = this.deps();
    try {
      const { views } = await toolkit.taskChanges.list(journal, taskId);
      if (manager.current.id !== taskId) return;
      manager.current.transcript.setChanges(taskId, views);
    } catch (err) {
      this.deps().log.warn(`task changes: ${errorText(err)}`);
    }
  }

  /** Clears the per-file marks of the previous run's block (a new run gets a fresh one). */
  onRunStart(taskId: string): void {
    this.deps().toolkit.taskChanges?.clearMarks(taskId);
  }

  async reviewTaskChanges(taskId = this.deps().manager.current.id): Promise<boolean> {
    const { toolkit, journal } = this.deps();
    const shown = await toolkit.taskChanges.view(journal, taskId);
    if (!shown)
      void vscode.window.showInformationMessage(
        'Forge: this task has not changed any files (or its changes were undone).',
      );
    return shown;
  }

  onChangesAction(taskId: string, action: ChangesAction, path?: string): void {
    void this.changesAction(taskId, action, path).catch((err) =>
      this.deps().log.warn(`task changes (${action}): ${errorText(err)}`),
    );
  }

  private async changesAction(taskId: string, action: ChangesAction, path?: string): Promise<void> {
    const { toolkit, journal } = this.deps();
    // Only files the journal says the task changed: the path comes from the webview.
    const known =
      path === undefined
        ? undefined
        : (await toolkit.taskChanges.list(journal, taskId)).views.find((v) => v.path === path)?.path;
    switch (action) {
      case 'view':
        await this.reviewTaskChanges(taskId);
        return;
      case 'open':
        if (known) await toolkit.taskChanges.open(journal, taskId, known);
        return;
      case 'keep':
        if (known) toolkit.taskChanges.keep(taskId, known);
        break;
      case 'undo':
        if (known) await toolkit.taskChanges.undo(journal, taskId, known, this.journalFs());
        break;
    }
    await this.showChanges(taskId);
  }

  private journalFs(): JournalFs {
    const fs = this.deps().toolkit.fs;
    return {
      read: async (p) => ((await fs.stat(p)) ? new TextDecoder().decode(await fs.readFile(p)) : null),
      write: (p, content) => fs.writeFile(p, new TextEncoder().encode(content)),
      remove: (p) => Promise.resolve(vscode.workspace.fs.delete(vscode.Uri.file(p), { useTrash: false })),
    };
  }

  dispose(): void {
    this.subscription?.dispose();
  }
}

export const reviewMessages = (review: ReviewActions) =>
  ({
    hunk_decision: (m) => review.onHunkDecision(m.requestId, m.index, m.state, m.reason),
    changes_action: (m) => review.onChangesAction(m.taskId, m.action, m.path),
  }) satisfies Partial<WebviewHandlers>;

export const reviewCommands = (review: ReviewActions) =>
  ({
    'forge.reviewTaskChanges': (taskId?: unknown) =>
      review.reviewTaskChanges(typeof taskId === 'string' ? taskId : undefined),
  }) satisfies Partial<CommandHandlers>;

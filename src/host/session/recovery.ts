// Recover and review after the fact: checkpoint restore (from the transcript's "Restore to here" or the
// forge.restoreCheckpoint command) and its redo, the user's plan edits, the audit trail's host facts (files written,
// restores, undos), and the read-only views "Show Audit Log" and "Show Run Report".
import * as vscode from 'vscode';
import type { AnswerLog } from '../../core/tasks/answer-log';
import type { AuditTrail } from '../../core/audit/audit-trail';
import type { AgentEvent } from '../../core/loop/events';
import {
  checkpointOfToolCall,
  deriveCheckpoints,
  restoreToCheckpoint,
  stepKeysFromHistory,
  type Checkpoint,
  type RestoreConflict,
  type RestoreOutcome,
} from '../../core/tasks/checkpoints';
import type { EditJournal, JournalEntry, JournalFs, UndoResult } from '../../core/tasks/journal';
import type { CommandFileChange } from '../../core/workspace/types';
import { runReportMarkdown } from '../../core/tasks/run-report-format';
import type { RunReportStore } from '../../core/tasks/run-reports';
import type { Logger } from '../logger';
import { showReadOnly } from '../edits/readonly-docs';
import { countOf } from '../../protocol/format';
import type { TaskSession } from './task-session';
import type { SessionManager } from './session-manager';
import { errorText } from '../../core/error-text';

interface RecoveryDeps {
  manager: () => SessionManager;
  journal: EditJournal;
  audit: AuditTrail;
  reports: RunReportStore;
  journalFs: JournalFs;
  /** The audit log files, newest first. */
  auditFiles: () => Promise<string[]>;
  log: Logger;
  /** Files of the task were restored, undone or redone: the task's changes block is computed again. */
  onFilesMoved?: (taskId: string) => void;
  /** Records each restore before a file moves, so one a crash cuts off is told at the next restore of the task. */
  answers?: AnswerLog;
}

export interface RestoreArgs {
  taskId?: string;
  /** The checkpoint's number (1-based, in task order) ... */
  step?: number;
  /** ... or a tool call of its step. */
  toolCallId?: string;
  /** Rewind the conversation to the checkpoint too. Asked when `confirm` is on and this is not given. */
  rewind?: boolean;
  /** Files the user changed since: ask per file (default), overwrite them all, or keep them all. */
  conflicts?: 'ask' | 'overwrite' | 'skip';
  /** Ask before restoring (default true). */
  confirm?: boolean;
}

type RestoreReport = RestoreOutcome & { rewoundMessages?: number };

const rel = (p: string) => vscode.workspace.asRelativePath(p, false);

export class Recovery {
  /** One restore at a time (a double click must not ask twice or restore twice). */
  private restoring: Promise<unknown> | undefined;

  /** The restore's intent, durable before any file moves (never blocks the restore if it cannot be written). */
  private async restoreBegun(
    taskId: string,
    files: readonly string[],
    rewind: boolean,
    toSeq: number,
  ): Promise<() => Promise<void>> {
    const done = await this.deps.answers
      ?.restoreBegun(taskId, files.map(rel), rewind, { toSeq, paths: [...files] })
      .catch(() => undefined);
    return done ?? (async () => undefined);
  }

  constructor(private readonly deps: RecoveryDeps) {}

  private session(taskId: string): TaskSession | undefined {
    const s = this.deps.manager().current;
    return s.id === taskId ? s : undefined;
  }

  /** The task's checkpoints (steps that changed files), oldest first. */
  async checkpoints(taskId: string): Promise<Checkpoint[]> {
    const entries = await this.deps.journal.entries(taskId);
    return deriveCheckpoints(entries, stepKeysFromHistory(this.session(taskId)?.history ?? []));
  }

  async checkpointsOfCurrent(): Promise<Checkpoint[]> {
    return this.checkpoints(this.deps.manager().current.id);
  }

  /** Tasks that left the history take their run reports along (the audit log keeps its lines: it is append-only). */
  forgetTasks(ids: readonly string[]): void {
    for (const id of ids)
      this.deps.reports
        .removeTask(id)
        .catch((err) => this.deps.log.warn(`run report: could not remove ${id}: ${errorText(err)}`));
  }

  /** Every agent event of a session: the audit trail's subscription, and run reports stored with the task. */
  onAgentEvent(session: TaskSession, e: AgentEvent): void {
    this.deps.audit.onEvent(session.id, e);
    if (e.type === 'run_end') {
      this.deps.reports
        .append(session.id, e.report)
        .catch((err) => this.deps.log.warn(`run report: could not store it: ${errorText(err)}`));
    }
  }

  /** An accepted edit reached the journal: its card becomes a checkpoint, and the audit trail records the hashes. */
  onFileRecorded(entry: Pick<JournalEntry, 'taskId' | 'path' | 'before' | 'after' | 'toolCallId'>): void {
    this.deps.audit.fileWritten(entry);
    if (entry.toolCallId) this.session(entry.taskId)?.transcript.annotateTool(entry.toolCallId, { checkpoint: true });
  }

  /**
   * A command changed files: listed on its card. With the exact changes of its write layer, the texts go into the
   * edit journal, so its step is a checkpoint and Undo puts them back (all but binary or large files).
   */
  onCommandChanges(
    taskId: string,
    toolCallId: string,
    files: string[],
    more: number,
    changes?: CommandFileChange[],
  ): void {
    this.deps.audit.note('command_changes', { taskId, toolCallId, files: files.slice(0, 200), more });
    const annotate = (patch: { checkpoint?: boolean; changedFilesUntracked?: number }) =>
      this.session(taskId)?.transcript.annotateTool(toolCallId, {
        changedFiles: files.slice(0, 200),
        ...(more ? { changedFilesMore: more } : {}),
        ...patch,
      });
    if (!changes) return void annotate({});
    const tracked = changes.filter((c) => c.before !== undefined && c.after !== undefined && c.before !== c.after);
    const untracked = changes.filter((c) => c.before === undefined || c.after === undefined).length;
    void (async () => {
      let recorded = 0;
      for (const c of tracked) {
        try {
          const entry = { taskId, path: c.path, before: c.before ?? null, after: c.after ?? null, toolCallId };
          await this.deps.journal.record(entry);
          this.deps.audit.fileWritten(entry);
          recorded++;
        } catch (err) {
          this.deps.log.warn(`edit journal: could not record ${c.path} (changed by a command): ${errorText(err)}`);
        }
      }
      annotate({
        ...(recorded ? { checkpoint: true } : {}),
        changedFilesUntracked: untracked + (tracked.length - recorded),
      });
    })();
  }

  /** The panel's plan checklist was edited. */
  editPlan(taskId: string | undefined, plan: unknown): void {
    const session = this.session(taskId ?? this.deps.manager().current.id);
    if (!session) {
      this.deps.log.warn(`plan edit for task ${taskId} ignored: it is not the open task`);
      return;
    }
    try {
      session.setPlan(plan);
    } catch (err) {
      session.transcript.addError(`Forge could not take that plan edit: ${errorText(err)}`);
    }
  }

  /** "Restore to here" from the panel: asks, then restores (per-file questions for files changed since). */
  async restoreFromPanel(taskId: string | undefined, toolCallId: string): Promise<void> {
    try {
      await this.restore({ taskId, toolCallId });
    } catch (err) {
      this.deps.log.error(`restore checkpoint failed: ${errorText(err)}`);
      void vscode.window.showErrorMessage(`Forge could not restore the checkpoint: ${errorText(err)}`);
    }
  }

  /** forge.restoreCheckpoint. Resolves with what was done, or undefined when cancelled / nothing to restore. */
  async restore(args: RestoreArgs = {}): Promise<RestoreReport | undefined> {
    if (this.restoring) {
      void vscode.window.showInformationMessage('Forge is already restoring a checkpoint.');
      return undefined;
    }
    const run = this.restoreNow(args);
    this.restoring = run;
    try {
      return await run;
    } finally {
      this.restoring = undefined;
    }
  }

  private async restoreNow(args: RestoreArgs): Promise<RestoreReport | undefined> {
    const taskId = args.taskId ?? this.deps.manager().current.id;
    const session = this.session(taskId);
    if (session?.running) {
      void vscode.window.showWarningMessage('Forge is working on this task: stop it before restoring a checkpoint.');
      return undefined;
    }
    const all = await this.checkpoints(taskId);
    const cp =
      args.toolCallId !== undefined
        ? checkpointOfToolCall(all, args.toolCallId)
        : all.find((c) => c.step === args.step);
    if (!cp) {
      void vscode.window.showWarningMessage(
        all.length
          ? 'Forge: that checkpoint does not exist in this task.'
          : 'Forge: this task has no checkpoints (it changed no files).',
      );
      return undefined;
    }
    const later = all.filter((c) => c.step > cp.step && !c.undone);
    const files = [...new Set(later.flatMap((c) => c.paths))];
    let rewind = args.rewind;
    // The newest checkpoint: the files are as they were after that step already. Nothing to restore is said as
    // such (it used to run and report "Restored 0 file(s)"); only rewinding the conversation is left to offer.
    if (!files.length && (!session || rewind === false)) {
      void vscode.window.showInformationMessage(
        "Forge: nothing to restore: no file changed after that step (it is the task's latest checkpoint).",
      );
      return undefined;
    }
    if (args.confirm !== false) {
      // No step or checkpoint numbers: the transcript shows neither; "that step" is the row the user clicked.
      const filesOnly = 'Restore Files';
      const withRewind = files.length ? 'Restore Files and Rewind Conversation' : 'Rewind Conversation';
      const detail = files.length
        ? `These files go back to how they were after that step:\n${files.map(rel).join('\n')}`
        : 'No file changed after that step: the files are as they were then.';
      const buttons = !files.length
        ? [withRewind]
        : session
          ? rewind === undefined
            ? [filesOnly, withRewind]
            : [rewind ? withRewind : filesOnly]
          : [filesOnly];
      const pick = await vscode.window.showWarningMessage(
        files.length
          ? "Restore this task's files to how they were after that step?"
          : 'Rewind the conversation to that step?',
        { modal: true, detail: `${detail}\n\nRewinding the conversation also removes the messages after that step.` },
        ...buttons,
      );
      if (!pick) return undefined;
      rewind = pick === withRewind;
    }
    const ended = await this.restoreBegun(taskId, files, !!rewind, cp.toSeq);
    const outcome: RestoreReport = await restoreToCheckpoint(
      this.deps.journal,
      taskId,
      cp,
      this.deps.journalFs,
      (conflicts) => this.decide(conflicts, args.conflicts ?? 'ask'),
    );
    if (rewind && session) {
      outcome.rewoundMessages = session.rewindToStep(cp.toolCallIds);
      if (outcome.rewoundMessages === undefined)
        void vscode.window.showWarningMessage(
          'Forge restored the files, but could not rewind the conversation: that step was compacted into a summary.',
        );
    }
    this.mark(taskId, 'restore', outcome, cp.step);
    await ended();
    const changed = outcome.restored.length + outcome.deleted.length;
    if (session && changed && outcome.rewoundMessages === undefined) {
      const list = [...outcome.restored, ...outcome.deleted].map(rel).join(', ');
      session.addNote(
        `The user restored the files to checkpoint ${cp.step} (the end of an earlier step); your later edits to ${list} were undone. Re-read files before editing them.`,
      );
    }
    const kept = outcome.skipped.length ? `; kept your changes to ${countOf(outcome.skipped.length, 'file')}` : '';
    const failed = outcome.conflicts.length
      ? `; ${outcome.conflicts.length} could not be restored (see the transcript)`
      : '';
    void vscode.window.showInformationMessage(
      `Forge restored ${countOf(changed, 'file')} to how they were after that step${kept}${failed}.`,
    );
    return outcome;
  }

  /**
   * Edit and resend with its files: every edit `toolCallIds` made, and everything after them, is undone. A file
   * the user changed since is asked about, as in a restore. undefined when those calls changed no file.
   */
  async restoreBeforeCalls(taskId: string, toolCallIds: readonly string[]): Promise<RestoreReport | undefined> {
    const ids = new Set(toolCallIds);
    const entries = await this.deps.journal.entries(taskId);
    const mine = entries.filter((e) => e.toolCallId !== undefined && ids.has(e.toolCallId) && !e.undone);
    if (!mine.length) return undefined;
    const toSeq = Math.min(...mine.map((e) => e.seq)) - 1;
    const before = { step: 0, toolCallIds: [], paths: [], toSeq, at: 0, undone: false };
    // Every file edited since goes back, not only those of these calls: the intent names them all.
    const files = new Set(entries.filter((e) => e.seq > toSeq && !e.undone).map((e) => e.path));
    const ended = await this.restoreBegun(taskId, [...files], true, toSeq);
    const outcome = await restoreToCheckpoint(this.deps.journal, taskId, before, this.deps.journalFs, (c) =>
      this.decide(c, 'ask'),
    );
    this.mark(taskId, 'restore', outcome);
    await ended();
    return outcome;
  }

  /** "Redo" on a restore or undo mark: the edits it took back are put back (the files; a rewound conversation stays). */
  async redoFromPanel(taskId: string | undefined): Promise<void> {
    if (this.restoring) {
      void vscode.window.showInformationMessage('Forge is already restoring files.');
      return;
    }
    const run = this.redo(taskId ?? this.deps.manager().current.id);
    this.restoring = run;
    try {
      await run;
    } catch (err) {
      this.deps.log.error(`redo failed: ${errorText(err)}`);
      void vscode.window.showErrorMessage(`Forge could not redo: ${errorText(err)}`);
    } finally {
      this.restoring = undefined;
    }
  }

  /** Resolves with what was put back, or undefined when there was nothing to redo or the task is running. */
  async redo(taskId: string, conflicts: 'ask' | 'overwrite' | 'skip' = 'ask'): Promise<UndoResult | undefined> {
    const session = this.session(taskId);
    if (session?.running) {
      void vscode.window.showWarningMessage('Forge is working on this task: stop it before redoing.');
      return undefined;
    }
    if (!(await this.deps.journal.canRedo(taskId))) {
      session?.transcript.markRedone(true);
      void vscode.window.showInformationMessage('Forge: nothing to redo in this task.');
      return undefined;
    }
    const first = await this.deps.journal.redoLastUndo(taskId, this.deps.journalFs);
    const changedByUser = first.conflicts.filter((c) => /since it was restored/.test(c.reason));
    const outcome = {
      ...first,
      conflicts: first.conflicts.filter((c) => !changedByUser.includes(c)),
      skipped: [] as string[],
      overwritten: [] as string[],
    };
    if (changedByUser.length) {
      const chosen = new Set(await this.decide(changedByUser, conflicts, 'redo'));
      outcome.skipped = changedByUser.filter((c) => !chosen.has(c.path)).map((c) => c.path);
      if (chosen.size) {
        const forced = await this.deps.journal.redoLastUndo(taskId, this.deps.journalFs, {
          force: true,
          paths: [...chosen],
        });
        outcome.restored.push(...forced.restored);
        outcome.deleted.push(...forced.deleted);
        outcome.overwritten = [...forced.restored, ...forced.deleted];
        outcome.conflicts.push(...forced.conflicts);
      }
    }
    const left = await this.deps.journal.canRedo(taskId);
    if (outcome.restored.length + outcome.deleted.length || !left) session?.transcript.markRedone(!left);
    this.mark(taskId, 'redo', outcome);
    const back = [...outcome.restored, ...outcome.deleted];
    if (session && back.length)
      session.addNote(
        `The user redid your edits that a restore had undone: ${back.map(rel).join(', ')} are back as you left them. Re-read files before editing them.`,
      );
    const kept = outcome.skipped.length ? `; kept your changes to ${countOf(outcome.skipped.length, 'file')}` : '';
    const failed = outcome.conflicts.length
      ? `; ${outcome.conflicts.length} could not be redone (see the transcript)`
      : '';
    void vscode.window.showInformationMessage(
      `Forge put the task's edits back in ${countOf(back.length, 'file')}${kept}${failed}.`,
    );
    return outcome;
  }

  /** "Undo Task Changes" leaves the same mark as a restore. */
  markUndo(taskId: string, result: UndoResult | undefined): void {
    if (!result || result.restored.length + result.deleted.length + result.conflicts.length === 0) return;
    this.mark(taskId, 'undo', { ...result, skipped: [], overwritten: [] });
    if (result.restored.length + result.deleted.length)
      this.session(taskId)?.addNote(
        'The user undid all of your file changes in this task. Re-read files before editing them.',
      );
  }

  async showAuditLog(): Promise<void> {
    await this.deps.audit.flush();
    const files = await this.deps.auditFiles();
    if (!files.length) {
      void vscode.window.showInformationMessage('Forge has not recorded any action in this workspace yet.');
      return;
    }
    await showReadOnly(
      'audit.jsonl',
      async () => (await vscode.workspace.fs.readFile(vscode.Uri.file(files[0]))).toString(),
      'jsonl',
    );
  }

  async showRunReport(taskId?: string): Promise<string> {
    const session = this.deps.manager().current;
    const id = taskId ?? session.id;
    const title = id === session.id ? session.record().title : id;
    const md = runReportMarkdown(title, await this.deps.reports.list(id));
    await showReadOnly(`run-report-${id}.md`, async () => md, 'markdown');
    return md;
  }

  private async decide(
    conflicts: RestoreConflict[],
    how: 'ask' | 'overwrite' | 'skip',
    what: 'restore' | 'redo' = 'restore',
  ): Promise<string[]> {
    if (how === 'overwrite') return conflicts.map((c) => c.path);
    if (how === 'skip') return [];
    const overwrite: string[] = [];
    for (const c of conflicts) {
      const changed = c.reason.replace(/ since (the task edited it|it was restored)$/, '');
      const pick = await vscode.window.showWarningMessage(
        what === 'redo'
          ? `${rel(c.path)} was ${changed} since the restore.`
          : `${rel(c.path)} was ${changed} since Forge edited it.`,
        {
          modal: true,
          detail:
            what === 'redo'
              ? "Overwrite it with the task's version, or keep your changes?"
              : "Overwrite it with the checkpoint's version, or keep your changes?",
        },
        'Overwrite',
        'Keep Mine',
      );
      if (pick === 'Overwrite') overwrite.push(c.path);
    }
    return overwrite;
  }

  private mark(
    taskId: string,
    action: 'restore' | 'undo' | 'redo',
    o: Omit<RestoreReport, 'checkpoint'>,
    step?: number,
  ): void {
    this.deps.audit.restored({
      taskId,
      action,
      ...(step !== undefined ? { checkpoint: step } : {}),
      restored: o.restored,
      deleted: o.deleted,
      conflicts: o.conflicts,
      skipped: o.skipped,
      overwritten: o.overwritten,
      ...(o.rewoundMessages !== undefined ? { rewoundMessages: o.rewoundMessages } : {}),
    });
    if (o.restored.length + o.deleted.length) this.deps.onFilesMoved?.(taskId);
    const session = this.session(taskId);
    if (!session) return;
    const cap = (l: string[]) => l.slice(0, 2000).map((p) => p.slice(0, 4096));
    session.transcript.addCheckpointMark({
      action,
      ...(step !== undefined ? { step } : {}),
      restored: cap(o.restored),
      deleted: cap(o.deleted),
      skipped: cap(o.skipped),
      conflicts: o.conflicts
        .slice(0, 2000)
        .map((c) => ({ path: c.path.slice(0, 4096), reason: c.reason.slice(0, 1000) })),
      ...(o.rewoundMessages !== undefined ? { rewoundMessages: o.rewoundMessages } : {}),
    });
    void session.save();
  }
}

/** The workspace as the journal's undo sees it (vscode.workspace.fs; null = no such file). */
export function journalFsOf(fs: {
  stat(p: string): Promise<unknown>;
  readFile(p: string): Promise<Uint8Array>;
  writeFile(p: string, data: Uint8Array): Promise<void>;
}): JournalFs {
  const decode = (b: Uint8Array) => new TextDecoder().decode(b);
  return {
    read: async (p) => ((await fs.stat(p)) ? decode(await fs.readFile(p)) : null),
    write: (p, content) => fs.writeFile(p, new TextEncoder().encode(content)),
    remove: (p) => Promise.resolve(vscode.workspace.fs.delete(vscode.Uri.file(p), { useTrash: false })),
  };
}

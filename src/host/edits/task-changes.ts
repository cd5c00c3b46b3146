// "Forge: Review Task Changes": every file a task changed, diffed against the task's start, in VS Code's multi-file
// diff editor (vscode.changes); one file's diff; undo or keep one file. The originals come from the edit journal
// through a read-only `forge-task-original:` content provider; the modified side is the file on disk, live.
import * as vscode from 'vscode';
import { taskFileChanges, type TaskFileChange } from '../../core/review/changes';
import type { EditJournal, JournalFs, UndoResult } from '../../core/tasks/journal';

const TASK_ORIGINAL_SCHEME = 'forge-task-original';

interface ChangedFileView {
  path: string;
  displayPath: string;
  added: number;
  removed: number;
  kind: TaskFileChange['kind'];
  state: 'changed' | 'kept' | 'undone' | 'conflict';
  note?: string;
}

export class TaskChanges implements vscode.Disposable {
  /** forge-task-original URI (path + query) -> the file's text when the task started. */
  private readonly originals = new Map<string, string>();
  /** Per task: files the user kept, and files undone or refused (shown until the next run). */
  private readonly marks = new Map<string, Map<string, { state: ChangedFileView['state']; note?: string }>>();
  private readonly registration: vscode.Disposable;

  constructor() {
    this.registration = vscode.workspace.registerTextDocumentContentProvider(TASK_ORIGINAL_SCHEME, {
      provideTextDocumentContent: (uri) => this.originals.get(keyOf(uri)) ?? '',
    });
  }

  /** The task's changed files (journal order), with what the user did to each in this window. */
  async list(journal: EditJournal, taskId: string): Promise<{ changes: TaskFileChange[]; views: ChangedFileView[] }> {
    const changes = taskFileChanges(await journal.entries(taskId));
    const marks = this.marks.get(taskId);
    const views: ChangedFileView[] = changes.map((c) => ({
      path: c.path,
      displayPath: vscode.workspace.asRelativePath(c.path, false),
      added: c.added,
      removed: c.removed,
      kind: c.kind,
      state: marks?.get(c.path)?.state ?? 'changed',
      ...(marks?.get(c.path)?.note ? { note: marks.get(c.path)!.note } : {}),
    }));
    // Files undone (no longer in the list) stay visible with their state.
    for (const [p, m] of marks ?? []) {
      if (m.state !== 'changed' && m.state !== 'kept' && !views.some((v) => v.path === p)) {
        views.push({
          path: p,
          displayPath: vscode.workspace.asRelativePath(p, false),
          added: 0,
          removed: 0,
          kind: 'modified',
          state: m.state,
          ...(m.note ? { note: m.note } : {}),
        });
      }
    }
    return { changes, views };
  }

  /** Opens every changed file of the task in the multi-file diff editor. False when the task changed nothing. */
  async view(journal: EditJournal, taskId: string, title = 'Forge: task changes'): Promise<boolean> {
    const { changes } = await this.list(journal, taskId);
    if (!changes.length) return false;
    const resources = changes.map((c) => {
      const file = vscode.Uri.file(c.path);
      const original = c.before === null ? undefined : this.originalUri(taskId, c);
      const modified = c.after === null ? undefined : file;
      return [file, original, modified] as [vscode.Uri, vscode.Uri | undefined, vscode.Uri | undefined];
    });
    // The editor adds the file count to the title itself.
    await vscode.commands.executeCommand('vscode.changes', title, resources);
    return true;
  }

  /** One file's diff against the task's start. */
  async open(journal: EditJournal, taskId: string, path: string): Promise<boolean> {
    const c = (await this.list(journal, taskId)).changes.find((x) => x.path === path);
    if (!c) return false;
    const name = vscode.workspace.asRelativePath(c.path, false);
    const left = this.originalUri(taskId, c);
    await vscode.commands.executeCommand(
      'vscode.diff',
      left,
      vscode.Uri.file(c.path),
      `${name} (since the task started) — Forge`,
      { preview: true },
    );
    return true;
  }

  /** Restores one file to the task's start; a file the user changed since is reported, never overwritten. */
  async undo(journal: EditJournal, taskId: string, path: string, fs: JournalFs): Promise<UndoResult> {
    const result = await journal.undoTask(taskId, fs, { paths: [path] });
    const conflict = result.conflicts.find((c) => c.path === path);
    if (conflict) this.mark(taskId, path, 'conflict', `not undone: ${conflict.reason}`);
    else if (result.restored.includes(path) || result.deleted.includes(path))
      this.mark(
        taskId,
        path,
        'undone',
        result.deleted.includes(path) ? 'deleted (it did not exist before the task)' : undefined,
      );
    return result;
  }

  keep(taskId: string, path: string): void {
    this.mark(taskId, path, 'kept');
  }

  /** A new run of the task starts a fresh list. */
  clearMarks(taskId: string): void {
    this.marks.delete(taskId);
  }

  private mark(taskId: string, path: string, state: ChangedFileView['state'], note?: string): void {
    let m = this.marks.get(taskId);
    if (!m) this.marks.set(taskId, (m = new Map()));
    m.set(path, { state, ...(note ? { note } : {}) });
  }

  private originalUri(taskId: string, c: TaskFileChange): vscode.Uri {
    // The file's own path, so the changes editor shows a change of that file (not a rename); the task in the query
    // keeps tasks apart.
    const uri = vscode.Uri.from({
      scheme: TASK_ORIGINAL_SCHEME,
      path: vscode.Uri.file(c.path).path,
      query: `task=${encodeURIComponent(taskId)}`,
    });
    this.originals.set(keyOf(uri), c.before ?? '');
    return uri;
  }

  dispose(): void {
    this.registration.dispose();
    this.originals.clear();
  }
}

function keyOf(uri: vscode.Uri): string {
  return `${uri.path}?${uri.query}`;
}

// The VS Code host's EditApplier. A file an editor shows (or with unsaved changes) is changed through a
// vscode.WorkspaceEdit, so the change lands in that editor's undo stack, then saved so tools, terminals and git see
// it. Any other file is written straight to disk (DiskEditApplier): a WorkspaceEdit would open a model, apply and
// save it in three workbench round trips that queue behind whatever the workbench is doing (0.1-2 s measured), and
// no editor's undo stack is there to keep; Forge's own Undo and checkpoints revert it either way.
import { promises as fsp } from 'node:fs';
import { TextDecoder } from 'node:util';
import * as vscode from 'vscode';
import type { EditApplier, FileEdit } from '../../core/workspace/types';
import { ConcurrentChangeError, DiskEditApplier, NotPlainTextError, sameText } from '../../node/disk-edit-applier';

export { ConcurrentChangeError };

interface VscodeEditApplierOptions {
  /** Called after an edit is applied and saved (e.g. to record it in the edit journal). */
  onApplied?: (edit: FileEdit, uri: vscode.Uri) => void;
  /** Refuse when the file changed since the proposal was computed (default true). */
  checkConcurrentChange?: boolean;
  /** Write files no editor shows straight to disk (default true); false: always through a WorkspaceEdit. */
  writeUnshownToDisk?: boolean;
}

export class VscodeEditApplier implements EditApplier {
  private readonly disk: DiskEditApplier;

  constructor(private readonly options: VscodeEditApplierOptions = {}) {
    this.disk = new DiskEditApplier({
      checkConcurrentChange: options.checkConcurrentChange,
      roots: () =>
        (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file').map((f) => f.uri.fsPath),
    });
  }

  async apply(edit: FileEdit, signal?: AbortSignal): Promise<void> {
    try {
      await this.applyNow(edit, signal);
    } finally {
      settled(edit.path);
    }
  }

  private async applyNow(edit: FileEdit, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) throw signal.reason ?? new Error('aborted');
    if (this.options.writeUnshownToDisk !== false && !openDocument(edit.path)?.isDirty && !shownInEditor(edit.path)) {
      try {
        await this.disk.apply(edit, signal);
        this.options.onApplied?.(edit, vscode.Uri.file(edit.path));
        return;
      } catch (err) {
        // Not UTF-8: VS Code may know the file's encoding (files.encoding); its save keeps it.
        if (!(err instanceof NotPlainTextError)) throw err;
      }
    }
    const uri = vscode.Uri.file(edit.path);
    // An existing file is opened straight away (one round trip to the workbench, no stat first); only a
    // file that cannot be opened is checked for existence.
    let doc: vscode.TextDocument | undefined = openDocument(edit.path);
    if (!doc && !edit.isNewFile) doc = await vscode.workspace.openTextDocument(uri).then(undefined, () => undefined);
    const exists = !!doc || (await fileExists(uri));
    const we = new vscode.WorkspaceEdit();
    if (!exists) {
      we.createFile(uri, { ignoreIfExists: true, contents: new Uint8Array() });
      we.insert(uri, new vscode.Position(0, 0), edit.content);
    } else {
      doc ??= await vscode.workspace.openTextDocument(uri);
      const current = doc.getText();
      if (
        this.options.checkConcurrentChange !== false &&
        edit.original !== undefined &&
        !sameText(current, edit.original)
      ) {
        // Tools read from disk, so re-reading cannot fix a difference that lives only in the editor buffer.
        if (doc.isDirty) {
          throw new ConcurrentChangeError(
            `${edit.path} has unsaved changes in the editor; Forge did not overwrite them. Ask the user to save or revert the file, then re-read it.`,
          );
        }
        throw new ConcurrentChangeError(
          `${edit.path} changed since the edit was proposed; re-read it and propose again.`,
        );
      }
      // A file proposed as new that someone created meanwhile is not overwritten either.
      if (
        this.options.checkConcurrentChange !== false &&
        edit.isNewFile &&
        current !== '' &&
        !sameText(current, edit.content)
      ) {
        throw new ConcurrentChangeError(
          `${edit.path} was created since the edit was proposed; Forge did not overwrite it. Re-read it and propose again.`,
        );
      }
      if (current === edit.content) return;
      const full = new vscode.Range(doc.positionAt(0), doc.positionAt(current.length));
      we.replace(uri, full, edit.content);
    }
    if (signal?.aborted) throw signal.reason ?? new Error('aborted');
    const ok = await vscode.workspace.applyEdit(we);
    if (!ok) throw new Error(`VS Code refused the edit to ${edit.path}`);
    doc ??= await vscode.workspace.openTextDocument(uri);
    if (doc.isDirty && !(await doc.save())) throw new Error(`Could not save ${edit.path}`);
    this.options.onApplied?.(edit, uri);
  }
}

/** An editor tab shows the file (as text, or either side of a diff): its undo stack should get the change. */
function shownInEditor(fsPath: string): boolean {
  const isIt = (uri: vscode.Uri | undefined) => uri?.scheme === 'file' && uri.fsPath === fsPath;
  for (const group of vscode.window.tabGroups.all) {
    for (const tab of group.tabs) {
      const input = tab.input;
      if (input instanceof vscode.TabInputText && isIt(input.uri)) return true;
      if (input instanceof vscode.TabInputTextDiff && (isIt(input.original) || isIt(input.modified))) return true;
    }
  }
  return vscode.window.visibleTextEditors.some((e) => isIt(e.document.uri));
}

/** The open document of a file path, if any (no round trip). */
function openDocument(fsPath: string): vscode.TextDocument | undefined {
  return vscode.workspace.textDocuments.find((d) => d.uri.scheme === 'file' && d.uri.fsPath === fsPath && !d.isClosed);
}

const waiters = new Map<string, Set<() => void>>();

function settled(fsPath: string): void {
  const set = waiters.get(fsPath);
  if (!set) return;
  waiters.delete(fsPath);
  for (const w of set) w();
}

/**
 * Resolves when an edit of `fsPath` was applied (or failed), or after `timeoutMs`. The diff approval closes its
 * tab then, so the workbench writes the file before it tears the diff editor down (both go through one queue).
 */
export function whenEditSettled(fsPath: string, timeoutMs: number): Promise<void> {
  return new Promise((resolve) => {
    let set = waiters.get(fsPath);
    if (!set) waiters.set(fsPath, (set = new Set()));
    const done = () => {
      clearTimeout(timer);
      set!.delete(done);
      resolve();
    };
    const timer = setTimeout(done, timeoutMs);
    set.add(done);
  });
}

async function fileExists(uri: vscode.Uri): Promise<boolean> {
  try {
    await vscode.workspace.fs.stat(uri);
    return true;
  } catch {
    return false;
  }
}

/**
 * The unsaved text of the file's open document, for the approval's cheap staleness check; throws when there is none
 * (the check is then left to the applier, which compares what it is about to replace with the proposal's original).
 * A saved document is not read: it may lag behind a write to disk the workbench has not reloaded yet.
 */
export async function readOpenText(path: string): Promise<string | undefined> {
  const open = openDocument(path);
  if (!open?.isDirty) throw new Error('no unsaved text: checked when the edit is applied');
  return open.getText();
}

/** Reads a file as text the way the applier sees it (unsaved changes in an editor first, then disk). */
export async function readCurrentText(path: string): Promise<string | undefined> {
  const open = openDocument(path);
  if (open?.isDirty) return open.getText();
  try {
    // The disk directly: vscode.workspace.fs would go through the workbench (see VscodeWorkspaceFs).
    return new TextDecoder().decode(await fsp.readFile(path));
  } catch {
    return undefined;
  }
}

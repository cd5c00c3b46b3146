// The VS Code view of the workspace a restore reconciles against (docs/DESIGN-durability.md): the disk, the
// buffers VS Code's hot exit kept unsaved, and the commands (processes or terminals) that survived the reload.
import * as vscode from 'vscode';
import type { WorkspaceProbe } from '../../core/tasks/recovery';
import { processGroupAlive } from '../../node/node-runner';

/** The workspace as VS Code shows it after a reload: disk, hot-exit buffers, surviving commands. */
export class VscodeWorkspaceProbe implements WorkspaceProbe {
  async readDisk(path: string): Promise<string | null> {
    try {
      return new TextDecoder().decode(await vscode.workspace.fs.readFile(vscode.Uri.file(path)));
    } catch (err) {
      if (err instanceof vscode.FileSystemError && err.code === 'FileNotFound') return null;
      throw err;
    }
  }

  async unsavedText(path: string): Promise<string | undefined> {
    // After a reload, a hot-exit buffer may not be open yet: resolving the document restores it from its backup.
    const doc =
      this.openDoc(path) ??
      (await vscode.workspace.openTextDocument(vscode.Uri.file(path)).then(undefined, () => undefined));
    return doc?.isDirty ? doc.getText() : undefined;
  }

  async save(path: string): Promise<boolean> {
    const doc = this.openDoc(path);
    return doc ? doc.save() : false;
  }

  async revert(path: string): Promise<void> {
    const doc = this.openDoc(path);
    if (!doc?.isDirty) return;
    await vscode.window.showTextDocument(doc, { preview: true, preserveFocus: true });
    await vscode.commands.executeCommand('workbench.action.files.revert');
  }

  commandMayBeRunning(_startedAt: number, pid?: number): boolean {
    if (pid !== undefined) return processGroupAlive(pid);
    return vscode.window.terminals.some((t) => t.name.startsWith('Forge') && t.exitStatus === undefined);
  }

  private openDoc(path: string): vscode.TextDocument | undefined {
    return vscode.workspace.textDocuments.find((d) => d.uri.scheme === 'file' && d.uri.fsPath === path && !d.isClosed);
  }
}

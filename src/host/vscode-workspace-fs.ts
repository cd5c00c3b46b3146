// WorkspaceFs of the extension: the workspace's `file` folders, read straight from the disk of the machine the
// extension host runs on (local or remote), written through vscode.workspace.fs.
import * as vscode from 'vscode';
import type { WorkspaceFs } from '../core/workspace/types';
import { NodeWorkspaceFs } from '../node/node-fs';

function checkAborted(signal?: AbortSignal): void {
  if (signal?.aborted) throw signal.reason ?? new Error('aborted');
}

/**
 * Reads go to the disk directly (NodeWorkspaceFs): the workspace folders are `file` folders of the machine this
 * extension host runs on, and vscode.workspace.fs sends every call through the workbench (the browser, in a remote
 * window), so a stat waited 100+ ms whenever the workbench was busy (measured when the terminal panel first opened).
 */
export class VscodeWorkspaceFs extends NodeWorkspaceFs implements WorkspaceFs {
  /** `folders` overrides the workspace folders (tests). */
  constructor(private readonly folders?: () => readonly string[]) {
    super([]);
  }

  override roots(): string[] {
    if (this.folders) return [...this.folders()];
    return (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file').map((f) => f.uri.fsPath);
  }

  override async readFile(path: string, signal?: AbortSignal): Promise<Uint8Array> {
    checkAborted(signal);
    return super.readFile(path, signal);
  }

  override async writeFile(path: string, data: Uint8Array): Promise<void> {
    // Through VS Code, so its file service (explorer, open editors) hears of the new file at once.
    // vscode.workspace.fs.writeFile creates missing parent folders.
    await vscode.workspace.fs.writeFile(vscode.Uri.file(path), data);
  }
}

// WorkspaceFs over vscode.workspace.fs (works for local and remote file systems); realpath via node fs
// because the VS Code API has no symlink resolution.
import * as fs from 'node:fs/promises';
import * as vscode from 'vscode';
import type { DirEntry, EntryType, FileStat, WorkspaceFs } from '../core/workspace/types';

function entryType(t: vscode.FileType): EntryType {
  if (t & vscode.FileType.SymbolicLink) {
    // stat() follows links: File|SymbolicLink means "a link to a file"; readDirectory reports the link itself.
    return 'symlink';
  }
  if (t & vscode.FileType.Directory) return 'dir';
  if (t & vscode.FileType.File) return 'file';
  return 'other';
}

function isNotFound(e: unknown): boolean {
  return e instanceof vscode.FileSystemError && (e.code === 'FileNotFound' || e.code === 'EntryNotFound');
}

function checkAborted(signal?: AbortSignal): void {
  if (signal?.aborted) throw signal.reason ?? new Error('aborted');
}

export class VscodeWorkspaceFs implements WorkspaceFs {
  /** `folders` overrides the workspace folders (tests). */
  constructor(private readonly folders?: () => readonly string[]) {}

  roots(): string[] {
    if (this.folders) return [...this.folders()];
    return (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file').map((f) => f.uri.fsPath);
  }

  async stat(path: string): Promise<FileStat | undefined> {
    try {
      const s = await vscode.workspace.fs.stat(vscode.Uri.file(path));
      // For a link, report what it points to (the WorkspaceFs contract follows symlinks).
      const type: EntryType = s.type & vscode.FileType.Directory ? 'dir' : s.type & vscode.FileType.File ? 'file' : entryType(s.type);
      return { type, size: s.size, mtimeMs: s.mtime };
    } catch (e) {
      if (isNotFound(e)) return undefined;
      throw e;
    }
  }

  async readFile(path: string, signal?: AbortSignal): Promise<Uint8Array> {
    checkAborted(signal);
    return vscode.workspace.fs.readFile(vscode.Uri.file(path));
  }

  async writeFile(path: string, data: Uint8Array): Promise<void> {
    // vscode.workspace.fs.writeFile creates missing parent folders.
    await vscode.workspace.fs.writeFile(vscode.Uri.file(path), data);
  }

  async readDir(path: string, signal?: AbortSignal): Promise<DirEntry[]> {
    checkAborted(signal);
    const entries = await vscode.workspace.fs.readDirectory(vscode.Uri.file(path));
    return entries.map(([name, t]) => ({ name, type: entryType(t) }));
  }

  realpath(path: string): Promise<string> {
    return fs.realpath(path);
  }
}

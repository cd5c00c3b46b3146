// The in-memory, writable file system behind the "(proposed)" side of Forge's diffs: the user may edit a proposal
// there (and save it) before accepting; nothing reaches disk until an edit is accepted and applied.
import * as vscode from 'vscode';

/** A minimal writable in-memory file system holding the proposed sides. */
export class ProposedFs implements vscode.FileSystemProvider {
  /** Keyed by the URI without its scheme (path + query): the query keeps two proposals of one file apart. */
  private readonly files = new Map<string, { data: Uint8Array; mtime: number }>();
  private readonly emitter = new vscode.EventEmitter<vscode.FileChangeEvent[]>();
  readonly onDidChangeFile = this.emitter.event;

  set(uri: vscode.Uri, text: string): void {
    this.files.set(key(uri), { data: new TextEncoder().encode(text), mtime: Date.now() });
    this.emitter.fire([{ type: vscode.FileChangeType.Changed, uri }]);
  }
  delete(uri: vscode.Uri): void {
    this.files.delete(key(uri));
  }
  watch(): vscode.Disposable {
    return new vscode.Disposable(() => {});
  }
  stat(uri: vscode.Uri): vscode.FileStat {
    const f = this.files.get(key(uri));
    if (f) return { type: vscode.FileType.File, ctime: f.mtime, mtime: f.mtime, size: f.data.byteLength };
    const prefix = uri.path.endsWith('/') ? uri.path : uri.path + '/';
    if ([...this.files.keys()].some((k) => k.startsWith(prefix)) || uri.path === '/') {
      return { type: vscode.FileType.Directory, ctime: 0, mtime: 0, size: 0 };
    }
    throw vscode.FileSystemError.FileNotFound(uri);
  }
  readDirectory(): [string, vscode.FileType][] {
    return [];
  }
  createDirectory(): void {}
  readFile(uri: vscode.Uri): Uint8Array {
    const f = this.files.get(key(uri));
    if (!f) throw vscode.FileSystemError.FileNotFound(uri);
    return f.data;
  }
  writeFile(uri: vscode.Uri, content: Uint8Array): void {
    // Saving the proposed side only updates the proposal; nothing reaches disk until Accept.
    this.files.set(key(uri), { data: content, mtime: Date.now() });
  }
  rename(): void {
    throw vscode.FileSystemError.NoPermissions('proposals cannot be renamed');
  }
}

/** A proposal's URI without its scheme (path + query): the query keeps two proposals of one file apart. */
export function key(uri: vscode.Uri): string {
  return uri.query ? `${uri.path}?${uri.query}` : uri.path;
}

// The workspace's files for the @ picker, in the host: listed once (vscode.workspace.findFiles, the same excludes
// as VS Code's search), then kept current by a FileSystemWatcher. Only files Forge would read go in: never a
// secret, nothing .forgeignore excludes, nothing in .git. Searching is core's FileIndex (fuzzy, in memory).
import ignore from 'ignore';
import * as vscode from 'vscode';
import { FileIndex, type IndexHit } from '../../core/mentions/file-index';
import { WorkspaceSandbox, type SandboxOptions } from '../../core/safety/paths';
import type { WorkspaceFs } from '../../core/workspace/types';
import { errorText } from '../../core/error-text';

/** Files indexed at most (a bigger workspace is still searchable by the files listed first). */
const MAX_FILES = 200_000;

export class MentionIndex implements vscode.Disposable {
  private readonly index = new FileIndex();
  private building: Promise<void> | undefined;
  private readonly subs: vscode.Disposable[] = [];
  private pending = new Map<string, 'add' | 'remove'>();
  private flushTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly fs: WorkspaceFs,
    private readonly sandbox: SandboxOptions,
    private readonly log: (m: string) => void = () => undefined,
  ) {}

  /** Builds the index on first use; later calls wait for the same build. */
  ready(): Promise<void> {
    this.building ??= this.build().catch((err) => {
      this.building = undefined;
      this.log(`@ file index: ${errorText(err)}`);
    });
    return this.building;
  }

  get size(): number {
    return this.index.size;
  }

  async search(query: string, limit: number): Promise<IndexHit[]> {
    await this.ready();
    return this.index.search(query, limit);
  }

  private async build(): Promise<void> {
    const started = Date.now();
    const excludes = Object.entries({
      ...vscode.workspace.getConfiguration('files').get<Record<string, boolean>>('exclude'),
      ...vscode.workspace.getConfiguration('search').get<Record<string, boolean>>('exclude'),
    })
      .filter(([, on]) => on === true)
      .map(([glob]) => glob);
    const exclude = excludes.length ? `{${excludes.join(',')}}` : undefined;
    const uris = await vscode.workspace.findFiles('**/*', exclude, MAX_FILES);
    const admit = await this.admitter();
    this.index.clear();
    for (const uri of uris) {
      const rel = admit(uri);
      if (rel) this.index.add(rel);
    }
    this.log(`@ file index: ${this.index.size} files in ${Date.now() - started} ms`);
    if (this.subs.length) return;
    const watcher = vscode.workspace.createFileSystemWatcher('**/*');
    const queue = (uri: vscode.Uri, op: 'add' | 'remove') => {
      this.pending.set(uri.toString(), op);
      // Events come in bursts (a checkout, npm install): applied together, off the event's own call.
      this.flushTimer ??= setTimeout(() => void this.flush(), 200);
    };
    this.subs.push(
      watcher,
      watcher.onDidCreate((u) => queue(u, 'add')),
      watcher.onDidDelete((u) => queue(u, 'remove')),
      vscode.workspace.onDidChangeWorkspaceFolders(() => this.rebuild()),
    );
  }

  /** A .forgeignore changed, or the folders did: everything is judged again. */
  private rebuild(): void {
    this.building = undefined;
    void this.ready();
  }

  private async flush(): Promise<void> {
    this.flushTimer = undefined;
    const batch = this.pending;
    this.pending = new Map();
    const admit = await this.admitter();
    for (const [key, op] of batch) {
      const uri = vscode.Uri.parse(key);
      if (/(^|\/)\.forgeignore$/.test(uri.path)) return this.rebuild();
      const rel = this.relative(uri);
      if (!rel) continue;
      if (op === 'remove') {
        this.index.remove(rel);
        continue;
      }
      const stat = await Promise.resolve(vscode.workspace.fs.stat(uri)).catch(() => undefined);
      if (!stat) continue;
      if (stat.type & vscode.FileType.Directory) {
        const found = await vscode.workspace.findFiles(new vscode.RelativePattern(uri, '**/*'), undefined, 10_000);
        for (const f of found) {
          const r = admit(f);
          if (r) this.index.add(r);
        }
      } else {
        const r = admit(uri);
        if (r) this.index.add(r);
      }
    }
  }

  /** The display path of a file Forge may read, or undefined (secret, .forgeignore, .git, outside the folders). */
  private async admitter(): Promise<(uri: vscode.Uri) => string | undefined> {
    const sandbox = new WorkspaceSandbox(this.fs, { ...this.sandbox, allowSecrets: false });
    const matchers = new Map<string, ReturnType<WorkspaceSandbox['hiddenMatcher']>>();
    for (const folder of vscode.workspace.workspaceFolders ?? []) {
      const text = await sandbox.forgeIgnoreText(folder.uri.fsPath).catch(() => undefined);
      const ig = text !== undefined ? ignore({ allowRelativePaths: true }).add(text) : undefined;
      matchers.set(folder.uri.toString(), sandbox.hiddenMatcher(ig));
    }
    return (uri) => {
      const folder = vscode.workspace.getWorkspaceFolder(uri);
      if (!folder) return undefined;
      const rel = uri.path.slice(folder.uri.path.replace(/\/$/, '').length + 1);
      if (!rel || rel.split('/').some((c) => sandbox.isGitName(c))) return undefined;
      if (matchers.get(folder.uri.toString())?.(rel, false)) return undefined;
      return this.relative(uri);
    };
  }

  /** 'src/a.ts', or 'folder/src/a.ts' in a multi-root workspace. */
  private relative(uri: vscode.Uri): string | undefined {
    if (!vscode.workspace.getWorkspaceFolder(uri)) return undefined;
    return vscode.workspace.asRelativePath(uri, (vscode.workspace.workspaceFolders?.length ?? 0) > 1);
  }

  dispose(): void {
    clearTimeout(this.flushTimer);
    vscode.Disposable.from(...this.subs).dispose();
  }
}

// In-memory WorkspaceFs / EditApplier / CommandRunner fakes for unit tests and examples. POSIX paths.
import * as path from 'node:path';
import type {
  CommandRunner,
  DirEntry,
  EditApplier,
  FileEdit,
  FileStat,
  RunRequest,
  RunResult,
  WorkspaceFs,
} from './types';

type Node = { kind: 'file'; data: Uint8Array; mtimeMs: number } | { kind: 'dir' } | { kind: 'link'; target: string };

export class MemoryFs implements WorkspaceFs {
  private readonly nodes = new Map<string, Node>();
  private clock = 1;

  constructor(
    private readonly rootDirs: string[] = ['/ws'],
    files: Record<string, string | Uint8Array> = {},
  ) {
    this.nodes.set('/', { kind: 'dir' });
    for (const r of rootDirs) this.mkdirp(r);
    for (const [p, c] of Object.entries(files)) this.set(p, c);
  }

  roots(): string[] {
    return [...this.rootDirs];
  }

  /** Test helper: create or overwrite a file (relative paths go under the first root). */
  set(p: string, content: string | Uint8Array): void {
    const abs = this.abs(p);
    this.mkdirp(path.posix.dirname(abs));
    const data = typeof content === 'string' ? new TextEncoder().encode(content) : content;
    this.nodes.set(abs, { kind: 'file', data, mtimeMs: this.clock++ });
  }

  /** Test helper: read a file as text, undefined when missing. */
  get(p: string): string | undefined {
    const n = this.nodes.get(this.follow(this.abs(p)));
    return n?.kind === 'file' ? new TextDecoder().decode(n.data) : undefined;
  }

  symlink(target: string, p: string): void {
    const abs = this.abs(p);
    this.mkdirp(path.posix.dirname(abs));
    this.nodes.set(abs, { kind: 'link', target });
  }

  mkdirp(p: string): void {
    const abs = this.abs(p);
    const parts = abs.split('/').filter(Boolean);
    let cur = '';
    for (const part of parts) {
      cur += '/' + part;
      if (!this.nodes.has(cur)) this.nodes.set(cur, { kind: 'dir' });
    }
  }

  async stat(p: string): Promise<FileStat | undefined> {
    const abs = this.abs(p);
    let real: string;
    try {
      real = this.follow(abs);
    } catch {
      return this.nodes.has(abs) ? { type: 'symlink', size: 0, mtimeMs: 0 } : undefined;
    }
    const n = this.nodes.get(real);
    if (!n) return undefined;
    if (n.kind === 'dir') return { type: 'dir', size: 0, mtimeMs: 0 };
    if (n.kind === 'file') return { type: 'file', size: n.data.byteLength, mtimeMs: n.mtimeMs };
    return undefined;
  }

  async readFile(p: string): Promise<Uint8Array> {
    const n = this.nodes.get(this.follow(this.abs(p)));
    if (!n) throw enoent(p);
    if (n.kind !== 'file') throw Object.assign(new Error(`EISDIR: ${p}`), { code: 'EISDIR' });
    return n.data;
  }

  async readFileHead(p: string, maxBytes: number): Promise<{ data: Uint8Array; truncated: boolean }> {
    const data = await this.readFile(p);
    return { data: data.subarray(0, maxBytes), truncated: data.byteLength > maxBytes };
  }

  async writeFile(p: string, data: Uint8Array): Promise<void> {
    const abs = this.follow(this.abs(p), true);
    this.mkdirp(path.posix.dirname(abs));
    this.nodes.set(abs, { kind: 'file', data: new Uint8Array(data), mtimeMs: this.clock++ });
  }

  async readDir(p: string): Promise<DirEntry[]> {
    const abs = this.follow(this.abs(p));
    const n = this.nodes.get(abs);
    if (!n) throw enoent(p);
    if (n.kind !== 'dir') throw Object.assign(new Error(`ENOTDIR: ${p}`), { code: 'ENOTDIR' });
    const prefix = abs === '/' ? '/' : abs + '/';
    const out: DirEntry[] = [];
    for (const [k, v] of this.nodes) {
      if (k.startsWith(prefix) && k.length > prefix.length && !k.slice(prefix.length).includes('/')) {
        out.push({ name: k.slice(prefix.length), type: v.kind === 'link' ? 'symlink' : v.kind });
      }
    }
    return out.sort((a, b) => a.name.localeCompare(b.name));
  }

  async realpath(p: string): Promise<string> {
    const real = this.follow(this.abs(p));
    if (!this.nodes.has(real)) throw enoent(p);
    return real;
  }

  private abs(p: string): string {
    return path.posix.isAbsolute(p) ? path.posix.normalize(p) : path.posix.join(this.rootDirs[0] ?? '/', p);
  }

  /** Resolve symlinks component by component; allowMissingLeaf keeps a missing last component. */
  private follow(abs: string, allowMissingLeaf = true, depth = 0): string {
    if (depth > 40) throw Object.assign(new Error(`ELOOP: ${abs}`), { code: 'ELOOP' });
    const parts = abs.split('/').filter(Boolean);
    let cur = '';
    for (let i = 0; i < parts.length; i++) {
      const next = cur + '/' + parts[i];
      const n = this.nodes.get(next);
      if (n?.kind === 'link') {
        const target = path.posix.resolve(cur || '/', n.target);
        cur = this.follow(target, allowMissingLeaf, depth + 1);
      } else {
        cur = next;
      }
    }
    return cur || '/';
  }
}

function enoent(p: string): Error {
  return Object.assign(new Error(`ENOENT: no such file or directory '${p}'`), { code: 'ENOENT' });
}

/** Applies edits by writing through any WorkspaceFs (the fake for the host's WorkspaceEdit applier). */
export class FsEditApplier implements EditApplier {
  readonly applied: FileEdit[] = [];
  constructor(private readonly fs: WorkspaceFs) {}
  async apply(edit: FileEdit): Promise<void> {
    this.applied.push(edit);
    await this.fs.writeFile(edit.path, new TextEncoder().encode(edit.content));
  }
}

type FakeRunHandler = (req: RunRequest) => Partial<RunResult> | Promise<Partial<RunResult>>;

/** Records every run() and answers from a handler; never spawns anything. */
export class FakeCommandRunner implements CommandRunner {
  readonly calls: RunRequest[] = [];
  constructor(private readonly handler: FakeRunHandler = () => ({ exitCode: 0, output: '' })) {}
  async run(req: RunRequest): Promise<RunResult> {
    this.calls.push(req);
    const r = await this.handler(req);
    req.onOutput?.(r.output ?? '');
    return { exitCode: 0, output: '', timedOut: false, ...r };
  }
}

// Sandbox for model-supplied paths: keep file tools inside the workspace folders (symlinks resolved),
// honour .forgeignore, refuse secrets, and refuse writes in untrusted workspaces.
import * as nodePath from 'node:path';
import ignore, { type Ignore } from 'ignore';
import type { WorkspaceFs } from '../workspace/types';
import type { CommandRules } from './command-rules';
import { readRegular } from './regular-read';
import { DEFAULT_SECRET_PATTERNS } from './secrets';
import { errorText } from '../error-text';

type PathAccess = 'read' | 'write' | 'list';

export type PathRefusalCode =
  | 'invalid'
  | 'outside-workspace'
  | 'symlink-escape'
  | 'secret'
  | 'ignored'
  | 'git-internal'
  | 'untrusted'
  | 'no-workspace';

export interface ResolvedPath {
  ok: true;
  /** Absolute lexical path (what the user sees). */
  abs: string;
  /** Workspace folder containing it. */
  root: string;
  /** Path relative to root with '/' separators ('' for the root itself). */
  rel: string;
  /** Absolute path with symlinks resolved (for a missing file: its deepest existing ancestor resolved + rest). */
  real: string;
  exists: boolean;
}

interface PathRefusal {
  ok: false;
  code: PathRefusalCode;
  /** Written for the model: what was refused and what to do instead. */
  reason: string;
}

export type PathResolution = ResolvedPath | PathRefusal;

export interface SandboxOptions {
  /** Untrusted workspace (VS Code workspace trust): no writes, no commands. */
  trusted: boolean;
  /** Allow reading/writing secret files (.env, keys). Default false. */
  allowSecrets?: boolean;
  /** Extra gitignore-style patterns to treat as secrets. */
  extraSecretPatterns?: string[];
  /** Name of the per-root ignore file. Default '.forgeignore'. */
  ignoreFileName?: string;
  /** Path flavour; defaults to the running platform. */
  platform?: 'posix' | 'win32';
  /** Command allow/deny rules for execute_command (see commands.ts). */
  commands?: CommandRules;
  /** Where a problem worth telling the user goes (a .forgeignore that cannot be used, and why). */
  warn?: (message: string) => void;
}

/** Largest .forgeignore read (a list of patterns, not a document). */
const FORGEIGNORE_MAX_BYTES = 1024 * 1024;

const NPMRC_TOKEN = /(_authToken|_auth|_password)\s*=/;
/** Code points HFS+ ignores in names (git's protectHFS list): '.g\u200cit' is .git there. */
const HFS_IGNORED = /[\u200c-\u200f\u202a-\u202e\u206a-\u206f\ufeff]/g;
const WIN_RESERVED = /^(con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³])(\..*)?$/i;

function refuse(code: PathRefusalCode, reason: string): PathRefusal {
  return { ok: false, code, reason };
}

export class WorkspaceSandbox {
  private readonly path: typeof nodePath.posix;
  private readonly secretPatterns: readonly string[];
  private readonly ignoreCache = new Map<
    string,
    { mtimeMs: number; ig: Ignore | undefined; text: string | undefined }
  >();
  private realRoots: { key: string; value: Promise<string[]> } | undefined;

  constructor(
    readonly fs: WorkspaceFs,
    readonly options: SandboxOptions,
  ) {
    const platform = options.platform ?? (process.platform === 'win32' ? 'win32' : 'posix');
    this.path = platform === 'win32' ? nodePath.win32 : nodePath.posix;
    this.secretPatterns = [...DEFAULT_SECRET_PATTERNS, ...(options.extraSecretPatterns ?? [])];
  }

  get trusted(): boolean {
    return this.options.trusted;
  }

  roots(): string[] {
    return this.fs.roots().map((r) => this.path.normalize(r));
  }

  /** Resolve a model-supplied path; never throws for bad input. */
  async resolve(input: string, access: PathAccess): Promise<PathResolution> {
    if (access === 'write' && !this.options.trusted) {
      return refuse(
        'untrusted',
        'This workspace is not trusted, so Forge cannot write files here. Ask the user to trust the workspace.',
      );
    }
    const roots = this.roots();
    if (roots.length === 0)
      return refuse('no-workspace', 'No workspace folder is open; ask the user to open a folder.');
    const lexical = this.lexical(input, roots);
    if (!lexical.ok) return lexical;
    const { abs, root } = lexical;
    const rel = this.relPosix(root, abs);

    const realRoots = await this.getRealRoots(roots);
    const { real, exists } = await this.realOf(abs);
    const realRoot = real === undefined ? undefined : realRoots.find((r) => this.contains(r, real));
    if (!realRoot || real === undefined) {
      return refuse(
        'symlink-escape',
        `'${input}' resolves (through a symbolic link) to a location outside the workspace. Only files inside the workspace folders can be used.`,
      );
    }
    const realRel = this.relPosix(realRoot, real);

    // The lexical path is judged by its own folder's rules, the real one by the folder it really lives in.
    const checks: [string, string][] = [[root, rel]];
    if (realRel !== rel || realRoot !== root) checks.push([realRoot, realRel]);
    for (const [r, p] of checks) {
      const verdict = await this.checkRel(r, p, access, abs, exists);
      if (verdict) return verdict;
    }
    return { ok: true, abs, root, rel, real, exists };
  }

  /**
   * The same location addressed through its real path: for a start reached through a symbolic link (inside the
   * workspace), the folder and relative path where it really lives, so walkers apply that folder's rules.
   */
  async canonical(r: ResolvedPath): Promise<ResolvedPath> {
    if (r.real === r.abs) return r;
    const roots = this.roots();
    const realRoots = await this.getRealRoots(roots);
    const i = realRoots.findIndex((rr) => this.contains(rr, r.real));
    if (i < 0) return r;
    const root = roots[i]!;
    const rel = this.relPosix(realRoots[i]!, r.real);
    const abs = rel ? this.path.join(root, ...rel.split('/')) : root;
    return { ...r, abs, root, rel };
  }

  /** Whether a '/'-separated relative path goes into a .git folder (any letter case; the folder itself too). */
  isGitPath(rel: string): boolean {
    return rel.split('/').some((c) => this.isGitName(c));
  }

  /** '.git' in any letter case (case-insensitive file systems), with HFS-ignored characters, or its 8.3 name. */
  isGitName(name: string): boolean {
    const n = name.replace(HFS_IGNORED, '').toLowerCase();
    return n === '.git' || (this.path === nodePath.win32 && /^git~\d+$/.test(n));
  }

  /**
   * Whether a path found while walking (relative to its root, '/' separated) must be hidden:
   * .forgeignore or secret. Walkers call this; gitignore handling is theirs.
   */
  async isHidden(root: string, rel: string, isDir: boolean): Promise<'secret' | 'ignored' | undefined> {
    return this.hiddenMatcher(await this.forgeIgnore(root))(rel, isDir);
  }

  /**
   * The isHidden judgement as a synchronous matcher, given a root's compiled .forgeignore (walkers read it once). The
   * secret patterns are compiled per matcher: `ignore` remembers every path it was asked about, so one matcher kept
   * for the session would hold every path of every walk (100,000+ for a big tree) for the collector to trace.
   */
  hiddenMatcher(forgeIgnore: Ignore | undefined): (rel: string, isDir: boolean) => 'secret' | 'ignored' | undefined {
    const secrets = this.options.allowSecrets
      ? undefined
      : ignore({ allowRelativePaths: true }).add([...this.secretPatterns]);
    return (rel, isDir) => {
      if (!rel) return undefined;
      const p = isDir ? rel + '/' : rel;
      if (secrets?.ignores(p)) return 'secret';
      if (forgeIgnore?.ignores(p)) return 'ignored';
      return undefined;
    };
  }

  /** Absolute paths of existing per-root ignore files (for search backends): only those this sandbox uses too. */
  async ignoreFiles(): Promise<string[]> {
    const name = this.options.ignoreFileName ?? '.forgeignore';
    const out: string[] = [];
    for (const r of this.roots()) {
      if ((await this.forgeIgnoreText(r)) !== undefined) out.push(this.path.join(r, name));
    }
    return out;
  }

  /** Workspace-relative display path: 'src/a.ts', or 'folder/src/a.ts' in a multi-root workspace. */
  display(abs: string): string {
    const roots = this.roots();
    const root = roots.find((r) => this.contains(r, abs));
    if (!root) return abs;
    const rel = this.relPosix(root, abs) || '.';
    return roots.length > 1 ? `${this.path.basename(root)}/${rel === '.' ? '' : rel}` : rel;
  }

  private lexical(input: string, roots: string[]): { ok: true; abs: string; root: string } | PathRefusal {
    const p = this.path;
    if (typeof input !== 'string') return refuse('invalid', 'Path must be a string.');
    if (input.includes('\0'))
      return refuse('invalid', 'Path contains a NUL byte; use a plain relative path such as src/index.ts.');
    if (input.length > 4096) return refuse('invalid', 'Path is too long.');
    let s = input.trim().replace(/\\/g, '/');
    if (s === '' || s === '.' || s === './') s = '.';
    // Windows namespace / UNC / device tricks are never needed for workspace files.
    if (s.startsWith('//') || /^\/\/[?.]\//.test(s))
      return refuse('invalid', `'${input}' is a UNC or device path; use a path relative to the workspace.`);
    const drive = /^[a-zA-Z]:/.test(s);
    if (drive && (p !== nodePath.win32 || !/^[a-zA-Z]:\//.test(s))) {
      return refuse('invalid', `'${input}' is a Windows drive path; use a path relative to the workspace.`);
    }
    if (p === nodePath.win32) {
      const body = drive ? s.slice(2) : s;
      if (body.includes(':'))
        return refuse('invalid', `'${input}' contains ':' (alternate data stream); use a plain file path.`);
      if (body.split('/').some((c) => WIN_RESERVED.test(c) || (/[. ]$/.test(c) && c !== '.' && c !== '..'))) {
        return refuse('invalid', `'${input}' uses a reserved Windows device name or a trailing dot/space.`);
      }
    }
    if (s.startsWith('~'))
      return refuse(
        'outside-workspace',
        `'${input}' points into the home directory; only workspace files can be used.`,
      );

    let abs: string;
    let root: string;
    if (p.isAbsolute(s)) {
      abs = p.normalize(s);
      const r = roots.find((rt) => this.contains(rt, abs));
      if (!r)
        return refuse(
          'outside-workspace',
          `'${input}' is outside the workspace folders (${roots.join(', ')}). Use a path relative to the workspace.`,
        );
      root = r;
    } else {
      root = roots[0]!;
      // Multi-root: 'folderName/...' addresses that folder when the first folder has no such entry name.
      const first = s.split('/')[0];
      if (roots.length > 1) {
        const named = roots.find((r) => p.basename(r) === first);
        if (named) {
          root = named;
          s = s.split('/').slice(1).join('/') || '.';
        }
      }
      abs = p.resolve(root, s);
      if (!this.contains(root, abs)) {
        return refuse(
          'outside-workspace',
          `'${input}' escapes the workspace folder with '..'. Use a path inside the workspace.`,
        );
      }
    }
    return { ok: true, abs, root };
  }

  private async checkRel(
    root: string,
    rel: string,
    access: PathAccess,
    abs: string,
    exists: boolean,
  ): Promise<PathRefusal | undefined> {
    if (!rel) return undefined;
    if (this.isGitPath(rel)) {
      return refuse(
        'git-internal',
        `'${rel}' is inside .git (git's own data); Forge does not read, list or write it. Use git commands instead (git status, git log, git show, git config --get, git diff).`,
      );
    }
    // One .forgeignore lookup for the whole path (it is mtime-checked on every call).
    const hidden = this.hiddenMatcher(await this.forgeIgnore(root));
    // A folder being listed is judged as a folder too ("build/" excludes listing build).
    const self = hidden(rel, false) ?? (access === 'list' ? hidden(rel, true) : undefined);
    if (self === 'secret') {
      return refuse(
        'secret',
        `'${rel}' looks like a secret (keys, credentials, .env). Forge does not read or write secrets; ask the user if you need a value from it.`,
      );
    }
    if (self === 'ignored')
      return refuse('ignored', `'${rel}' is excluded by .forgeignore; work with other files or ask the user.`);
    // Parent directories can be ignored too ("build/" excludes build/x.js).
    const parts = rel.split('/');
    for (let i = 1; i < parts.length; i++) {
      const dirHidden = hidden(parts.slice(0, i).join('/'), true);
      if (dirHidden === 'secret')
        return refuse('secret', `'${rel}' is inside a secrets folder; Forge does not touch it.`);
      if (dirHidden === 'ignored') return refuse('ignored', `'${rel}' is inside a folder excluded by .forgeignore.`);
    }
    if (!this.options.allowSecrets && this.isNpmrc(rel) && exists) {
      try {
        // Regular files only (a FIFO named .npmrc must not hang the check), and capped.
        const read = await readRegular(this.fs, await this.fs.realpath(abs), FORGEIGNORE_MAX_BYTES);
        const text = read.ok ? new TextDecoder().decode(read.data) : '';
        if (NPMRC_TOKEN.test(text))
          return refuse('secret', `'${rel}' contains registry credentials; Forge does not read or write it.`);
      } catch {
        /* unreadable: the tool reports it */
      }
    }
    return undefined;
  }

  /** Whether the path names an .npmrc (judged by content: only one holding a token is a secret). */
  isNpmrc(rel: string): boolean {
    return this.path.basename(rel).toLowerCase() === '.npmrc';
  }

  /**
   * The text of a root's .forgeignore as this sandbox uses it (undefined when there is none, or it cannot be used:
   * a link out of the folder, a FIFO, too big). Walkers compile their own matcher from it.
   */
  async forgeIgnoreText(root: string): Promise<string | undefined> {
    await this.forgeIgnore(root);
    return this.ignoreCache.get(root)?.text;
  }

  private async forgeIgnore(root: string): Promise<Ignore | undefined> {
    const file = this.path.join(root, this.options.ignoreFileName ?? '.forgeignore');
    const st = await this.fs.stat(file).catch(() => undefined);
    const mtimeMs = st ? st.mtimeMs : -1;
    const cached = this.ignoreCache.get(root);
    if (cached && cached.mtimeMs === mtimeMs) return cached.ig;
    let ig: Ignore | undefined;
    let text: string | undefined;
    if (st) {
      // Read under the rule every control-plane file is read under: inside its folder once links are resolved, a
      // regular file (a FIFO here must not hang every tool call), and capped. One that breaks it is not used.
      const problem = await this.readForgeIgnore(root, file).then(
        (r) => {
          if (typeof r === 'string') return r;
          ig = ignore({ allowRelativePaths: true }).add(r.text);
          text = r.text;
          return undefined;
        },
        (err: unknown) => `it could not be read (${errorText(err)})`,
      );
      if (problem) this.options.warn?.(`${this.display(file)} is not used: ${problem}`);
    }
    this.ignoreCache.set(root, { mtimeMs, ig, text });
    return ig;
  }

  /** The ignore file's text, or why it cannot be used. */
  private async readForgeIgnore(root: string, file: string): Promise<{ text: string } | string> {
    const real = await this.fs.realpath(file).catch(() => undefined);
    const realRoot = await this.fs.realpath(root).catch(() => root);
    if (real === undefined || !this.contains(realRoot, real))
      return 'it is a symbolic link that leads outside its workspace folder, or to nothing';
    const read = await readRegular(this.fs, real, FORGEIGNORE_MAX_BYTES);
    if (!read.ok) return read.code === 'missing' ? 'it does not exist' : `it is a ${read.kind}, not a regular file`;
    if (read.truncated) return `it is larger than ${FORGEIGNORE_MAX_BYTES / (1024 * 1024)} MB`;
    return { text: new TextDecoder().decode(read.data) };
  }

  private getRealRoots(roots: string[]): Promise<string[]> {
    const key = roots.join('\0');
    if (this.realRoots?.key !== key) {
      this.realRoots = { key, value: Promise.all(roots.map((r) => this.fs.realpath(r).catch(() => r))) };
    }
    return this.realRoots.value;
  }

  /** realpath of the path, or of its deepest existing ancestor joined with the missing rest. */
  private async realOf(abs: string): Promise<{ real: string | undefined; exists: boolean }> {
    const p = this.path;
    const rest: string[] = [];
    let cur = abs;
    for (;;) {
      try {
        const real = await this.fs.realpath(cur);
        return { real: rest.length ? p.join(real, ...rest.reverse()) : real, exists: rest.length === 0 };
      } catch {
        // A dangling symlink would be followed by a write: treat its target as unknown.
        if ((await this.fs.stat(cur).catch(() => undefined))?.type === 'symlink')
          return { real: undefined, exists: false };
        const parent = p.dirname(cur);
        if (parent === cur) return { real: abs, exists: false };
        rest.push(p.basename(cur));
        cur = parent;
      }
    }
  }

  contains(root: string, abs: string): boolean {
    const rel = this.path.relative(root, abs);
    return rel === '' || (rel !== '..' && !rel.startsWith('..' + this.path.sep) && !this.path.isAbsolute(rel));
  }

  private relPosix(root: string, abs: string): string {
    return this.path.relative(root, abs).split(this.path.sep).join('/');
  }
}

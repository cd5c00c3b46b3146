// One confined reader for every workspace file Forge reads into its prompt or its configuration (project rules,
// prompt files, MCP configs, memory, mode context): the same rule as read_file, from the same WorkspaceSandbox.
// Inside the workspace folders after every symlink is resolved (a linked file or folder leading out is refused),
// never a secret by name (.env, keys; the user's allowSecrets does not apply here), never what .forgeignore
// excludes, never .git; only regular files (a FIFO, device or socket is refused before it is opened), at most a
// given size, and text only. A refusal is a value with a sentence for people, never an exception: the caller
// skips the file and warns.
import * as nodePath from 'node:path';
import type { DirEntry, EntryType, WorkspaceFs } from '../workspace/types';
import { WorkspaceSandbox, type PathRefusalCode, type SandboxOptions } from './paths';
import { readRegular } from './regular-read';
import { errorText } from '../error-text';

type ConfinedRefusalCode = PathRefusalCode | 'missing' | 'not-a-file' | 'too-large' | 'binary' | 'unreadable';

export interface ConfinedRefusal {
  ok: false;
  code: ConfinedRefusalCode;
  /** Workspace-relative path as shown to people. */
  display: string;
  /** Why, for people: "it is a symbolic link that leads outside the workspace". */
  why: string;
  /** One line for a log or a warning: "AGENTS.md was not read: <why>". */
  message: string;
}

interface ConfinedText {
  ok: true;
  /** Absolute lexical path (as asked). */
  abs: string;
  /** Absolute path with symlinks resolved (what was opened). */
  real: string;
  display: string;
  text: string;
  /** The file holds more than maxBytes (only with overCap 'truncate'). */
  truncated: boolean;
  /** Size in bytes when it was opened. */
  size: number;
}

export interface ConfinedEntry {
  name: string;
  abs: string;
  /** Type after following a symlink that stays inside the workspace. */
  type: EntryType;
}

interface ConfinedListing {
  ok: true;
  abs: string;
  entries: ConfinedEntry[];
  /** Entries refused on the way (symlinks leading out, secrets...), for the caller to warn about. */
  refused: ConfinedRefusal[];
}

interface ConfinedReadOptions {
  /** Bytes read at most. */
  maxBytes: number;
  /** A larger file: its first maxBytes (truncated: true), or refused. Default 'refuse'. */
  overCap?: 'truncate' | 'refuse';
  signal?: AbortSignal;
}

/** Options a reader takes from the file tools' sandbox; secrets are always refused and reads need no trust. */
type ConfinedReaderOptions = Pick<SandboxOptions, 'extraSecretPatterns' | 'ignoreFileName' | 'platform' | 'warn'>;

function formatSize(n: number): string {
  return n >= 1024 * 1024
    ? `${(n / (1024 * 1024)).toFixed(1)} MB`
    : n >= 1024
      ? `${Math.round(n / 1024)} KB`
      : `${n} bytes`;
}

const WHY: Partial<Record<ConfinedRefusalCode, string>> = {
  'symlink-escape': 'it is a symbolic link (or inside a linked folder) that leads outside the workspace, or to nothing',
  'outside-workspace': 'it is outside the workspace folders',
  secret: 'it looks like a secret (keys, credentials, .env)',
  ignored: 'it is excluded by .forgeignore',
  'git-internal': 'it is inside .git',
  'no-workspace': 'no workspace folder is open',
  missing: 'it does not exist',
  binary: 'it is a binary file',
};

/** Whether a refusal deserves a warning (a file that is simply not there does not). */
export function isWorthWarning(r: ConfinedRefusal): boolean {
  return r.code !== 'missing' && r.code !== 'no-workspace';
}

export class ConfinedReader {
  readonly sandbox: WorkspaceSandbox;
  private readonly path: typeof nodePath.posix;

  constructor(
    readonly fs: WorkspaceFs,
    options: ConfinedReaderOptions = {},
  ) {
    // Reads only: trust is about writes and commands. Secrets are refused whatever the file tools allow.
    this.sandbox = new WorkspaceSandbox(fs, { ...options, trusted: true, allowSecrets: false });
    const platform = options.platform ?? (process.platform === 'win32' ? 'win32' : 'posix');
    this.path = platform === 'win32' ? nodePath.win32 : nodePath.posix;
  }

  /** A reader over the same files and rules as a file tools' sandbox (secrets refused even when it allows them). */
  static over(sandbox: WorkspaceSandbox): ConfinedReader {
    const o = sandbox.options;
    return new ConfinedReader(sandbox.fs, {
      ...(o.extraSecretPatterns ? { extraSecretPatterns: o.extraSecretPatterns } : {}),
      ...(o.ignoreFileName ? { ignoreFileName: o.ignoreFileName } : {}),
      ...(o.platform ? { platform: o.platform } : {}),
      ...(o.warn ? { warn: o.warn } : {}),
    });
  }

  display(abs: string): string {
    return this.sandbox.display(abs);
  }

  private refusal(code: ConfinedRefusalCode, display: string, why?: string): ConfinedRefusal {
    const w = why ?? WHY[code] ?? code;
    return { ok: false, code, display, why: w, message: `${display} was not read: ${w}` };
  }

  /** The text of a workspace file (absolute, or relative to the first folder), or why it is refused. Never throws but for an abort. */
  async readText(file: string, opts: ConfinedReadOptions): Promise<ConfinedText | ConfinedRefusal> {
    const shown = this.display(file);
    try {
      const r = await this.sandbox.resolve(file, 'read');
      if (!r.ok) return this.refusal(r.code, shown, WHY[r.code] ?? r.reason);
      const display = this.display(r.abs);
      if (!r.exists) return this.refusal('missing', display);
      // The real path is opened: with the last component no longer a link, a link swapped in meanwhile is refused.
      const read = await readRegular(this.fs, r.real, opts.maxBytes, opts.signal);
      if (!read.ok)
        return read.code === 'missing'
          ? this.refusal('missing', display)
          : this.refusal('not-a-file', display, `it is a ${read.kind}, not a regular file`);
      if (read.truncated && (opts.overCap ?? 'refuse') === 'refuse') {
        return this.refusal(
          'too-large',
          display,
          `it is ${formatSize(Math.max(read.size, opts.maxBytes + 1))}, over the ${formatSize(opts.maxBytes)} this file may have`,
        );
      }
      if (read.data.includes(0)) return this.refusal('binary', display);
      const text = new TextDecoder('utf-8', { fatal: false }).decode(read.data).replace(/^\ufeff/, '');
      return { ok: true, abs: r.abs, real: r.real, display, text, truncated: read.truncated, size: read.size };
    } catch (err) {
      opts.signal?.throwIfAborted();
      return this.refusal('unreadable', shown, `it could not be read (${errorText(err)})`);
    }
  }

  /**
   * Whether a workspace file Forge reads and writes itself (the memory store) may be used, without reading it: inside
   * the workspace once links are resolved (a missing file too: its existing folders are checked), not a secret, not
   * excluded by .forgeignore, a regular file when it exists, at most `maxBytes`. undefined when it may.
   */
  async check(file: string, opts: { maxBytes?: number } = {}): Promise<ConfinedRefusal | undefined> {
    const shown = this.display(file);
    try {
      const r = await this.sandbox.resolve(file, 'read');
      if (!r.ok) return this.refusal(r.code, shown, WHY[r.code] ?? r.reason);
      const st = r.exists ? await this.fs.stat(r.real) : undefined;
      if (!st) return undefined;
      if (st.type !== 'file')
        return this.refusal(
          'not-a-file',
          shown,
          `it is a ${st.type === 'dir' ? 'folder' : 'FIFO, device or socket'}, not a regular file`,
        );
      if (opts.maxBytes !== undefined && st.size > opts.maxBytes)
        return this.refusal(
          'too-large',
          shown,
          `it is ${formatSize(st.size)}, over the ${formatSize(opts.maxBytes)} this file may have`,
        );
      return undefined;
    } catch (err) {
      return this.refusal('unreadable', shown, `it could not be checked (${errorText(err)})`);
    }
  }

  /**
   * The entries of a workspace folder, the folder itself confined like a file (a linked folder leading out is
   * refused). Symlinked entries are followed only when they stay inside the workspace (others are in `refused`).
   */
  async listDir(dir: string, signal?: AbortSignal): Promise<ConfinedListing | ConfinedRefusal> {
    const shown = this.display(dir);
    try {
      const r = await this.sandbox.resolve(dir, 'list');
      if (!r.ok) return this.refusal(r.code, shown, WHY[r.code] ?? r.reason);
      const display = this.display(r.abs);
      if (!r.exists) return this.refusal('missing', display);
      const st = await this.fs.stat(r.real);
      if (!st) return this.refusal('missing', display);
      if (st.type !== 'dir') return this.refusal('not-a-file', display, 'it is not a folder');
      const raw: DirEntry[] = await this.fs.readDir(r.real, signal);
      const entries: ConfinedEntry[] = [];
      const refused: ConfinedRefusal[] = [];
      for (const e of raw) {
        const abs = this.path.join(r.abs, e.name);
        if (e.type !== 'symlink') {
          entries.push({ name: e.name, abs, type: e.type });
          continue;
        }
        const link = await this.sandbox.resolve(abs, 'read');
        if (!link.ok) {
          refused.push(this.refusal(link.code, this.display(abs), WHY[link.code] ?? link.reason));
          continue;
        }
        const target = link.exists ? await this.fs.stat(link.real) : undefined;
        if (target) entries.push({ name: e.name, abs, type: target.type });
      }
      return { ok: true, abs: r.abs, entries, refused };
    } catch (err) {
      signal?.throwIfAborted();
      return this.refusal('unreadable', shown, `it could not be listed (${errorText(err)})`);
    }
  }
}

// An EditApplier that writes straight to disk: atomically (temp file in the same folder, then rename), keeping
// the file's mode, a UTF-8 byte-order mark and symlinks (the link's target is written, the link stays), and
// refusing when the file changed since the proposal was computed. Used headless (CLI, background worktrees) and by
// the VS Code host for files no editor shows, where a WorkspaceEdit + save would cost several workbench round trips.
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import { constants as fsConstants, promises as fsp } from 'node:fs';
import * as path from 'node:path';
import type { EditApplier, FileEdit } from '../core/workspace/types';

export class ConcurrentChangeError extends Error {
  override readonly name = 'ConcurrentChangeError';
}

/** The file could not be written this way (not UTF-8 text): the caller may use another writer. */
export class NotPlainTextError extends Error {
  override readonly name = 'NotPlainTextError';
}

interface DiskEditApplierOptions {
  /** Refuse when the file changed since the proposal was computed (default true). */
  checkConcurrentChange?: boolean;
  /**
   * The workspace folders: the file (its real path, links followed) must still be inside one when it is written. The
   * path was checked when the edit was proposed; a command may have swapped a folder for a link since.
   */
  roots?: () => readonly string[];
  /** Files and edits up to this many bytes are written without yielding to the event loop (default 256 KiB). */
  syncMaxBytes?: number;
}

const BOM = '\ufeff';

/** The file operations an edit needs; each returns its result or a promise of it. */
interface DiskIo {
  realpath(p: string): string | Promise<string>;
  readFile(p: string): Buffer | Promise<Buffer>;
  stat(p: string): fs.Stats | Promise<fs.Stats>;
  writable(p: string): boolean | Promise<boolean>;
  mkdir(p: string): unknown;
  writeFile(p: string, text: string): unknown;
  chmod(p: string, mode: number): unknown;
  rename(from: string, to: string): unknown;
  rm(p: string): unknown;
}

const asyncIo: DiskIo = {
  realpath: (p) => fsp.realpath(p),
  readFile: (p) => fsp.readFile(p),
  stat: (p) => fsp.stat(p),
  writable: (p) =>
    fsp.access(p, fsConstants.W_OK).then(
      () => true,
      () => false,
    ),
  mkdir: (p) => fsp.mkdir(p, { recursive: true }),
  writeFile: (p, text) => fsp.writeFile(p, text, 'utf8'),
  chmod: (p, mode) => fsp.chmod(p, mode),
  rename: (from, to) => fsp.rename(from, to),
  rm: (p) => fsp.rm(p, { force: true }),
};

/**
 * The same operations done at once. For a small file the whole edit then runs in one turn of the event loop (awaiting
 * a plain value only queues a microtask), so the work other extensions in this host start when a file changes cannot
 * slip in between its steps (measured: one such step waited 100-290 ms); on a local disk it takes well under 1 ms.
 */
const syncIo: DiskIo = {
  realpath: (p) => fs.realpathSync(p),
  readFile: (p) => fs.readFileSync(p),
  stat: (p) => fs.statSync(p),
  writable: (p) => {
    try {
      fs.accessSync(p, fsConstants.W_OK);
      return true;
    } catch {
      return false;
    }
  },
  mkdir: (p) => fs.mkdirSync(p, { recursive: true }),
  writeFile: (p, text) => fs.writeFileSync(p, text, 'utf8'),
  chmod: (p, mode) => fs.chmodSync(p, mode),
  rename: (from, to) => fs.renameSync(from, to),
  rm: (p) => fs.rmSync(p, { force: true }),
};

/** Files (and edits) up to this size are written with syncIo by default. */
const SYNC_MAX_BYTES = 256 * 1024;

/** `f()`, or undefined when it throws or rejects. */
async function orUndefined<T>(f: () => T | Promise<T>): Promise<T | undefined> {
  try {
    return await f();
  } catch {
    return undefined;
  }
}

function smallFile(file: string, max: number): boolean {
  try {
    return fs.statSync(file).size <= max;
  } catch {
    return true; // a new file: its size is the edit's
  }
}
const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

export class DiskEditApplier implements EditApplier {
  constructor(private readonly options: DiskEditApplierOptions = {}) {}

  async apply(edit: FileEdit, signal?: AbortSignal): Promise<void> {
    signal?.throwIfAborted();
    const max = this.options.syncMaxBytes ?? SYNC_MAX_BYTES;
    const io = edit.content.length <= max && smallFile(edit.path, max) ? syncIo : asyncIo;
    // Write through a symlink to its target, as an editor's save does (a rename would replace the link).
    const target = await realTarget(io, edit.path);
    await this.checkConfined(io, edit.path, target);
    let bytes: Buffer | undefined;
    try {
      bytes = await io.readFile(target);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    }
    let bom = false;
    let mode: number | undefined;
    if (bytes) {
      let current: string;
      try {
        current = strictUtf8.decode(bytes);
      } catch {
        throw new NotPlainTextError(`${edit.path} is not UTF-8 text`);
      }
      bom = current.startsWith(BOM);
      if (bom) current = current.slice(1);
      this.checkUnchanged(edit, current);
      if (current === edit.content) return;
      // A rename would replace a read-only file as easily as any other: a file nobody may write (no write bit, which
      // holds for root too) or that this user may not write is left alone, as an editor's save would.
      const st = await io.stat(target);
      mode = st.mode & 0o7777;
      const writable = (st.mode & 0o222) !== 0 && (await io.writable(target));
      if (!writable)
        throw new ReadOnlyFileError(
          `${edit.path} is read-only; Forge did not change it. Ask the user to make it writable if it should be edited.`,
        );
    }
    signal?.throwIfAborted();
    await writeAtomically(io, target, bom ? BOM + edit.content : edit.content, mode);
  }

  private async checkConfined(io: DiskIo, shown: string, target: string): Promise<void> {
    const roots = this.options.roots?.();
    if (!roots) return;
    const real: string[] = [];
    for (const r of roots) real.push((await orUndefined(() => io.realpath(r))) ?? path.resolve(r));
    const inside = real.some((r) => {
      const rel = path.relative(r, target);
      return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
    });
    if (!inside)
      throw new OutsideWorkspaceError(
        `Refused: ${shown} now leads outside the workspace (to ${target}); a link changed since the edit was proposed. Nothing was written.`,
      );
  }

  private checkUnchanged(edit: FileEdit, current: string): void {
    if (this.options.checkConcurrentChange === false) return;
    if (edit.isNewFile) {
      if (current !== '' && !sameText(current, edit.content)) {
        throw new ConcurrentChangeError(
          `${edit.path} was created since the edit was proposed; Forge did not overwrite it. Re-read it and propose again.`,
        );
      }
      return;
    }
    if (edit.original !== undefined && !sameText(current, edit.original)) {
      throw new ConcurrentChangeError(
        `${edit.path} changed since the edit was proposed; re-read it and propose again.`,
      );
    }
  }
}

export class ReadOnlyFileError extends Error {
  override readonly name = 'ReadOnlyFileError';
}

export class OutsideWorkspaceError extends Error {
  override readonly name = 'OutsideWorkspaceError';
}

/** The real path the write lands on: links followed for the file, or for its nearest existing folder (a new file). */
async function realTarget(io: DiskIo, file: string): Promise<string> {
  const real = await orUndefined(() => io.realpath(file));
  if (real) return real;
  let dir = path.dirname(file);
  const rest = [path.basename(file)];
  for (;;) {
    const realDir = await orUndefined(() => io.realpath(dir));
    if (realDir) return path.join(realDir, ...rest);
    const up = path.dirname(dir);
    if (up === dir) return file;
    rest.unshift(path.basename(dir));
    dir = up;
  }
}

/**
 * Temp file beside the target, then rename over it (a crash leaves the old or the new file, never half of one).
 * `knownMode`: the file's permission bits when the caller has them already (else they are read; none for a new file).
 */
async function writeAtomically(io: DiskIo, file: string, text: string, knownMode?: number): Promise<void> {
  const dir = path.dirname(file);
  await io.mkdir(dir);
  const tmp = path.join(dir, `.${path.basename(file)}.forge-${randomBytes(6).toString('hex')}.tmp`);
  const mode = knownMode ?? (await orUndefined(async () => (await io.stat(file)).mode & 0o7777));
  try {
    await io.writeFile(tmp, text);
    if (mode !== undefined) await io.chmod(tmp, mode); // exact, whatever the umask
    try {
      await io.rename(tmp, file);
    } catch (e) {
      // Windows refuses to rename over a file another process holds open: fall back to a direct write.
      const code = (e as NodeJS.ErrnoException).code;
      if (code !== 'EPERM' && code !== 'EACCES') throw e;
      await io.writeFile(file, text);
    }
  } finally {
    await io.rm(tmp);
  }
}

/** Line endings may be normalised by an editor (CRLF vs LF); that is not a concurrent change. */
export function sameText(a: string, b: string): boolean {
  return a === b || a.replace(/\r\n/g, '\n') === b.replace(/\r\n/g, '\n');
}

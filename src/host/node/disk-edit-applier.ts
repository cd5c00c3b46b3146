// An EditApplier that writes straight to disk: atomically (temp file in the same folder, then rename), keeping
// the file's mode, a UTF-8 byte-order mark and symlinks (the link's target is written, the link stays), and
// refusing when the file changed since the proposal was computed. Used headless (CLI, background worktrees) and by
// the VS Code host for files no editor shows, where a WorkspaceEdit + save would cost several workbench round trips.
import { randomBytes } from 'node:crypto';
import { constants as fsConstants, promises as fsp } from 'node:fs';
import * as path from 'node:path';
import type { EditApplier, FileEdit } from '../../core/workspace/types';

export class ConcurrentChangeError extends Error {
  override readonly name = 'ConcurrentChangeError';
}

/** The file could not be written this way (not UTF-8 text): the caller may use another writer. */
export class NotPlainTextError extends Error {
  override readonly name = 'NotPlainTextError';
}

export interface DiskEditApplierOptions {
  /** Refuse when the file changed since the proposal was computed (default true). */
  checkConcurrentChange?: boolean;
  /**
   * The workspace folders: the file (its real path, links followed) must still be inside one when it is written. The
   * path was checked when the edit was proposed; a command may have swapped a folder for a link since.
   */
  roots?: () => readonly string[];
}

const BOM = '\ufeff';
const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

export class DiskEditApplier implements EditApplier {
  constructor(private readonly options: DiskEditApplierOptions = {}) {}

  async apply(edit: FileEdit, signal?: AbortSignal): Promise<void> {
    signal?.throwIfAborted();
    // Write through a symlink to its target, as an editor's save does (a rename would replace the link).
    const target = await realTarget(edit.path);
    await this.checkConfined(edit.path, target);
    const bytes = await fsp.readFile(target).catch((e: NodeJS.ErrnoException) => {
      if (e.code === 'ENOENT') return undefined;
      throw e;
    });
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
      const st = await fsp.stat(target);
      mode = st.mode & 0o7777;
      const writable = (st.mode & 0o222) !== 0 && (await fsp.access(target, fsConstants.W_OK).then(() => true, () => false));
      if (!writable) throw new ReadOnlyFileError(`${edit.path} is read-only; Forge did not change it. Ask the user to make it writable if it should be edited.`);
    }
    signal?.throwIfAborted();
    await writeAtomically(target, bom ? BOM + edit.content : edit.content, mode);
  }

  private async checkConfined(shown: string, target: string): Promise<void> {
    const roots = this.options.roots?.();
    if (!roots) return;
    const real = await Promise.all(roots.map((r) => fsp.realpath(r).catch(() => path.resolve(r))));
    const inside = real.some((r) => {
      const rel = path.relative(r, target);
      return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
    });
    if (!inside) throw new OutsideWorkspaceError(`Refused: ${shown} now leads outside the workspace (to ${target}); a link changed since the edit was proposed. Nothing was written.`);
  }

  private checkUnchanged(edit: FileEdit, current: string): void {
    if (this.options.checkConcurrentChange === false) return;
    if (edit.isNewFile) {
      if (current !== '' && !sameText(current, edit.content)) {
        throw new ConcurrentChangeError(`${edit.path} was created since the edit was proposed; Forge did not overwrite it. Re-read it and propose again.`);
      }
      return;
    }
    if (edit.original !== undefined && !sameText(current, edit.original)) {
      throw new ConcurrentChangeError(`${edit.path} changed since the edit was proposed; re-read it and propose again.`);
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
async function realTarget(file: string): Promise<string> {
  const real = await fsp.realpath(file).catch(() => undefined);
  if (real) return real;
  let dir = path.dirname(file);
  const rest = [path.basename(file)];
  for (;;) {
    const realDir = await fsp.realpath(dir).catch(() => undefined);
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
async function writeAtomically(file: string, text: string, knownMode?: number): Promise<void> {
  const dir = path.dirname(file);
  await fsp.mkdir(dir, { recursive: true });
  const tmp = path.join(dir, `.${path.basename(file)}.forge-${randomBytes(6).toString('hex')}.tmp`);
  const mode = knownMode ?? (await fsp.stat(file).then((s) => s.mode & 0o7777, () => undefined));
  try {
    await fsp.writeFile(tmp, text, 'utf8');
    if (mode !== undefined) await fsp.chmod(tmp, mode); // exact, whatever the umask
    try {
      await fsp.rename(tmp, file);
    } catch (e) {
      // Windows refuses to rename over a file another process holds open: fall back to a direct write.
      const code = (e as NodeJS.ErrnoException).code;
      if (code !== 'EPERM' && code !== 'EACCES') throw e;
      await fsp.writeFile(file, text, 'utf8');
    }
  } finally {
    await fsp.rm(tmp, { force: true });
  }
}

/** Line endings may be normalised by an editor (CRLF vs LF); that is not a concurrent change. */
export function sameText(a: string, b: string): boolean {
  return a === b || a.replace(/\r\n/g, '\n') === b.replace(/\r\n/g, '\n');
}

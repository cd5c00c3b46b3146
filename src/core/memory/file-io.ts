// The store's only window onto the disk. Small on purpose so tests can fake it and the host can swap it.

export interface FileStamp {
  mtimeMs: number;
  size: number;
}

export interface MemoryFileIO {
  /** The file's text, or undefined when it does not exist. */
  read(path: string): Promise<string | undefined>;
  /** Replace the file's content atomically (temp file + rename): readers see the old or the new text, never half. */
  writeAtomic(path: string, content: string): Promise<void>;
  /** mtime + size, or undefined when the file does not exist. Used to notice external edits. */
  stat(path: string): Promise<FileStamp | undefined>;
  /**
   * Optional: append whole lines in one write with O_APPEND, so lines another process appends at the same time
   * interleave line by line and none is lost.
   */
  append?(path: string, text: string): Promise<void>;
  /**
   * Optional: run `fn` holding a lock shared with other processes (another VS Code window on the same workspace).
   * Every read-modify-write of the file happens under it, after re-reading the file.
   */
  withLock?<T>(path: string, fn: () => Promise<T>): Promise<T>;
}

/**
 * In-memory fake. `failNextRename` simulates a crash after the temp file was written but before the rename:
 * the temp text is left behind (as a real crash would) and the target keeps its old content.
 */
export class InMemoryFileIO implements MemoryFileIO {
  readonly files = new Map<string, { text: string; mtimeMs: number }>();
  failNextRename = false;
  private clock = 1;

  async read(path: string): Promise<string | undefined> {
    return this.files.get(path)?.text;
  }

  async writeAtomic(path: string, content: string): Promise<void> {
    const temp = `${path}.tmp`;
    this.files.set(temp, { text: content, mtimeMs: this.clock++ });
    if (this.failNextRename) {
      this.failNextRename = false;
      throw new Error(`simulated crash before rename of ${temp}`);
    }
    this.files.delete(temp);
    this.files.set(path, { text: content, mtimeMs: this.clock++ });
  }

  async stat(path: string): Promise<FileStamp | undefined> {
    const f = this.files.get(path);
    return f ? { mtimeMs: f.mtimeMs, size: Buffer.byteLength(f.text) } : undefined;
  }

  /** An edit made outside Forge (the user in their editor, a git pull). */
  externalWrite(path: string, content: string): void {
    this.files.set(path, { text: content, mtimeMs: this.clock++ });
  }
}

// Command output capping: keeps head + tail in memory and the full text in a spool file for paging
// (readOutput). No 'vscode' import.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

export class OutputSpool {
  private head = '';
  private tail = '';
  private total = 0;
  private closed = false;
  private readonly fd: number | undefined;
  readonly file: string | undefined;

  constructor(
    private readonly maxChars: number,
    spoolDir: string | undefined,
    id: string,
  ) {
    if (spoolDir) {
      try {
        fs.mkdirSync(spoolDir, { recursive: true });
        this.file = path.join(spoolDir, `${id}.log`);
        this.fd = fs.openSync(this.file, 'w');
      } catch {
        this.file = undefined;
      }
    }
  }

  push(chunk: string): void {
    // After close the descriptor may already belong to another file: late output is dropped.
    if (!chunk || this.closed) return;
    this.total += chunk.length;
    if (this.fd !== undefined) fs.writeSync(this.fd, chunk);
    const half = Math.floor(this.maxChars / 2);
    if (this.head.length < half) {
      const take = chunk.slice(0, half - this.head.length);
      this.head += take;
      chunk = chunk.slice(take.length);
    }
    if (chunk) this.tail = (this.tail + chunk).slice(-(this.maxChars - half));
  }

  get truncated(): boolean {
    return this.total > this.maxChars;
  }

  get totalChars(): number {
    return this.total;
  }

  /** The capped text: everything when it fits, else head + marker + tail. */
  text(): string {
    if (!this.truncated) return this.head + this.tail;
    const omitted = this.total - this.head.length - this.tail.length;
    const where = this.file ? ' (full output kept; page it with the output reference)' : '';
    return `${this.head}\n[... ${omitted} characters omitted${where} ...]\n${this.tail}`;
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    if (this.fd !== undefined) {
      try {
        fs.closeSync(this.fd);
      } catch {
        /* already closed */
      }
    }
  }
}

/** Default spool folder (the extension passes its storage folder instead). */
export function defaultSpoolDir(): string {
  return path.join(os.tmpdir(), 'forge-output');
}

/** Lines [startLine, endLine] (1-based, inclusive) of a spool file written by OutputSpool. */
export async function readSpoolLines(
  spoolDir: string,
  ref: string,
  startLine: number,
  endLine: number,
): Promise<{ lines: string[]; totalLines: number }> {
  if (!/^[\w.-]+$/.test(ref)) throw new Error(`invalid output reference: ${ref}`);
  const text = await fs.promises.readFile(path.join(spoolDir, `${ref}.log`), 'utf8');
  const all = text.split(/\r?\n/);
  if (all.length > 1 && all[all.length - 1] === '') all.pop();
  const from = Math.max(1, Math.floor(startLine));
  const to = Math.min(all.length, Math.floor(endLine));
  return { lines: to >= from ? all.slice(from - 1, to) : [], totalLines: all.length };
}

/** Strips ANSI CSI/OSC escape sequences and carriage-return redraws from terminal output. */
export function stripAnsi(s: string): string {
  return s
    .replace(/\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)/g, '') // OSC ... BEL/ST (shell integration marks, titles)
    .replace(/\x1b\[[0-9;?]*[ -/]*[@-~]/g, '') // CSI
    .replace(/\x1b[()][A-Za-z0-9]/g, '') // charset selection
    .replace(/\x1b[=>78]/g, '')
    .replace(/\r\n/g, '\n')
    .replace(/[^\n]*\r(?!\n)/g, ''); // progress bars: keep only the last redraw of a line
}

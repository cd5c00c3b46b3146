// The file apply_diff works on: its text, its line numbers (found lazily) and the line-by-line passes the fallback
// matchers use. (Split from apply-diff.ts, which matches and applies blocks.)

import { TextBytes } from './text-bytes';

/** Lines handled between clock checks in the passes over the file. */
export const CHUNK_LINES = 4096;

/** Occurrences of one search recorded at most (a block seen this often is reported as matching "50+" places). */
export const MAX_OCCURRENCES = 50;

export type Pause = () => Promise<void>;

/** One way of reading a block: as written, or with read_file line-number prefixes removed. */
export interface Variant {
  search: string;
  replace: string;
  lines: string[];
  stripped: boolean;
  hint?: number;
  /** Exact occurrences (offsets), in order, at most MAX_OCCURRENCES. */
  exact: number[];
  /** Tolerant matches (offsets of the start of their first line), in order, at most MAX_OCCURRENCES. */
  tolerant: number[];
  tLines?: string[];
  tNorm?: string[];
  tHash?: number[];
  /** Replace lines had prefixes on some lines only. */
  replaceProblem?: string;
}

// ---------------------------------------------------------------------------------------------------------------
// The file

/**
 * The file as LF text and what is needed to map back to the original characters. Line numbers come from the newline
 * counts the scans keep as they pass (TextBytes); only the paths that walk the file by line index build the full
 * index of line starts.
 */
export class FileModel {
  readonly text: string;
  readonly eol: '\n' | '\r\n';
  /** Start offset of each line, plus a sentinel (text.length + 1) after the last; empty until indexLines(). */
  lineStarts: Int32Array = new Int32Array(0);
  lineCount = 0;
  private indexed = false;
  /** '\r' characters removed before each line start (only for files with CRLF). */
  private crBefore?: Int32Array;
  /** Whitespace-insensitive hash per line (tolerant pass). */
  normHashes?: Int32Array;
  /** Lines of the file per whitespace-insensitive hash, for the hashes some tolerant search line has. */
  wanted?: Map<number, number[]>;
  private normCache = new Map<number, string>();
  private textBytes?: TextBytes;

  /** The text as bytes for the scans, and its newline counts (see TextBytes). */
  get bytes(): TextBytes {
    return (this.textBytes ??= new TextBytes(this.text));
  }

  constructor(readonly original: string) {
    if (original.indexOf('\r\n') < 0) {
      this.text = original;
      this.eol = '\n';
      return;
    }
    const crBefore: number[] = [0];
    let crlf = 0;
    let lf = 0;
    for (let i = original.indexOf('\n'); i >= 0; i = original.indexOf('\n', i + 1)) {
      if (i > 0 && original.charCodeAt(i - 1) === 13) crlf++;
      else lf++;
      crBefore.push(crlf);
    }
    this.crBefore = Int32Array.from(crBefore);
    this.eol = crlf > lf ? '\r\n' : '\n';
    this.text = original.replace(/\r\n/g, '\n');
  }

  lineStart(line: number): number {
    return this.lineStarts[line]!;
  }

  /** Offset of the '\n' ending `line` (or the text's end). */
  lineEnd(line: number): number {
    return this.lineStarts[line + 1]! - 1;
  }

  line(i: number): string {
    return this.text.slice(this.lineStarts[i]!, this.lineStarts[i + 1]! - 1);
  }

  normLine(i: number): string {
    let n = this.normCache.get(i);
    if (n === undefined) {
      n = normalizeLine(this.line(i));
      if (this.normCache.size < 100_000) this.normCache.set(i, n);
    }
    return n;
  }

  /** 0-based line of an offset (the number of newlines before it). */
  lineOf(offset: number): number {
    if (this.indexed) {
      let lo = 0;
      let hi = this.lineCount - 1;
      while (lo < hi) {
        const mid = (lo + hi + 1) >> 1;
        if (this.lineStarts[mid]! <= offset) lo = mid;
        else hi = mid - 1;
      }
      return lo;
    }
    return this.bytes.linesBefore(offset);
  }

  /** Start of the line holding `offset`. */
  startOfLine(offset: number): number {
    return offset === 0 ? 0 : this.text.lastIndexOf('\n', offset - 1) + 1;
  }

  /** End (the '\n' or the text's end) of the line holding `offset`. */
  endOfLine(offset: number): number {
    const nl = this.text.indexOf('\n', offset);
    return nl < 0 ? this.text.length : nl;
  }

  /**
   * The lines from `before` lines above the line starting at `start` to `after` lines from it on (clipped to the
   * file), as text.split('\n') gives them.
   */
  linesAround(start: number, before: number, after: number): string[] {
    const text = this.text;
    const out: string[] = [];
    let s = start;
    for (let k = 0; k < before && s > 0; k++) {
      const e = s - 1;
      s = this.startOfLine(e);
      out.push(text.slice(s, e));
    }
    out.reverse();
    let p = start;
    for (let k = 0; k < after && p <= text.length; k++) {
      const e = this.endOfLine(p);
      out.push(text.slice(p, e));
      p = e + 1;
    }
    return out;
  }

  toOriginal(offset: number): number {
    return this.crBefore ? offset + this.crBefore[this.lineOf(offset)]! : offset;
  }

  /** The full index of line starts (for the paths that walk the file by line index), in slices. */
  async indexLines(pause: Pause): Promise<void> {
    if (this.indexed) return;
    const text = this.text;
    const n = text.length;
    let starts = new Int32Array(Math.max(16, (n >> 5) + 16));
    let line = 0;
    let start = 0;
    for (let done = false; !done;) {
      const stop = line + CHUNK_LINES * 8;
      while (line < stop) {
        if (line + 2 >= starts.length) {
          const grown = new Int32Array(starts.length * 2);
          grown.set(starts);
          starts = grown;
        }
        starts[line++] = start;
        const nl = text.indexOf('\n', start);
        if (nl < 0) {
          starts[line] = n + 1;
          done = true;
          break;
        }
        start = nl + 1;
      }
      if (!done) await pause();
    }
    this.lineStarts = starts;
    this.lineCount = line;
    this.indexed = true;
  }

  /** Whitespace-insensitive hashes of every line, in slices. */
  async hashLines(pause: Pause): Promise<Int32Array> {
    if (this.normHashes) return this.normHashes;
    await this.indexLines(pause);
    const out = new Int32Array(this.lineCount);
    for (let from = 0; from < this.lineCount; from += CHUNK_LINES) {
      const to = Math.min(this.lineCount, from + CHUNK_LINES);
      for (let i = from; i < to; i++) out[i] = normHash(this.text, this.lineStarts[i]!, this.lineStarts[i + 1]! - 1);
      await pause();
    }
    return (this.normHashes = out);
  }
}

/** Whether s.slice(from, to), normalised like normalizeLine, equals `norm` (without building it). */
export function normEquals(s: string, from: number, to: number, norm: string): boolean {
  let k = 0;
  let gap = false;
  for (let i = from; i < to; i++) {
    const c = s.charCodeAt(i);
    if (isWs(c)) {
      gap = k > 0;
      continue;
    }
    if (gap) {
      if (norm.charCodeAt(k) !== 32) return false;
      k++;
      gap = false;
    }
    if (norm.charCodeAt(k) !== c) return false;
    k++;
  }
  return k === norm.length;
}

function isWs(c: number): boolean {
  if (c <= 32) return c === 32 || (c >= 9 && c <= 13);
  if (c < 0xa0) return false;
  return (
    c === 0xa0 ||
    c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200a) ||
    c === 0x2028 ||
    c === 0x2029 ||
    c === 0x202f ||
    c === 0x205f ||
    c === 0x3000 ||
    c === 0xfeff
  );
}

/** Hash of normalizeLine(s.slice(from, to)) computed without building it (same whitespace as JS's \s and trim). */
export function normHash(s: string, from: number, to: number): number {
  let h = 0x811c9dc5 | 0;
  let gap = false;
  let seen = false;
  for (let i = from; i < to; i++) {
    const c = s.charCodeAt(i);
    if (isWs(c)) {
      gap = seen;
      continue;
    }
    if (gap) {
      h = Math.imul(h ^ 32, 0x01000193);
      gap = false;
    }
    h = Math.imul(h ^ c, 0x01000193);
    seen = true;
  }
  return h;
}

export function normalizeLine(line: string): string {
  return line.trim().replace(/\s+/g, ' ');
}

export function leadingWs(line: string): string {
  return /^[ \t]*/.exec(line)![0];
}

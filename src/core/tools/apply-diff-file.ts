// The file apply_diff works on: its lines, line starts and the one-pass scans and hashes the matcher uses.
// (Split from apply-diff.ts, which matches and applies blocks.)

/** Lines handled between clock checks in the passes over the file. */
export const CHUNK_LINES = 4096;
/** An anchor line seen more often than this is too common to be worth verifying one by one (native search instead). */
export const MAX_ANCHOR_LINES = 64;

export type Pause = () => Promise<void>;

/** A whole middle line of one or more searches, and the file lines equal to it. */
export interface AnchorText {
  text: string;
  lines: number[];
}

// ---------------------------------------------------------------------------------------------------------------
// The file

/** The file as LF text, its line starts, and what is needed to map back to the original bytes. */
export class FileModel {
  readonly text: string;
  readonly eol: '\n' | '\r\n';
  /** Start offset of each line, plus a sentinel (text.length + 1) after the last. */
  lineStarts: Int32Array = new Int32Array(0);
  lineCount = 0;
  /** '\r' characters removed before each line start (only for files with CRLF). */
  private crBefore?: Int32Array;
  /** Whitespace-insensitive hash per line (tolerant pass). */
  normHashes?: Int32Array;
  /** Lines of the file per whitespace-insensitive hash, for the hashes some tolerant search line has. */
  wanted?: Map<number, number[]>;
  private normCache = new Map<number, string>();

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

  lineOf(offset: number): number {
    let lo = 0;
    let hi = this.lineCount - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.lineStarts[mid]! <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  toOriginal(offset: number): number {
    return this.crBefore ? offset + this.crBefore[this.lineOf(offset)]! : offset;
  }

  /**
   * The one pass over the lines: records line starts and, for each anchor (a whole middle line of some search),
   * the lines equal to it. A line costs its newline search, a store and a length test; only lines as long as some
   * anchor read three characters for a second filter, then sixteen for a third, and only those that pass all are
   * compared natively. So the pass costs about the same whatever the number of blocks.
   */
  async scanLines(anchors: AnchorText[], pause: Pause): Promise<void> {
    let maxLen = 0;
    for (const a of anchors) maxLen = Math.max(maxLen, a.text.length);
    const scan: LineScan = {
      text: this.text,
      starts: new Int32Array(Math.max(16, (this.text.length >> 5) + 16)),
      lengths: new Int32Array(anchors.length > 0 ? maxLen + 1 : 0),
      quick: new Int32Array(KEY_SPACE),
      filter: new Int32Array(KEY_SPACE),
      buckets: new Map(),
      line: 0,
      pos: 0,
      done: false,
    };
    for (const a of anchors) {
      const t = a.text;
      const key = lineKey(t, 0, t.length);
      scan.lengths[t.length]!++;
      scan.quick[quickKey(t, 0, t.length)]!++;
      scan.filter[key]!++;
      const list = scan.buckets.get(key);
      if (list) list.push(a);
      else scan.buckets.set(key, [a]);
    }
    for (;;) {
      scanChunk(scan, CHUNK_LINES * 8);
      if (scan.done) break;
      await pause();
    }
    this.lineStarts = scan.starts;
    this.lineCount = scan.line;
  }

  /** Whitespace-insensitive hashes of every line, in slices. */
  async hashLines(pause: Pause): Promise<Int32Array> {
    if (this.normHashes) return this.normHashes;
    const out = new Int32Array(this.lineCount);
    for (let from = 0; from < this.lineCount; from += CHUNK_LINES) {
      const to = Math.min(this.lineCount, from + CHUNK_LINES);
      for (let i = from; i < to; i++) out[i] = normHash(this.text, this.lineStarts[i]!, this.lineStarts[i + 1]! - 1);
      await pause();
    }
    return (this.normHashes = out);
  }
}

const KEY_SPACE = 1 << 16;
/** The first filter after the length: five characters (the last, and one in each fifth). */
function quickKey(s: string, start: number, len: number): number {
  if (len === 0) return 0;
  const fifth = (len / 5) | 0;
  let h = Math.imul(len ^ (s.charCodeAt(start + len - 1) << 8), 0x9e3779b1);
  h = Math.imul(h ^ s.charCodeAt(start + fifth), 0x85ebca6b);
  h = Math.imul(h ^ s.charCodeAt(start + 2 * fifth), 0xc2b2ae35);
  h = Math.imul(h ^ s.charCodeAt(start + 3 * fifth), 0x85ebca6b);
  h = Math.imul(h ^ s.charCodeAt(start + 4 * fifth), 0xc2b2ae35);
  return (h ^ (h >>> 16)) & 0xffff;
}

/** A fingerprint of a whole line: its length and up to sixteen characters spread evenly over it, plus the last
 * four. Not a hash of the line: only a filter before a native comparison, computed only for lines as long as some
 * anchor. */
function lineKey(s: string, start: number, len: number): number {
  const end = start + len;
  let h = Math.imul(len, 0x9e3779b1);
  const step = len > 16 ? len / 16 : 1;
  for (let x = 0; x < len && x < 16 * step; x += step) h = Math.imul(h ^ s.charCodeAt(start + (x | 0)), 0x85ebca6b) ^ (h >>> 13);
  if (len >= 4) {
    h = Math.imul(h ^ s.charCodeAt(end - 4), 0xc2b2ae35);
    h = Math.imul(h ^ s.charCodeAt(end - 3), 0x85ebca6b);
    h = Math.imul(h ^ s.charCodeAt(end - 2), 0xc2b2ae35);
    h = Math.imul(h ^ s.charCodeAt(end - 1), 0x85ebca6b);
  }
  return (h ^ (h >>> 15)) >>> 16;
}

interface LineScan {
  text: string;
  starts: Int32Array;
  /** The live anchors (seen fewer than MAX_ANCHOR_LINES times) per length, per quickKey and per lineKey. */
  lengths: Int32Array;
  quick: Int32Array;
  filter: Int32Array;
  buckets: Map<number, AnchorText[]>;
  /** Next line to record and its start offset. */
  line: number;
  pos: number;
  done: boolean;
}

/** Up to `count` lines of the scan (a plain function, so the hot loop is optimised like any other). */
function scanChunk(scan: LineScan, count: number): void {
  const { text, lengths, quick, filter } = scan;
  const n = text.length;
  const maxLen = lengths.length;
  let starts = scan.starts;
  let line = scan.line;
  let start = scan.pos;
  const stop = line + count;
  while (line < stop) {
    if (line + 2 >= starts.length) {
      const grown = new Int32Array(starts.length * 2);
      grown.set(starts);
      starts = grown;
    }
    starts[line] = start;
    const nl = text.indexOf('\n', start);
    const end = nl < 0 ? n : nl;
    const len = end - start;
    if (len < maxLen && lengths[len] !== 0 && quick[quickKey(text, start, len)] !== 0) {
      const key = lineKey(text, start, len);
      if (filter[key] !== 0) matchAnchors(scan, key, start, len, line);
    }
    line++;
    if (nl < 0) {
      starts[line] = n + 1;
      scan.done = true;
      break;
    }
    start = nl + 1;
  }
  scan.starts = starts;
  scan.line = line;
  scan.pos = start;
}

/** The anchors behind a filter hit. An anchor seen MAX_ANCHOR_LINES times is too common to use: it leaves the
 * filters (each counts the live anchors behind an entry), so the lines equal to it cost no more than any other. */
function matchAnchors(scan: LineScan, key: number, start: number, len: number, line: number): void {
  for (const a of scan.buckets.get(key)!) {
    if (a.lines.length >= MAX_ANCHOR_LINES || a.text.length !== len || !scan.text.startsWith(a.text, start)) continue;
    a.lines.push(line);
    if (a.lines.length === MAX_ANCHOR_LINES) {
      scan.lengths[len]!--;
      scan.quick[quickKey(a.text, 0, len)]!--;
      scan.filter[key]!--;
    }
  }
}

function isWs(c: number): boolean {
  if (c <= 32) return c === 32 || (c >= 9 && c <= 13);
  if (c < 0xa0) return false;
  return c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff;
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


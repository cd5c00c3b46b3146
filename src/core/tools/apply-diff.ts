// Search/replace blocks against a file: exact match first (must be unique), then indentation/whitespace
// tolerant line match (re-indenting the replacement), else a report naming the closest candidate.
// All blocks are matched against the ORIGINAL content; all apply or nothing does. Line endings outside the
// replaced regions are kept byte for byte; replacement text uses the file's dominant line ending.
import { diffArrays } from 'diff';

export interface SearchReplaceBlock {
  search: string;
  replace: string;
}

export interface LineRange {
  /** 1-based, inclusive. */
  startLine: number;
  endLine: number;
}

export interface AppliedBlock extends LineRange {
  index: number;
  match: 'exact' | 'tolerant';
}

export interface ClosestCandidate extends LineRange {
  /** 0..100 */
  similarity: number;
  /** Short line diff: "- " search line, "+ " file line, "  " same. */
  diff: string;
}

export interface BlockFailure {
  index: number;
  kind: 'empty-search' | 'not-found' | 'ambiguous' | 'overlap';
  message: string;
  matches?: LineRange[];
  closest?: ClosestCandidate;
}

export type ApplyDiffResult =
  | { ok: true; content: string; applied: AppliedBlock[] }
  | { ok: false; failures: BlockFailure[]; message: string };

export interface ApplyDiffOptions {
  /** Yield to the event loop when a slice of work ran longer than this. Default 8 ms. */
  sliceMs?: number;
  signal?: AbortSignal;
}

const MAX_REPORTED_MATCHES = 5;
const MAX_OCCURRENCES = 50;

interface Region {
  index: number;
  start: number; // offsets in the LF-normalised text
  end: number;
  text: string; // LF replacement
  match: 'exact' | 'tolerant';
}

/** The file as LF text plus what is needed to map back to the original bytes. */
class FileModel {
  readonly text: string;
  readonly lineStarts: number[] = [0];
  /** '\r' characters removed before each line start. */
  readonly crBefore: number[] = [0];
  readonly eol: '\n' | '\r\n';
  private lines?: string[];
  private norm?: string[];
  private index?: Map<string, number[]>;

  constructor(readonly original: string) {
    let crlf = 0;
    let lf = 0;
    for (let i = original.indexOf('\n'); i >= 0; i = original.indexOf('\n', i + 1)) {
      if (i > 0 && original.charCodeAt(i - 1) === 13) crlf++;
      else lf++;
      this.crBefore.push(crlf);
      this.lineStarts.push(i + 1 - crlf);
    }
    this.eol = crlf > lf ? '\r\n' : '\n';
    this.text = crlf ? original.replace(/\r\n/g, '\n') : original;
  }

  get lineCount(): number {
    return this.lineStarts.length;
  }

  getLines(): string[] {
    return (this.lines ??= this.text.split('\n'));
  }

  normLines(): string[] {
    if (!this.norm) throw new Error('prepare() first');
    return this.norm;
  }

  /** Build the normalised lines and their index in slices, yielding between them. */
  async prepare(pause: () => Promise<void>): Promise<void> {
    if (this.norm && this.index) return;
    const lines = this.getLines();
    const norm: string[] = new Array(lines.length);
    const index = new Map<string, number[]>();
    for (let i = 0; i < lines.length; i++) {
      if ((i & 127) === 0) await pause();
      const n = normalizeLine(lines[i]!);
      norm[i] = n;
      const list = index.get(n);
      if (list) list.push(i);
      else index.set(n, [i]);
    }
    this.norm = norm;
    this.index = index;
  }

  positions(normalized: string): number[] {
    return this.index?.get(normalized) ?? [];
  }

  lineOf(offset: number): number {
    let lo = 0;
    let hi = this.lineStarts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.lineStarts[mid]! <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  toOriginal(offset: number): number {
    return offset + this.crBefore[this.lineOf(offset)]!;
  }

  lineEnd(line: number): number {
    return this.lineStarts[line]! + this.getLines()[line]!.length;
  }
}

function normalizeLine(line: string): string {
  return line.trim().replace(/\s+/g, ' ');
}

function leadingWs(line: string): string {
  return /^[ \t]*/.exec(line)![0];
}

export async function applyDiff(content: string, blocks: SearchReplaceBlock[], options: ApplyDiffOptions = {}): Promise<ApplyDiffResult> {
  const sliceMs = options.sliceMs ?? 8;
  let sliceStart = performance.now();
  const pause = async () => {
    if (performance.now() - sliceStart < sliceMs) return;
    await new Promise<void>((resolve) => setImmediate(resolve));
    options.signal?.throwIfAborted();
    sliceStart = performance.now();
  };

  const file = new FileModel(content);
  const regions: Region[] = [];
  const failures: BlockFailure[] = [];

  for (let index = 0; index < blocks.length; index++) {
    await pause();
    const outcome = await matchBlock(file, blocks[index]!, index, blocks.length, pause);
    if ('kind' in outcome) failures.push(outcome);
    else regions.push(outcome);
  }

  regions.sort((a, b) => a.start - b.start || a.end - b.end);
  for (let i = 1; i < regions.length; i++) {
    const prev = regions[i - 1]!;
    const cur = regions[i]!;
    if (cur.start < prev.end || (cur.start === prev.start && cur.end === prev.end)) {
      failures.push({
        index: cur.index,
        kind: 'overlap',
        message: `Block ${cur.index + 1} overlaps block ${prev.index + 1} (${rangeText(lineRange(file, prev))}). Merge them into one block.`,
      });
    }
  }

  if (failures.length > 0) {
    failures.sort((a, b) => a.index - b.index);
    const header = `No changes were made: ${failures.length} of ${blocks.length} block(s) could not be applied (all blocks must match).`;
    return { ok: false, failures, message: [header, ...failures.map((f) => f.message)].join('\n\n') };
  }

  let out = '';
  let cursor = 0;
  for (const r of regions) {
    const start = file.toOriginal(r.start);
    out += content.slice(cursor, start) + (file.eol === '\n' ? r.text : r.text.replace(/\n/g, file.eol));
    cursor = file.toOriginal(r.end);
  }
  out += content.slice(cursor);
  const applied = regions
    .map((r) => ({ index: r.index, match: r.match, ...lineRange(file, r) }))
    .sort((a, b) => a.index - b.index);
  return { ok: true, content: out, applied };
}

async function matchBlock(file: FileModel, block: SearchReplaceBlock, index: number, total: number, pause: () => Promise<void>): Promise<Region | BlockFailure> {
  const label = total > 1 ? `Block ${index + 1} of ${total}` : 'The block';
  let search = (block.search ?? '').replace(/\r\n/g, '\n');
  let replace = (block.replace ?? '').replace(/\r\n/g, '\n');
  if (search.endsWith('\n')) {
    search = search.slice(0, -1);
    if (replace.endsWith('\n')) replace = replace.slice(0, -1);
  }

  if (search.trim() === '') {
    if (file.text.trim() === '') return { index, start: 0, end: file.text.length, text: replace, match: 'exact' };
    return { index, kind: 'empty-search', message: `${label}: the search text is empty. Copy the exact lines to replace from the file (use write_file to replace a whole file).` };
  }

  // 1. Exact.
  const hits: number[] = [];
  for (let i = file.text.indexOf(search); i >= 0 && hits.length < MAX_OCCURRENCES; i = file.text.indexOf(search, i + 1)) hits.push(i);
  if (hits.length === 1) return deletionAware(file, { index, start: hits[0]!, end: hits[0]! + search.length, text: replace, match: 'exact' });
  if (hits.length > 1) {
    const ranges = hits.map((h) => lineRange(file, { start: h, end: h + search.length }));
    return ambiguous(index, label, ranges, hits.length >= MAX_OCCURRENCES);
  }

  // 2. Tolerant: whole lines, ignoring indentation and runs of whitespace.
  await file.prepare(pause);
  const searchLines = trimBlankEdges(search.split('\n'));
  const ns = searchLines.map(normalizeLine);
  const starts = tolerantStarts(file, ns);
  if (starts.length === 1) {
    const start = starts[0]!;
    const end = start + ns.length - 1;
    const fileLines = file.getLines().slice(start, end + 1);
    const text = reindent(searchLines, fileLines, replace.split('\n'), file);
    return deletionAware(file, { index, start: file.lineStarts[start]!, end: file.lineEnd(end), text, match: 'tolerant' });
  }
  if (starts.length > 1) {
    return ambiguous(index, label, starts.map((s) => ({ startLine: s + 1, endLine: s + ns.length })), starts.length >= MAX_OCCURRENCES, ' (ignoring indentation)');
  }

  // 3. Not found: name the closest candidate.
  const closest = await closestCandidate(file, searchLines, ns, pause);
  let message = `${label}: the search text was not found, neither exactly nor ignoring indentation/whitespace.`;
  if (closest) {
    const from = Math.max(1, closest.startLine - 3);
    const to = Math.min(file.lineCount, closest.endLine + 3);
    message += ` Closest candidate: ${rangeText(closest)} (${closest.similarity}% similar). How the file differs from your search ("-" your search, "+" the file):\n${closest.diff}\nRe-read lines ${from}-${to} with read_file and copy them exactly into the search text.`;
  } else {
    message += ' Nothing in the file resembles it; re-read the file with read_file before editing.';
  }
  return { index, kind: 'not-found', message, closest };
}

function ambiguous(index: number, label: string, ranges: LineRange[], capped: boolean, how = ''): BlockFailure {
  const shown = ranges.slice(0, MAX_REPORTED_MATCHES).map(rangeText).join(', ');
  const count = capped ? `${ranges.length}+` : `${ranges.length}`;
  return {
    index,
    kind: 'ambiguous',
    matches: ranges,
    message: `${label}: the search text matches ${count} places${how} (${shown}${ranges.length > MAX_REPORTED_MATCHES ? ', ...' : ''}). Include more surrounding lines so it matches exactly one place.`,
  };
}

/** Deleting whole lines also removes their line break, so no blank line is left behind. */
function deletionAware(file: FileModel, r: Region): Region {
  if (r.text !== '') return r;
  const atLineStart = r.start === 0 || file.text.charCodeAt(r.start - 1) === 10;
  const atLineEnd = r.end === file.text.length || file.text.charCodeAt(r.end) === 10;
  if (!atLineStart || !atLineEnd) return r;
  if (r.end < file.text.length) return { ...r, end: r.end + 1 };
  if (r.start > 0) return { ...r, start: r.start - 1 };
  return r;
}

function trimBlankEdges(lines: string[]): string[] {
  let a = 0;
  let b = lines.length;
  while (a < b && lines[a]!.trim() === '') a++;
  while (b > a && lines[b - 1]!.trim() === '') b--;
  return lines.slice(a, b);
}

function tolerantStarts(file: FileModel, ns: string[]): number[] {
  if (ns.length === 0) return [];
  // Anchor on the rarest search line so common lines ("}", "") cost nothing.
  let anchor = -1;
  let anchorHits: number[] = [];
  for (let j = 0; j < ns.length; j++) {
    if (ns[j] === '') continue;
    const hits = file.positions(ns[j]!);
    if (hits.length === 0) return [];
    if (anchor < 0 || hits.length < anchorHits.length) {
      anchor = j;
      anchorHits = hits;
    }
  }
  const nl = file.normLines();
  const out: number[] = [];
  for (const p of anchorHits) {
    const start = p - anchor;
    if (start < 0 || start + ns.length > nl.length) continue;
    let ok = true;
    for (let j = 0; j < ns.length && ok; j++) ok = nl[start + j] === ns[j];
    if (ok) out.push(start);
    if (out.length >= MAX_OCCURRENCES) break;
  }
  return out;
}

/** Re-indent replacement lines from the search's base indentation to the file's. */
function reindent(searchLines: string[], fileLines: string[], replaceLines: string[], file: FileModel): string {
  const firstIdx = searchLines.findIndex((l) => l.trim() !== '');
  const searchBase = leadingWs(searchLines[firstIdx] ?? '');
  const fileBase = leadingWs(fileLines[firstIdx] ?? '');
  if (searchBase === fileBase) return replaceLines.join('\n');
  const fileUsesTabs = fileBase.includes('\t') || (fileBase === '' && fileLines.some((l) => l.startsWith('\t')));
  const fileUnit = guessSpaceUnit(file.getLines());
  const searchUnit = guessSpaceUnit([...searchLines, ...replaceLines]);
  const cols = (ws: string, unit: number) => ws.replace(/\t/g, ' '.repeat(unit)).length;
  // Extra indentation beyond the base, rendered in the file's style (tabs vs spaces).
  const renderExtra = (extra: string) => {
    if (fileUsesTabs && extra.includes(' ')) return '\t'.repeat(Math.round(cols(extra, searchUnit) / searchUnit));
    if (!fileUsesTabs && extra.includes('\t')) return ' '.repeat(cols(extra, fileUnit));
    return extra;
  };
  return replaceLines
    .map((line) => {
      if (line.trim() === '') return '';
      const ws = leadingWs(line);
      if (ws.startsWith(searchBase)) return fileBase + renderExtra(ws.slice(searchBase.length)) + line.slice(ws.length);
      // Less indented than the search's base: shift by the same number of columns.
      const shift = cols(searchBase, searchUnit) - cols(ws, searchUnit);
      const target = Math.max(0, cols(fileBase, fileUnit) - shift);
      const indent = fileUsesTabs ? '\t'.repeat(Math.floor(target / fileUnit)) : ' '.repeat(target);
      return indent + line.slice(ws.length);
    })
    .join('\n');
}

function guessSpaceUnit(lines: string[]): number {
  const counts = new Map<number, number>();
  let prev = 0;
  for (let i = 0; i < lines.length && i < 2000; i++) {
    const ws = leadingWs(lines[i]!);
    if (ws.includes('\t') || lines[i]!.trim() === '') continue;
    const d = Math.abs(ws.length - prev);
    if (d === 2 || d === 4 || d === 8) counts.set(d, (counts.get(d) ?? 0) + 1);
    prev = ws.length;
  }
  let best = 4;
  let bestCount = 0;
  for (const [d, c] of counts) if (c > bestCount) [best, bestCount] = [d, c];
  return best;
}

async function closestCandidate(file: FileModel, searchLines: string[], ns: string[], pause: () => Promise<void>): Promise<ClosestCandidate | undefined> {
  const m = ns.length;
  const nl = file.normLines();
  if (m === 0 || nl.length === 0) return undefined;
  const span = Math.min(m, nl.length);
  const starts = new Map<number, number>();
  for (let j = 0; j < m; j++) {
    if (ns[j] === '') continue;
    const hits = file.positions(ns[j]!);
    if (hits.length > 200) continue; // too common to say anything
    for (const p of hits) {
      const s = Math.max(0, Math.min(p - j, nl.length - span));
      starts.set(s, (starts.get(s) ?? 0) + 1);
    }
  }
  let candidates = [...starts.entries()].sort((a, b) => b[1] - a[1]).slice(0, 8).map(([s]) => s);
  if (candidates.length === 0) {
    // No line matches even loosely: rank windows by how much their first and last lines resemble the search's.
    const first = bigrams(ns[0]!);
    const last = bigrams(ns[m - 1]!);
    const scored: [number, number][] = [];
    const cache = new Map<number, Set<number>>();
    const grams = (i: number) => cache.get(i) ?? (cache.set(i, bigrams(nl[i]!)), cache.get(i)!);
    for (let s = 0; s + span <= nl.length; s++) {
      if ((s & 31) === 0) await pause();
      scored.push([s, dice(first, grams(s)) + dice(last, grams(s + span - 1))]);
    }
    candidates = scored.sort((a, b) => b[1] - a[1]).slice(0, 8).map(([s]) => s);
  }
  let best: { start: number; score: number } | undefined;
  for (const s of candidates) {
    let sum = 0;
    for (let j = 0; j < span; j++) sum += ns[j] === nl[s + j] ? 1 : dice(bigrams(ns[j]!), bigrams(nl[s + j]!));
    const score = sum / m;
    if (!best || score > best.score) best = { start: s, score };
  }
  if (!best || best.score < 0.2) return undefined;
  const fileLines = file.getLines().slice(best.start, best.start + span);
  return {
    startLine: best.start + 1,
    endLine: best.start + span,
    similarity: Math.round(best.score * 100),
    diff: shortDiff(searchLines, fileLines),
  };
}

/** Character bigrams as numbers (cheaper than substrings). */
function bigrams(s: string): Set<number> {
  const out = new Set<number>();
  for (let i = 0; i < s.length - 1; i++) out.add(s.charCodeAt(i) * 65536 + s.charCodeAt(i + 1));
  if (s.length === 1) out.add(s.charCodeAt(0));
  return out;
}

function dice(a: Set<number>, b: Set<number>): number {
  if (a.size === 0 && b.size === 0) return 1;
  if (a.size === 0 || b.size === 0) return 0;
  let common = 0;
  const [small, large] = a.size < b.size ? [a, b] : [b, a];
  for (const g of small) if (large.has(g)) common++;
  return (2 * common) / (a.size + b.size);
}

function shortDiff(searchLines: string[], fileLines: string[], maxLines = 14): string {
  const changes = diffArrays(searchLines, fileLines);
  const rows: string[] = [];
  for (const c of changes) {
    const prefix = c.added ? '+ ' : c.removed ? '- ' : '  ';
    const values = c.value as string[];
    if (!c.added && !c.removed && values.length > 2) {
      rows.push('  ' + values[0]!, '  ...', '  ' + values[values.length - 1]!);
    } else for (const v of values) rows.push(prefix + v);
  }
  const shown = rows.slice(0, maxLines).map((r) => '    ' + (r.length > 160 ? r.slice(0, 157) + '...' : r));
  if (rows.length > maxLines) shown.push(`    ... (${rows.length - maxLines} more diff lines)`);
  return shown.join('\n');
}

function lineRange(file: FileModel, r: { start: number; end: number }): LineRange {
  const startLine = file.lineOf(r.start) + 1;
  const endLine = file.lineOf(Math.max(r.start, r.end - 1)) + 1;
  return { startLine, endLine };
}

function rangeText(r: LineRange): string {
  return r.startLine === r.endLine ? `line ${r.startLine}` : `lines ${r.startLine}-${r.endLine}`;
}

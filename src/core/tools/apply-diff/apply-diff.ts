// Search/replace blocks against a file: exact match first (must be unique), then indentation/whitespace
// tolerant line match (re-indenting the whole replacement), else a report naming the closest candidate.
// All blocks are matched against the ORIGINAL content; all apply or nothing does. Line endings outside the
// replaced regions are kept byte for byte; replacement text uses the file's dominant line ending.
//
// Speed: the exact occurrences of every block of MIN_SCAN_SEARCH+ characters are found in one pass over the text
// that jumps most of it (scan.ts), working on offsets in the file's own string (no split, no copy when
// it is LF); shorter blocks use the native substring search. Line numbers are counted only up to the offsets that
// are reported. Only when some block has no exact match is it matched ignoring whitespace: anchored on its rarest
// word, found by the same kind of pass, with the neighbouring lines compared around each hit; a block without a
// usable word falls back to hashing every line (tolerant.ts). All passes yield to the event loop.
//
// Two helps for blocks that would otherwise fail, neither of which can move an edit to a place the model did not
// mean: an optional `startLine` settles a block that matches several places when exactly one match starts within
// HINT_TOLERANCE lines of it; and line-number prefixes copied from read_file ("12 | code") are stripped when every
// search line carries one with consecutive numbers AND the search as written matches nowhere (so real content
// that looks like a prefix is never stripped).
import { diffArrays } from 'diff';
import { FileModel, MAX_OCCURRENCES, type Pause, type Variant } from './file-model';
import { reindent } from './reindent';
import { sampleOf, scanAll, type ScanPattern } from './scan';
import { ensureWanted, matchTolerant, prepareTolerant } from './tolerant';
import { plural } from '../../plural';

export interface SearchReplaceBlock {
  search: string;
  replace: string;
  /** 1-based line where the search starts, as read_file showed it. Only used to choose among several matches. */
  startLine?: number;
}

interface LineRange {
  /** 1-based, inclusive. */
  startLine: number;
  endLine: number;
}

export interface AppliedBlock extends LineRange {
  index: number;
  match: 'exact' | 'tolerant';
  /** The search matched several places; the line hint chose this one. */
  settledByHint?: boolean;
  /** read_file line-number prefixes were removed from the search and replace. */
  strippedLineNumbers?: boolean;
}

interface ClosestCandidate extends LineRange {
  /** 0..100 */
  similarity: number;
  /** Short line diff: "- " search line, "+ " file line, "  " same. */
  diff: string;
}

interface BlockFailure {
  index: number;
  kind: 'empty-search' | 'not-found' | 'ambiguous' | 'overlap' | 'indentation' | 'line-numbers';
  message: string;
  matches?: LineRange[];
  closest?: ClosestCandidate;
}

type ApplyDiffResult =
  { ok: true; content: string; applied: AppliedBlock[] } | { ok: false; failures: BlockFailure[]; message: string };

interface ApplyDiffOptions {
  /** Yield to the event loop when a slice of work ran longer than this. Default 8 ms. */
  sliceMs?: number;
  signal?: AbortSignal;
}

/** A line hint settles an ambiguous block when exactly one match starts within this many lines of it. */
const HINT_TOLERANCE = 2;
const MAX_REPORTED_MATCHES = 5;
/** Searches at least this long go through the one jumping pass; shorter ones through the native search. */
const MIN_SCAN_SEARCH = 64;

interface Region {
  index: number;
  start: number; // offsets in the LF-normalised text
  end: number;
  text: string; // LF replacement
  match: 'exact' | 'tolerant';
  settledByHint?: boolean;
  strippedLineNumbers?: boolean;
}

// ---------------------------------------------------------------------------------------------------------------
// Blocks

export type { Variant } from './file-model';

interface Job {
  index: number;
  label: string;
  variants: Variant[];
  done?: Region | BlockFailure;
}

// read_file renders "<padded number> | <line>"; an empty line may come back with its trailing space trimmed.
const PREFIX = /^ *(\d{1,9}) \|(?: |$)/;

function prepareVariant(search: string, replace: string, stripped: boolean, hint: number | undefined): Variant {
  return { search, replace, lines: search.split('\n'), stripped, hint, exact: [], tolerant: [] };
}

/** The block with line-number prefixes removed, when every search line carries one with consecutive numbers. */
function strippedVariant(search: string, replace: string, hint: number | undefined): Variant | undefined {
  if (!PREFIX.test(search)) return undefined;
  const lines = search.split('\n');
  const numbers: number[] = [];
  const body: string[] = [];
  for (const l of lines) {
    const m = PREFIX.exec(l);
    if (!m) return undefined;
    numbers.push(Number(m[1]));
    body.push(l.slice(m[0].length));
  }
  for (let i = 1; i < numbers.length; i++) if (numbers[i] !== numbers[i - 1]! + 1) return undefined;
  if (numbers[0]! < 1) return undefined;
  const v = prepareVariant(body.join('\n'), replace, true, hint ?? numbers[0]);
  if (replace !== '') {
    const rl = replace.split('\n');
    const has = rl.map((l) => PREFIX.test(l));
    if (has.every(Boolean)) v.replace = rl.map((l) => l.replace(PREFIX, '')).join('\n');
    else if (has.some(Boolean) && rl.some((l, i) => !has[i] && l.trim() !== '')) {
      v.replaceProblem =
        'its search carries read_file line-number prefixes ("12 | ") but only some replace lines do, so which ones are real content cannot be told';
    }
  }
  return v;
}

function lf(s: string): string {
  return s.includes('\r') ? s.replace(/\r\n/g, '\n') : s;
}

export async function applyDiff(
  content: string,
  blocks: SearchReplaceBlock[],
  options: ApplyDiffOptions = {},
): Promise<ApplyDiffResult> {
  const sliceMs = options.sliceMs ?? 8;
  let sliceStart = performance.now();
  const pause: Pause = async () => {
    if (performance.now() - sliceStart < sliceMs) return;
    await new Promise<void>((resolve) => setImmediate(resolve));
    options.signal?.throwIfAborted();
    sliceStart = performance.now();
  };

  const file = new FileModel(content);
  const jobs: Job[] = [];
  const scanned = new Map<string, ScanPattern>();
  const native: Variant[] = [];

  for (let index = 0; index < blocks.length; index++) {
    const block = blocks[index]!;
    const label = blocks.length > 1 ? `Block ${index + 1} of ${blocks.length}` : 'The block';
    const job: Job = { index, label, variants: [] };
    jobs.push(job);
    let search = lf(block.search ?? '');
    let replace = lf(block.replace ?? '');
    if (search.endsWith('\n')) {
      search = search.slice(0, -1);
      if (replace.endsWith('\n')) replace = replace.slice(0, -1);
    }
    const hint =
      typeof block.startLine === 'number' && Number.isInteger(block.startLine) && block.startLine >= 1
        ? block.startLine
        : undefined;
    if (search.trim() === '') {
      if (file.text.trim() === '') job.done = { index, start: 0, end: file.text.length, text: replace, match: 'exact' };
      else
        job.done = {
          index,
          kind: 'empty-search',
          message: `${label}: the search text is empty. Copy the exact lines to replace from the file (use write_file to replace a whole file).`,
        };
      continue;
    }
    job.variants.push(prepareVariant(search, replace, false, hint));
    const s = strippedVariant(search, replace, hint);
    if (s && s.search.trim() !== '') job.variants.push(s);
    for (const v of job.variants)
      if (v.search.length < MIN_SCAN_SEARCH) native.push(v);
      else if (!scanned.has(v.search)) scanned.set(v.search, { text: v.search, hits: [], cap: MAX_OCCURRENCES });
  }

  // 1. Exact: one jumping pass for the long searches, the native search for the others.
  let sample: string | undefined;
  if (scanned.size > 0)
    await scanAll(file.text, [...scanned.values()], pause, (sample = sampleOf(file.text)), file.bytes);
  for (const job of jobs)
    for (const v of job.variants) if (v.search.length >= MIN_SCAN_SEARCH) v.exact = scanned.get(v.search)!.hits.slice();
  await searchNatively(file.text, native, pause);

  // 2. Tolerant, for the blocks whose every reading failed exactly (and for the written search whenever the
  // stripped one is to be considered: real content wins over a guessed prefix).
  const tolerant = jobs
    .filter((j) => !j.done && j.variants[0]!.exact.length === 0)
    .flatMap((j) => j.variants.filter((v) => v.exact.length === 0));
  if (tolerant.length > 0) await matchTolerant(file, tolerant, pause, sample ?? sampleOf(file.text));

  // 3. Decide each block.
  const regions: Region[] = [];
  const failures: BlockFailure[] = [];
  for (const job of jobs) {
    const outcome = job.done ?? (await decide(file, job, pause));
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
    const header = `No changes were made: ${failures.length} of ${plural(blocks.length, 'block')} could not be applied (all blocks must match).`;
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
    .map((r) => {
      const a: AppliedBlock = { index: r.index, match: r.match, ...lineRange(file, r) };
      if (r.settledByHint) a.settledByHint = true;
      if (r.strippedLineNumbers) a.strippedLineNumbers = true;
      return a;
    })
    .sort((a, b) => a.index - b.index);
  return { ok: true, content: out, applied };
}

/** Largest total search length that goes into one alternation (beyond it, one native search per block). */
const MAX_ALTERNATION_CHARS = 64 * 1024;

/**
 * Every occurrence (up to MAX_OCCURRENCES, overlapping ones included) of each variant's search. One search runs
 * natively; several run as one pass of a regular expression made of their escaped texts (a literal alternation:
 * linear, no backtracking blow-up): each position it stops at is tried against every search, and the next try
 * starts one character later, so no occurrence of any of them is skipped.
 */
export async function searchNatively(text: string, variants: Variant[], pause: Pause): Promise<void> {
  let total = 0;
  for (const v of variants) total += v.search.length;
  if (variants.length < 2 || total > MAX_ALTERNATION_CHARS) {
    for (const v of variants) {
      for (
        let i = text.indexOf(v.search);
        i >= 0 && v.exact.length < MAX_OCCURRENCES;
        i = text.indexOf(v.search, i + 1)
      )
        v.exact.push(i);
      await pause();
    }
    return;
  }
  let live = [...new Set(variants.map((v) => v.search))];
  const build = () => new RegExp(live.map((t) => t.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')).join('|'), 'g');
  let re = build();
  for (let m = re.exec(text); m; m = re.exec(text)) {
    const at = m.index;
    let saturated = false;
    for (const v of variants) {
      if (v.exact.length >= MAX_OCCURRENCES || !text.startsWith(v.search, at)) continue;
      v.exact.push(at);
      if (v.exact.length >= MAX_OCCURRENCES) saturated = true;
    }
    const from = at + 1;
    if (saturated) {
      // A search seen MAX_OCCURRENCES times leaves the alternation (the others keep going).
      live = live.filter((t) => variants.some((v) => v.search === t && v.exact.length < MAX_OCCURRENCES));
      if (live.length === 0) break;
      re = build();
    }
    re.lastIndex = from;
    await pause();
  }
}

async function decide(file: FileModel, job: Job, pause: Pause): Promise<Region | BlockFailure> {
  const { index, label } = job;
  const raw = job.variants[0]!;
  // The search as written wins whenever it matches anything: prefixes are stripped only from a search that matches nowhere.
  let v = raw;
  if (
    raw.exact.length === 0 &&
    raw.tolerant.length === 0 &&
    job.variants[1] &&
    (job.variants[1].exact.length > 0 || job.variants[1].tolerant.length > 0)
  ) {
    v = job.variants[1];
    if (v.replaceProblem)
      return {
        index,
        kind: 'line-numbers',
        message: `${label}: ${v.replaceProblem}. Send the replace text without line-number prefixes.`,
      };
  }
  const extra = v.stripped ? { strippedLineNumbers: true } : {};

  if (v.exact.length > 0) {
    let pick = 0;
    let settled = false;
    if (v.exact.length > 1) {
      const ranges = v.exact.map((h) => lineRange(file, { start: h, end: h + v.search.length }));
      const s = settle(ranges, v.hint, v.exact.length >= MAX_OCCURRENCES);
      if (s === undefined) return ambiguous(index, label, ranges, v.exact.length >= MAX_OCCURRENCES, '', v.hint);
      pick = s;
      settled = true;
    }
    const at = v.exact[pick]!;
    return deletionAware(file, {
      index,
      start: at,
      end: at + v.search.length,
      text: v.replace,
      match: 'exact',
      ...(settled ? { settledByHint: true } : {}),
      ...extra,
    });
  }

  if (v.tolerant.length > 0) {
    const n = v.tLines!.length;
    let pick = 0;
    let settled = false;
    if (v.tolerant.length > 1) {
      const ranges = v.tolerant.map((at) => {
        const s = file.lineOf(at);
        return { startLine: s + 1, endLine: s + n };
      });
      const s = settle(ranges, v.hint, v.tolerant.length >= MAX_OCCURRENCES);
      if (s === undefined)
        return ambiguous(index, label, ranges, v.tolerant.length >= MAX_OCCURRENCES, ' (ignoring indentation)', v.hint);
      pick = s;
      settled = true;
    }
    const at = v.tolerant[pick]!;
    const start = file.lineOf(at);
    const end = start + n - 1;
    const fileLines: string[] = [];
    let lineEnd = at - 1;
    for (let i = 0; i < n; i++) {
      const from = lineEnd + 1;
      lineEnd = file.endOfLine(from);
      fileLines.push(file.text.slice(from, lineEnd));
    }
    let nearby: string[] | undefined;
    const re = reindent(
      v.tLines!,
      fileLines,
      v.replace === '' ? [] : v.replace.split('\n'),
      () => (nearby ??= file.linesAround(at, 400, 400)),
      start,
    );
    if (!re.ok) {
      return {
        index,
        kind: 'indentation',
        message: `${label}: the search matches ${rangeText({ startLine: start + 1, endLine: end + 1 })} only when indentation is ignored, and the replacement cannot be re-indented safely: ${re.reason}. Copy the lines with their exact indentation from read_file.`,
      };
    }
    return deletionAware(file, {
      index,
      start: at,
      end: lineEnd,
      text: re.text,
      match: 'tolerant',
      ...(settled ? { settledByHint: true } : {}),
      ...extra,
    });
  }

  // Not found: name the closest candidate (for the search as written).
  const closest = await closestCandidate(file, raw, pause);
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

/** Index of the only match starting within HINT_TOLERANCE lines of the hint, if there is exactly one. */
function settle(ranges: LineRange[], hint: number | undefined, capped: boolean): number | undefined {
  if (hint === undefined || capped) return undefined;
  let found: number | undefined;
  for (let i = 0; i < ranges.length; i++) {
    if (Math.abs(ranges[i]!.startLine - hint) > HINT_TOLERANCE) continue;
    if (found !== undefined) return undefined;
    found = i;
  }
  return found;
}

function ambiguous(
  index: number,
  label: string,
  ranges: LineRange[],
  capped: boolean,
  how = '',
  hint?: number,
): BlockFailure {
  const shown = ranges.slice(0, MAX_REPORTED_MATCHES).map(rangeText).join(', ');
  const count = capped ? `${ranges.length}+` : `${ranges.length}`;
  const hintText =
    hint === undefined
      ? ' Include more surrounding lines so it matches exactly one place, or give startLine (the line where the search starts).'
      : ` startLine ${hint} does not settle it: it is not within ${HINT_TOLERANCE} lines of the start of exactly one of them. Include more surrounding lines so it matches exactly one place.`;
  return {
    index,
    kind: 'ambiguous',
    matches: ranges,
    message: `${label}: the search text matches ${count} places${how} (${shown}${ranges.length > MAX_REPORTED_MATCHES ? ', ...' : ''}).${hintText}`,
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

// ---------------------------------------------------------------------------------------------------------------
// The mismatch report

async function closestCandidate(file: FileModel, v: Variant, pause: Pause): Promise<ClosestCandidate | undefined> {
  prepareTolerant(v);
  await ensureWanted(file, [v], pause);
  const searchLines = v.tLines!;
  const ns = v.tNorm!;
  const m = ns.length;
  const total = file.lineCount;
  if (m === 0 || total === 0) return undefined;
  const wanted = file.wanted;
  const span = Math.min(m, total);
  const starts = new Map<number, number>();
  for (let j = 0; j < m; j++) {
    if (ns[j] === '') continue;
    const hits = wanted?.get(v.tHash![j]!) ?? [];
    if (hits.length > 200) continue; // too common to say anything
    for (const p of hits) {
      const s = Math.max(0, Math.min(p - j, total - span));
      starts.set(s, (starts.get(s) ?? 0) + 1);
    }
  }
  let candidates = [...starts.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 8)
    .map(([s]) => s);
  if (candidates.length === 0) {
    // No line matches even loosely: rank windows by how much their first and last lines resemble the search's.
    const first = bigrams(ns[0]!);
    const last = bigrams(ns[m - 1]!);
    const top: [number, number][] = [];
    for (let s = 0; s + span <= total; s++) {
      if ((s & 255) === 0) await pause();
      const g1 = bigrams(file.normLine(s));
      const g2 = span === 1 ? g1 : bigrams(file.normLine(s + span - 1));
      const score = dice(first, g1) + dice(last, g2);
      if (top.length < 8 || score > top[top.length - 1]![1]) {
        top.push([s, score]);
        top.sort((x, y) => y[1] - x[1]);
        if (top.length > 8) top.pop();
      }
    }
    candidates = top.map(([s]) => s);
  }
  let best: { start: number; score: number } | undefined;
  for (const s of candidates) {
    let sum = 0;
    for (let j = 0; j < span; j++) {
      const fl = file.normLine(s + j);
      sum += ns[j] === fl ? 1 : dice(bigrams(ns[j]!), bigrams(fl));
    }
    const score = sum / m;
    if (!best || score > best.score) best = { start: s, score };
  }
  if (!best || best.score < 0.2) return undefined;
  const fileLines: string[] = [];
  for (let i = best.start; i < best.start + span; i++) fileLines.push(file.line(i));
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

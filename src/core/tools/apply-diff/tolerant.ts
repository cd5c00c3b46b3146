// apply_diff's tolerant matching (a block that matches nowhere exactly may still match with whitespace ignored:
// every line equal once trimmed and with runs of spaces squeezed). (Split from apply-diff.ts.)
//
// Fast path, for a block with a word (a run without whitespace) of MIN_WORD+ characters: any file line equal to a
// search line with whitespace ignored holds each of its words verbatim, so the block's rarest long word (its
// frequency estimated on a sample of the file) is found by one jumping pass for all blocks (scan.ts), and
// only around its hits are lines compared, without building them. Slow path, for the other blocks and for words that
// prove common: hash every line with whitespace ignored and look each block's rarest line up in that index.
import {
  CHUNK_LINES,
  MAX_OCCURRENCES,
  normalizeLine,
  normEquals,
  normHash,
  type FileModel,
  type Pause,
  type Variant,
} from './file-model';
import { scanAll, type ScanPattern } from './scan';

/** Shortest word the fast path anchors on. */
const MIN_WORD = 4;
/** Longest words of a block considered as anchors. */
const WORDS_CONSIDERED = 8;
/** Hits of an anchor word after which the block goes to the slow path. */
const MAX_WORD_HITS = 2000;

function trimBlankEdges(lines: string[]): string[] {
  let a = 0;
  let b = lines.length;
  while (a < b && lines[a]!.trim() === '') a++;
  while (b > a && lines[b - 1]!.trim() === '') b--;
  return lines.slice(a, b);
}

/** The block's lines without blank edges, normalised and hashed. */
export function prepareTolerant(v: Variant): void {
  if (v.tLines) return;
  v.tLines = trimBlankEdges(v.lines);
  v.tNorm = v.tLines.map(normalizeLine);
  v.tHash = v.tLines.map((l) => normHash(l, 0, l.length));
}

function countIn(sample: string, word: string, limit: number): number {
  let c = 0;
  for (let i = sample.indexOf(word); i >= 0 && c < limit; i = sample.indexOf(word, i + 1)) c++;
  return c;
}

interface Anchor {
  variant: Variant;
  /** Search line the word comes from. */
  line: number;
  pattern: ScanPattern;
}

export async function matchTolerant(file: FileModel, variants: Variant[], pause: Pause, sample: string): Promise<void> {
  const slow: Variant[] = [];
  const anchors: Anchor[] = [];
  const patterns = new Map<string, ScanPattern>();
  const ratio = file.text.length / Math.max(1, sample.length);
  for (const v of variants) {
    prepareTolerant(v);
    const ns = v.tNorm!;
    if (ns.length === 0) continue;
    const words: { word: string; line: number }[] = [];
    ns.forEach((n, line) => {
      for (const word of n.split(' ')) if (word.length >= MIN_WORD) words.push({ word, line });
    });
    words.sort((a, b) => b.word.length - a.word.length);
    let best: { word: string; line: number; seen: number } | undefined;
    for (const w of words.slice(0, WORDS_CONSIDERED)) {
      const seen = countIn(sample, w.word, best ? best.seen : Infinity);
      if (!best || seen < best.seen) best = { ...w, seen };
      if (seen === 0) break;
    }
    if (!best || best.seen * ratio > MAX_WORD_HITS / 2) {
      slow.push(v);
      continue;
    }
    let pattern = patterns.get(best.word);
    if (!pattern) patterns.set(best.word, (pattern = { text: best.word, hits: [], cap: MAX_WORD_HITS }));
    anchors.push({ variant: v, line: best.line, pattern });
  }
  if (patterns.size > 0) await scanAll(file.text, [...patterns.values()], pause, sample, file.bytes);
  for (const a of anchors) {
    if (a.pattern.hits.length >= a.pattern.cap) slow.push(a.variant);
    else verifyAround(file, a);
  }
  await pause();
  if (slow.length > 0) await matchBySlowIndex(file, slow, pause);
}

/** The block's matches among the lines holding its anchor word's hits (each line tried once). */
function verifyAround(file: FileModel, { variant: v, line: j, pattern }: Anchor): void {
  const text = file.text;
  const ns = v.tNorm!;
  let tried = -1;
  for (const hit of pattern.hits) {
    const ls = file.startOfLine(hit);
    if (ls === tried) continue;
    tried = ls;
    const le = file.endOfLine(hit);
    if (!normEquals(text, ls, le, ns[j]!)) continue;
    let start = ls;
    let ok = true;
    for (let k = j - 1; k >= 0 && ok; k--) {
      if (start === 0) ok = false;
      else {
        const e = start - 1;
        start = file.startOfLine(e);
        ok = normEquals(text, start, e, ns[k]!);
      }
    }
    let end = le;
    for (let k = j + 1; k < ns.length && ok; k++) {
      if (end >= text.length) ok = false;
      else {
        const s = end + 1;
        end = file.endOfLine(s);
        ok = normEquals(text, s, end, ns[k]!);
      }
    }
    if (!ok) continue;
    v.tolerant.push(start);
    if (v.tolerant.length >= MAX_OCCURRENCES) break;
  }
}

/**
 * The whitespace-insensitive hashes of every line, and the lines per hash for each hash the variants' lines have
 * (added to file.wanted, which the closest-candidate report also reads).
 */
export async function ensureWanted(file: FileModel, variants: Variant[], pause: Pause): Promise<Int32Array> {
  const hashes = await file.hashLines(pause);
  const wanted = (file.wanted ??= new Map());
  const filter = new Uint8Array(1 << 16);
  let missing = 0;
  for (const v of variants) {
    prepareTolerant(v);
    v.tNorm!.forEach((n, j) => {
      const h = v.tHash![j]!;
      if (n === '' || wanted.has(h)) return;
      wanted.set(h, []);
      filter[h & 0xffff] = 1;
      missing++;
    });
  }
  if (missing === 0) return hashes;
  const fresh = new Map<number, number[]>();
  for (const [h, list] of wanted) if (list.length === 0 && filter[h & 0xffff] === 1) fresh.set(h, list);
  for (let from = 0; from < hashes.length; from += CHUNK_LINES) {
    const to = Math.min(hashes.length, from + CHUNK_LINES);
    for (let i = from; i < to; i++) {
      const h = hashes[i]!;
      if (filter[h & 0xffff] === 1) fresh.get(h)?.push(i);
    }
    await pause();
  }
  return hashes;
}

export async function matchBySlowIndex(file: FileModel, variants: Variant[], pause: Pause): Promise<void> {
  const hashes = await ensureWanted(file, variants, pause);
  const wanted = file.wanted!;
  for (const v of variants) {
    const ns = v.tNorm!;
    const hs = v.tHash!;
    if (ns.length === 0) continue;
    // Anchor on the rarest search line so common lines ("}", "") cost nothing.
    let anchor = -1;
    let anchorHits: number[] = [];
    for (let j = 0; j < ns.length; j++) {
      if (ns[j] === '') continue;
      const hits = wanted.get(hs[j]!)!;
      if (anchor < 0 || hits.length < anchorHits.length) {
        anchor = j;
        anchorHits = hits;
      }
    }
    for (const p of anchorHits) {
      const start = p - anchor;
      if (start < 0 || start + ns.length > file.lineCount) continue;
      let ok = true;
      for (let j = 0; j < ns.length && ok; j++) ok = hashes[start + j] === hs[j];
      for (let j = 0; j < ns.length && ok; j++) ok = file.normLine(start + j) === ns[j];
      if (ok) v.tolerant.push(file.lineStart(start));
      if (v.tolerant.length >= MAX_OCCURRENCES) break;
    }
  }
}

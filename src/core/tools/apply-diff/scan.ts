// One pass over a text for many literal patterns at once (Wu-Manber style): a window of the m characters common to
// every pattern's length slides over the text, and the last few characters under it (a "gram") say how far it can
// jump: the distance from that gram's last place in any pattern's window to the window's end. Only where the jump is
// zero is anything compared. On source code the window jumps tens of characters, so a 3 MB file is crossed in a few
// tens of thousands of steps whatever the number of patterns. A stretch of the text with no character above U+00FF is
// read as bytes a chunk at a time (see TextBytes in text-bytes.ts, which also counts its newlines), anything else with
// charCodeAt.
//
// Each pattern's window is the part of it whose grams are rarest in a small sample of the text (its last gram
// counting most), and a candidate is first checked at the pattern's rarest gram, so that in a file where every
// function has the same shape few places need a full comparison. Every occurrence is found (overlapping ones
// included) up to the pattern's cap; a pattern that reaches its cap leaves the scan. If the scan turns out to cost
// more than a few passes' worth of steps (adversarial text), the rest is done with one native search per pattern,
// which finds the same occurrences. Work is cut in slices of STEPS_PER_SLICE steps with a pause between.
import type { Pause } from './file-model';
import { TextBytes } from './text-bytes';

export interface ScanPattern {
  readonly text: string;
  /** Start offsets of the occurrences found, in order, at most `cap`. */
  hits: number[];
  readonly cap: number;
}

/** Steps between clock checks. */
const STEPS_PER_SLICE = 1 << 14;
const SAMPLE_SLICES = 16;
const SAMPLE_CHARS = 512;
/** Longest window (longer patterns are matched on a window of this many characters). */
const MAX_WINDOW = 1024;

/** Shortest pattern the scan takes (shorter ones jump too little to beat a native search). */
const MIN_SCAN_CHARS = 3;

function gramBits(b: number): number {
  return b >= 3 ? 16 : 15;
}

const GOLDEN = 0x9e3779b1;

/** Hash of the b characters ending at `end` (b = 1..4): their codes shifted in 8 bits at a time, oldest first (in 32
 * bits; for characters up to U+00FF, the big-endian word a DataView reads at end - 3), times a golden-ratio constant,
 * top bits. */
function gram(s: string, end: number, b: number): number {
  let x = 0;
  for (let k = end - b + 1; k <= end; k++) x = (x << 8) | s.charCodeAt(k);
  return Math.imul(x, GOLDEN) >>> (32 - gramBits(b));
}

/** gram() over bytes (a one-byte chunk's characters: the same hashes). */
function gramOfBytes(s: Uint8Array, end: number, b: number): number {
  let x = 0;
  for (let k = end - b + 1; k <= end; k++) x = (x << 8) | s[k]!;
  return Math.imul(x, GOLDEN) >>> (32 - gramBits(b));
}

/**
 * gram(s, e, b) for every e from b - 1 on, into out[e]. For b = 4 one character per step: shifting the next one in
 * pushes the oldest out of the 32 bits, so a running value is exactly the 4-character one.
 */
function gramsInto(s: string, b: number, out: Int32Array): void {
  if (b !== 4) {
    for (let e = b - 1; e < s.length; e++) out[e] = gram(s, e, b);
    return;
  }
  let x = 0;
  for (let e = 0; e < s.length; e++) {
    x = (x << 8) | s.charCodeAt(e);
    if (e >= 3) out[e] = Math.imul(x, GOLDEN) >>> 16;
  }
}

/** A few evenly spread slices of the text (rarity estimates for windows and anchors). */
export function sampleOf(text: string): string {
  if (text.length <= SAMPLE_SLICES * SAMPLE_CHARS * 2) return text;
  const parts: string[] = [];
  const step = Math.floor((text.length - SAMPLE_CHARS) / (SAMPLE_SLICES - 1));
  for (let k = 0; k < SAMPLE_SLICES; k++) parts.push(text.slice(k * step, k * step + SAMPLE_CHARS));
  return parts.join('\n');
}

/** Gram tables are reused (allocating 128 KB per scan costs more than filling it). */
const freqTable = new Uint8Array(1 << 16);
let gramFreq = new Uint8Array(1024);
/** Each pattern gram's hash while planning (computed once, used for its rarity and its shift). */
let gramHash = new Int32Array(1024);
let sampleHash = new Int32Array(SAMPLE_SLICES * (SAMPLE_CHARS + 1));
/** Weight of a window's last gram against the sum over all its grams when choosing it. */
const END_WEIGHT = 64;
const shiftPool: Uint16Array[] = [];

interface Plan {
  m: number;
  b: number;
  shift: Uint16Array;
  /** Live patterns per the gram that ends their window. */
  ends: Map<number, number[]>;
  /** Window start within each pattern. */
  offset: Int32Array;
  /** A second gram of each pattern's window, `back` characters before its end: checked before comparing. */
  second: Int32Array;
  back: number;
  /** Where in each pattern its rarest gram (in the sample) ends: compared before the whole pattern, since in a
   * repetitive file a candidate often agrees with the pattern for a long stretch before the part that differs. */
  probe: Int32Array;
}

function plan(patterns: ScanPattern[], live: number[], sample: string): Plan {
  let m = MAX_WINDOW;
  for (const p of live) m = Math.min(m, patterns[p]!.text.length);
  const b = m >= 12 ? 4 : m >= 6 ? 3 : m >= 4 ? 2 : 1;
  const size = 1 << gramBits(b);
  const freq = freqTable.fill(0, 0, size);
  if (sampleHash.length < sample.length) sampleHash = new Int32Array(sample.length);
  gramsInto(sample, b, sampleHash);
  for (let e = b - 1; e < sample.length; e++) {
    const h = sampleHash[e]!;
    if (freq[h]! < 255) freq[h]!++;
  }
  const shift = (shiftPool.pop() ?? new Uint16Array(1 << 16)).fill(m - b + 1, 0, size);
  const ends = new Map<number, number[]>();
  const offset = new Int32Array(patterns.length);
  const second = new Int32Array(patterns.length);
  const back = Math.min(8, m - b);
  const probe = new Int32Array(patterns.length);
  for (const p of live) {
    const t = patterns[p]!.text;
    // The window whose grams are rarest in the sample, its last gram counting most (where that one is common,
    // windows need comparing), found with a sliding sum.
    if (gramFreq.length < t.length) {
      gramFreq = new Uint8Array(t.length * 2);
      gramHash = new Int32Array(t.length * 2);
    }
    const g = gramFreq;
    const hashes = gramHash;
    gramsInto(t, b, hashes);
    for (let e = b - 1; e < t.length; e++) g[e] = freq[hashes[e]!]!;
    let sum = 0;
    for (let e = b - 1; e < m; e++) sum += g[e]!;
    let best = 0;
    let bestScore = sum + END_WEIGHT * g[m - 1]!;
    for (let o = 1; o + m <= t.length; o++) {
      sum += g[o + m - 1]! - g[o + b - 2]!;
      const score = sum + END_WEIGHT * g[o + m - 1]!;
      if (score < bestScore) {
        bestScore = score;
        best = o;
      }
    }
    offset[p] = best;
    let pe = t.length - 1;
    for (let e = b - 1; e < t.length; e++) if (g[e]! < g[pe]! && e !== best + m - 1) pe = e;
    probe[p] = pe;
    for (let j = b - 1; j < m; j++) {
      const h = hashes[best + j]!;
      const s = m - 1 - j;
      if (s < shift[h]!) shift[h] = s;
    }
    second[p] = hashes[best + m - 1 - back]!;
    const h = hashes[best + m - 1]!;
    const list = ends.get(h);
    if (list) list.push(p);
    else ends.set(h, [p]);
  }
  return { m, b, shift, ends, offset, second, back, probe };
}

/**
 * Every occurrence of every pattern (up to its cap), each pattern's hits in order. Patterns shorter than
 * MIN_SCAN_CHARS are not allowed. `sample` is sampleOf(text) (shared with other estimates).
 */
export async function scanAll(
  text: string,
  patterns: ScanPattern[],
  pause: Pause,
  sample = sampleOf(text),
  hold = new TextBytes(text),
): Promise<void> {
  const n = text.length;
  const live: number[] = [];
  for (let p = 0; p < patterns.length; p++) {
    const pat = patterns[p]!;
    if (pat.text.length < MIN_SCAN_CHARS) throw new Error('scanAll: pattern too short');
    if (pat.hits.length < pat.cap && pat.text.length <= n) live.push(p);
  }
  if (live.length === 0) return;
  const last = new Float64Array(patterns.length).fill(-1);
  const state = { pl: plan(patterns, live, sample), live };
  try {
    await scanLoop(text, patterns, state, last, pause, sample, hold);
  } finally {
    shiftPool.push(state.pl.shift);
  }
}

async function scanLoop(
  text: string,
  patterns: ScanPattern[],
  state: { pl: Plan; live: number[] },
  last: Float64Array,
  pause: Pause,
  sample: string,
  hold: TextBytes,
): Promise<void> {
  const n = text.length;
  let i = state.pl.m - 1;
  // Steps allowed before giving up on jumps (a few times what a plain pass would take).
  let budget = 4 * n + 65536;
  let sinceYield = 0;
  while (i < n) {
    const { m, offset } = state.pl;
    const stop = Math.min(budget, STEPS_PER_SLICE - sinceYield);
    // The chunk holding the window end, as bytes when they are its characters (loaded again after a pause: another
    // scan may have taken the buffer).
    const end = hold.load(i);
    if (hold.oneByte)
      i = scanBytes(
        text,
        hold.bytes(),
        hold.view(),
        hold.base,
        patterns,
        state.pl,
        last,
        i,
        stop,
        end,
        state.pl.b,
        state.pl.shift,
      );
    else i = scanSlice(text, patterns, state.pl, last, i, stop, end);
    budget -= sliceSteps;
    sinceYield += sliceSteps;
    if (budget <= 0) {
      // The text defeats the jumps: one native search per pattern for what is left.
      for (const p of state.live) {
        const pat = patterns[p]!;
        for (
          let at = text.indexOf(pat.text, last[p]! + 1);
          at >= 0 && pat.hits.length < pat.cap;
          at = text.indexOf(pat.text, at + 1)
        )
          pat.hits.push(at);
        await pause();
      }
      return;
    }
    if (sliceRebuild) {
      // A pattern reached its cap: plan again without it, and go back far enough that no window of the new plan
      // is skipped (hits already recorded are not recorded twice).
      const examined = new Map<number, number>();
      for (const p of state.live) examined.set(p, i - 1 - m + 1 - offset[p]!);
      state.live = state.live.filter((p) => patterns[p]!.hits.length < patterns[p]!.cap);
      if (state.live.length === 0) return;
      shiftPool.push(state.pl.shift);
      state.pl = plan(patterns, state.live, sample);
      let next = Infinity;
      for (const p of state.live) next = Math.min(next, examined.get(p)! + 1 + state.pl.offset[p]! + state.pl.m - 1);
      i = Math.max(state.pl.m - 1, next);
    }
    if (sinceYield >= STEPS_PER_SLICE) {
      sinceYield = 0;
      await pause();
    }
  }
}

/** What the last slice did besides moving. Module variables rather than an object's properties: a store to a
 * property after the hot loop has no type feedback when the loop is optimised mid-run (on-stack replacement), and
 * that store then threw the optimised code away at the end of every slice (measured: ~7 ns per jump instead of ~4). */
let sliceSteps = 0;
let sliceRebuild = false;

/** Up to `stop` steps of the scan from window end `i`, while it is before `upTo` (a plain function, so the hot loop
 * is optimised). */
function scanSlice(
  text: string,
  patterns: ScanPattern[],
  pl: Plan,
  last: Float64Array,
  i: number,
  stop: number,
  upTo: number,
): number {
  const { b, shift } = pl;
  let steps = 0;
  let rebuild = false;
  while (i < upTo && steps < stop) {
    steps++;
    const s = shift[gram(text, i, b)]!;
    if (s !== 0) {
      i += s;
      continue;
    }
    const work = compareAt(text, patterns, pl, last, i, undefined, 0);
    i++;
    if (work < 0) {
      rebuild = true;
      break;
    }
    steps += work;
  }
  sliceSteps = steps;
  sliceRebuild = rebuild;
  return i;
}

/** scanSlice over the loaded chunk's bytes (the same steps): character x is byte x - base, up to window end `upTo`
 * (the chunk's end). */
function scanBytes(
  text: string,
  bytes: Uint8Array,
  view: DataView,
  base: number,
  patterns: ScanPattern[],
  pl: Plan,
  last: Float64Array,
  i: number,
  stop: number,
  upTo: number,
  b: number,
  shift: Uint16Array,
): number {
  let steps = 0;
  let rebuild = false;
  // In buffer positions.
  let j = i - base;
  const end = upTo - base;
  while (j < end && steps < stop) {
    // The jumps alone (the hot loop), until a window end whose gram ends some pattern's window.
    if (b === 4) {
      // A 4-character gram is one unaligned 32-bit load (measured: 4 byte loads cost ~30% more per step).
      for (; j < end && steps < stop; steps++) {
        const s = shift[Math.imul(view.getUint32(j - 3), GOLDEN) >>> 16]!;
        if (s === 0) break;
        j += s;
      }
    } else {
      for (; j < end && steps < stop; steps++) {
        const s = shift[gramOfBytes(bytes, j, b)]!;
        if (s === 0) break;
        j += s;
      }
    }
    if (j >= end || steps >= stop) break;
    steps++;
    const work = compareAt(text, patterns, pl, last, j + base, bytes, base);
    j++;
    if (work < 0) {
      rebuild = true;
      break;
    }
    steps += work;
  }
  sliceSteps = steps;
  sliceRebuild = rebuild;
  return j + base;
}

/** The comparisons where the window (ending at `i`) could be some pattern's: their cost in steps, or -1 when a
 * pattern reached its cap. (Out of the hot loop, so that loop's optimised code never meets unseen code.) */
function compareAt(
  text: string,
  patterns: ScanPattern[],
  pl: Plan,
  last: Float64Array,
  i: number,
  bytes: Uint8Array | undefined,
  base: number,
): number {
  const group = pl.ends.get(bytes ? gramOfBytes(bytes, i - base, pl.b) : gram(text, i, pl.b));
  if (!group) return 0;
  const ws = i - pl.m + 1;
  const g2 = bytes ? gramOfBytes(bytes, i - base - pl.back, pl.b) : gram(text, i - pl.back, pl.b);
  let work = 0;
  let capped = false;
  for (const p of group) {
    const pat = patterns[p]!;
    if (pl.second[p] !== g2 || pat.hits.length >= pat.cap) continue;
    const st = ws - pl.offset[p]!;
    if (st < 0 || st <= last[p]! || st + pat.text.length > text.length) continue;
    work += pat.text.length >> 4;
    // The probe reads the text, not the bytes: it may lie outside the loaded chunk.
    const e = pl.probe[p]!;
    let k = e - pl.b + 1;
    while (k <= e && text.charCodeAt(st + k) === pat.text.charCodeAt(k)) k++;
    if (k <= e || !text.startsWith(pat.text, st)) continue;
    pat.hits.push(st);
    last[p] = st;
    if (pat.hits.length >= pat.cap) capped = true;
  }
  return capped ? -1 : work;
}

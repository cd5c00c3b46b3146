// Per-hunk review of a proposed edit: split original -> proposed into hunks (each contiguous run of changed
// lines), put back together the text with only the accepted hunks, carry the user's per-hunk decisions over
// when the proposed side changes, and tell the model precisely what was rejected. Plain TypeScript, no 'vscode'.
//
// Lines are compared and spliced WITH their terminators ("a\r\n", "b\n", a last "c" without one), so CRLF
// files stay CRLF, a missing final newline stays missing, and accepting every hunk gives back the proposal
// byte for byte. The hunk boundaries come from jsdiff (diffArrays over those lines, time-limited); a diff that
// runs out of time becomes one hunk covering everything between the common start and end.
import { diffArrays } from 'diff';
import { plural } from '../plural';

export interface Hunk {
  /** 0-based position in the proposal's hunk list. */
  index: number;
  /** 1-based first line of the change in the original, and how many original lines it replaces (0: insertion before oldStart). */
  oldStart: number;
  oldLines: number;
  /** 1-based first line of the change in the proposed text, and how many lines it adds (0: pure deletion). */
  newStart: number;
  newLines: number;
  /** The original lines it removes and the proposed lines it adds, terminators included. */
  removed: string[];
  added: string[];
}

export type HunkState = 'pending' | 'accepted' | 'rejected';

export interface HunkDecision {
  state: HunkState;
  /** Why the user rejected it (shown to the model). */
  reason?: string;
}

/** Time the line diff may take on the extension host's thread before it falls back to one hunk. */
const DIFF_TIME_MS = 50;

/** Lines with their terminators; a text without a final newline ends in a line without one. */
export function splitLines(text: string): string[] {
  const out: string[] = [];
  let at = 0;
  while (at < text.length) {
    const nl = text.indexOf('\n', at);
    if (nl < 0) {
      out.push(text.slice(at));
      break;
    }
    out.push(text.slice(at, nl + 1));
    at = nl + 1;
  }
  return out;
}

/** The hunks that turn `original` into `proposed`, in order, never touching or overlapping each other. */
export function splitHunks(original: string, proposed: string, opts: { timeoutMs?: number } = {}): Hunk[] {
  const a = splitLines(original);
  const b = splitLines(proposed);
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--;
    endB--;
  }
  if (endA === start && endB === start) return [];
  const hunks: Hunk[] = [];
  const push = (oi: number, ni: number, removed: string[], added: string[]) =>
    hunks.push({
      index: hunks.length,
      oldStart: oi + 1,
      oldLines: removed.length,
      newStart: ni + 1,
      newLines: added.length,
      removed,
      added,
    });
  const midA = a.slice(start, endA);
  const midB = b.slice(start, endB);
  const changes =
    midA.length && midB.length ? diffArrays(midA, midB, { timeout: opts.timeoutMs ?? DIFF_TIME_MS }) : undefined;
  if (!changes) {
    push(start, start, midA, midB);
    return hunks;
  }
  let oi = start;
  let ni = start;
  let run: { oi: number; ni: number; removed: string[]; added: string[] } | undefined;
  const flush = () => {
    if (run) push(run.oi, run.ni, run.removed, run.added);
    run = undefined;
  };
  for (const c of changes) {
    const lines = c.value as string[];
    if (!c.added && !c.removed) {
      flush();
      oi += lines.length;
      ni += lines.length;
      continue;
    }
    run ??= { oi, ni, removed: [], added: [] };
    if (c.removed) {
      run.removed.push(...lines);
      oi += lines.length;
    } else {
      run.added.push(...lines);
      ni += lines.length;
    }
  }
  flush();
  return hunks;
}

/**
 * The original with only the accepted hunks applied (`accepted(index)` decides). Every hunk accepted gives the
 * proposed text; none gives the original.
 */
export function applyHunks(original: string, hunks: readonly Hunk[], accepted: (index: number) => boolean): string {
  const a = splitLines(original);
  const out: string[] = [];
  let at = 0; // next original line (0-based) not yet copied
  for (const h of [...hunks].sort((x, y) => x.oldStart - y.oldStart)) {
    const from = h.oldStart - 1;
    if (from < at || from + h.oldLines > a.length)
      throw new Error(`hunk ${h.index + 1} does not fit the original text`);
    for (; at < from; at++) out.push(a[at]!);
    if (accepted(h.index)) out.push(...h.added);
    else out.push(...a.slice(from, from + h.oldLines));
    at = from + h.oldLines;
  }
  for (; at < a.length; at++) out.push(a[at]!);
  return out.join('');
}

/** A stable identity for a hunk across recomputations (the proposed side edited): where it is and what it does. */
function hunkKey(h: Hunk): string {
  return `${h.oldStart},${h.oldLines}\u0000${h.removed.join('')}\u0000${h.added.join('')}`;
}

/**
 * Decisions for `next` hunks taken from `prev` ones with the same key (the user's review survives an edit of the
 * proposed side elsewhere); other hunks start pending.
 */
export function carryDecisions(
  prev: readonly Hunk[],
  decisions: ReadonlyMap<number, HunkDecision>,
  next: readonly Hunk[],
): Map<number, HunkDecision> {
  const byKey = new Map<string, HunkDecision>();
  for (const h of prev) {
    const d = decisions.get(h.index);
    if (d && d.state !== 'pending') byKey.set(hunkKey(h), d);
  }
  const out = new Map<number, HunkDecision>();
  for (const h of next) {
    const d = byKey.get(hunkKey(h));
    if (d) out.set(h.index, d);
  }
  return out;
}

const strip = (line: string) => line.replace(/\r?\n$/, '');
const NO_EOL = '\\ No newline at end of file';

/** "@@ -12,3 +12,4 @@" (unified-diff convention: a 0-line side names the line before it). */
export function hunkHeader(h: Hunk): string {
  const side = (start: number, n: number) => `${n === 0 ? start - 1 : start}${n === 1 ? '' : `,${n}`}`;
  return `@@ -${side(h.oldStart, h.oldLines)} +${side(h.newStart, h.newLines)} @@`;
}

/** The hunk as unified-diff lines (header excluded), with up to `context` lines of the original around it. */
export function hunkBody(original: string | string[], h: Hunk, context = 0): string[] {
  const a = typeof original === 'string' ? splitLines(original) : original;
  const out: string[] = [];
  const from = h.oldStart - 1;
  for (let i = Math.max(0, from - context); i < from; i++) out.push(' ' + strip(a[i]!));
  const mark = (prefix: string, lines: string[]) => {
    lines.forEach((l) => {
      out.push(prefix + strip(l));
      if (!l.endsWith('\n')) out.push(NO_EOL);
    });
  };
  mark('-', h.removed);
  mark('+', h.added);
  const end = from + h.oldLines;
  for (let i = end; i < Math.min(a.length, end + context); i++) {
    out.push(' ' + strip(a[i]!));
    if (!a[i]!.endsWith('\n')) out.push(NO_EOL);
  }
  return out;
}

/** "lines 12-14" / "line 12" / "after line 11" (a pure insertion) of one side. */
function lineRange(start: number, n: number): string {
  if (n === 0) return start <= 1 ? 'at the start' : `after line ${start - 1}`;
  return n === 1 ? `line ${start}` : `lines ${start}-${start + n - 1}`;
}

interface HunkReviewSummary {
  total: number;
  accepted: number[];
  rejected: {
    index: number;
    oldStart: number;
    oldLines: number;
    newStart: number;
    newLines: number;
    diff: string;
    reason?: string;
  }[];
}

/** Which hunks were kept and which were not, with each rejected hunk's ranges, text and reason. */
export function summarizeReview(
  original: string,
  hunks: readonly Hunk[],
  decisions: ReadonlyMap<number, HunkDecision>,
): HunkReviewSummary {
  const a = splitLines(original);
  const summary: HunkReviewSummary = { total: hunks.length, accepted: [], rejected: [] };
  for (const h of hunks) {
    const d = decisions.get(h.index);
    if (d?.state === 'rejected') {
      summary.rejected.push({
        index: h.index,
        oldStart: h.oldStart,
        oldLines: h.oldLines,
        newStart: h.newStart,
        newLines: h.newLines,
        diff: [hunkHeader(h), ...hunkBody(a, h, 2)].join('\n'),
        ...(d.reason?.trim() ? { reason: d.reason.trim() } : {}),
      });
    } else {
      summary.accepted.push(h.index);
    }
  }
  return summary;
}

/** Caps the text of each rejected hunk quoted back to the model. */
const MAX_HUNK_CHARS = 4000;

/** What the model is told about a partly accepted (or wholly rejected) proposal. */
export function describeReview(file: string, s: HunkReviewSummary): string {
  if (!s.rejected.length) return '';
  const parts: string[] = [];
  if (s.accepted.length) {
    parts.push(
      `The user reviewed your change to ${file} hunk by hunk: ${s.accepted.length} of ${plural(s.total, 'hunk')} were accepted and written (${s.accepted.map((i) => `#${i + 1}`).join(', ')}); ${s.rejected.length} were rejected and are NOT in the file:`,
    );
  } else {
    parts.push(`The user rejected every hunk (${s.total}) of your change to ${file}:`);
  }
  for (const r of s.rejected) {
    const diff = r.diff.length > MAX_HUNK_CHARS ? `${r.diff.slice(0, MAX_HUNK_CHARS)}\n… (hunk cut)` : r.diff;
    parts.push(
      `- Hunk #${r.index + 1} (original ${lineRange(r.oldStart, r.oldLines)}; proposed ${lineRange(r.newStart, r.newLines)}), reason: ${r.reason ?? 'no reason given'}\n` +
        '```diff\n' +
        diff +
        '\n```',
    );
  }
  if (s.accepted.length)
    parts.push(
      `Line numbers after the accepted hunks differ from your proposal: re-read ${file} before editing it again, and do not re-apply the rejected hunks unchanged.`,
    );
  // No final period: the loop appends its own sentence to a rejection's reason.
  else parts.push('Nothing of this change was written');
  return parts.join('\n');
}

interface HunkViewData {
  index: number;
  header: string;
  body: string;
  oldStart: number;
  oldLines: number;
  newStart: number;
  newLines: number;
  state: HunkState;
  reason?: string;
}

/** The hunks as a list for people (the panel's card): header, a capped body with one line of context, the state. */
export function hunkViews(
  original: string,
  hunks: readonly Hunk[],
  decisions: ReadonlyMap<number, HunkDecision> = new Map(),
  opts: { maxHunks?: number; maxChars?: number } = {},
): HunkViewData[] {
  const a = splitLines(original);
  const maxChars = opts.maxChars ?? 4000;
  return hunks.slice(0, opts.maxHunks ?? 200).map((h) => {
    const d = decisions.get(h.index);
    let body = hunkBody(a, h, 1).join('\n');
    if (body.length > maxChars) body = `${body.slice(0, maxChars)}\n… (open the diff to see all of this hunk)`;
    return {
      index: h.index,
      header: hunkHeader(h),
      body,
      oldStart: h.oldStart,
      oldLines: h.oldLines,
      newStart: h.newStart,
      newLines: h.newLines,
      state: d?.state ?? 'pending',
      ...(d?.reason ? { reason: d.reason } : {}),
    };
  });
}

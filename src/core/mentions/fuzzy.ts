// A small fuzzy scorer for file paths, in the spirit of editor "go to file" pickers: the query's characters must
// appear in order; matches in the file name, at word starts and in runs score higher, and shorter paths win ties.
// Everything is lower-cased once by the caller (the index keeps lower-cased paths), so a query over 50,000 paths
// costs one pass per path.

const SEPARATORS = new Set(['/', '\\', '_', '-', '.', ' ']);

/** Scores `query` (already lower-cased, no spaces) against one path; undefined when it does not match. */
export function fuzzyScore(query: string, lowerPath: string, path: string = lowerPath): number | undefined {
  if (!query) return 0;
  // Most paths do not match at all: native indexOf says so before any scoring.
  if (!isSubsequence(query, lowerPath, 0)) return undefined;
  const slash = lowerPath.lastIndexOf('/');
  const base = slash + 1;
  // The file name alone first: "gre" should find greet.js before src/gen/reports.ts.
  const inName = isSubsequence(query, lowerPath, base) ? scoreFrom(query, lowerPath, path, base) : undefined;
  if (inName !== undefined) {
    const prefix = lowerPath.startsWith(query, base) ? 40 : 0;
    const exact = lowerPath.length - base === query.length && prefix ? 40 : 0;
    return inName + 60 + prefix + exact - lowerPath.length * 0.05;
  }
  const whole = scoreFrom(query, lowerPath, path, 0);
  return whole === undefined ? undefined : whole - lowerPath.length * 0.05;
}

function isSubsequence(query: string, s: string, from: number): boolean {
  let pos = from;
  for (let k = 0; k < query.length; k++) {
    pos = s.indexOf(query[k], pos);
    if (pos < 0) return false;
    pos++;
  }
  return true;
}

/** Greedy left-to-right match from `start`, with bonuses for word starts and consecutive characters. */
function scoreFrom(query: string, lower: string, original: string, start: number): number | undefined {
  let score = 0;
  let qi = 0;
  let prev = -2;
  for (let i = start; i < lower.length && qi < query.length; i++) {
    if (lower.charCodeAt(i) !== query.charCodeAt(qi)) continue;
    let s = 1;
    if (prev === i - 1) s += 6;
    const before = i === 0 ? '/' : original[i - 1];
    if (SEPARATORS.has(before)) s += 8;
    else if (isUpper(original, i) && !isUpper(original, i - 1)) s += 6;
    score += s;
    prev = i;
    qi++;
  }
  return qi === query.length ? score : undefined;
}

function isUpper(s: string, i: number): boolean {
  const c = s.charCodeAt(i);
  return c >= 65 && c <= 90;
}

/** A query as the scorer takes it: lower case, no spaces, no leading "./". */
export function normalizeQuery(query: string): string {
  return query.trim().replace(/^\.\//, '').replace(/\\/g, '/').replace(/\s+/g, '').toLowerCase();
}

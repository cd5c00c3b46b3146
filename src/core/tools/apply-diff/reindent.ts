// Re-indentation for apply_diff: one mapping from the block's indentation to the file's, fitted on every matched
// line and applied to the whole replacement, or a refusal with the reason. (Split from apply-diff.ts.)
import { leadingWs } from './file-model';

/** Columns a tab counts for when indentation widths are compared (any constant works: the mapping is fitted). */
const TAB_COLS = 4;

// ---------------------------------------------------------------------------------------------------------------
// Re-indentation

function cols(ws: string): number {
  let c = 0;
  for (let i = 0; i < ws.length; i++) c += ws.charCodeAt(i) === 9 ? TAB_COLS : 1;
  return c;
}

type Reindent = { ok: true; text: string } | { ok: false; reason: string };

/**
 * Maps the replacement's indentation from the search's to the file's. The search lines and the file lines they
 * matched give pairs (search columns, file columns); they must fit one mapping file = a * search + b (a > 0: the
 * same nesting, any unit and base), which is then applied to every replacement line and rendered in the file's
 * style (tabs or spaces; the file's own whitespace wherever a level already appears in the matched lines).
 * Anything that does not fit is refused with the reason, never applied with mixed indentation.
 */
export function reindent(
  searchLines: string[],
  fileLines: string[],
  replaceLines: string[],
  nearby: () => string[],
  startLine: number,
): Reindent {
  const pairs: { s: number; f: number; fws: string; line: number }[] = [];
  let identical = true;
  for (let j = 0; j < searchLines.length; j++) {
    if (searchLines[j]!.trim() === '') continue;
    const sws = leadingWs(searchLines[j]!);
    const fws = leadingWs(fileLines[j]!);
    if (sws !== fws) identical = false;
    pairs.push({ s: cols(sws), f: cols(fws), fws, line: startLine + j + 1 });
  }
  if (identical) return { ok: true, text: replaceLines.join('\n') };

  // Style of the matched lines: tabs, spaces, or a mix (then only levels seen in the file can be rendered).
  let tabs = 0;
  let spaces = 0;
  for (const p of pairs) {
    if (p.fws === '') continue;
    if (/^\t+$/.test(p.fws)) tabs++;
    else if (/^ +$/.test(p.fws)) spaces++;
    else {
      tabs++;
      spaces++;
    }
  }
  let style: 'tab' | 'space' | 'mixed' =
    tabs && spaces ? 'mixed' : tabs ? 'tab' : spaces ? 'space' : fileStyle(nearby());

  // Fit file = a * search + b.
  let lo = pairs[0]!;
  let hi = pairs[0]!;
  for (const p of pairs) {
    if (p.s < lo.s) lo = p;
    if (p.s > hi.s) hi = p;
  }
  let a: number;
  if (hi.s !== lo.s) {
    a = (hi.f - lo.f) / (hi.s - lo.s);
  } else {
    // Every search line at one level: the ratio comes from the indentation units of the two sides.
    const unitS = indentUnit(searchLines.concat(replaceLines));
    const unitF = style === 'tab' ? TAB_COLS : fileUnit(nearby());
    a = unitS && unitF ? unitF / unitS : 1;
  }
  const b = lo.f - a * lo.s;
  if (!(a > 0))
    return {
      ok: false,
      reason: `the nesting of the search lines does not follow the file's (lines ${lo.line} and ${hi.line})`,
    };
  for (const p of pairs) {
    if (Math.abs(a * p.s + b - p.f) > 1e-9) {
      return {
        ok: false,
        reason: `the search's indentation does not map onto the file's consistently (line ${p.line} is indented ${p.f} columns in the file; the rest of the search implies ${fmt(a * p.s + b)})`,
      };
    }
  }
  const known = new Map<number, string>();
  for (const p of pairs) if (!known.has(p.f)) known.set(p.f, p.fws);
  if (style === 'mixed' && known.size === 0) style = 'space';

  const out: string[] = [];
  for (let k = 0; k < replaceLines.length; k++) {
    const line = replaceLines[k]!;
    if (line.trim() === '') {
      out.push('');
      continue;
    }
    const ws = leadingWs(line);
    const t = a * cols(ws) + b;
    const target = Math.round(t);
    if (Math.abs(t - target) > 1e-9 || target < 0) {
      return {
        ok: false,
        reason: `replacement line ${k + 1} is indented ${cols(ws)} columns, which falls between the file's levels (${fmt(t)} columns)`,
      };
    }
    let indent = known.get(target);
    if (indent === undefined) {
      if (style === 'tab') {
        if (target % TAB_COLS !== 0)
          return {
            ok: false,
            reason: `replacement line ${k + 1} would need tabs and spaces mixed in a tab-indented file`,
          };
        indent = '\t'.repeat(target / TAB_COLS);
      } else if (style === 'space') {
        indent = ' '.repeat(target);
      } else {
        return {
          ok: false,
          reason: `the matched lines mix tabs and spaces, and replacement line ${k + 1} needs a level none of them has`,
        };
      }
    }
    out.push(indent + line.slice(ws.length));
  }
  return { ok: true, text: out.join('\n') };
}

function fmt(x: number): string {
  return Number.isInteger(x) ? String(x) : x.toFixed(1);
}

/** Smallest common step between the indentation levels of some lines (columns), 0 when flat. */
function indentUnit(lines: string[]): number {
  const levels = new Set<number>();
  for (const l of lines) if (l.trim() !== '') levels.add(cols(leadingWs(l)));
  const sorted = [...levels].sort((x, y) => x - y);
  let g = 0;
  for (let i = 1; i < sorted.length; i++) g = gcd(g, sorted[i]! - sorted[i - 1]!);
  return g;
}

function gcd(x: number, y: number): number {
  while (y) [x, y] = [y, x % y];
  return x;
}

/** `lines`: the lines around the match (400 above, 400 from its start on). */
function fileStyle(lines: string[]): 'tab' | 'space' {
  let tabs = 0;
  let spaces = 0;
  for (const l of lines) {
    const c = l.charCodeAt(0);
    if (c === 9) tabs++;
    else if (c === 32 && l.trim() !== '') spaces++;
  }
  return tabs > spaces ? 'tab' : 'space';
}

/** The file's indentation step in columns near a line (the most common change between neighbouring lines). */
function fileUnit(lines: string[]): number {
  const counts = new Map<number, number>();
  let prev = 0;
  for (const l of lines) {
    if (l.trim() === '') continue;
    const c = cols(leadingWs(l));
    const d = Math.abs(c - prev);
    if (d === 2 || d === 3 || d === 4 || d === 8) counts.set(d, (counts.get(d) ?? 0) + 1);
    prev = c;
  }
  let best = 0;
  let bestCount = 0;
  for (const [d, c] of counts) if (c > bestCount) [best, bestCount] = [d, c];
  return best;
}

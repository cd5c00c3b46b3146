// Bounds on how much markdown one parse sees. marked's cost grows with the size of the block being lexed (and,
// for nested containers, with its depth: see MAX_NESTING in markedSetup.ts), so a message is cut into pieces of
// at most a few KB at line ends, preferring block boundaries, and each piece is parsed on its own. A fenced code
// block cut in two is reopened in the next piece, so code stays code. Pure string work: testable in Node.

/** Longest unfinished tail a streaming render re-parses per delta; beyond it, the front is committed. */
export const TAIL_CHARS = 8 * 1024;
/** The same for a tail that is one fenced code block still open (cheap to parse; kept whole longer). */
export const CODE_TAIL_CHARS = 64 * 1024;
/** Piece size for a one-shot render of a long message. */
export const PIECE_CHARS = 32 * 1024;

const FENCE = /^[ \t]*(?:>[ \t]?)*[ \t]*(`{3,}|~{3,})([^\n]*)$/;
const BLOCK_START = /^(?:[-*+][ \t]|\d{1,9}[.)][ \t]|#{1,6}[ \t]|>|```|~~~)/;

/**
 * Where to cut `src` (longer than `limit`) so the first part is at most `limit` chars and not tiny: after a
 * blank line, else before a line that starts a block, else at any line end, else after a space, else at
 * `limit` (never inside a surrogate pair).
 */
export function cutPoint(src: string, limit: number): number {
  if (src.length <= limit) return src.length;
  const floor = Math.floor(limit / 4);
  // After a blank line: "\n\n" ending at or before the limit.
  const blank = src.lastIndexOf('\n\n', limit - 2);
  if (blank >= floor) return blank + 2;
  let anyLine = -1;
  for (let i = src.lastIndexOf('\n', limit - 1); i >= floor; i = src.lastIndexOf('\n', i - 1)) {
    if (anyLine < 0) anyLine = i + 1;
    if (BLOCK_START.test(src.slice(i + 1, i + 12))) return i + 1;
    if (i === 0) break;
  }
  if (anyLine >= floor) return anyLine;
  const space = src.lastIndexOf(' ', limit - 1);
  if (space >= floor) return space + 1;
  const code = src.charCodeAt(limit - 1);
  return code >= 0xd800 && code <= 0xdbff ? limit - 1 : limit;
}

interface Fence {
  /** The opening line to repeat ("```ts"), without container prefixes. */
  opener: string;
  char: string;
  length: number;
}

/** The fenced code block still open at the end of `text` (given the one open at its start), if any. */
export function openFenceAfter(text: string, open?: Fence): Fence | undefined {
  let fence = open;
  let start = 0;
  while (start <= text.length) {
    let end = text.indexOf('\n', start);
    if (end < 0) end = text.length;
    // Only lines that could be a fence are matched (cheap first-character check keeps this linear).
    const line = text.slice(start, Math.min(end, start + 400));
    if (line.includes('`') || line.includes('~')) {
      const m = FENCE.exec(line);
      if (m) {
        const marker = m[1]!;
        const rest = m[2]!;
        if (!fence) {
          if (!(marker[0] === '`' && rest.includes('`')))
            fence = { opener: marker + rest.trimEnd(), char: marker[0]!, length: marker.length };
        } else if (marker[0] === fence.char && marker.length >= fence.length && rest.trim() === '') {
          fence = undefined;
        }
      }
    }
    start = end + 1;
  }
  return fence;
}

/**
 * Cuts `src` into its first piece (at most `limit` chars) and the rest. When the cut falls inside a fenced code
 * block, the rest starts by reopening it (or, if the rest starts with the closing fence, without that line).
 */
export function takePiece(src: string, limit: number): { piece: string; rest: string } {
  const cut = cutPoint(src, limit);
  const piece = src.slice(0, cut);
  let rest = src.slice(cut);
  const fence = openFenceAfter(piece);
  if (fence) {
    const nl = rest.indexOf('\n');
    const first = nl < 0 ? rest : rest.slice(0, nl);
    const closes = openFenceAfter(first, fence) === undefined;
    if (closes) rest = nl < 0 ? '' : rest.slice(nl + 1);
    else rest = `${fence.opener}\n${rest}`;
  }
  return { piece, rest };
}

/** `src` cut into pieces of at most `limit` chars (a short source is one piece). */
export function splitPieces(src: string, limit = PIECE_CHARS): string[] {
  const pieces: string[] = [];
  let rest = src;
  while (rest.length > limit) {
    const next = takePiece(rest, limit);
    pieces.push(next.piece);
    rest = next.rest;
  }
  if (rest || !pieces.length) pieces.push(rest);
  return pieces;
}

/** How long `tail` (an unfinished tail starting at a block boundary) may grow before its front is committed. */
export function tailLimit(tail: string): number {
  if (tail.length <= TAIL_CHARS) return TAIL_CHARS;
  const nl = tail.indexOf('\n');
  if (nl < 0 || !/^ {0,3}(?:`{3,}|~{3,})/.test(tail)) return TAIL_CHARS;
  const opened = openFenceAfter(tail.slice(0, nl));
  // One code block: open after its first line and still open at the end, with nothing closing it in between.
  if (!opened || openFenceAfter(tail.slice(nl + 1), opened) !== opened) return TAIL_CHARS;
  return CODE_TAIL_CHARS;
}

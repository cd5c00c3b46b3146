// Splits a streamed markdown source into top-level blocks that can no longer change (rendered once, kept) and
// the unfinished tail (re-rendered as text arrives). Pure (marked tokens in, tokens out) so it is testable in Node.
import type { Token, TokensList } from 'marked';

interface BlockSplit {
  /** Completed blocks, in order; their raw text is exactly src.slice(0, length). */
  blocks: Token[];
  length: number;
  /** The rest: the last block still being written (plus any trailing blank lines). */
  tail: Token[];
}

/**
 * `tokens` are marked's top-level tokens for `src`. Every block before the last non-blank one is complete: the
 * lexer only starts a new block once the previous one has ended (lists and quotes excepted, see below). With `final`,
 * everything is complete.
 * A block whose raw text is not a verbatim slice of `src` (marked merges a few constructs) stops the split there,
 * so the offsets stay exact; it is simply re-rendered with the tail.
 */
export function splitCompleted(tokens: TokensList | Token[], src: string, final: boolean): BlockSplit {
  let end = tokens.length;
  if (!final) {
    end--;
    while (end >= 0 && tokens[end]!.type === 'space') end--;
    // A list or quote is not done while the next block is still short: after a blank line "2" may become
    // "2. item" and join the list (same for "-", "*", "+"); a lazy line after a quote may turn into a table
    // inside it once its delimiter row arrives. Once a block after them is complete, they are.
    let prev = end - 1;
    while (prev >= 0 && tokens[prev]!.type === 'space') prev--;
    if (prev >= 0 && (tokens[prev]!.type === 'list' || tokens[prev]!.type === 'blockquote')) end = prev;
    end = Math.max(end, 0);
  }
  let length = 0;
  let i = 0;
  for (; i < end; i++) {
    const raw = tokens[i]!.raw;
    if (!src.startsWith(raw, length)) break;
    length += raw.length;
  }
  return { blocks: tokens.slice(0, i), length, tail: tokens.slice(i) };
}

/**
 * Turns the growing message into \n-normalised increments (marked's lexer turns \r\n and \r into \n, which would
 * shift offsets). A trailing \r is held back until we know whether \n follows it.
 */
export class NormalizedFeed {
  private seen = 0;

  /** The normalised new text since the last call, or undefined when `full` does not continue what was seen. */
  next(full: string, final: boolean): string | undefined {
    if (full.length < this.seen) return undefined;
    let add = full.slice(this.seen);
    if (!final && add.endsWith('\r')) add = add.slice(0, -1);
    this.seen += add.length;
    return add.includes('\r') ? add.replace(/\r\n?/g, '\n') : add;
  }
}

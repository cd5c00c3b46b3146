// The one marked instance (no DOM needed, so Node tests use it too). Raw HTML in the source is shown as text;
// markdown.ts sanitizes whatever it renders.
import { Lexer, Marked, Tokenizer, type Token, type Tokens, type TokensList } from 'marked';

export const escapeHtml = (s: string) =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');

export const marked = new Marked({
  gfm: true,
  breaks: false,
  async: false,
  renderer: {
    // Models write about HTML all the time; show it, never interpret it.
    html({ text }) {
      return escapeHtml(text);
    },
  },
});

/**
 * Deepest nesting of lists and quotes rendered as markdown. marked lexes the content of every nested container
 * again, so a 2,000-level list costs ~depth x size (seconds); below this depth the cost stays ~linear. What is
 * nested deeper is shown verbatim as preformatted text inside the deepest container (escaped, inert).
 */
const MAX_NESTING = 8;
let nesting = 0;

/**
 * The rest of a too-deep container, as a plain code block (the renderer escapes it). Typed as the token the
 * tokenizer slot expects: marked renders by `type`, whatever slot produced the token.
 */
function flattened<T>(src: string): T {
  const code: Tokens.Code = {
    type: 'code',
    raw: src,
    codeBlockStyle: 'indented',
    text: src.replace(/\s+$/, ''),
    escaped: false,
  };
  return code as unknown as T;
}

/** Widest table rendered as a table; a wider one (thousands of `|a` cells) stays a paragraph of text. */
const MAX_TABLE_COLUMNS = 64;

marked.use({
  tokenizer: {
    table(src) {
      const nl = src.indexOf('\n');
      const header = nl < 0 ? src : src.slice(0, nl);
      let pipes = 0;
      for (let i = header.indexOf('|'); i >= 0 && pipes <= MAX_TABLE_COLUMNS + 1; i = header.indexOf('|', i + 1))
        pipes++;
      if (pipes > MAX_TABLE_COLUMNS + 1) return undefined;
      return false; // marked's own table tokenizer
    },
    list(src) {
      if (nesting >= MAX_NESTING) {
        if (!this.rules.block.list.test(src)) return undefined;
        // A list that may not interrupt the paragraph before it is that paragraph's text, as marked decides.
        if (this.lexer.state.lastToken?.type === 'text' && !this.rules.other.listInterruptsParagraph.test(src))
          return undefined;
        return flattened<Tokens.List>(src);
      }
      nesting++;
      try {
        return Tokenizer.prototype.list.call(this, src);
      } finally {
        nesting--;
      }
    },
    blockquote(src) {
      if (nesting >= MAX_NESTING)
        return this.rules.block.blockquote.test(src) ? flattened<Tokens.Blockquote>(src) : undefined;
      nesting++;
      try {
        return Tokenizer.prototype.blockquote.call(this, src);
      } finally {
        nesting--;
      }
    },
  },
});

export type LinkDefs = TokensList['links'];

/**
 * Longest run of text lexed as one inline sequence. marked's emphasis and link rules look ahead for a closer from
 * every opener, so `_a_a_a...` or `[[[[...` cost ~length^2 in one paragraph (16 KB of `_a`: ~270 ms). Longer text
 * is lexed in segments cut at a line end or a space: emphasis or a link spanning a cut in a paragraph this long
 * shows its markers as text.
 */
const INLINE_CHARS = 1024;

class BoundedLexer extends Lexer {
  override inlineTokens(src: string, tokens: Token[] = []): Token[] {
    if (src.length <= INLINE_CHARS) return super.inlineTokens(src, tokens);
    let start = 0;
    while (start < src.length) {
      let end = Math.min(src.length, start + INLINE_CHARS);
      if (end < src.length) {
        const floor = start + (INLINE_CHARS >> 2);
        const nl = src.lastIndexOf('\n', end - 1);
        const sp = src.lastIndexOf(' ', end - 1);
        if (nl >= floor) end = nl + 1;
        else if (sp >= floor) end = sp + 1;
        else if (/[\ud800-\udbff]/.test(src[end - 1]!)) end--;
      }
      super.inlineTokens(src.slice(start, end), tokens);
      start = end;
    }
    return tokens;
  }
}

/**
 * Top-level block tokens of `src` (already \n-normalised), with inline tokens resolved. `links` are reference
 * definitions from earlier, completed parts of the same message (a streamed message is lexed in slices).
 */
export function lexBlocks(src: string, links: LinkDefs): TokensList {
  const lexer = new BoundedLexer(marked.defaults);
  Object.assign(lexer.tokens.links, links);
  return lexer.lex(src);
}

/** Adds the reference definitions of completed blocks (a definition still being typed must not count). */
export function collectLinks(blocks: readonly Token[], links: LinkDefs): void {
  for (const t of blocks) {
    if (t.type === 'def' && !(t.tag in links)) links[t.tag] = { href: t.href, title: t.title };
  }
}

// The one marked instance (no DOM needed, so Node tests use it too). Raw HTML in the source is shown as text;
// markdown.ts sanitizes whatever it renders.
import { Marked, type Token, type TokensList } from 'marked';

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

export type LinkDefs = TokensList['links'];

/**
 * Top-level block tokens of `src` (already \n-normalised), with inline tokens resolved. `links` are reference
 * definitions from earlier, completed parts of the same message (a streamed message is lexed in slices).
 */
export function lexBlocks(src: string, links: LinkDefs): TokensList {
  const lexer = new marked.Lexer(marked.defaults);
  Object.assign(lexer.tokens.links, links);
  return lexer.lex(src);
}

/** Adds the reference definitions of completed blocks (a definition still being typed must not count). */
export function collectLinks(blocks: readonly Token[], links: LinkDefs): void {
  for (const t of blocks) {
    if (t.type === 'def' && !(t.tag in links)) links[t.tag] = { href: t.href, title: t.title };
  }
}

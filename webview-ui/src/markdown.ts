// Markdown -> sanitized DOM. Raw HTML in the source is shown as text (marked's html renderer is overridden),
// and DOMPurify then strips anything active that got through: scripts, handlers, frames, svg, javascript: URLs.
import { highlightCode } from './highlight';
import DOMPurify from 'dompurify';
import type { Token } from 'marked';
import { escapeHtml, lexBlocks, marked } from './markedSetup';
import { PIECE_CHARS, splitPieces } from './mdBounds';

export { collectLinks, lexBlocks, type LinkDefs } from './markedSetup';

const purify = DOMPurify(window);
const SAFE_URL = /^(?:https?:|mailto:)/i;
/** Relative links that look like workspace paths (src/a.ts, ./x, a.ts#L3) open the file in the editor. */
const WORKSPACE_PATH = /^(?![a-z][a-z0-9+.-]*:)(?!\/\/)[\w./@-][^\s]*$/i;

purify.addHook('afterSanitizeAttributes', (node) => {
  if (!(node instanceof Element)) return;
  for (const attr of Array.from(node.attributes)) {
    if (/^on/i.test(attr.name)) node.removeAttribute(attr.name);
  }
  if (node.tagName === 'A') {
    const href = node.getAttribute('href') ?? '';
    node.removeAttribute('target');
    if (SAFE_URL.test(href)) {
      node.setAttribute('rel', 'noopener noreferrer');
    } else {
      node.removeAttribute('href');
      if (href && WORKSPACE_PATH.test(href)) {
        node.setAttribute('data-act', 'open_file');
        node.setAttribute('data-path', href);
        node.setAttribute('role', 'link');
        node.setAttribute('tabindex', '0');
      }
    }
  }
});

const PURIFY_CONFIG = {
  RETURN_DOM_FRAGMENT: true as const,
  FORBID_TAGS: [
    'style',
    'script',
    'img',
    'svg',
    'math',
    'iframe',
    'frame',
    'frameset',
    'object',
    'embed',
    'form',
    'input',
    'button',
    'textarea',
    'select',
    'option',
    'video',
    'audio',
    'source',
    'track',
    'link',
    'meta',
    'base',
    'template',
    'dialog',
    'portal',
  ],
  FORBID_ATTR: ['style', 'srcset', 'formaction', 'action', 'xlink:href', 'id', 'name'],
  ALLOW_DATA_ATTR: false,
};

function sanitizeHtml(html: string): DocumentFragment {
  return purify.sanitize(html, PURIFY_CONFIG);
}

/**
 * One-shot render. A long message is parsed in pieces of at most PIECE_CHARS cut at line ends (a fenced code block
 * cut in two is reopened), so no single parse sees more than that, whatever the model wrote.
 */
export function renderMarkdown(src: string): DocumentFragment {
  if (src.length <= PIECE_CHARS) return finish(parseOrPre(src));
  const out = document.createDocumentFragment();
  for (const piece of splitPieces(src.replace(/\r\n?/g, '\n'), PIECE_CHARS)) out.append(finish(parseOrPre(piece)));
  return out;
}

function parseOrPre(src: string): string {
  try {
    return marked.parser(lexBlocks(src.replace(/\r\n?/g, '\n'), Object.create(null)));
  } catch {
    return `<pre>${escapeHtml(src)}</pre>`;
  }
}

/** Renders already-lexed block tokens: same renderer, sanitizer and code-block decoration as renderMarkdown. */
export function renderTokens(tokens: Token[], fallbackSrc: string): DocumentFragment {
  let html: string;
  try {
    html = marked.parser(tokens);
  } catch {
    html = `<pre>${escapeHtml(fallbackSrc)}</pre>`;
  }
  return finish(html);
}

function finish(html: string): DocumentFragment {
  const frag = sanitizeHtml(html);
  decorateCodeBlocks(frag);
  return frag;
}

/** Wraps each code block with a copy button (built here, after sanitizing). */
function decorateCodeBlocks(frag: DocumentFragment): void {
  for (const pre of Array.from(frag.querySelectorAll('pre'))) {
    const wrap = document.createElement('div');
    wrap.className = 'code-block';
    const lang = /language-([\w+#-]+)/.exec(pre.querySelector('code')?.className ?? '')?.[1];
    const bar = document.createElement('div');
    bar.className = 'code-bar';
    const label = document.createElement('span');
    label.textContent = lang ?? '';
    const copy = document.createElement('button');
    copy.className = 'copy-btn';
    copy.type = 'button';
    copy.setAttribute('data-act', 'copy');
    copy.setAttribute('aria-label', 'Copy code');
    copy.textContent = 'Copy';
    bar.append(label, copy);
    const code = pre.querySelector('code');
    if (code) highlightCode(code);
    pre.replaceWith(wrap);
    wrap.append(bar, pre);
  }
}

export async function copyText(text: string): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    return false;
  }
}

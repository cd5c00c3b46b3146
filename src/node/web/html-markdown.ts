// HTML to readable Markdown with turndown (its own DOM in Node): scripts, styles and other non-text elements dropped.
import TurndownService from 'turndown';

const DROP: TurndownService.TagName[] = [
  'script',
  'style',
  'noscript',
  'iframe',
  'canvas',
  'template',
  'object',
  'embed',
];

let service: TurndownService | undefined;

function turndown(): TurndownService {
  if (service) return service;
  service = new TurndownService({ headingStyle: 'atx', codeBlockStyle: 'fenced', bulletListMarker: '-' });
  service.remove(DROP);
  // svg is not in turndown's tag list: dropped by a rule of its own.
  service.addRule('svg', { filter: (node) => node.nodeName.toLowerCase() === 'svg', replacement: () => '' });
  return service;
}

/** The page's <title>, if any. */
export function htmlTitle(html: string): string | undefined {
  const m = /<title[^>]*>([^<]{1,500})<\/title>/i.exec(html);
  return m?.[1]?.replace(/\s+/g, ' ').trim() || undefined;
}

export function htmlToMarkdown(html: string): string {
  return turndown()
    .turndown(html)
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

// Web search through the provider the user configured (none by default): Brave, Tavily or a SearXNG instance, each
// over its documented HTTP API. The key comes from the surface's secret store, never from settings files.
import { ToolError } from '../../core/tools/types';
import type { SearchHit } from '../../core/tools/builtin/web';
import { errorText } from '../../core/error-text';

export interface SearchProviderConfig {
  kind: 'brave' | 'tavily' | 'searxng';
  /** The endpoint (SearXNG: the instance's URL; others: their public API unless overridden). */
  url?: string;
  apiKey?: string;
  /** For the tool description and the approval: "Brave Search". */
  label: string;
}

const DEFAULT_URLS = {
  brave: 'https://api.search.brave.com/res/v1/web/search',
  tavily: 'https://api.tavily.com/search',
} as const;

interface Raw {
  title?: unknown;
  url?: unknown;
  description?: unknown;
  content?: unknown;
}

function hits(list: unknown, count: number): SearchHit[] {
  if (!Array.isArray(list)) return [];
  return (list as Raw[]).slice(0, count).map((r) => ({
    title: String(r.title ?? ''),
    url: String(r.url ?? ''),
    snippet: String(r.description ?? r.content ?? ''),
  }));
}

export async function searchWith(
  c: SearchProviderConfig,
  query: string,
  count: number,
  signal: AbortSignal,
  timeoutMs: number,
): Promise<SearchHit[]> {
  const timeout = AbortSignal.timeout(timeoutMs);
  const both = AbortSignal.any([signal, timeout]);
  let res: Response;
  try {
    if (c.kind === 'brave') {
      const u = new URL(c.url ?? DEFAULT_URLS.brave);
      u.searchParams.set('q', query);
      u.searchParams.set('count', String(count));
      res = await fetch(u, {
        headers: { accept: 'application/json', 'x-subscription-token': c.apiKey ?? '' },
        signal: both,
      });
    } else if (c.kind === 'tavily') {
      res = await fetch(c.url ?? DEFAULT_URLS.tavily, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${c.apiKey ?? ''}` },
        body: JSON.stringify({ query, max_results: count }),
        signal: both,
      });
    } else {
      if (!c.url) throw new ToolError('The SearXNG search provider needs its URL.');
      const u = new URL('search', c.url.endsWith('/') ? c.url : `${c.url}/`);
      u.searchParams.set('q', query);
      u.searchParams.set('format', 'json');
      res = await fetch(u, { headers: { accept: 'application/json' }, signal: both });
    }
  } catch (err) {
    if (signal.aborted) throw err;
    if (err instanceof ToolError) throw err;
    throw new ToolError(`${c.label} could not be reached: ${errorText(err)}`);
  }
  if (!res.ok) throw new ToolError(`${c.label} answered ${res.status} ${res.statusText}.`);
  const body = (await res.json().catch(() => undefined)) as
    { web?: { results?: unknown }; results?: unknown } | undefined;
  if (!body) throw new ToolError(`${c.label} did not answer with JSON.`);
  return hits(c.kind === 'brave' ? body.web?.results : body.results, count);
}

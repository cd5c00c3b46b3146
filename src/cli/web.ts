// web_fetch and web_search for the `forge` command line. The search provider comes from the environment
// (FORGE_WEB_SEARCH=brave|tavily|searxng:<url>, its key in FORGE_WEB_SEARCH_KEY); none by default. Private,
// loopback and link-local addresses are refused unless FORGE_WEB_ALLOW_PRIVATE=1.
import { createWebTools } from '../core/tools/builtin/web';
import type { Tool } from '../core/tools/types';
import { NodeWebClient } from '../node/web/web-client';
import type { SearchProviderConfig } from '../node/web/web-search';

const LABELS = { brave: 'Brave Search', tavily: 'Tavily', searxng: 'SearXNG' } as const;

/** The provider FORGE_WEB_SEARCH names, or undefined (with why, for a warning). */
export function searchFromEnv(env: NodeJS.ProcessEnv): { config?: SearchProviderConfig; problem?: string } {
  const raw = env.FORGE_WEB_SEARCH?.trim();
  if (!raw) return {};
  const [kind, ...rest] = raw.split(':');
  const url = rest.join(':') || undefined;
  if (kind !== 'brave' && kind !== 'tavily' && kind !== 'searxng')
    return { problem: `FORGE_WEB_SEARCH=${raw}: unknown provider (brave, tavily or searxng:<url>)` };
  if (kind === 'searxng' && !url) return { problem: 'FORGE_WEB_SEARCH=searxng needs the instance URL: searxng:<url>' };
  const key = env.FORGE_WEB_SEARCH_KEY;
  if (kind !== 'searxng' && !key) return { problem: `FORGE_WEB_SEARCH=${kind} needs FORGE_WEB_SEARCH_KEY` };
  return { config: { kind, label: LABELS[kind], ...(url ? { url } : {}), ...(key ? { apiKey: key } : {}) } };
}

export function cliWebTools(env: NodeJS.ProcessEnv, warn: (m: string) => void): Tool[] {
  const search = searchFromEnv(env);
  if (search.problem) warn(search.problem);
  const client = new NodeWebClient({
    allowPrivate: () => env.FORGE_WEB_ALLOW_PRIVATE === '1',
    privateSetting: 'FORGE_WEB_ALLOW_PRIVATE=1',
    search: () => search.config,
  });
  return createWebTools(client);
}

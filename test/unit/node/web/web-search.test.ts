// web_search's providers over their HTTP APIs, against a local server speaking each one's JSON: the query and key
// reach the provider as it documents them, results come back as title / URL / snippet, errors are clear.
import assert from 'node:assert/strict';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { searchWith } from '../../../../src/node/web/web-search';

describe('web: search providers', () => {
  let server: http.Server;
  let base: string;
  const seen: { url: string; headers: http.IncomingHttpHeaders; body: string }[] = [];
  before(async () => {
    server = http.createServer((req, res) => {
      let body = '';
      req.on('data', (d) => (body += d));
      req.on('end', () => {
        seen.push({ url: req.url ?? '', headers: req.headers, body });
        res.setHeader('content-type', 'application/json');
        if (req.url?.startsWith('/brave'))
          return res.end(
            JSON.stringify({ web: { results: [{ title: 'B', url: 'https://b.example', description: 'bd' }] } }),
          );
        if (req.url?.startsWith('/tavily'))
          return res.end(JSON.stringify({ results: [{ title: 'T', url: 'https://t.example', content: 'tc' }] }));
        if (req.url?.startsWith('/searx/search'))
          return res.end(
            JSON.stringify({
              results: [
                { title: 'S', url: 'https://s.example', content: 'sc' },
                { title: 'S2', url: 'u', content: '' },
              ],
            }),
          );
        res.statusCode = 500;
        res.end('{}');
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise((r) => server.close(r)));
  beforeEach(() => (seen.length = 0));
  const signal = () => new AbortController().signal;

  it('Brave: the key in X-Subscription-Token, results from web.results', async () => {
    const hits = await searchWith(
      { kind: 'brave', label: 'Brave', url: `${base}/brave`, apiKey: 'k1' },
      'forge docs',
      5,
      signal(),
      5000,
    );
    assert.deepEqual(hits, [{ title: 'B', url: 'https://b.example', snippet: 'bd' }]);
    assert.equal(seen[0]!.headers['x-subscription-token'], 'k1');
    assert.match(seen[0]!.url, /q=forge\+docs&count=5/);
  });

  it('Tavily: a POST with the query, the key as a bearer token', async () => {
    const hits = await searchWith(
      { kind: 'tavily', label: 'Tavily', url: `${base}/tavily`, apiKey: 'k2' },
      'q',
      3,
      signal(),
      5000,
    );
    assert.equal(hits[0]!.snippet, 'tc');
    assert.equal(seen[0]!.headers.authorization, 'Bearer k2');
    assert.deepEqual(JSON.parse(seen[0]!.body), { query: 'q', max_results: 3 });
  });

  it('SearXNG: /search?format=json on the instance URL, capped at count', async () => {
    const hits = await searchWith({ kind: 'searxng', label: 'SearXNG', url: `${base}/searx` }, 'q', 1, signal(), 5000);
    assert.deepEqual(hits, [{ title: 'S', url: 'https://s.example', snippet: 'sc' }]);
    assert.match(seen[0]!.url, /^\/searx\/search\?q=q&format=json$/);
  });

  it('a provider error is a clear message', async () => {
    await assert.rejects(
      searchWith({ kind: 'searxng', label: 'SearXNG', url: `${base}/nope` }, 'q', 1, signal(), 5000),
      /SearXNG answered 500/,
    );
  });
});

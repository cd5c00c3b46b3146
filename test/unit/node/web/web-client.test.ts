// web_fetch's network side against a local HTTP server: HTML to Markdown, redirects followed by hand and checked at
// each hop (a DNS answer that turns private between hops, a redirect to another host), private and link-local
// addresses refused, a page that never ends cut at the size limit, one that never answers stopped at the time limit.
import assert from 'node:assert/strict';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ToolError } from '../../../../src/core/tools/types';
import { NodeWebClient } from '../../../../src/node/web/web-client';

describe('web: NodeWebClient', function () {
  this.timeout(20_000);
  let server: http.Server;
  let port: number;
  const hits: string[] = [];
  const open = new Set<http.ServerResponse>();

  before(async () => {
    server = http.createServer((req, res) => {
      hits.push(req.url ?? '');
      open.add(res);
      res.on('close', () => open.delete(res));
      if (req.url === '/doc')
        return res
          .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
          .end(
            '<html><head><title>The Doc</title><script>alert(1)</script></head><body><h1>Install</h1><p>Run <code>npm i forge</code>.</p><ul><li>one</li></ul></body></html>',
          );
      if (req.url === '/hop') return res.writeHead(302, { location: '/doc' }).end();
      if (req.url === '/away')
        return res.writeHead(301, { location: 'http://169.254.169.254/latest/meta-data/' }).end();
      if (req.url === '/loop') return res.writeHead(302, { location: '/loop' }).end();
      if (req.url === '/binary') return res.writeHead(200, { 'content-type': 'application/octet-stream' }).end('xx');
      if (req.url === '/endless') {
        res.writeHead(200, { 'content-type': 'text/plain' });
        const chunk = 'all work and no play '.repeat(500);
        const pump = () => {
          while (!res.destroyed && res.write(chunk));
          if (!res.destroyed) res.once('drain', pump);
        };
        return pump();
      }
      if (req.url === '/silent') return; // never answers
      res.writeHead(404).end('no');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as AddressInfo).port;
  });
  after(async () => {
    for (const r of open) r.destroy();
    await new Promise((r) => server.close(r));
  });
  beforeEach(() => (hits.length = 0));

  const signal = () => new AbortController().signal;
  /** "docs.example" resolves to the loopback server, which the test counts as public. */
  const client = (over: ConstructorParameters<typeof NodeWebClient>[0] = {}) =>
    new NodeWebClient({
      resolve: async () => ['127.0.0.1'],
      nonPublic: (ip) => ip !== '127.0.0.1',
      ...over,
    });

  it('reads an HTML page as Markdown, without its scripts', async () => {
    const page = await client().fetch(`http://docs.example:${port}/doc`, signal());
    assert.equal(page.status, 200);
    assert.equal(page.title, 'The Doc');
    assert.match(page.text, /^# Install/m);
    assert.match(page.text, /Run `npm i forge`\./);
    assert.match(page.text, /^- +one/m);
    assert.doesNotMatch(page.text, /alert/);
  });

  it('follows a redirect on the same host, checking the address again at each hop', async () => {
    const page = await client().fetch(`http://docs.example:${port}/hop`, signal());
    assert.equal(page.url, `http://docs.example:${port}/doc`);
    assert.deepEqual(hits, ['/hop', '/doc']);
  });

  it('a host whose DNS answer turns private between hops is refused at that hop (rebinding)', async () => {
    const answers = [['127.0.0.1'], ['10.0.0.7']];
    const c = client({ resolve: async () => answers.shift() ?? ['10.0.0.7'] });
    await assert.rejects(c.fetch(`http://docs.example:${port}/hop`, signal()), (e: Error) => {
      assert.ok(e instanceof ToolError);
      assert.match(e.message, /Refused: docs\.example is a private, loopback or link-local address \(10\.0\.0\.7\)/);
      return true;
    });
    assert.deepEqual(hits, ['/hop']);
  });

  it('a redirect to another host (here the cloud metadata address) stops and names it', async () => {
    await assert.rejects(
      client().fetch(`http://docs.example:${port}/away`, signal()),
      /redirects to http:\/\/169\.254\.169\.254\/latest\/meta-data\/, on another host/,
    );
    await assert.rejects(
      client().fetch('http://169.254.169.254/latest/meta-data/', signal()),
      /Refused: .*169\.254\.169\.254/,
    );
  });

  it('loopback and private addresses are refused by default, allowed only by the setting', async () => {
    const strict = new NodeWebClient({ privateSetting: 'forge.webFetch.allowPrivateAddresses' });
    await assert.rejects(
      strict.fetch(`http://127.0.0.1:${port}/doc`, signal()),
      /Refused: 127\.0\.0\.1 .*forge\.webFetch\.allowPrivateAddresses/,
    );
    await assert.rejects(strict.fetch(`http://[::1]:${port}/doc`, signal()), /Refused/);
    await assert.rejects(strict.fetch(`http://localhost:${port}/doc`, signal()), /Refused/);
    assert.deepEqual(hits, []);
    const open = new NodeWebClient({ allowPrivate: () => true });
    assert.equal((await open.fetch(`http://127.0.0.1:${port}/doc`, signal())).title, 'The Doc');
  });

  it('a page that never ends is cut at the size limit', async () => {
    const t0 = Date.now();
    const page = await client({ maxBytes: 200_000 }).fetch(`http://docs.example:${port}/endless`, signal());
    assert.equal(page.truncated, true);
    assert.equal(Buffer.byteLength(page.text), 200_000);
    assert.ok(Date.now() - t0 < 5000);
  });

  it('a server that never answers is stopped at the time limit', async () => {
    const t0 = Date.now();
    await assert.rejects(
      client({ timeoutMs: 500 }).fetch(`http://docs.example:${port}/silent`, signal()),
      /took longer than 1 s|did not answer in time|took longer than 0 s/,
    );
    assert.ok(Date.now() - t0 < 3000, `took ${Date.now() - t0} ms`);
  });

  it('redirect loops, binary content and non-http schemes are clear errors', async () => {
    await assert.rejects(client().fetch(`http://docs.example:${port}/loop`, signal()), /redirects more than 5 times/);
    await assert.rejects(
      client().fetch(`http://docs.example:${port}/binary`, signal()),
      /application\/octet-stream, not a text page/,
    );
    await assert.rejects(client().fetch('file:///etc/passwd', signal()), /http and https URLs only/);
  });
});

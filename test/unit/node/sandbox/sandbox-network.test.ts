// The network allow list for sandboxed commands: the pattern rules, the proxy on its UNIX socket, and, for real on
// Linux, commands under bubblewrap with their own empty network namespace reaching the proxy through the bridge.
// Nothing here leaves this machine: the "hosts" are local servers on 127.0.0.1 named through the proxy's resolver.
import { strict as assert } from 'node:assert';
import { execFile, execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import * as http from 'node:http';
import * as net from 'node:net';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import * as tls from 'node:tls';
import { findOnPath } from '../../../../src/node/sandbox/find-on-path';
import {
  BRIDGE_FAILED_EXIT,
  bridgeArgv,
  proxyEnv,
  wrapCommand,
  writeBridgeScript,
} from '../../../../src/node/sandbox/net-bridge';
import {
  clientHelloServerName,
  compileAllowList,
  decide,
  expandAllowList,
  isNonPublic,
  matchRule,
  NETWORK_PRESETS,
  normalizeIp,
  registryHosts,
  startAllowlistProxy,
  type AllowlistProxy,
} from '../../../../src/node/sandbox/network-proxy';
import { bwrapArgs, type SandboxProfile } from '../../../../src/node/sandbox/profile';

describe('network allow list: patterns', () => {
  it('exact names, *.suffix for subdomains only, ports 80/443 unless given, IPs only when listed', () => {
    const l = compileAllowList([
      'registry.example-npm.org',
      '*.pypi.org',
      'git.example.com:8443',
      'any.example.com:*',
      '10.1.2.3',
      '192.168.0.0/16:5432',
      '[::1]:8080',
      'LocalHost',
    ]);
    assert.deepEqual(l.errors, []);
    const ok = (h: string, p: number) => !!matchRule(l, h, p);
    assert.ok(ok('registry.example-npm.org', 443) && ok('registry.example-npm.org', 80));
    assert.ok(!ok('registry.example-npm.org', 22), 'other ports need host:port');
    assert.ok(!ok('evil-registry.example-npm.org', 443) && !ok('registry.example-npm.org.evil.com', 443));
    assert.ok(ok('files.pypi.org', 443) && ok('a.b.pypi.org', 443));
    assert.ok(!ok('pypi.org', 443), '*.pypi.org is subdomains only');
    assert.ok(!ok('evilpypi.org', 443));
    assert.ok(ok('git.example.com', 8443) && !ok('git.example.com', 443));
    assert.ok(ok('any.example.com', 5) && ok('any.example.com', 65535));
    assert.ok(ok('10.1.2.3', 443) && !ok('10.1.2.4', 443));
    assert.ok(ok('192.168.7.7', 5432) && !ok('192.168.7.7', 443));
    assert.ok(ok('::1', 8080) && ok('localhost', 80));
    assert.ok(!ok('127.0.0.1', 80), 'localhost as a name does not list 127.0.0.1 as an IP');
  });

  it('refuses patterns that are too broad or malformed, and expands presets', () => {
    const l = compileAllowList([
      '*',
      '*.com',
      'a.*.com',
      'host:99999',
      'host:x',
      'name.org/8',
      'bad host',
      '10.0.0.0/33',
    ]);
    assert.equal(l.rules.length, 0);
    assert.equal(l.errors.length, 8, l.errors.join('\n'));
    const e = expandAllowList(['preset:package-registries', 'example.org', 'preset:nope'], {
      npm: registryHosts(['https://npm-mirror.example.net/', 'http://scoped.example.net:4873/x']),
    });
    for (const h of [
      'npm-mirror.example.net',
      'scoped.example.net:4873',
      'pypi.org',
      'files.pythonhosted.org',
      'crates.io',
      'static.crates.io',
      'index.crates.io',
      'proxy.golang.org',
      'sum.golang.org',
      'rubygems.org',
      'repo.maven.apache.org',
      'api.nuget.org',
      'example.org',
    ])
      assert.ok(e.patterns.includes(h), h);
    assert.ok(!e.patterns.includes('github.com'), 'GitHub is its own preset');
    assert.ok(NETWORK_PRESETS.github!.includes('codeload.github.com'));
    assert.match(e.errors[0]!, /preset:nope: unknown preset/);
  });

  it('IP forms: mapped IPv6 is IPv4, private/loopback/link-local/CGNAT/NAT64 are not public, numeric names are not names', async () => {
    assert.equal(normalizeIp('::ffff:127.0.0.1'), '127.0.0.1');
    assert.equal(normalizeIp('::ffff:7f00:1'), '127.0.0.1');
    assert.equal(normalizeIp('[::1]'), '::1');
    for (const a of [
      '127.0.0.1',
      '10.0.0.1',
      '172.16.3.4',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '::1',
      '::',
      'fe80::1',
      'fd00::1',
      '::ffff:10.0.0.1',
      '64:ff9b::a00:1',
      '224.0.0.1',
    ])
      assert.ok(isNonPublic(a), a);
    for (const a of ['93.184.216.34', '2606:4700::1111', '8.8.8.8']) assert.ok(!isNonPublic(a), a);
    const l = compileAllowList(['*.example.com']);
    const never = async () => {
      throw new Error('must not resolve');
    };
    for (const h of ['2130706433', '0x7f000001', '127.1', 'a.0x7f']) {
      const d = await decide(l, h, 80, never);
      assert.equal(d.ok, false, h);
    }
  });

  it('DNS rebinding: an allowed name that resolves to a private address is refused unless that address is listed', async () => {
    const r = (ips: string[]) => async () => ips;
    const l = compileAllowList(['pkg.example.com', 'intranet.example.com', '10.9.9.9', 'localhost']);
    assert.equal((await decide(l, 'pkg.example.com', 443, r(['93.184.216.34']))).ok, true);
    const bad = await decide(l, 'pkg.example.com', 443, r(['127.0.0.1']));
    assert.ok(!bad.ok && /private or local address/.test(bad.reason));
    const mixed = await decide(l, 'pkg.example.com', 443, r(['169.254.169.254', '93.184.216.34']));
    assert.ok(mixed.ok && mixed.addresses.join() === '93.184.216.34', 'only the public address is used');
    assert.equal((await decide(l, 'intranet.example.com', 443, r(['10.9.9.9']))).ok, true);
    assert.equal((await decide(l, 'intranet.example.com', 443, r(['10.9.9.8']))).ok, false);
    const local = await decide(l, 'localhost', 80, r(['127.0.0.1', '::1']));
    assert.ok(local.ok && local.addresses[0] === '127.0.0.1');
    assert.equal((await decide(l, 'localhost', 80, r(['10.0.0.1']))).ok, false, 'localhost means loopback only');
  });

  it('reads the server name of a real TLS ClientHello', async () => {
    const hello = await captureClientHello('Pkg.Example.com');
    assert.deepEqual(clientHelloServerName(hello), { sni: 'Pkg.Example.com' });
    assert.deepEqual(clientHelloServerName(hello.subarray(0, 50)), { need: true });
    assert.deepEqual(clientHelloServerName(Buffer.from('GET / HTTP/1.1\r\n')), { sni: null });
    // The handshake announced longer than its record: refused by the proxy rather than guessed.
    const split = Buffer.from(hello);
    split.writeUInt16BE(60, 3);
    assert.deepEqual(clientHelloServerName(split.subarray(0, 65)), { split: true });
  });

  it('proxy variables and the wrapper', () => {
    const env = proxyEnv(4000);
    for (const k of [
      'HTTP_PROXY',
      'HTTPS_PROXY',
      'http_proxy',
      'https_proxy',
      'npm_config_proxy',
      'npm_config_https_proxy',
    ])
      assert.equal(env[k], 'http://127.0.0.1:4000', k);
    assert.equal(env.ALL_PROXY, undefined);
    assert.match(env.NO_PROXY!, /localhost/);
    const w = wrapCommand(`echo 'it''s' "$HOME"`, {
      socketPath: '/s/p.sock',
      scriptPath: '/s/b.js',
      nodePath: '/opt/VS Code/code',
      port: 4000,
    });
    assert.match(w, /ELECTRON_RUN_AS_NODE=1 NODE_OPTIONS= '\/opt\/VS Code\/code' \/s\/b\.js \/s\/p\.sock 4000/);
    assert.match(w, /exec \/bin\/sh -c 'echo '\\''it'\\'''\\''s'\\'' "\$HOME"'$/);
    const a = bridgeArgv('make test', { socketPath: '/s/p.sock', scriptPath: '/s/b.js', nodePath: '/n' });
    assert.deepEqual([a[0], a[1], a[3], a[4]], ['/bin/sh', '-c', 'sh', 'make test']);
  });
});

describe('network allow list: the proxy', function () {
  this.timeout(20_000);
  let dir: string;
  let allowed: http.Server;
  let other: http.Server;
  let portA: number;
  let portB: number;
  let proxy: AllowlistProxy;
  const seen: string[] = [];
  const raw: Buffer[] = [];
  let rawServer: net.Server;
  let portR: number;

  before(async () => {
    dir = realpathSync(mkdtempSync(path.join(tmpdir(), 'forge-net-')));
    allowed = http.createServer((q, s) => {
      seen.push(`${q.method} ${q.url} host=${q.headers.host} proxy-auth=${q.headers['proxy-authorization'] ?? ''}`);
      s.end(`hello-allowed ${q.url}`);
    });
    other = http.createServer((_q, s) => s.end('hunter2-denied-server'));
    rawServer = net.createServer((c) => {
      c.once('data', (d) => {
        raw.push(d);
        c.end();
      });
    });
    portA = await listen(allowed);
    portB = await listen(other);
    portR = await listen(rawServer);
    const names: Record<string, string> = {
      'allowed.test': '127.0.0.1',
      'denied.test': '127.0.0.1',
      'rebind.test': '127.0.0.1',
      'tls.test': '127.0.0.1',
    };
    proxy = await startAllowlistProxy({
      allowedHosts: [
        `allowed.test:${portA}`,
        `127.0.0.1:${portA}`,
        `rebind.test:${portB}`,
        `tls.test:${portR}`,
        `127.0.0.1:${portR}`,
        'bad pattern',
      ],
      socketPath: path.join(dir, 'net', 'proxy.sock'),
      resolve: async (h) => {
        const ip = names[h];
        if (!ip) throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
        return ip;
      },
    });
  });
  after(async () => {
    await proxy?.close();
    allowed?.close();
    other?.close();
    rawServer?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const viaProxy = (url: string, headers: Record<string, string> = {}) =>
    new Promise<{ status: number; body: string; phrase: string }>((resolve, reject) => {
      const q = http.request(
        { socketPath: proxy.socketPath, path: url, headers: { host: new URL(url).host, ...headers } },
        (r) => {
          let body = '';
          r.on('data', (d) => (body += d));
          r.on('end', () => resolve({ status: r.statusCode!, body, phrase: r.statusMessage ?? '' }));
        },
      );
      q.on('error', reject);
      q.end();
    });

  it('forwards plain HTTP to an allowed host, without proxy credentials', async () => {
    const r = await viaProxy(`http://allowed.test:${portA}/x?y=1`, { 'proxy-authorization': 'Basic hunter2' });
    assert.equal(r.status, 200);
    assert.equal(r.body, 'hello-allowed /x?y=1');
    assert.equal(seen.at(-1), `GET /x?y=1 host=allowed.test:${portA} proxy-auth=`);
    assert.deepEqual(proxy.errors.length, 1);
  });

  it('refuses a host not on the list, an unlisted IP, a private address behind an allowed name, a wrong port; records them', async () => {
    proxy.takeDenied();
    const d = await viaProxy(`http://denied.test:${portB}/`);
    assert.equal(d.status, 403);
    assert.equal(d.phrase, 'Blocked by Forge network allow list');
    assert.match(
      d.body,
      new RegExp(`blocked by Forge's network allow list: denied\\.test \\(not on the allow list\\)`),
    );
    assert.doesNotMatch(d.body, /hunter2/);
    assert.match((await viaProxy(`http://127.0.0.1:${portB}/`)).body, /IP addresses are reached only when listed/);
    assert.match((await viaProxy(`http://rebind.test:${portB}/`)).body, /private or local address \(127\.0\.0\.1\)/);
    assert.match((await viaProxy(`http://allowed.test:${portB}/`)).body, new RegExp(`port ${portB} is not allowed`));
    assert.match((await viaProxy('ftp://allowed.test/')).body, /only http:\/\//);
    assert.deepEqual(proxy.denied, [
      `denied.test:${portB}`,
      `127.0.0.1:${portB}`,
      `rebind.test:${portB}`,
      `allowed.test:${portB}`,
    ]);
    assert.equal(proxy.takeDenied().length, 4);
    assert.equal(proxy.denied.length, 0);
  });

  it('CONNECT: 403 for a denied host, a tunnel for an allowed one; a TLS server name other than the tunnel host is cut', async () => {
    const denied = await connectVia(proxy.socketPath, `denied.test:443`);
    assert.match(denied.head, /^HTTP\/1\.1 403 Blocked by Forge network allow list/);
    assert.match(denied.head, /blocked by Forge's network allow list: denied\.test/);
    denied.sock.destroy();

    const ok = await connectVia(proxy.socketPath, `allowed.test:${portA}`);
    assert.match(ok.head, /^HTTP\/1\.1 200/);
    ok.sock.write(`GET /tunnel HTTP/1.1\r\nHost: allowed.test\r\nConnection: close\r\n\r\n`);
    assert.match(await readAll(ok.sock), /hello-allowed \/tunnel/);

    // Matching server name: the ClientHello reaches the upstream.
    raw.length = 0;
    const t = await connectVia(proxy.socketPath, `tls.test:${portR}`);
    const good = tls.connect({ socket: t.sock, servername: 'tls.test', rejectUnauthorized: false });
    good.on('error', () => undefined);
    await waitFor(() => raw.length > 0);
    assert.equal(raw[0]![0], 0x16);
    good.destroy();

    // Fronting: tunnel opened for tls.test, TLS asks for another name -> closed before a byte goes upstream.
    raw.length = 0;
    proxy.takeDenied();
    const f = await connectVia(proxy.socketPath, `tls.test:${portR}`);
    const front = tls.connect({ socket: f.sock, servername: 'evil.example', rejectUnauthorized: false });
    const err = await new Promise<Error>((res) => front.on('error', res));
    assert.ok(err);
    assert.equal(raw.length, 0);
    assert.deepEqual(proxy.denied, [`evil.example:${portR}`]);
  });

  it('survives garbage and limits connections', async () => {
    const s = net.connect(proxy.socketPath);
    s.write('\x00\x01garbage\r\n\r\n');
    await readAll(s);
    const limited = await startAllowlistProxy({
      allowedHosts: [`allowed.test:${portR}`, `127.0.0.1:${portR}`],
      socketPath: path.join(dir, 'lim', 'p.sock'),
      maxConnections: 1,
      resolve: async () => '127.0.0.1',
    });
    try {
      const hold = net.createServer(() => undefined);
      const portH = await listen(hold);
      const l2 = await startAllowlistProxy({
        allowedHosts: [`h.test:${portH}`, `127.0.0.1:${portH}`],
        socketPath: path.join(dir, 'lim', 'q.sock'),
        maxConnections: 1,
        resolve: async () => '127.0.0.1',
      });
      const first = await connectVia(l2.socketPath, `h.test:${portH}`);
      assert.match(first.head, /^HTTP\/1\.1 200/);
      const second = await connectVia(l2.socketPath, `h.test:${portH}`);
      assert.match(second.head, /^HTTP\/1\.1 503/);
      await l2.close();
      await readAll(first.sock); // close() ends open tunnels
      hold.close();
      assert.equal((await viaProxy(`http://allowed.test:${portA}/still`)).status, 200, 'the first proxy still answers');
    } finally {
      await limited.close();
    }
  });
});

describe('network allow list: sandboxed commands under bubblewrap, for real', function () {
  this.timeout(60_000);
  let dir: string;
  let ws: string;
  let netDir: string;
  let script: string;
  let bwrap: string;
  let allowed: http.Server;
  let other: http.Server;
  let portA: number;
  let portB: number;
  let proxy: AllowlistProxy;
  let features = { userns: true };

  before(async function () {
    if (process.platform !== 'linux') this.skip();
    const b = findOnPath('bwrap');
    assert.ok(b, 'bubblewrap must be installed for these tests (node scripts/ensure-tools.mjs)');
    bwrap = b!;
    assert.ok(findOnPath('curl'), 'curl is needed for these tests');
    dir = realpathSync(mkdtempSync(path.join(tmpdir(), 'forge-netsbx-')));
    ws = path.join(dir, 'ws');
    netDir = path.join(dir, 'net', 'cmd-1');
    mkdirSync(ws, { recursive: true });
    mkdirSync(path.join(dir, 'tmp'), { recursive: true });
    allowed = http.createServer((q, s) => s.end(`hello-allowed ${q.url}`));
    other = http.createServer((_q, s) => s.end('hunter2-denied-server'));
    portA = await listen(allowed);
    portB = await listen(other);
    proxy = await startAllowlistProxy({
      allowedHosts: [`allowed.test:${portA}`, `127.0.0.1:${portA}`],
      socketPath: path.join(netDir, 'proxy.sock'),
      resolve: async (h) =>
        h.endsWith('.test') ? '127.0.0.1' : Promise.reject(Object.assign(new Error('nx'), { code: 'ENOTFOUND' })),
    });
    script = await writeBridgeScript(path.join(dir, 'net', 'bin'));
    // userns as CommandSandbox's probe would find it.
    try {
      execFileSync(bwrap, [...args(), '/bin/true']);
    } catch {
      features = { userns: false };
    }
  });
  after(async () => {
    await proxy?.close();
    allowed?.close();
    other?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /**
   * The sandbox as CommandSandbox builds it (network off: its own namespace), plus what the integration adds:
   * the folder holding every command's proxy is hidden, and only this command's proxy folder and the forwarder
   * script are bound back, read-only.
   */
  function args(): string[] {
    const profile: SandboxProfile = {
      writable: [ws],
      tmpDir: path.join(dir, 'tmp'),
      masked: [],
      network: 'off',
      env: { PATH: '/usr/bin:/bin', HOME: ws },
      cwd: ws,
    };
    const a = bwrapArgs(profile, features);
    const extra = [
      '--tmpfs',
      path.join(dir, 'net'),
      '--ro-bind',
      netDir,
      netDir,
      '--ro-bind',
      path.dirname(script),
      path.dirname(script),
    ];
    return [...a.slice(0, -1), ...extra, '--'];
  }
  const bridge = () => ({ socketPath: proxy.socketPath, scriptPath: script, nodePath: process.execPath });
  const sandboxed = (argv: string[]) =>
    new Promise<{ code: number; out: string; ms: number }>((resolve) => {
      const t0 = performance.now();
      execFile(
        bwrap,
        [...args(), ...argv],
        { env: { PATH: '/usr/bin:/bin' }, timeout: 20_000 },
        (err, stdout, stderr) => {
          resolve({
            code: err ? ((err as { code?: number }).code ?? 1) : 0,
            out: String(stdout) + String(stderr),
            ms: performance.now() - t0,
          });
        },
      );
    });
  const run = (command: string) => sandboxed(['/bin/sh', '-c', wrapCommand(command, bridge())]);

  it('the allowed host answers, the denied one gets the 403 text, a direct connection fails, the proxy reports the denied host', async () => {
    proxy.takeDenied();
    const r = await run(
      `echo "proxy=$HTTP_PROXY"; curl -sS http://allowed.test:${portA}/in; echo; curl -sS http://denied.test:${portB}/; ` +
        `curl -sS --noproxy '*' --max-time 3 http://127.0.0.1:${portA}/direct || echo DIRECT-FAILED; ` +
        `curl -sS https://denied.test/ || echo TUNNEL-REFUSED`,
    );
    assert.equal(r.code, 0, r.out);
    assert.match(r.out, /proxy=http:\/\/127\.0\.0\.1:\d+/);
    assert.match(r.out, /hello-allowed \/in/);
    assert.match(r.out, /blocked by Forge's network allow list: denied\.test/);
    assert.doesNotMatch(r.out, /hunter2/);
    assert.doesNotMatch(r.out, /hello-allowed \/direct/);
    assert.match(r.out, /DIRECT-FAILED/);
    assert.match(r.out, /CONNECT tunnel failed, response 403/);
    assert.match(r.out, /TUNNEL-REFUSED/);
    assert.deepEqual(proxy.denied, [`denied.test:${portB}`, 'denied.test']);
  });

  it('argv form (command as "$1"), exit status and quoting preserved, the forwarder dies with the command', async () => {
    const r = await sandboxed(
      bridgeArgv(
        `curl -sS "http://allowed.test:${portA}/a'b"; echo; for p in /proc/[0-9]*; do tr '\\0' ' ' < $p/cmdline; echo; done | grep -c '^[^ ]*node [^ ]*[f]orge-net-bridge'; exit 7`,
        bridge(),
      ),
    );
    assert.equal(r.code, 7, r.out);
    assert.match(r.out, /hello-allowed \/a'b\n1\n/, r.out);
    const name = path.basename(script);
    const left = execFileSync('sh', ['-c', `pgrep -af '[${name[0]}]${name.slice(1)}' || true`])
      .toString()
      .trim();
    assert.equal(left, '', `left behind: ${left}`);
  });

  it('without the proxy the forwarder answers 502; without Node the command does not run', async () => {
    const gone = await sandboxed([
      '/bin/sh',
      '-c',
      wrapCommand(`curl -sS http://allowed.test:${portA}/`, {
        ...bridge(),
        socketPath: path.join(netDir, 'nothing.sock'),
      }),
    ]);
    assert.match(gone.out, /Forge's network proxy is not running/);
    const noNode = await sandboxed([
      '/bin/sh',
      '-c',
      wrapCommand('echo SHOULD-NOT-RUN', { ...bridge(), nodePath: '/nonexistent/node' }),
    ]);
    assert.equal(noNode.code, BRIDGE_FAILED_EXIT);
    assert.doesNotMatch(noNode.out, /SHOULD-NOT-RUN/);
    assert.match(noNode.out, /network proxy could not start/);
  });

  it('start-up cost per command (reported, loosely bounded)', async () => {
    const n = 7;
    const plain: number[] = [];
    const wrapped: number[] = [];
    for (let i = 0; i < n; i++) {
      plain.push((await sandboxed(['/bin/sh', '-c', 'true'])).ms);
      wrapped.push((await run('true')).ms);
    }
    const med = (a: number[]) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)]!;
    const extra = med(wrapped) - med(plain);
    console.log(
      `      bwrap + sh: ${med(plain).toFixed(0)} ms median; with the network bridge: ${med(wrapped).toFixed(0)} ms (+${extra.toFixed(0)} ms, node ${process.version})`,
    );
    assert.ok(extra < 1500, `bridge start-up ${extra} ms`);
  });
});

function listen(s: net.Server): Promise<number> {
  return new Promise((r) => s.listen(0, '127.0.0.1', () => r((s.address() as net.AddressInfo).port)));
}

function readAll(s: net.Socket): Promise<string> {
  return new Promise((r) => {
    let out = '';
    // Already closed (the proxy may end it before the caller gets here): 'close' will not fire again.
    if (s.destroyed) return r(out);
    s.on('data', (d) => (out += d));
    s.on('error', () => undefined);
    s.on('close', () => r(out));
  });
}

async function waitFor(f: () => boolean, ms = 3000): Promise<void> {
  const t0 = Date.now();
  while (!f()) {
    if (Date.now() - t0 > ms) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** CONNECT through the proxy's socket; resolves with the response head (and body, on refusal) and the socket. */
function connectVia(socketPath: string, target: string): Promise<{ head: string; sock: net.Socket }> {
  return new Promise((resolve, reject) => {
    const sock = net.connect(socketPath);
    let buf = '';
    const onData = (d: Buffer) => {
      buf += d.toString('latin1');
      const end = buf.indexOf('\r\n\r\n');
      if (end < 0) return;
      if (/^HTTP\/1\.1 200/.test(buf)) {
        sock.removeListener('data', onData);
        resolve({ head: buf.slice(0, end), sock });
      }
    };
    sock.on('data', onData);
    sock.on('end', () => resolve({ head: buf, sock }));
    sock.on('error', reject);
    sock.write(`CONNECT ${target} HTTP/1.1\r\nHost: ${target}\r\n\r\n`);
  });
}

/** The first bytes a TLS client sends for `servername`. */
function captureClientHello(servername: string): Promise<Buffer> {
  return new Promise((resolve) => {
    const server = net.createServer((c) => {
      c.once('data', (d) => {
        resolve(d);
        c.destroy();
        server.close();
      });
    });
    server.listen(0, '127.0.0.1', () => {
      const t = tls.connect({
        host: '127.0.0.1',
        port: (server.address() as net.AddressInfo).port,
        servername,
        rejectUnauthorized: false,
      });
      t.on('error', () => undefined);
    });
  });
}

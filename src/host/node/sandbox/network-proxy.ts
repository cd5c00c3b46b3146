// The network allow list for sandboxed commands. The sandbox keeps its own empty network namespace (only
// loopback); a forwarder inside it (net-bridge.ts) hands every connection to this proxy, which listens on a UNIX
// socket in the extension host. The proxy speaks HTTP proxy: CONNECT host:port for TLS tunnels and absolute-URI
// requests for plain HTTP. It lets through only hosts on the allow list, resolves names itself and connects to
// the address it checked (no second lookup a rebinding DNS server could answer differently), never reaches a
// private, loopback or link-local address unless the user listed that address, and checks a tunnel's TLS server
// name against the host the tunnel was opened for (no SNI domain fronting on a shared CDN address).
import { promises as dns } from 'node:dns';
import { promises as fsp } from 'node:fs';
import * as http from 'node:http';
import * as net from 'node:net';
import * as path from 'node:path';

/**
 * Named groups of hosts. `package-registries` is the registries of the common package managers, and only them:
 * enough for `npm/pnpm/yarn install`, `pip install`, `cargo fetch`, `go mod download`, `bundle install`,
 * Maven/Gradle dependency resolution and `dotnet restore`. npm's registry is not written here: it is the one the
 * user's own npm is configured with (npmRegistryHosts), so a company mirror works as it is.
 *
 * GitHub is a separate preset, not part of `package-registries`: github.com is a general code host, not a
 * registry, so allowing it allows fetching anything anyone pushed (and talking to its API). It is what git
 * dependencies (npm `github:` specs, `pip install git+https://...`, cargo git deps, Go modules outside the proxy)
 * and install scripts that download prebuilt binaries from GitHub releases need; users who need that add
 * `preset:github` knowingly.
 */
const ECOSYSTEMS: Record<string, string[]> = {
  pypi: ['pypi.org', 'files.pythonhosted.org'],
  crates: ['crates.io', 'index.crates.io', 'static.crates.io'],
  go: ['proxy.golang.org', 'sum.golang.org'],
  rubygems: ['rubygems.org', 'index.rubygems.org'],
  maven: ['repo.maven.apache.org', 'repo1.maven.org', 'plugins.gradle.org', 'plugins-artifacts.gradle.org'],
  nuget: ['api.nuget.org'],
};

export const NETWORK_PRESETS: Readonly<Record<string, readonly string[]>> = {
  'package-registries': Object.values(ECOSYSTEMS).flat(),
  ...ECOSYSTEMS,
  github: ['github.com', 'codeload.github.com', 'objects.githubusercontent.com', 'release-assets.githubusercontent.com'],
};

/** Presets whose hosts come from the user's configuration (npm's registry), added to the fixed ones. */
export interface DynamicPresets {
  npm?: readonly string[];
}

/** Replaces `preset:<name>` entries of a setting by the preset's hosts (unknown presets are reported). */
export function expandAllowList(entries: readonly string[], dynamic: DynamicPresets = {}): { patterns: string[]; errors: string[] } {
  const npm = [...(dynamic.npm ?? [])];
  const presets: Record<string, readonly string[]> = {
    ...NETWORK_PRESETS,
    'package-registries': [...NETWORK_PRESETS['package-registries']!, ...npm],
    npm,
  };
  const patterns: string[] = [];
  const errors: string[] = [];
  for (const e of entries) {
    const t = e.trim();
    if (!t) continue;
    const m = /^preset:(.+)$/i.exec(t);
    const name = m?.[1]!.toLowerCase();
    if (!m) patterns.push(t);
    else if (name && presets[name]) patterns.push(...presets[name]!);
    else errors.push(`${t}: unknown preset (known: ${Object.keys(presets).map((k) => `preset:${k}`).join(', ')})`);
  }
  return { patterns: [...new Set(patterns)], errors };
}

/** The hosts of registry URLs (`https://host/path` -> `host`, `host:port` when not 80/443). */
export function registryHosts(urls: readonly string[]): string[] {
  const out = new Set<string>();
  for (const u of urls) {
    try {
      const url = new URL(u.trim());
      if (url.protocol !== 'https:' && url.protocol !== 'http:') continue;
      out.add(url.port && url.port !== '443' && url.port !== '80' ? `${url.hostname}:${url.port}` : url.hostname);
    } catch {
      /* not a URL */
    }
  }
  return [...out];
}

// ---------------------------------------------------------------------------------------------------------------
// Patterns

type Ports = 'default' | 'any' | number;

export interface AllowRule {
  /** `host`: exact name; `suffix`: `*.example.com` (subdomains only, not example.com itself); `ip`: an address or CIDR block. */
  kind: 'host' | 'suffix' | 'ip';
  /** Lower-case name, suffix without `*.`, or address. */
  value: string;
  ports: Ports;
  /** For `ip`: the addresses this rule covers. */
  block?: net.BlockList;
  raw: string;
}

export interface AllowList {
  rules: AllowRule[];
  /** Patterns that were refused, with why. */
  errors: string[];
}

const DEFAULT_PORTS = [80, 443];
const LABEL = /^[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?$/;

/** A valid DNS name (lower case, no trailing dot) whose last label is not numeric, or undefined. */
export function normalizeHostname(host: string): string | undefined {
  const h = host.trim().toLowerCase().replace(/\.$/, '');
  if (!h || h.length > 253) return undefined;
  const labels = h.split('.');
  if (!labels.every((l) => LABEL.test(l))) return undefined;
  // "127.1", "0x7f000001", "2130706433": not IP literals to net.isIP, but getaddrinfo reads them as addresses.
  if (/^(0x[0-9a-f]*|[0-9]+)$/.test(labels[labels.length - 1]!)) return undefined;
  return h;
}

/** An IP literal without brackets, IPv4-mapped IPv6 as IPv4; undefined when `s` is not an address. */
export function normalizeIp(s: string): string | undefined {
  const t = s.startsWith('[') && s.endsWith(']') ? s.slice(1, -1) : s;
  const v = net.isIP(t);
  if (!v) return undefined;
  if (v === 6) {
    const mapped = /^(?:::|(?:0{1,4}:){5})ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(t);
    if (mapped && net.isIPv4(mapped[1]!)) return mapped[1];
    const hex = /^(?:::|(?:0{1,4}:){5})ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(t);
    if (hex) {
      const a = parseInt(hex[1]!, 16), b = parseInt(hex[2]!, 16);
      return `${a >> 8}.${a & 255}.${b >> 8}.${b & 255}`;
    }
    return t.toLowerCase();
  }
  return t;
}

function parsePorts(s: string | undefined): Ports | undefined {
  if (s === undefined) return 'default';
  if (s === '*') return 'any';
  if (!/^[0-9]{1,5}$/.test(s)) return undefined;
  const n = Number(s);
  return n >= 1 && n <= 65535 ? n : undefined;
}

/**
 * Compiles host patterns: `registry.example.org`, `*.pypi.org` (subdomains), `localhost`, `10.0.0.5`, `10.0.0.0/8`,
 * `[::1]`, `[fd00::]/8`, each with an optional `:port` (`:*` for any port; without one, ports 80 and 443).
 * A bare `*` is refused: that is the network setting "on", not an allow list.
 */
export function compileAllowList(patterns: readonly string[]): AllowList {
  const rules: AllowRule[] = [];
  const errors: string[] = [];
  for (const raw of patterns) {
    const t = raw.trim();
    if (!t) continue;
    const r = parsePattern(t);
    if (typeof r === 'string') errors.push(`${t}: ${r}`);
    else rules.push(r);
  }
  return { rules, errors };
}

function parsePattern(t: string): AllowRule | string {
  let host: string;
  let portStr: string | undefined;
  let prefix: string | undefined;
  if (t.startsWith('[')) {
    const m = /^\[([^\]]+)\](?:\/(\d{1,3}))?(?::([^:]+))?$/.exec(t);
    if (!m) return 'not a valid [IPv6] pattern';
    [, host, prefix, portStr] = m as unknown as [string, string, string | undefined, string | undefined];
  } else if ((t.match(/:/g) ?? []).length > 1) {
    const m = /^([0-9a-fA-F:.]+)(?:\/(\d{1,3}))?$/.exec(t); // bare IPv6, no port (write [addr]:port for one)
    if (!m) return 'not a valid IPv6 pattern';
    [, host, prefix] = m as unknown as [string, string, string | undefined];
  } else {
    const m = /^([^:/]+)(?:\/(\d{1,2}))?(?::([^:]+))?$/.exec(t);
    if (!m) return 'not a valid host pattern';
    [, host, prefix, portStr] = m as unknown as [string, string, string | undefined, string | undefined];
  }
  const ports = parsePorts(portStr);
  if (ports === undefined) return `invalid port ${portStr}`;
  const ip = normalizeIp(host);
  if (ip) {
    const family = net.isIPv4(ip) ? 'ipv4' : 'ipv6';
    const block = new net.BlockList();
    if (prefix !== undefined) {
      const len = Number(prefix);
      if (len > (family === 'ipv4' ? 32 : 128)) return `invalid prefix length /${prefix}`;
      block.addSubnet(ip, len, family);
    } else block.addAddress(ip, family);
    return { kind: 'ip', value: prefix !== undefined ? `${ip}/${prefix}` : ip, ports, block, raw: t };
  }
  if (prefix !== undefined) return 'a /prefix needs an IP address';
  if (host === '*') return 'a bare * would allow every host: turn the network on instead';
  if (host.startsWith('*.')) {
    const suffix = normalizeHostname(host.slice(2));
    if (!suffix) return 'not a valid host name';
    if (!suffix.includes('.')) return `*.${suffix} is too broad (a whole top-level domain)`;
    return { kind: 'suffix', value: suffix, ports, raw: t };
  }
  if (host.includes('*')) return 'only a leading *. wildcard is supported';
  const name = normalizeHostname(host);
  if (!name) return 'not a valid host name';
  return { kind: 'host', value: name, ports, raw: t };
}

function portOk(p: Ports, port: number): boolean {
  return p === 'any' || (p === 'default' ? DEFAULT_PORTS.includes(port) : p === port);
}

function ipRuleMatches(r: AllowRule, ip: string, port: number): boolean {
  return r.kind === 'ip' && portOk(r.ports, port) && r.block!.check(ip, net.isIPv4(ip) ? 'ipv4' : 'ipv6');
}

/** The rule letting `host:port` through (host already normalized: a name or a bare IP), if any. */
export function matchRule(list: AllowList, host: string, port: number): AllowRule | undefined {
  const ip = normalizeIp(host);
  if (ip) return list.rules.find((r) => ipRuleMatches(r, ip, port));
  return list.rules.find((r) => portOk(r.ports, port) && (r.kind === 'host' ? r.value === host : r.kind === 'suffix' && host.endsWith('.' + r.value)));
}

// Two lists: a BlockList checks IPv4 addresses against IPv6 rules too (as ::ffff:a.b.c.d).
const NON_PUBLIC_V4 = new net.BlockList();
const NON_PUBLIC_V6 = new net.BlockList();
for (const [a, l] of [['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12], ['192.0.0.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['224.0.0.0', 4], ['240.0.0.0', 4]] as const) NON_PUBLIC_V4.addSubnet(a, l, 'ipv4');
for (const [a, l] of [['::', 128], ['::1', 128], ['fc00::', 7], ['fe80::', 10], ['fec0::', 10], ['ff00::', 8], ['64:ff9b::', 96], ['64:ff9b:1::', 48], ['2002::', 16]] as const) NON_PUBLIC_V6.addSubnet(a, l, 'ipv6');

/** Loopback, private, link-local, carrier-grade NAT, multicast, reserved, and IPv6 forms that embed IPv4 (NAT64, 6to4). */
export function isNonPublic(ip: string): boolean {
  const n = normalizeIp(ip);
  if (!n) return true;
  if (net.isIPv4(n)) return NON_PUBLIC_V4.check(n, 'ipv4');
  // IPv4-compatible (::a.b.c.d) and IPv4-mapped forms normalizeIp did not turn into IPv4.
  if (/^(::|(0{1,4}:){5,6})(ffff:)?[0-9a-f.:]*$/i.test(n) && !/^::1$/.test(n)) return true;
  return NON_PUBLIC_V6.check(n, 'ipv6');
}

const LOOPBACK = new net.BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');

export type Decision = { ok: true; host: string; port: number; addresses: string[] } | { ok: false; host: string; port: number; reason: string };

/**
 * Whether `host:port` may be reached, and at which addresses: the name must match a pattern; names are
 * resolved here and every address that is not public must itself be listed (or be loopback for an explicit
 * `localhost` pattern). Only the addresses that passed are ever connected to.
 */
export async function decide(list: AllowList, rawHost: string, port: number, resolve: (host: string) => Promise<string[]>): Promise<Decision> {
  const ip = normalizeIp(rawHost);
  const host = ip ?? normalizeHostname(rawHost);
  if (!host) return { ok: false, host: rawHost.slice(0, 100), port, reason: 'not a valid host name' };
  if (!Number.isInteger(port) || port < 1 || port > 65535) return { ok: false, host, port, reason: 'invalid port' };
  const rule = matchRule(list, host, port);
  if (!rule) {
    const other = ip ? undefined : list.rules.find((r) => (r.kind === 'host' ? r.value === host : r.kind === 'suffix' && host.endsWith('.' + r.value)));
    const reason = other ? `port ${port} is not allowed for this host` : ip ? 'IP addresses are reached only when listed' : 'not on the allow list';
    return { ok: false, host, port, reason };
  }
  if (ip) return { ok: true, host, port, addresses: [ip] };
  let found: string[];
  try {
    found = (await resolve(host)).map((a) => normalizeIp(a)).filter((a): a is string => !!a);
  } catch (e) {
    return { ok: false, host, port, reason: `could not resolve it (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})` };
  }
  if (found.length === 0) return { ok: false, host, port, reason: 'it resolves to no address' };
  const explicitLocal = rule.kind === 'host' && host === 'localhost';
  const ok = found.filter((a) => !isNonPublic(a) || (explicitLocal && LOOPBACK.check(a, net.isIPv4(a) ? 'ipv4' : 'ipv6')) || list.rules.some((r) => ipRuleMatches(r, a, port)));
  if (ok.length === 0) return { ok: false, host, port, reason: `it resolves to a private or local address (${found[0]}) that is not on the allow list` };
  // IPv4 first: a machine without IPv6 routes fails those fast anyway, but why wait.
  ok.sort((a, b) => net.isIP(a) - net.isIP(b));
  return { ok: true, host, port, addresses: [...new Set(ok)] };
}

// ---------------------------------------------------------------------------------------------------------------
// TLS server name

/**
 * The server name (SNI) of a TLS ClientHello at the start of `b`: `need` when more bytes are needed, `sni: null`
 * when the stream is not TLS or names no server, `split` when the ClientHello does not fit its first record.
 */
export function clientHelloServerName(b: Buffer): { need: true } | { sni: string | null } | { split: true } {
  if (b.length < 1) return { need: true };
  if (b[0] !== 0x16) return { sni: null };
  if (b.length < 5) return { need: true };
  const recLen = b.readUInt16BE(3);
  if (b.length < 5 + recLen) return { need: true };
  const end = 5 + recLen;
  let p = 5;
  if (recLen < 4 || b[p] !== 1) return { sni: null }; // not a ClientHello
  const hsLen = b.readUIntBE(p + 1, 3);
  if (hsLen > recLen - 4) return { split: true };
  p += 4 + 2 + 32; // handshake header, version, random
  const skip = (lenBytes: 1 | 2): boolean => {
    if (p + lenBytes > end) return false;
    p += lenBytes + (lenBytes === 1 ? b[p]! : b.readUInt16BE(p));
    return p <= end;
  };
  if (!skip(1) || !skip(2) || !skip(1)) return { sni: null }; // session id, cipher suites, compression
  if (p + 2 > end) return { sni: null };
  const extEnd = Math.min(end, p + 2 + b.readUInt16BE(p));
  p += 2;
  while (p + 4 <= extEnd) {
    const type = b.readUInt16BE(p);
    const len = b.readUInt16BE(p + 2);
    p += 4;
    if (type === 0) {
      let q = p + 2;
      while (q + 3 <= Math.min(p + len, extEnd)) {
        const nameType = b[q]!;
        const nameLen = b.readUInt16BE(q + 1);
        q += 3;
        if (nameType === 0) return { sni: b.toString('latin1', q, Math.min(q + nameLen, extEnd)) };
        q += nameLen;
      }
      return { sni: null };
    }
    p += len;
  }
  return { sni: null };
}

// ---------------------------------------------------------------------------------------------------------------
// The proxy

export interface AllowlistProxyOptions {
  /** Host patterns (see compileAllowList); `preset:<name>` entries are expanded. */
  allowedHosts: readonly string[];
  /** Where to listen. Its folder is created (0700) if missing; a stale socket there is replaced. */
  socketPath: string;
  log?: { info(m: string): void; warn(m: string): void };
  /** Name resolution (default: the system resolver, as the command itself would have used). Tests map names here. */
  resolve?: (host: string) => Promise<string | string[]>;
  /** Hosts of presets that come from the user's configuration (npm's registry). */
  dynamicPresets?: DynamicPresets;
  /** Upstream connections open at once (default 256); more are answered 503. */
  maxConnections?: number;
  /** Connect timeout per address (default 15 s). */
  connectTimeoutMs?: number;
  /** A tunnel or request with no traffic for this long is closed (default 10 min). */
  idleTimeoutMs?: number;
}

export interface AllowlistProxy {
  /** Recently denied destinations (`host`, or `host:port` for ports other than 80/443), oldest first, unique, at most 50. */
  readonly denied: string[];
  /** Returns the denied destinations and forgets them (one command's worth, when a proxy serves several). */
  takeDenied(): string[];
  /** The patterns that were refused, with why (for a settings warning). */
  readonly errors: string[];
  readonly socketPath: string;
  /** Stops listening, closes every connection, removes the socket. */
  close(): Promise<void>;
}

export const BLOCKED_REASON_PHRASE = 'Blocked by Forge network allow list';

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'proxy-authorization', 'proxy-authenticate', 'te', 'trailer', 'transfer-encoding', 'upgrade']);

export async function startAllowlistProxy(opts: AllowlistProxyOptions): Promise<AllowlistProxy> {
  const { patterns, errors: presetErrors } = expandAllowList(opts.allowedHosts, opts.dynamicPresets);
  const list = compileAllowList(patterns);
  const errors = [...presetErrors, ...list.errors];
  for (const e of errors) opts.log?.warn(`network allow list: ${e}`);
  const maxConnections = opts.maxConnections ?? 256;
  const connectTimeoutMs = opts.connectTimeoutMs ?? 15_000;
  const idleTimeoutMs = opts.idleTimeoutMs ?? 600_000;
  const resolve = async (host: string): Promise<string[]> => {
    if (opts.resolve) {
      const r = await opts.resolve(host);
      return Array.isArray(r) ? r : [r];
    }
    const lookup = dns.lookup(host, { all: true, verbatim: true }).then((a) => a.map((x) => x.address));
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, rej) => (timer = setTimeout(() => rej(Object.assign(new Error('DNS timeout'), { code: 'ETIMEOUT' })), 10_000)));
    try {
      return await Promise.race([lookup, timeout]);
    } finally {
      clearTimeout(timer);
    }
  };

  const deniedList: string[] = [];
  const recordDenied = (host: string, port: number, reason: string) => {
    const entry = DEFAULT_PORTS.includes(port) ? host : `${host.includes(':') ? `[${host}]` : host}:${port}`;
    const i = deniedList.indexOf(entry);
    if (i >= 0) deniedList.splice(i, 1);
    deniedList.push(entry);
    if (deniedList.length > 50) deniedList.shift();
    opts.log?.info(`network: blocked ${entry}: ${reason}`);
  };
  const blockedBody = (host: string, reason: string) => `blocked by Forge's network allow list: ${host} (${reason})\n`;

  const sockets = new Set<net.Socket>();
  const track = (s: net.Socket) => {
    sockets.add(s);
    s.once('close', () => sockets.delete(s));
  };
  let active = 0;
  let closed = false;

  /** Connects to the first address that answers. */
  const connectUpstream = (addresses: string[], port: number): Promise<net.Socket> =>
    new Promise((resolveSock, reject) => {
      let i = 0;
      let lastErr: Error | undefined;
      const next = () => {
        if (closed) return reject(new Error('proxy closed'));
        const addr = addresses[i++];
        if (addr === undefined) return reject(lastErr ?? new Error('no address'));
        const s = net.connect({ host: addr, port, allowHalfOpen: true });
        track(s);
        let connected = false;
        s.setTimeout(connectTimeoutMs, () => s.destroy(Object.assign(new Error(`connect timeout to ${addr}`), { code: 'ETIMEDOUT' })));
        s.on('error', (e) => {
          if (connected) return; // the user of the socket sees it close
          lastErr = e;
          s.destroy();
          next();
        });
        s.once('connect', () => {
          connected = true;
          s.setTimeout(idleTimeoutMs, () => s.destroy());
          resolveSock(s);
        });
      };
      next();
    });

  const server = http.createServer({ requestTimeout: 0, headersTimeout: 30_000, keepAliveTimeout: 5_000 });
  server.maxConnections = maxConnections + 64;
  server.on('connection', (s: net.Socket) => {
    track(s);
    s.on('error', () => undefined);
  });
  server.on('clientError', (_e, s: net.Socket) => {
    if (s.writable) s.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
    else s.destroy();
  });

  const rawReply = (s: net.Socket, status: string, body: string, extra = '') => {
    if (!s.writable) return void s.destroy();
    s.end(`HTTP/1.1 ${status}\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n${extra}\r\n${body}`);
  };

  // CONNECT host:port: a TLS (or other) tunnel.
  server.on('connect', (req: http.IncomingMessage, client: net.Socket, head: Buffer) => {
    void (async () => {
      client.on('error', () => undefined);
      const target = parseAuthority(req.url ?? '', 443);
      if (!target) return rawReply(client, '400 Bad Request', 'CONNECT needs host:port\n');
      const d = await decide(list, target.host, target.port, resolve);
      if (!d.ok) {
        recordDenied(d.host, d.port, d.reason);
        return rawReply(client, `403 ${BLOCKED_REASON_PHRASE}`, blockedBody(d.host, d.reason), `X-Forge-Blocked: ${d.host}\r\n`);
      }
      if (active >= maxConnections) return rawReply(client, '503 Too many connections', `Forge's network proxy has ${active} connections open\n`);
      active++;
      let up: net.Socket;
      try {
        up = await connectUpstream(d.addresses, d.port);
      } catch (e) {
        active--;
        return rawReply(client, '502 Bad Gateway', `Forge's network proxy could not connect to ${d.host}:${d.port}: ${(e as Error).message}\n`);
      }
      up.once('close', () => {
        active--;
        client.destroy();
      });
      client.once('close', () => up.destroy());
      up.on('error', () => client.destroy());
      client.setTimeout(idleTimeoutMs, () => client.destroy());
      if (client.destroyed) return void up.destroy();
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      up.pipe(client);
      // The first bytes from the client: when they are a TLS ClientHello, its server name must be the host the
      // tunnel was opened for (a mismatching SNI would reach another site behind the same CDN address).
      const named = normalizeIp(d.host) === undefined;
      let buf = head && head.length ? Buffer.from(head) : Buffer.alloc(0);
      const check = (): boolean | undefined => {
        const r = clientHelloServerName(buf);
        if ('need' in r) return buf.length > 20_000 ? false : undefined;
        if ('split' in r) return false;
        return r.sni === null || !named || r.sni.toLowerCase().replace(/\.$/, '') === d.host;
      };
      const start = () => {
        const verdict = check();
        if (verdict === undefined) return false;
        client.removeListener('data', onData);
        if (!verdict) {
          const r = clientHelloServerName(buf);
          const sni = 'sni' in r && r.sni ? r.sni.toLowerCase().slice(0, 253) : undefined;
          recordDenied(sni ?? d.host, d.port, sni ? `TLS server name in a tunnel opened for ${d.host}` : 'TLS ClientHello split over records or unreadable');
          up.destroy();
          client.destroy();
          return true;
        }
        up.write(buf);
        client.pipe(up);
        return true;
      };
      const onData = (chunk: Buffer) => {
        buf = Buffer.concat([buf, chunk]);
        start();
      };
      if (buf.length === 0 || !start()) client.on('data', onData);
    })().catch((e) => {
      opts.log?.warn(`network proxy: ${(e as Error).message}`);
      client.destroy();
    });
  });

  // Plain HTTP: absolute-URI requests.
  server.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
    void (async () => {
      let url: URL | undefined;
      try {
        url = /^[a-z][a-z0-9+.-]*:\/\//i.test(req.url ?? '') ? new URL(req.url!) : undefined;
      } catch {
        url = undefined;
      }
      const plain = (status: number, phrase: string, body: string, headers: Record<string, string> = {}) => {
        if (res.headersSent) return void res.destroy();
        res.writeHead(status, phrase, { 'content-type': 'text/plain; charset=utf-8', ...headers });
        res.end(body);
      };
      if (!url) return plain(400, 'Bad Request', "This is Forge's network proxy: it takes absolute http:// URLs and CONNECT.\n");
      if (url.protocol !== 'http:') return plain(400, 'Bad Request', `Forge's network proxy forwards only http:// requests (use CONNECT for ${url.protocol}//)\n`);
      const host = url.hostname.replace(/^\[|\]$/g, '');
      const port = url.port ? Number(url.port) : 80;
      const d = await decide(list, host, port, resolve);
      if (!d.ok) {
        recordDenied(d.host, d.port, d.reason);
        return plain(403, BLOCKED_REASON_PHRASE, blockedBody(d.host, d.reason), { 'x-forge-blocked': d.host });
      }
      if (active >= maxConnections) return plain(503, 'Too many connections', `Forge's network proxy has ${active} connections open\n`);
      active++;
      let sock: net.Socket;
      try {
        sock = await connectUpstream(d.addresses, d.port);
      } catch (e) {
        active--;
        return plain(502, 'Bad Gateway', `Forge's network proxy could not connect to ${d.host}:${d.port}: ${(e as Error).message}\n`);
      }
      sock.once('close', () => active--);
      const headers: Record<string, string[]> = {};
      const connectionListed = new Set(String(req.headers.connection ?? '').toLowerCase().split(',').map((x) => x.trim()));
      for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) {
        const k = req.rawHeaders[i]!.toLowerCase();
        if (HOP_BY_HOP.has(k) || connectionListed.has(k) || k === 'host') continue;
        (headers[k] ??= []).push(req.rawHeaders[i + 1]!);
      }
      headers.host = [url.host];
      headers.connection = ['close'];
      const up = http.request({ method: req.method, path: url.pathname + url.search, headers, createConnection: () => sock, setHost: false });
      up.on('error', (e) => {
        sock.destroy();
        plain(502, 'Bad Gateway', `Forge's network proxy: ${d.host}:${d.port}: ${e.message}\n`);
      });
      up.on('response', (upRes) => {
        const out: Record<string, string | string[]> = {};
        const listed = new Set(String(upRes.headers.connection ?? '').toLowerCase().split(',').map((x) => x.trim()));
        for (const [k, v] of Object.entries(upRes.headers)) if (v !== undefined && !HOP_BY_HOP.has(k) && !listed.has(k)) out[k] = v;
        res.writeHead(upRes.statusCode ?? 502, upRes.statusMessage, out);
        upRes.pipe(res);
        upRes.on('error', () => res.destroy());
      });
      res.on('close', () => {
        if (!res.writableFinished) up.destroy();
      });
      req.pipe(up);
    })().catch((e) => {
      opts.log?.warn(`network proxy: ${(e as Error).message}`);
      res.destroy();
    });
  });

  // Upgrade requests (ws:// through a proxy) are not supported; wss:// goes through CONNECT.
  server.on('upgrade', (_req: http.IncomingMessage, s: net.Socket) => rawReply(s, '501 Not Implemented', "Forge's network proxy does not forward plain-HTTP upgrades (wss:// works)\n"));

  if (Buffer.byteLength(opts.socketPath) > 100) throw new Error(`network proxy socket path too long for a UNIX socket: ${opts.socketPath}`);
  await fsp.mkdir(path.dirname(opts.socketPath), { recursive: true, mode: 0o700 });
  const st = await fsp.lstat(opts.socketPath).catch(() => undefined);
  if (st?.isSocket()) await fsp.unlink(opts.socketPath);
  await new Promise<void>((res, rej) => {
    server.once('error', rej);
    server.listen(opts.socketPath, () => {
      server.removeListener('error', rej);
      res();
    });
  });
  server.on('error', (e) => opts.log?.warn(`network proxy: ${e.message}`));
  await fsp.chmod(opts.socketPath, 0o600).catch(() => undefined);

  return {
    denied: deniedList,
    takeDenied: () => deniedList.splice(0, deniedList.length),
    errors,
    socketPath: opts.socketPath,
    close: async () => {
      if (closed) return;
      closed = true;
      const done = new Promise<void>((r) => server.close(() => r()));
      for (const s of sockets) s.destroy();
      await done;
      await fsp.unlink(opts.socketPath).catch(() => undefined);
    },
  };
}

/** `host:port` / `[v6]:port` of a CONNECT request. */
function parseAuthority(s: string, defaultPort: number): { host: string; port: number } | undefined {
  const m = /^\[([^\]]+)\](?::(\d{1,5}))?$/.exec(s) ?? /^([^:[\]/]+)(?::(\d{1,5}))?$/.exec(s);
  if (!m) return undefined;
  return { host: m[1]!, port: m[2] ? Number(m[2]) : defaultPort };
}

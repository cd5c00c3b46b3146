// The network allow list's rules: named presets, host patterns (names, *.suffix, IPs, CIDR, ports) and the
// decision for one destination (resolved by the proxy itself; private addresses only when listed). No I/O but
// the resolver it is given; the proxy in network-proxy.ts asks decide() for every connection.
import * as net from 'node:net';

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
  github: [
    'github.com',
    'codeload.github.com',
    'objects.githubusercontent.com',
    'release-assets.githubusercontent.com',
  ],
};

/** Presets whose hosts come from the user's configuration (npm's registry), added to the fixed ones. */
export interface DynamicPresets {
  npm?: readonly string[];
}

/** Replaces `preset:<name>` entries of a setting by the preset's hosts (unknown presets are reported). */
export function expandAllowList(
  entries: readonly string[],
  dynamic: DynamicPresets = {},
): { patterns: string[]; errors: string[] } {
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
    else
      errors.push(
        `${t}: unknown preset (known: ${Object.keys(presets)
          .map((k) => `preset:${k}`)
          .join(', ')})`,
      );
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

export const DEFAULT_PORTS = [80, 443];
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
      const a = parseInt(hex[1]!, 16),
        b = parseInt(hex[2]!, 16);
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
  return list.rules.find(
    (r) =>
      portOk(r.ports, port) &&
      (r.kind === 'host' ? r.value === host : r.kind === 'suffix' && host.endsWith('.' + r.value)),
  );
}

// Two lists: a BlockList checks IPv4 addresses against IPv6 rules too (as ::ffff:a.b.c.d).
const NON_PUBLIC_V4 = new net.BlockList();
const NON_PUBLIC_V6 = new net.BlockList();
for (const [a, l] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  NON_PUBLIC_V4.addSubnet(a, l, 'ipv4');
for (const [a, l] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
  ['64:ff9b::', 96],
  ['64:ff9b:1::', 48],
  ['2002::', 16],
] as const)
  NON_PUBLIC_V6.addSubnet(a, l, 'ipv6');

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

export type Decision =
  | { ok: true; host: string; port: number; addresses: string[] }
  | { ok: false; host: string; port: number; reason: string };

/**
 * Whether `host:port` may be reached, and at which addresses: the name must match a pattern; names are
 * resolved here and every address that is not public must itself be listed (or be loopback for an explicit
 * `localhost` pattern). Only the addresses that passed are ever connected to.
 */
export async function decide(
  list: AllowList,
  rawHost: string,
  port: number,
  resolve: (host: string) => Promise<string[]>,
): Promise<Decision> {
  const ip = normalizeIp(rawHost);
  const host = ip ?? normalizeHostname(rawHost);
  if (!host) return { ok: false, host: rawHost.slice(0, 100), port, reason: 'not a valid host name' };
  if (!Number.isInteger(port) || port < 1 || port > 65535) return { ok: false, host, port, reason: 'invalid port' };
  const rule = matchRule(list, host, port);
  if (!rule) {
    const other = ip
      ? undefined
      : list.rules.find((r) =>
          r.kind === 'host' ? r.value === host : r.kind === 'suffix' && host.endsWith('.' + r.value),
        );
    const reason = other
      ? `port ${port} is not allowed for this host`
      : ip
        ? 'IP addresses are reached only when listed'
        : 'not on the allow list';
    return { ok: false, host, port, reason };
  }
  if (ip) return { ok: true, host, port, addresses: [ip] };
  let found: string[];
  try {
    found = (await resolve(host)).map((a) => normalizeIp(a)).filter((a): a is string => !!a);
  } catch (e) {
    return {
      ok: false,
      host,
      port,
      reason: `could not resolve it (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`,
    };
  }
  if (found.length === 0) return { ok: false, host, port, reason: 'it resolves to no address' };
  const explicitLocal = rule.kind === 'host' && host === 'localhost';
  const ok = found.filter(
    (a) =>
      !isNonPublic(a) ||
      (explicitLocal && LOOPBACK.check(a, net.isIPv4(a) ? 'ipv4' : 'ipv6')) ||
      list.rules.some((r) => ipRuleMatches(r, a, port)),
  );
  if (ok.length === 0)
    return {
      ok: false,
      host,
      port,
      reason: `it resolves to a private or local address (${found[0]}) that is not on the allow list`,
    };
  // IPv4 first: a machine without IPv6 routes fails those fast anyway, but why wait.
  ok.sort((a, b) => net.isIP(a) - net.isIP(b));
  return { ok: true, host, port, addresses: [...new Set(ok)] };
}

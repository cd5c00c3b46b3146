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
import {
  compileAllowList,
  decide,
  DEFAULT_PORTS,
  expandAllowList,
  normalizeIp,
  type DynamicPresets,
} from './network-allowlist';

export * from './network-allowlist';

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

interface AllowlistProxyOptions {
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

const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authorization',
  'proxy-authenticate',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

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
    const timeout = new Promise<never>(
      (_, rej) =>
        (timer = setTimeout(() => rej(Object.assign(new Error('DNS timeout'), { code: 'ETIMEOUT' })), 10_000)),
    );
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
        s.setTimeout(connectTimeoutMs, () =>
          s.destroy(Object.assign(new Error(`connect timeout to ${addr}`), { code: 'ETIMEDOUT' })),
        );
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
    s.end(
      `HTTP/1.1 ${status}\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n${extra}\r\n${body}`,
    );
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
        return rawReply(
          client,
          `403 ${BLOCKED_REASON_PHRASE}`,
          blockedBody(d.host, d.reason),
          `X-Forge-Blocked: ${d.host}\r\n`,
        );
      }
      if (active >= maxConnections)
        return rawReply(client, '503 Too many connections', `Forge's network proxy has ${active} connections open\n`);
      active++;
      let up: net.Socket;
      try {
        up = await connectUpstream(d.addresses, d.port);
      } catch (e) {
        active--;
        return rawReply(
          client,
          '502 Bad Gateway',
          `Forge's network proxy could not connect to ${d.host}:${d.port}: ${(e as Error).message}\n`,
        );
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
          recordDenied(
            sni ?? d.host,
            d.port,
            sni
              ? `TLS server name in a tunnel opened for ${d.host}`
              : 'TLS ClientHello split over records or unreadable',
          );
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
      if (!url)
        return plain(
          400,
          'Bad Request',
          "This is Forge's network proxy: it takes absolute http:// URLs and CONNECT.\n",
        );
      if (url.protocol !== 'http:')
        return plain(
          400,
          'Bad Request',
          `Forge's network proxy forwards only http:// requests (use CONNECT for ${url.protocol}//)\n`,
        );
      const host = url.hostname.replace(/^\[|\]$/g, '');
      const port = url.port ? Number(url.port) : 80;
      const d = await decide(list, host, port, resolve);
      if (!d.ok) {
        recordDenied(d.host, d.port, d.reason);
        return plain(403, BLOCKED_REASON_PHRASE, blockedBody(d.host, d.reason), { 'x-forge-blocked': d.host });
      }
      if (active >= maxConnections)
        return plain(503, 'Too many connections', `Forge's network proxy has ${active} connections open\n`);
      active++;
      let sock: net.Socket;
      try {
        sock = await connectUpstream(d.addresses, d.port);
      } catch (e) {
        active--;
        return plain(
          502,
          'Bad Gateway',
          `Forge's network proxy could not connect to ${d.host}:${d.port}: ${(e as Error).message}\n`,
        );
      }
      sock.once('close', () => active--);
      const headers: Record<string, string[]> = {};
      const connectionListed = new Set(
        String(req.headers.connection ?? '')
          .toLowerCase()
          .split(',')
          .map((x) => x.trim()),
      );
      for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) {
        const k = req.rawHeaders[i]!.toLowerCase();
        if (HOP_BY_HOP.has(k) || connectionListed.has(k) || k === 'host') continue;
        (headers[k] ??= []).push(req.rawHeaders[i + 1]!);
      }
      headers.host = [url.host];
      headers.connection = ['close'];
      const up = http.request({
        method: req.method,
        path: url.pathname + url.search,
        headers,
        createConnection: () => sock,
        setHost: false,
      });
      up.on('error', (e) => {
        sock.destroy();
        plain(502, 'Bad Gateway', `Forge's network proxy: ${d.host}:${d.port}: ${e.message}\n`);
      });
      up.on('response', (upRes) => {
        const out: Record<string, string | string[]> = {};
        const listed = new Set(
          String(upRes.headers.connection ?? '')
            .toLowerCase()
            .split(',')
            .map((x) => x.trim()),
        );
        for (const [k, v] of Object.entries(upRes.headers))
          if (v !== undefined && !HOP_BY_HOP.has(k) && !listed.has(k)) out[k] = v;
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
  server.on('upgrade', (_req: http.IncomingMessage, s: net.Socket) =>
    rawReply(s, '501 Not Implemented', "Forge's network proxy does not forward plain-HTTP upgrades (wss:// works)\n"),
  );

  if (Buffer.byteLength(opts.socketPath) > 100)
    throw new Error(`network proxy socket path too long for a UNIX socket: ${opts.socketPath}`);
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

// Inside the sandbox the network namespace has only loopback. A tiny forwarder, run by the extension host's own
// Node binary, listens on 127.0.0.1:<port> there and hands every connection to the allow-list proxy's UNIX socket
// (network-proxy.ts); the command gets the usual proxy variables pointing at it. The forwarder starts before the
// command, the command is exec'd once the forwarder listens, and the forwarder dies with the sandbox (bubblewrap's
// pid namespace: when the command ends, its init ends and the kernel kills the rest).
import { createHash } from 'node:crypto';
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { shellQuote } from './profile';

/** The forwarder's port inside the sandbox's own network namespace (nothing else listens there but the command). */
const DEFAULT_BRIDGE_PORT = 39_281;

/** Exit status of the wrapper when the forwarder could not start (the command did not run). */
export const BRIDGE_FAILED_EXIT = 125;

/**
 * The forwarder. argv: <socket path> <port>. Prints one line, `ready` (or why not), on stdout; stays alive
 * forwarding until killed. Byte-for-byte, no parsing: if the proxy is
 * gone, the client gets a 502 instead of a reset.
 */
const BRIDGE_SCRIPT = `'use strict';
const net = require('net');
const fs = require('fs');
const sock = process.argv[2];
const port = Number(process.argv[3]);
let told = false;
// Never close fd 1: a socket accepted later would take that number, and Node treats fd 1 as process.stdout.
const tell = (m) => { if (told) return; told = true; try { fs.writeSync(1, m + '\\n'); } catch {} };
process.on('uncaughtException', (e) => { if (!told) { tell('error ' + (e && e.message)); process.exit(1); } });
const timer = setTimeout(() => { tell('timeout'); process.exit(1); }, 5000);
const body = "Forge's network proxy is not running\\n";
const unavailable = 'HTTP/1.1 502 Forge network proxy unavailable\\r\\nContent-Type: text/plain\\r\\nContent-Length: ' + Buffer.byteLength(body) + '\\r\\nConnection: close\\r\\n\\r\\n' + body;
const server = net.createServer({ allowHalfOpen: true }, (c) => {
  const u = net.connect({ path: sock, allowHalfOpen: true });
  let up = false;
  u.on('connect', () => { up = true; c.pipe(u); u.pipe(c); });
  u.on('error', () => { if (up) c.destroy(); else c.end(unavailable); });
  c.on('error', () => u.destroy());
  c.on('close', () => u.destroy());
  u.on('close', () => { if (up) c.destroy(); });
});
server.on('error', (e) => { clearTimeout(timer); tell('error ' + (e.code || e.message)); process.exit(1); });
server.listen({ host: '127.0.0.1', port }, () => { clearTimeout(timer); tell('ready'); });
`;

/**
 * Writes the forwarder script into `dir` (a folder the sandbox can read but not write: outside the workspace and
 * the task temp folder) and returns its path. The name carries the content hash; rewriting is atomic.
 */
export async function writeBridgeScript(dir: string): Promise<string> {
  const hash = createHash('sha256').update(BRIDGE_SCRIPT).digest('hex').slice(0, 12);
  const file = path.join(dir, `forge-net-bridge-${hash}.js`);
  const have = await fsp.readFile(file, 'utf8').catch(() => undefined);
  if (have === BRIDGE_SCRIPT) return file;
  await fsp.mkdir(dir, { recursive: true, mode: 0o700 });
  const tmp = `${file}.${process.pid}.${Date.now()}.tmp`;
  await fsp.writeFile(tmp, BRIDGE_SCRIPT, { mode: 0o444 });
  await fsp.rename(tmp, file);
  return file;
}

/**
 * The proxy variables the command gets. Only HTTP proxy variables (no ALL_PROXY: curl would send ftp:// and other
 * schemes to an HTTP proxy that refuses them). NODE_USE_ENV_PROXY makes Node's own fetch/http honour them
 * (Node 22.21+/24; older Node ignores it: npm, pnpm and yarn read the npm_config_ and YARN_ variables themselves).
 */
export function proxyEnv(port = DEFAULT_BRIDGE_PORT): Record<string, string> {
  const url = `http://127.0.0.1:${port}`;
  const noProxy = 'localhost,127.0.0.1,::1';
  return {
    HTTP_PROXY: url,
    HTTPS_PROXY: url,
    http_proxy: url,
    https_proxy: url,
    NO_PROXY: noProxy,
    no_proxy: noProxy,
    npm_config_proxy: url,
    npm_config_https_proxy: url,
    YARN_HTTP_PROXY: url,
    YARN_HTTPS_PROXY: url,
    NODE_USE_ENV_PROXY: '1',
  };
}

interface BridgeOptions {
  /** The proxy's UNIX socket, as seen inside the sandbox (same path when its folder is bound at the same place). */
  socketPath: string;
  /** The forwarder script (writeBridgeScript), readable inside the sandbox. */
  scriptPath: string;
  /** A Node binary readable inside the sandbox: process.execPath (VS Code's Electron runs as Node with ELECTRON_RUN_AS_NODE=1). */
  nodePath: string;
  port?: number;
}

/**
 * Shell text that starts the forwarder in the background, waits (bounded: the forwarder gives up after 5 s) until
 * it listens, exports the proxy variables, then runs `run` (the tail, e.g. `exec /bin/sh -c "$1"`). If the
 * forwarder cannot start, the command does not run and the shell exits 125 with a message on stderr.
 */
function prelude(o: BridgeOptions, run: string): string {
  const port = o.port ?? DEFAULT_BRIDGE_PORT;
  // The forwarder runs in the background writing into a pipe whose reader takes its first line and exits: the
  // substitution returns then (no polling), the forwarder keeps running. If it dies first, the line is empty.
  // Its own variables (ELECTRON_RUN_AS_NODE) stay out of the command's environment.
  const node = `ELECTRON_RUN_AS_NODE=1 NODE_OPTIONS= ${shellQuote(o.nodePath)} ${shellQuote(o.scriptPath)} ${shellQuote(o.socketPath)} ${port} </dev/null 2>/dev/null &`;
  const start = `__forge_net=$( (${node}) | (IFS= read -r l; echo "$l") )`;
  const check = `[ "$__forge_net" = ready ] || { echo "forge: the sandbox network proxy could not start (\${__forge_net:-no answer}); the command did not run" >&2; exit ${BRIDGE_FAILED_EXIT}; }`;
  const env = Object.entries(proxyEnv(port))
    .map(([k, v]) => `${k}=${shellQuote(v)}`)
    .join(' ');
  return `${start}; ${check}; unset __forge_net; export ${env}; ${run}`;
}

/** The script to pass to `/bin/sh -c` inside the sandbox instead of `command`. */
export function wrapCommand(command: string, o: BridgeOptions): string {
  return prelude(o, `exec /bin/sh -c ${shellQuote(command)}`);
}

/**
 * The same as argv: `['/bin/sh', '-c', <prelude>, 'sh', command]`. The command stays its own last argument,
 * unquoted, so a launcher that passes the command as "$1" (CommandSandbox.launcher) works unchanged.
 */
export function bridgeArgv(command: string, o: BridgeOptions): string[] {
  return ['/bin/sh', '-c', prelude(o, 'exec /bin/sh -c "$1"'), 'sh', command];
}

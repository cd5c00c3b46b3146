// Test wiring for McpManager against real server processes: scrubbed env, captured log, node paths.
import * as net from 'node:net';
import * as path from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';
import type { McpServerSpec } from '../../../../src/core/mcp/config';
import type { Tool } from '../../../../src/core/tools/types';
import { McpManager, type McpManagerOptions } from '../../../../src/node/mcp/manager';
import { scrubEnv } from '../../../../src/node/sandbox/env';

export const ROOT = path.resolve(__dirname, '../../../..');
export const EVERYTHING = path.join(ROOT, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
export const FILESYSTEM = path.join(ROOT, 'node_modules/@modelcontextprotocol/server-filesystem/dist/index.js');
export const HOSTILE = path.join(__dirname, 'fixtures/hostile-server.cjs');

export function stdio(name: string, args: string[], env: Record<string, string> = {}): McpServerSpec {
  return { name, source: 'test', type: 'stdio', command: process.execPath, args, env };
}

export interface TestManager {
  manager: McpManager;
  logs: string[];
  allowed: Set<string>;
}

export function testManager(specs: McpServerSpec[], opts: Partial<McpManagerOptions> = {}): TestManager {
  const logs: string[] = [];
  const allowed = new Set<string>();
  const manager = new McpManager({
    log: {
      debug: (m) => logs.push(`debug ${m}`),
      info: (m) => logs.push(`info ${m}`),
      warn: (m) => logs.push(`warn ${m}`),
    },
    resolve: async (s) => s,
    baseEnv: () => scrubEnv(process.env).env,
    cwd: ROOT,
    callTimeoutMs: () => 20_000,
    startTimeoutMs: 20_000,
    autoApproved: (s, t) => allowed.has(`${s}/${t}`),
    ...opts,
  });
  void manager.configure(specs);
  return { manager, logs, allowed };
}

export function byName(tools: Tool[], name: string): Tool {
  const tool = tools.find((t) => t.name === name);
  if (!tool) throw new Error(`no tool ${name} in ${tools.map((t) => t.name).join(', ')}`);
  return tool;
}

export function ctx(signal = new AbortController().signal) {
  return { signal, taskId: 't', toolCallId: `c${Math.random()}` };
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as net.AddressInfo).port;
      srv.close(() => resolve(port));
    });
    srv.on('error', reject);
  });
}

/** Starts server-everything in Streamable HTTP mode; resolves once it listens. */
export async function startEverythingHttp(fixedPort?: number): Promise<{ url: string; child: ChildProcess }> {
  const port = fixedPort ?? (await freePort());
  const child = spawn(process.execPath, [EVERYTHING, 'streamableHttp'], {
    env: { ...scrubEnv(process.env).env, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  await new Promise<void>((resolve, reject) => {
    let out = '';
    const onData = (d: Buffer) => {
      out += d.toString();
      if (/listening on port/i.test(out)) resolve();
    };
    child.stderr!.on('data', onData);
    child.stdout!.on('data', onData);
    child.on('exit', (code) => reject(new Error(`server-everything exited (${code}): ${out}`)));
  });
  return { url: `http://127.0.0.1:${port}/mcp`, child };
}

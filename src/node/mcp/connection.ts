// One MCP server: the SDK client over stdio (a child of Forge with a scrubbed environment) or Streamable HTTP.
// Started lazily, restarted with backoff when it crashes, every request bounded by a timeout and the caller's
// AbortSignal. No 'vscode' here: the host passes a logger and the resolved spec.
import * as path from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { McpServerSpec } from '../../core/mcp/config';
import { boundedSchemaValidator } from '../../core/mcp/schema';
import type { McpToolInfo } from '../../core/mcp/tool';
import { errorText } from '../../core/error-text';

export type McpServerState = 'stopped' | 'starting' | 'running' | 'crashed' | 'error';

export interface McpLog {
  debug(message: string): void;
  info(message: string): void;
  warn(message: string): void;
}

export interface McpConnectionOptions {
  log: McpLog;
  /** The spec with its variables resolved (called at each start: secrets are asked for when first needed). */
  resolve(): Promise<McpServerSpec>;
  /** The environment a stdio server gets before its own `env` (scrubbed: no credentials of the host). */
  baseEnv(): Record<string, string>;
  /** Working directory of stdio servers without a cwd (the workspace folder). */
  cwd?: string;
  startTimeoutMs?: number;
  /** Crash restarts: base * 2^(n-1) ms, capped; after maxRestarts in a row the server waits for the next use. */
  restart?: { baseMs: number; capMs: number; maxRestarts: number };
  onChange?(): void;
  clientVersion?: string;
}

const STDERR_LINES = 20;

type Sdk = typeof import('./sdk');
let sdkModule: Sdk | undefined;

/**
 * The SDK, loaded at the first server start: the bundled extension loads dist/vendor/mcp-sdk.js next to it (kept out
 * of extension.js, which every activation parses); from source (tests via tsx) there is no such file and ./sdk is
 * used. Both paths are computed so the bundler leaves them alone.
 */
export function sdk(): Sdk {
  /* eslint-disable @typescript-eslint/no-require-imports */
  if (sdkModule) return sdkModule;
  const vendored = path.join(__dirname, 'vendor', 'mcp-sdk.js');
  try {
    sdkModule = require(vendored) as Sdk;
  } catch (err) {
    if ((err as { code?: string }).code !== 'MODULE_NOT_FOUND' || !String((err as Error).message).includes(vendored))
      throw err;
    sdkModule = require(path.join(__dirname, 'sdk')) as Sdk;
  }
  return sdkModule;
  /* eslint-enable @typescript-eslint/no-require-imports */
}

function messageOf(err: unknown): string {
  return errorText(err).replace(/\s+/g, ' ').slice(0, 400);
}

export class McpConnection {
  state: McpServerState = 'stopped';
  lastError?: string;
  private client?: Client;
  private starting?: Promise<Client>;
  private tools?: McpToolInfo[];
  private stopping = false;
  private crashes = 0;
  private restartTimer?: ReturnType<typeof setTimeout>;
  private healthyTimer?: ReturnType<typeof setTimeout>;
  private readonly stderrTail: string[] = [];
  private transportType?: McpServerSpec['type'];
  /** Bumped at every start, so a late close of an old process does not touch the new one. */
  private generation = 0;
  /** Failed starts in a row and when the last one failed: lazy starts back off (Start / Restart do not). */
  private failedStarts = 0;
  private failedAt = 0;

  constructor(
    readonly name: string,
    private readonly opts: McpConnectionOptions,
  ) {}

  get serverInfo(): { name: string; version: string } | undefined {
    return this.client?.getServerVersion();
  }

  get capabilities() {
    return this.client?.getServerCapabilities();
  }

  /** The tools of the last listing (undefined until listed). */
  get cachedTools(): McpToolInfo[] | undefined {
    return this.tools;
  }

  private setState(state: McpServerState, error?: string): void {
    this.state = state;
    this.lastError = error;
    this.opts.onChange?.();
  }

  /** Connects (once; concurrent callers share the start). */
  ensureStarted(signal?: AbortSignal): Promise<Client> {
    if (this.client && this.state === 'running') return Promise.resolve(this.client);
    const wait =
      this.state === 'error' && this.failedStarts
        ? Math.min(300_000, 5000 * 2 ** (this.failedStarts - 1)) - (Date.now() - this.failedAt)
        : 0;
    if (wait > 0 && !this.starting) {
      return Promise.reject(
        new Error(
          `MCP server "${this.name}" failed to start (${this.lastError ?? 'unknown error'}); next try in ${Math.ceil(wait / 1000)} s, or use Restart`,
        ),
      );
    }
    if (!this.starting) {
      clearTimeout(this.restartTimer);
      this.starting = this.start().finally(() => (this.starting = undefined));
    }
    if (!signal) return this.starting;
    return new Promise<Client>((resolve, reject) => {
      if (signal.aborted) return reject(signal.reason ?? new Error('aborted'));
      const onAbort = () => reject(signal.reason ?? new Error('aborted'));
      signal.addEventListener('abort', onAbort, { once: true });
      this.starting!.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
    });
  }

  private async start(): Promise<Client> {
    const generation = ++this.generation;
    this.stopping = false;
    this.setState('starting');
    const spec = await this.opts.resolve().catch((err) => {
      this.failedStarts++;
      this.failedAt = Date.now();
      this.setState('error', `configuration: ${messageOf(err)}`);
      throw new Error(`MCP server "${this.name}" did not start: ${messageOf(err)}`);
    });
    const { Client, StdioClientTransport, StreamableHTTPClientTransport, ToolListChangedNotificationSchema } = sdk();
    // Output schemas are checked by the SDK: with Forge's bounded validator (a server's regular expressions never run).
    const client = new Client(
      { name: 'forge', version: this.opts.clientVersion ?? '0.0.0' },
      { capabilities: {}, jsonSchemaValidator: boundedSchemaValidator },
    );
    client.onerror = (err) => this.opts.log.debug(`mcp ${this.name}: ${messageOf(err)}`);
    client.onclose = () => this.onClosed(generation);
    client.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
      this.tools = undefined;
      this.opts.log.info(`mcp ${this.name}: tool list changed`);
      this.opts.onChange?.();
    });
    this.transportType = spec.type;
    const transport =
      spec.type === 'stdio'
        ? this.stdioTransport(spec, StdioClientTransport)
        : new StreamableHTTPClientTransport(new URL(spec.url), { requestInit: { headers: spec.headers } });
    try {
      await client.connect(transport, { timeout: this.opts.startTimeoutMs ?? 30_000 });
    } catch (err) {
      await transport.close().catch(() => undefined);
      const tail = this.stderrTail.length ? ` (stderr: ${this.stderrTail.slice(-3).join(' | ')})` : '';
      const msg = `could not start: ${messageOf(err)}${tail}`;
      if (generation === this.generation) {
        this.failedStarts++;
        this.failedAt = Date.now();
        this.setState('error', msg);
      }
      this.opts.log.warn(`mcp ${this.name}: ${msg}`);
      throw new Error(`MCP server "${this.name}" ${msg}`, { cause: err });
    }
    if (generation !== this.generation) {
      await client.close().catch(() => undefined);
      throw new Error(`MCP server "${this.name}" was stopped while starting`);
    }
    this.client = client;
    this.tools = undefined;
    this.failedStarts = 0;
    const info = client.getServerVersion();
    this.opts.log.info(
      `mcp ${this.name}: connected (${info ? `${info.name} ${info.version}` : 'unknown server'}, ${spec.type})`,
    );
    // Running for a minute clears the crash count (a server that keeps crashing at once stops being restarted).
    clearTimeout(this.healthyTimer);
    this.healthyTimer = setTimeout(() => (this.crashes = 0), 60_000);
    this.healthyTimer.unref?.();
    this.setState('running');
    return client;
  }

  private stdioTransport(
    spec: Extract<McpServerSpec, { type: 'stdio' }>,
    Transport: typeof StdioClientTransport,
  ): StdioClientTransport {
    const transport = new Transport({
      command: spec.command,
      args: spec.args,
      env: { ...this.opts.baseEnv(), ...spec.env },
      cwd: spec.cwd ?? this.opts.cwd,
      stderr: 'pipe',
      maxBufferSize: 16 * 1024 * 1024,
    });
    this.stderrTail.length = 0;
    let partial = '';
    transport.stderr?.on('data', (chunk: Buffer | string) => {
      const lines = (partial + chunk.toString()).split('\n');
      partial = (lines.pop() ?? '').slice(-2000);
      for (const line of lines) {
        const text = line.trimEnd().slice(0, 500);
        if (!text) continue;
        this.stderrTail.push(text);
        if (this.stderrTail.length > STDERR_LINES) this.stderrTail.shift();
        this.opts.log.debug(`mcp ${this.name} stderr: ${text}`);
      }
    });
    return transport;
  }

  private onClosed(generation: number): void {
    if (generation !== this.generation) return;
    this.client = undefined;
    clearTimeout(this.healthyTimer);
    if (this.stopping) {
      this.setState('stopped');
      return;
    }
    const tail = this.stderrTail.length ? `: ${this.stderrTail.slice(-2).join(' | ')}` : '';
    this.crashes++;
    const r = this.opts.restart ?? { baseMs: 1000, capMs: 30_000, maxRestarts: 5 };
    if (this.crashes > r.maxRestarts) {
      this.setState('error', `exited ${this.crashes} times in a row${tail}; it starts again on next use or Restart`);
      this.opts.log.warn(`mcp ${this.name}: ${this.lastError}`);
      this.crashes = 0;
      return;
    }
    const delay = Math.min(r.capMs, r.baseMs * 2 ** (this.crashes - 1));
    this.setState('crashed', `exited unexpectedly${tail}; restarting in ${Math.round(delay / 100) / 10} s`);
    this.opts.log.warn(`mcp ${this.name}: ${this.lastError}`);
    this.restartTimer = setTimeout(() => void this.ensureStarted().catch(() => undefined), delay);
    this.restartTimer.unref?.();
  }

  /** tools/list (every page), cached until the server says the list changed or it restarts. */
  async listTools(signal?: AbortSignal, timeoutMs = 30_000): Promise<McpToolInfo[]> {
    if (this.tools) return this.tools;
    const client = await this.ensureStarted(signal);
    if (!client.getServerCapabilities()?.tools) return (this.tools = []);
    const out: McpToolInfo[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 50; page++) {
      const res = await client.listTools(cursor ? { cursor } : undefined, { signal, timeout: timeoutMs });
      out.push(...(res.tools as McpToolInfo[]));
      cursor = res.nextCursor;
      if (!cursor || out.length > 2000) break;
    }
    this.tools = out;
    this.opts.onChange?.();
    return out;
  }

  /** tools/call, bounded by `timeoutMs` and `signal` (the SDK sends notifications/cancelled on either). */
  async callTool(
    tool: string,
    args: Record<string, unknown>,
    signal: AbortSignal,
    timeoutMs: number,
  ): Promise<unknown> {
    const client = await this.ensureStarted(signal);
    try {
      return await client.callTool({ name: tool, arguments: args }, undefined, { signal, timeout: timeoutMs });
    } catch (err) {
      // The SDK reports an abort as a timeout: the caller's own reason (Stop) is what it must see.
      if (signal.aborted) throw signal.reason ?? err;
      // An HTTP server that went away leaves no 'close' behind: drop the client so the next use reconnects.
      if (
        this.transportType === 'http' &&
        typeof (err as { code?: unknown })?.code !== 'number' &&
        this.client === client
      ) {
        this.generation++;
        this.client = undefined;
        this.tools = undefined;
        void client.close().catch(() => undefined);
        this.setState('crashed', `connection failed: ${messageOf(err)}; reconnecting on next use`);
        this.opts.log.warn(`mcp ${this.name}: ${this.lastError}`);
      }
      throw describeCallError(err, timeoutMs);
    }
  }

  async listPrompts(signal?: AbortSignal, timeoutMs = 15_000): Promise<unknown[]> {
    const client = await this.ensureStarted(signal);
    if (!client.getServerCapabilities()?.prompts) return [];
    return (await client.listPrompts(undefined, { signal, timeout: timeoutMs })).prompts;
  }

  async getPrompt(
    name: string,
    args: Record<string, string>,
    signal?: AbortSignal,
    timeoutMs = 30_000,
  ): Promise<unknown> {
    const client = await this.ensureStarted(signal);
    return client.getPrompt({ name, arguments: args }, { signal, timeout: timeoutMs });
  }

  async listResources(signal?: AbortSignal, timeoutMs = 15_000): Promise<unknown[]> {
    const client = await this.ensureStarted(signal);
    if (!client.getServerCapabilities()?.resources) return [];
    return (await client.listResources(undefined, { signal, timeout: timeoutMs })).resources;
  }

  async readResource(uri: string, signal?: AbortSignal, timeoutMs = 30_000): Promise<unknown> {
    const client = await this.ensureStarted(signal);
    return client.readResource({ uri }, { signal, timeout: timeoutMs });
  }

  /** Stops the server (no restart until the next use). */
  async stop(): Promise<void> {
    this.stopping = true;
    this.generation++;
    clearTimeout(this.restartTimer);
    clearTimeout(this.healthyTimer);
    const client = this.client;
    this.client = undefined;
    this.tools = undefined;
    this.crashes = 0;
    this.failedStarts = 0;
    if (client) await client.close().catch(() => undefined);
    this.setState('stopped');
  }

  async restart(): Promise<void> {
    await this.stop();
    await this.ensureStarted();
  }
}

/** The SDK's errors as one clear sentence: a result that fails the protocol's schema, a timeout, a closed connection. */
function describeCallError(err: unknown, timeoutMs: number): Error {
  const issues = (err as { issues?: unknown })?.issues;
  if (Array.isArray(issues)) {
    const what = issues
      .slice(0, 3)
      .map(
        (i: { path?: unknown[]; message?: string }) =>
          `${Array.isArray(i.path) && i.path.length ? i.path.join('.') : '(result)'}: ${i.message ?? 'invalid'}`,
      )
      .join('; ');
    return new Error(`the server returned a malformed result (not the MCP tool result format: ${what})`);
  }
  const code = (err as { code?: unknown })?.code;
  if (code === -32001)
    return new Error(
      `no answer within ${Number((timeoutMs / 1000).toFixed(1))} s (timed out; the request was cancelled)`,
    );
  if (code === -32000) return new Error('the server closed the connection (it exited or crashed) before answering');
  return err instanceof Error ? err : new Error(String(err));
}

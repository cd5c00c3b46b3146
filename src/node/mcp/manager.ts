// All configured MCP servers: their connections, their tools as one ToolSource for the agent loop, and the
// prompts / resources API the slash commands and the "Attach MCP Resource" command use.
import type { McpServerSpec } from '../../core/mcp/config';
import { describeOrigin } from '../../core/mcp/config';
import { toPromptInfos, toResourceInfos, type McpPromptInfo, type McpResourceInfo } from '../../core/mcp/prompts';
import { useSchemaCompiler } from '../../core/mcp/schema';
import { createMcpTool } from '../../core/mcp/tool';
import type { Tool, ToolSource } from '../../core/tools/types';
import { McpConnection, sdk, type McpConnectionOptions, type McpLog, type McpServerState } from './connection';
import { errorText } from '../../core/error-text';

export interface McpServerStatus {
  name: string;
  source: string;
  origin: string;
  state: McpServerState | 'disabled';
  error?: string;
  /** Tool names on the server (once listed). */
  tools?: string[];
  serverInfo?: string;
}

export interface McpManagerOptions {
  log: McpLog;
  /** Resolves ${input:...}, ${env:...} and the envFile of a spec (the host asks for secrets here). */
  resolve(spec: McpServerSpec): Promise<McpServerSpec>;
  baseEnv(): Record<string, string>;
  cwd?: string;
  /** Per-call time limit (ms), read at each call. */
  callTimeoutMs(): number;
  /** Time for a server to start and list its tools at the start of a run. */
  startTimeoutMs?: number;
  autoApproved(server: string, tool: string): boolean;
  restart?: McpConnectionOptions['restart'];
  clientVersion?: string;
}

interface Entry {
  spec: McpServerSpec;
  key: string;
  connection: McpConnection;
}

export class McpManager {
  private readonly entries = new Map<string, Entry>();
  private readonly listeners = new Set<() => void>();
  /** The tools built from the last listings (rebuilt only when a listing or the time limit changed: ajv compiles once). */
  private built?: { listings: unknown[]; timeoutMs: number; tools: Tool[] };
  /** The loop's ToolSource: every enabled server's tools (servers start here, on a run's first tool listing). */
  readonly toolSource: ToolSource = { id: 'mcp', load: (signal) => this.loadTools(signal) };

  constructor(private readonly opts: McpManagerOptions) {
    // Tools are only built after a server listed them, so the SDK (and ajv with it) is loaded by then.
    useSchemaCompiler(() => sdk().Ajv);
  }

  onDidChange(listener: () => void): { dispose(): void } {
    this.listeners.add(listener);
    return { dispose: () => this.listeners.delete(listener) };
  }

  private changed(): void {
    for (const l of [...this.listeners]) {
      try {
        l();
      } catch (err) {
        this.opts.log.warn(`mcp listener failed: ${errorText(err)}`);
      }
    }
  }

  /** Applies a new configuration: removed or changed servers stop, new ones wait for their first use. */
  async configure(specs: readonly McpServerSpec[]): Promise<void> {
    const next = new Map<string, McpServerSpec>();
    for (const s of specs) if (!next.has(s.name)) next.set(s.name, s);
    const stops: Promise<void>[] = [];
    for (const [name, entry] of this.entries) {
      const spec = next.get(name);
      if (!spec || JSON.stringify(spec) !== entry.key) {
        stops.push(entry.connection.stop());
        this.entries.delete(name);
      }
    }
    for (const [name, spec] of next) {
      if (this.entries.has(name)) continue;
      const connection = new McpConnection(name, {
        log: this.opts.log,
        resolve: () => this.opts.resolve(spec),
        baseEnv: () => this.opts.baseEnv(),
        cwd: this.opts.cwd,
        startTimeoutMs: this.opts.startTimeoutMs,
        restart: this.opts.restart,
        onChange: () => this.changed(),
        clientVersion: this.opts.clientVersion,
      });
      this.entries.set(name, { spec, key: JSON.stringify(spec), connection });
    }
    await Promise.all(stops);
    this.changed();
  }

  private enabled(): Entry[] {
    return [...this.entries.values()].filter((e) => !e.spec.disabled);
  }

  connection(server: string): McpConnection | undefined {
    return this.entries.get(server)?.connection;
  }

  status(): McpServerStatus[] {
    return [...this.entries.values()].map(({ spec, connection: c }) => {
      const info = c.serverInfo;
      return {
        name: spec.name,
        source: spec.source,
        origin: describeOrigin(spec),
        state: spec.disabled ? 'disabled' : c.state,
        ...(c.lastError ? { error: c.lastError } : {}),
        ...(c.cachedTools ? { tools: c.cachedTools.map((t) => t.name) } : {}),
        ...(info ? { serverInfo: `${info.name} ${info.version}` } : {}),
      };
    });
  }

  /** Every enabled server's tools as Forge tools; a server that fails to start is logged and left out. */
  async loadTools(signal: AbortSignal): Promise<Tool[]> {
    const taken = new Set<string>();
    const listed = await Promise.all(
      this.enabled().map(async (e) => {
        try {
          const timeout = AbortSignal.timeout(this.opts.startTimeoutMs ?? 30_000);
          return { e, tools: await e.connection.listTools(AbortSignal.any([signal, timeout])) };
        } catch (err) {
          if (signal.aborted) throw err;
          this.opts.log.warn(`mcp ${e.spec.name}: tools not available for this run: ${errorText(err)}`);
          return { e, tools: [] };
        }
      }),
    );
    const timeoutMs = this.opts.callTimeoutMs();
    const prev = this.built;
    if (
      prev &&
      prev.timeoutMs === timeoutMs &&
      prev.listings.length === listed.length &&
      listed.every((l, i) => l.tools === prev.listings[i])
    )
      return prev.tools;
    const tools: Tool[] = [];
    for (const { e, tools: infos } of listed) {
      const origin = describeOrigin(e.spec);
      for (const info of infos) {
        if (!info || typeof info.name !== 'string') continue;
        const tool = createMcpTool({
          server: e.spec.name,
          origin,
          info,
          taken,
          // The loop's own limit is a little longer, so the SDK's timeout (with its cancel notification) fires first.
          timeoutMs: timeoutMs + 2000,
          call: (name, args, callSignal) => e.connection.callTool(name, args, callSignal, timeoutMs),
          autoApproved: (s, t) => this.opts.autoApproved(s, t),
          onSchemaProblem: (p) =>
            this.opts.log.warn(`mcp ${e.spec.name}/${info.name}: ${p}; arguments are only checked to be an object`),
        });
        taken.add(tool.name);
        tools.push(tool);
      }
    }
    // A server whose listing failed has [] here (a fresh array): the next run lists again.
    this.built = { listings: listed.map((l) => l.tools), timeoutMs, tools };
    return tools;
  }

  /** The prompts of every enabled server (servers start if needed, unless `runningOnly`); for slash commands. */
  async listPrompts(signal?: AbortSignal, opts: { runningOnly?: boolean } = {}): Promise<McpPromptInfo[]> {
    const lists = await Promise.all(
      this.enabled()
        .filter((e) => !opts.runningOnly || e.connection.state === 'running')
        .map((e) =>
          e.connection.listPrompts(signal).then(
            (p) => toPromptInfos(e.spec.name, p),
            (err) => {
              this.opts.log.warn(`mcp ${e.spec.name}: prompts not available: ${errorText(err)}`);
              return [];
            },
          ),
        ),
    );
    return lists.flat();
  }

  /** prompts/get; the raw result (core/mcp/prompts.ts promptResultToText turns it into a message). */
  getPrompt(server: string, name: string, args: Record<string, string>, signal?: AbortSignal): Promise<unknown> {
    const c = this.connection(server);
    if (!c) return Promise.reject(new Error(`No MCP server named "${server}"`));
    return c.getPrompt(name, args, signal);
  }

  async listResources(signal?: AbortSignal): Promise<McpResourceInfo[]> {
    const lists = await Promise.all(
      this.enabled().map((e) =>
        e.connection.listResources(signal).then(
          (r) => toResourceInfos(e.spec.name, r),
          (err) => {
            this.opts.log.warn(`mcp ${e.spec.name}: resources not available: ${errorText(err)}`);
            return [];
          },
        ),
      ),
    );
    return lists.flat();
  }

  readResource(server: string, uri: string, signal?: AbortSignal): Promise<unknown> {
    const c = this.connection(server);
    if (!c) return Promise.reject(new Error(`No MCP server named "${server}"`));
    return c.readResource(uri, signal);
  }

  async dispose(): Promise<void> {
    await Promise.all([...this.entries.values()].map((e) => e.connection.stop()));
    this.entries.clear();
    this.listeners.clear();
  }
}

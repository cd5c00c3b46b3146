// Runs one hook of any kind Forge supports: a contained command (hook-executor.ts), an http POST (http-hook.ts),
// a question to the task's model (core/hooks/prompt-hook.ts) or a tool of an MCP server that is already running.
// Each answer comes back as a HookRun, so one set of rules (core/hooks/decision.ts) reads them all.
import { runPromptHook } from '../../core/hooks/prompt-hook';
import { hookFailed, hookRun, type HookCommand, type HookExecutor, type HookRun } from '../../core/hooks/types';
import type { Model } from '../../core/model/types';
import { redactedEvent, runHttpHook } from './http-hook';
import { errorText } from '../../core/error-text';

/** The part of an MCP server connection a hook uses: only a running server is called (no start, no new consent). */
export interface McpHookServer {
  state: string;
  callTool(tool: string, args: Record<string, unknown>, signal: AbortSignal, timeoutMs: number): Promise<unknown>;
}

/** The connected servers, by name (the McpManager of the surface). */
export interface McpHookServers {
  connection(server: string): McpHookServer | undefined;
}

export interface HookRunnersOptions {
  command: HookExecutor;
  /** The task's model, for prompt hooks. */
  model?: Model;
  mcp?: () => McpHookServers | undefined;
}

/** The text of an MCP tools/call result (its text parts), and whether the server marked it an error. */
function mcpText(result: unknown): { text: string; isError: boolean } {
  const r = (result ?? {}) as { content?: unknown; isError?: unknown };
  const parts = Array.isArray(r.content) ? r.content : [];
  const text = parts
    .map((p: unknown) =>
      p && typeof p === 'object' && (p as { type?: unknown }).type === 'text'
        ? String((p as { text?: unknown }).text ?? '')
        : '',
    )
    .filter(Boolean)
    .join('\n');
  return { text: text.slice(0, 64 * 1024), isError: r.isError === true };
}

export class HookRunners implements HookExecutor {
  constructor(private readonly opts: HookRunnersOptions) {}

  run(hook: HookCommand, stdin: string, signal: AbortSignal): Promise<HookRun> {
    switch (hook.type ?? 'command') {
      case 'command':
        return this.opts.command.run(hook, stdin, signal);
      case 'http':
        return runHttpHook(hook, stdin, signal);
      case 'prompt':
        return runPromptHook(hook, stdin, this.opts.model, signal);
      case 'mcp_tool':
        return this.mcp(hook, stdin, signal);
      default:
        return Promise.resolve(hookFailed(Date.now(), `hooks of type "${hook.type}" are not supported`));
    }
  }

  private async mcp(hook: HookCommand, stdin: string, signal: AbortSignal): Promise<HookRun> {
    const started = Date.now();
    const server = this.opts.mcp?.()?.connection(hook.server ?? '');
    if (!server) return hookFailed(started, `no MCP server named "${hook.server}" is configured`);
    if (server.state !== 'running')
      return hookFailed(started, `the MCP server "${hook.server}" is not running (${server.state})`);
    // The event leaves Forge for another process: secrets are redacted as for an http hook.
    const args = hook.input ?? (JSON.parse(redactedEvent(stdin)) as Record<string, unknown>);
    try {
      const { text, isError } = mcpText(await server.callTool(hook.tool ?? '', args, signal, hook.timeoutMs));
      return isError
        ? hookRun(started, { exitCode: 1, stderr: text || 'the tool reported an error' })
        : hookRun(started, { stdout: text });
    } catch (err) {
      signal.throwIfAborted();
      return hookFailed(started, `the MCP call failed (${errorText(err)})`);
    }
  }
}

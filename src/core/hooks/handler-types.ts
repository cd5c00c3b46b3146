// The handler of a hook entry beyond `command`: `http` (POST the event to an http(s) URL), `prompt` (ask the task's
// model), `mcp_tool` (call a connected MCP server's tool). `agent` is Claude Code's too, but Forge does not run it:
// it is reported, never silently dropped. What each kind needs is checked here, once, when the file is read.
import type { HookCommand, HookEventName } from './types';

/** The parts of a handler that depend on its type, or why it cannot run. */
export type HandlerParts = Pick<
  HookCommand,
  'type' | 'command' | 'url' | 'headers' | 'allowedEnvVars' | 'prompt' | 'server' | 'tool' | 'input'
>;

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function text(v: unknown): string | undefined {
  return typeof v === 'string' && v.trim() ? v.trim() : undefined;
}

function httpParts(h: Record<string, unknown>, ev: HookEventName): HandlerParts | string {
  const raw = text(h.url);
  if (!raw) return `an http ${ev} hook has no url`;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return `an http ${ev} hook's url "${raw.slice(0, 80)}" is not a URL`;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    return `an http ${ev} hook's url must be http or https, not ${url.protocol}`;
  if (url.username || url.password) return `an http ${ev} hook's url must not carry a user name or password`;
  const headers: Record<string, string> = {};
  if (h.headers !== undefined) {
    if (!isRecord(h.headers)) return `an http ${ev} hook's "headers" is not an object`;
    for (const [k, v] of Object.entries(h.headers)) {
      if (typeof v !== 'string' || !/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/.test(k))
        return `an http ${ev} hook has a bad header "${k}"`;
      headers[k] = v;
    }
  }
  const allowed = Array.isArray(h.allowedEnvVars)
    ? h.allowedEnvVars.filter((x): x is string => typeof x === 'string')
    : [];
  return {
    type: 'http',
    command: `POST ${url.href}`,
    url: url.href,
    ...(Object.keys(headers).length ? { headers } : {}),
    ...(allowed.length ? { allowedEnvVars: allowed } : {}),
  };
}

/** The handler's type-specific parts; a string says why the handler is skipped. */
export function handlerParts(
  h: Record<string, unknown>,
  ev: HookEventName,
  commandOf: () => unknown,
): HandlerParts | string {
  const type = h.type ?? 'command';
  if (type === 'command') {
    const command = commandOf();
    if (typeof command !== 'string' || !command.trim()) return `a ${ev} hook has no command`;
    return { command };
  }
  if (type === 'http') return httpParts(h, ev);
  if (type === 'prompt') {
    const prompt = text(h.prompt);
    if (!prompt) return `a prompt ${ev} hook has no prompt`;
    return { type: 'prompt', command: `prompt: ${prompt}`, prompt };
  }
  if (type === 'mcp_tool') {
    const server = text(h.server);
    const tool = text(h.tool);
    if (!server || !tool) return `an mcp_tool ${ev} hook needs both "server" and "tool"`;
    if (h.input !== undefined && !isRecord(h.input)) return `an mcp_tool ${ev} hook's "input" is not an object`;
    return {
      type: 'mcp_tool',
      command: `mcp_tool ${server}/${tool}`,
      server,
      tool,
      ...(isRecord(h.input) ? { input: h.input } : {}),
    };
  }
  if (type === 'agent')
    return `a ${ev} hook of type "agent" is not supported by Forge (use type "prompt" for a model's judgement, or "command")`;
  return `a ${ev} hook of type "${String(type)}" is not one Forge knows (command, http, prompt, mcp_tool)`;
}

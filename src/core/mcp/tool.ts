// An MCP server's tool as a Forge Tool: namespaced name, the server's JSON Schema (checked with ajv), a labelled
// description, approval by default (the server's hints are shown, never trusted) and results mapped to text.
import type { Tool, ToolResult } from '../tools/types';
import { mcpToolName } from './names';
import { mapCallToolResult } from './results';
import { prepareInputSchema } from './schema';
import { cleanLine, describeMcpTool } from './untrusted';
import { errorText } from '../error-text';

/** A tool as tools/list describes it (only what Forge reads; everything is untrusted). */
export interface McpToolInfo {
  name: string;
  title?: string;
  description?: string;
  inputSchema?: unknown;
  annotations?: {
    title?: string;
    readOnlyHint?: boolean;
    destructiveHint?: boolean;
    idempotentHint?: boolean;
    openWorldHint?: boolean;
  };
}

interface McpToolOptions {
  server: string;
  /** Where the server runs, for the approval card ("stdio: npx foo" / "http: https://..."). */
  origin: string;
  info: McpToolInfo;
  /** Names already used (other servers, built-in tools). */
  taken?: ReadonlySet<string>;
  /** Calls the tool; resolves with the raw tools/call result, rejects on transport / protocol failure. */
  call(tool: string, args: Record<string, unknown>, signal: AbortSignal): Promise<unknown>;
  /** forge.mcp.autoApprove for this server and tool (read on every call). */
  autoApproved(server: string, tool: string): boolean;
  /** Per-call time limit (ms). */
  timeoutMs: number;
  /** Called when a schema is checked loosely (logs). */
  onSchemaProblem?(problem: string): void;
}

/** Hints a server gives about its tool, as words for the approval card and the prompt (unverified). */
function annotationHints(a: McpToolInfo['annotations']): string[] {
  if (!a || typeof a !== 'object') return [];
  const hints: string[] = [];
  if (a.readOnlyHint === true) hints.push('read-only');
  if (a.destructiveHint === true) hints.push('destructive');
  else if (a.destructiveHint === false && a.readOnlyHint !== true) hints.push('non-destructive');
  if (a.idempotentHint === true) hints.push('idempotent');
  if (a.openWorldHint === true) hints.push('open-world');
  return hints;
}

function errorMessage(err: unknown): string {
  return errorText(err).replace(/\s+/g, ' ').slice(0, 500);
}

export function createMcpTool(o: McpToolOptions): Tool & { mcp: { server: string; tool: string } } {
  const schema = prepareInputSchema(o.info.inputSchema);
  if (schema.problem) o.onSchemaProblem?.(schema.problem);
  const hints = annotationHints(o.info.annotations);
  const toolName = o.info.name;
  const shown = cleanLine(toolName, 64);
  return {
    name: mcpToolName(o.server, toolName, o.taken),
    description: describeMcpTool(o.server, o.info.description ?? o.info.title, hints),
    input: schema.zod,
    inputJsonSchema: schema.json,
    risk: 'network',
    timeoutMs: o.timeoutMs,
    mcp: { server: o.server, tool: toolName },
    async prepare(input) {
      return {
        kind: 'ready',
        policyHint: () =>
          o.autoApproved(o.server, toolName)
            ? { action: 'allow', reason: `forge.mcp.autoApprove allows ${o.server}/${toolName}` }
            : undefined,
        preview: async () => {
          const args = JSON.stringify(input, null, 2) ?? '{}';
          const hintText = hints.length
            ? `The server says it is ${hints.join(', ')} (not verified by Forge).`
            : 'The server gives no hints about what it changes.';
          const lines = [
            `MCP tool "${shown}" of server "${o.server}". ${hintText}`,
            `Arguments:\n${args.length > 4000 ? `${args.slice(0, 4000)}\n...` : args}`,
            `Server: ${o.origin}`,
          ];
          return { kind: 'generic', summary: lines.join('\n') };
        },
      };
    },
    async execute(input, ctx): Promise<ToolResult> {
      let raw: unknown;
      try {
        raw = await o.call(toolName, input as Record<string, unknown>, ctx.signal);
      } catch (err) {
        if (ctx.signal.aborted) throw err;
        return {
          isError: true,
          content: `MCP server "${o.server}" failed while running ${shown}: ${errorMessage(err)}. The call may or may not have taken effect; check before retrying.`,
          data: { errorClass: 'tool', server: o.server },
        };
      }
      return mapCallToolResult(o.server, shown, raw);
    },
  };
}

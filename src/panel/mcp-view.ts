// The MCP servers as the panel's ecosystem strip shows them. A server waiting for the user's permission to start is
// a question for the user (amber, "needs_permission"), never a red "failing" server (issue 26, item 4).
import { PERMISSION_PENDING } from '../core/mcp/permission';
import type { EcosystemView } from '../protocol/messages';

/** A server's status as the MCP manager reports it (node/mcp/manager.ts McpServerStatus). */
export interface McpServerState {
  name: string;
  state: string;
  error?: string;
  tools?: readonly string[];
}

/** The state the strip shows: the connection wraps a refused start ("configuration: not started: waiting..."). */
export function mcpPanelState(s: Pick<McpServerState, 'state' | 'error'>): string {
  return s.state === 'error' && s.error?.includes(PERMISSION_PENDING) ? 'needs_permission' : s.state;
}

/** The strip's MCP rows, within the protocol's bounds. */
export function mcpServerViews(servers: readonly McpServerState[]): EcosystemView['mcp'] {
  return servers.slice(0, 100).map((s) => ({
    name: s.name.slice(0, 200),
    state: mcpPanelState(s),
    ...(s.tools ? { tools: s.tools.length } : {}),
    ...(s.error ? { error: s.error.slice(0, 500) } : {}),
  }));
}

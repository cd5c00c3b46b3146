// MCP servers (started lazily: the SDK loads with the first server) and project rules (AGENTS.md), wired into
// every Agent; MCP prompts complete as slash commands once their server runs; web tools, saved rules and hooks too.
import type * as vscode from 'vscode';
import type { AgentDeps } from '../../core/loop/agent';
import { McpPromptCommands } from '../../core/mcp/prompt-commands';
import type { AgentExtras } from './agent-extras';
import { createAgentGuards, type AgentGuards } from './guards';
import type { Toolkit } from './toolkit';
import { setupEcosystem, type Ecosystem } from '../ecosystem';
import type { Logger } from '../logger';

export function wireEcosystem(
  context: vscode.ExtensionContext,
  toolkit: Toolkit,
  extras: AgentExtras,
  log: Logger & { show?(): void },
): Ecosystem & { guards: AgentGuards } {
  const ecosystem = setupEcosystem(context, toolkit.fs, log);
  // Web tools, saved permission rules and hooks around every Agent the ecosystem builds.
  const guards = createAgentGuards(context, toolkit, log);
  // mcp_tool hooks call the servers that are already running.
  guards.hooks.service.useMcp(() => ecosystem.mcp.manager);
  const wire = ecosystem.wire.bind(ecosystem);
  ecosystem.wire = (deps, build) => {
    // Wrapped last, so the MCP tools and everything the ecosystem adds get the rules and hooks too.
    const agent = wire(deps, (d) => build(guards.wire(recordMcpCalls(d, toolkit))));
    guards.follow(agent);
    return agent;
  };
  // Completion never starts a server: a prompt appears once its server is running.
  context.subscriptions.push(
    extras.addSlashSource(new McpPromptCommands(ecosystem.mcp)),
    ecosystem.onDidChange(() => extras.refresh()),
    guards,
  );
  return Object.assign(ecosystem, { guards });
}

/** Every MCP tool call is recorded before it starts (a crash cut it off: its outcome is unknown, and the model is told so). */
function recordMcpCalls(deps: AgentDeps, toolkit: Toolkit): AgentDeps {
  if (!deps.toolSources) return deps;
  return {
    ...deps,
    toolSources: deps.toolSources.map((source) => ({
      id: source.id,
      load: async (signal: AbortSignal) =>
        (await source.load(signal)).map((tool) => {
          const mcp = (tool as { mcp?: { server: string; tool: string } }).mcp;
          return mcp ? toolkit.recordExternal(tool, { name: mcp.tool, server: mcp.server }) : tool;
        }),
    })),
  };
}

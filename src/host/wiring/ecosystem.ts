// MCP servers (started lazily: the SDK loads with the first server) and project rules (AGENTS.md), wired into
// every Agent; MCP prompts complete as slash commands once their server runs; web tools, saved rules and hooks too.
import type * as vscode from 'vscode';
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
  const wire = ecosystem.wire.bind(ecosystem);
  ecosystem.wire = (deps, build) => {
    // Wrapped last, so the MCP tools and everything the ecosystem adds get the rules and hooks too.
    const agent = wire(deps, (d) => build(guards.wire(d)));
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

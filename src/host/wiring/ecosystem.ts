// MCP servers (started lazily: the SDK loads with the first server) and project rules (AGENTS.md), wired into
// every Agent; MCP prompts complete as slash commands once their server runs.
import type * as vscode from 'vscode';
import { McpPromptCommands } from '../../core/mcp/prompt-commands';
import type { AgentExtras } from './agent-extras';
import type { Toolkit } from './toolkit';
import { setupEcosystem, type Ecosystem } from '../ecosystem';
import type { Logger } from '../logger';

export function wireEcosystem(
  context: vscode.ExtensionContext,
  toolkit: Toolkit,
  extras: AgentExtras,
  log: Logger & { show?(): void },
): Ecosystem {
  const ecosystem = setupEcosystem(context, toolkit.fs, log);
  // Completion never starts a server: a prompt appears once its server is running.
  context.subscriptions.push(
    extras.addSlashSource(new McpPromptCommands(ecosystem.mcp)),
    ecosystem.onDidChange(() => extras.refresh()),
  );
  return ecosystem;
}

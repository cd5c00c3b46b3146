// The project's own ecosystem around the agent: MCP servers (tools for every run, prompts, resources) and the
// project rules (AGENTS.md...). activate() creates it once; every Agent the sessions build is wired through it.
import * as vscode from 'vscode';
import type { Agent, AgentDeps } from '../core/loop/agent';
import type { WorkspaceFs } from '../core/workspace/types';
import type { Logger } from './logger';
import { McpService } from './mcp/mcp-service';
import { RulesService } from './rules/rules-service';

export interface Ecosystem {
  mcp: McpService;
  rules: RulesService;
  /** Builds an Agent with the MCP tool source and the task's project rules, and follows its events. */
  wire(deps: AgentDeps, build: (deps: AgentDeps) => Agent): Agent;
  /** Fires when what the panel shows may have changed (a run started or ended, an attachment was queued or sent). */
  onDidChange(listener: () => void): vscode.Disposable;
}

export function setupEcosystem(
  context: vscode.ExtensionContext,
  fs: WorkspaceFs,
  log: Logger & { show?(): void },
): Ecosystem {
  const version = String((context.extension?.packageJSON as { version?: string } | undefined)?.version ?? '0.0.0');
  const mcp = new McpService(context.secrets, log, version, context.workspaceState);
  const rules = new RulesService(context.workspaceState, fs, log);
  context.subscriptions.push(mcp, rules);
  // Offered once the rules are read, never blocking activation.
  void rules
    .ready()
    .then(() => rules.offerOtherAgentRules())
    .catch(() => undefined);
  const changed = new vscode.EventEmitter<void>();
  context.subscriptions.push(changed);
  mcp.onAttachmentsChanged = () => changed.fire();
  return {
    mcp,
    rules,
    onDidChange: (listener) => changed.event(listener),
    wire(deps, build) {
      let taskId: string | undefined;
      const agent = build({
        ...deps,
        toolSources: [...(deps.toolSources ?? []), mcp.manager.toolSource],
        config: { ...deps.config, projectRules: () => (taskId ? rules.forTask(taskId).text() : '') },
      });
      taskId = agent.taskId;
      agent.on((e) => {
        rules.onAgentEvent(agent.taskId, e);
        if (e.type === 'run_start' || e.type === 'run_end') changed.fire();
      });
      return agent;
    },
  };
}

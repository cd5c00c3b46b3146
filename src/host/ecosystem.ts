// The project's own ecosystem around the agent: MCP servers (tools for every run, prompts, resources) and the
// project rules (AGENTS.md...). activate() creates it once; every Agent the sessions build is wired through it.
import * as vscode from 'vscode';
import type { Agent, AgentDeps } from '../core/loop/agent';
import type { WorkspaceFs } from '../core/workspace/types';
import type { Logger } from './logger';
import { McpService } from './mcp/mcp-service';
import { RulesService } from './rules/rules-service';
import { TeamFilesService } from './rules/team-files-service';
import { ConfinedReader } from '../core/safety/confined-read';

export interface Ecosystem {
  mcp: McpService;
  rules: RulesService;
  /** The team's skills and custom agents (modes, delegate_task targets), and the models of modes. */
  team: TeamFilesService;
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
  const team = new TeamFilesService(fs, new ConfinedReader(fs, { warn: (m) => log.warn(m) }), log);
  context.subscriptions.push(mcp, rules, team);
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
    team,
    onDidChange: (listener) => changed.event(listener),
    wire(deps, build) {
      let taskId: string | undefined;
      const withRules: AgentDeps = {
        ...deps,
        toolSources: [...(deps.toolSources ?? []), mcp.manager.toolSource],
        config: { ...deps.config, projectRules: () => (taskId ? rules.forTask(taskId).text() : '') },
        modelFor: (mode) => team.models.modelFor(mode),
      };
      void team.refresh();
      const agent = build(team.team.wire(withRules, () => taskId));
      taskId = agent.taskId;
      team.team.follow(agent);
      agent.on((e) => {
        rules.onAgentEvent(agent.taskId, e);
        // A run re-reads the team's files: a file the watcher missed is in the lists from here on.
        if (e.type === 'run_start') void team.refresh();
        if (e.type === 'run_start' || e.type === 'run_end') changed.fire();
        // A skill loaded: the strip marks it.
        else if (e.type === 'tool_result' && e.name === 'use_skill') changed.fire();
      });
      return agent;
    },
  };
}

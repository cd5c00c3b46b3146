// The one way both surfaces build a task's Agent and read what the user typed: the shared model and tools, the
// surface's approver, delegate_task, the mode's context, the task's project rules (nested AGENTS.md included),
// MCP tool sources, and `/name args` expanded from `.forge/commands/*.md` (and MCP prompts) before it is sent.
// A capability added here reaches the panel and `forge run` alike; each surface supplies only its settings and
// its UI ports (approvals, the environment line, standing approvals).
import { PromptFileCommands } from '../../core/commands/prompt-files';
import { SlashCommandRegistry, type SlashCommandSource } from '../../core/commands/slash';
import { Agent, type AgentDeps } from '../../core/loop/agent';
import { createDelegateTool, DELEGATE_TOOL_NAME } from '../../core/loop/delegate';
import { pathsInArgs } from '../../core/rules/project-rules';
import type { AgentSnapshot } from '../../core/tasks/snapshot';
import type { WorkspaceFs } from '../../core/workspace/types';
import { touchingRules, type SurfaceRules } from './rules';
import type { TeamFiles } from './team-files';

/**
 * The slash commands of a workspace: the built-ins, `.forge/commands/*.md`, then `extra` sources (MCP prompts;
 * custom agents and skills plug in here as sources too).
 */
export function createSlashRegistry(
  fs: WorkspaceFs,
  warn: (m: string) => void,
  extra: readonly SlashCommandSource[] = [],
): SlashCommandRegistry {
  return new SlashCommandRegistry([new PromptFileCommands(fs, warn), ...extra], warn);
}

/** What the user typed, as the model will get it. */
export type ExpandedInput =
  | { kind: 'text'; text: string }
  /** A custom command: its prompt replaces what was typed. */
  | { kind: 'prompt'; name: string; text: string }
  /** A built-in (/mode, /stop...): the surface runs it, nothing goes to the model. */
  | { kind: 'builtin'; name: string; args: string }
  | { kind: 'unknown'; message: string };

export async function expandInput(
  registry: SlashCommandRegistry,
  text: string,
  signal?: AbortSignal,
): Promise<ExpandedInput> {
  const r = await registry.resolve(text, signal);
  if (!r) return { kind: 'text', text };
  if (r.kind === 'prompt') return { kind: 'prompt', name: r.name, text: r.prompt };
  if (r.kind === 'builtin') return { kind: 'builtin', name: r.name, args: r.args.raw };
  return { kind: 'unknown', message: r.message };
}

export interface AgentParts {
  /** The task's project rules; the prompt reads them every step, nested AGENTS.md join as tools touch folders. */
  rules?: SurfaceRules;
  /** The team's skills and custom agents (use_skill, the index in the prompt, agents as modes). */
  team?: TeamFiles;
}

/**
 * An Agent with delegate_task registered (the helper gets the same tools minus delegate_task, the approver and
 * config, a copy of this conversation, and what is left of the iterations and budgets) and the task's rules.
 */
export function buildAgent(deps: AgentDeps, parts: AgentParts = {}, snapshot?: AgentSnapshot): Agent {
  let agent: Agent | undefined;
  const { rules, team } = parts;
  const config = rules
    ? { ...deps.config, projectRules: () => (agent ? rules.forTask(agent.taskId).text() : '') }
    : deps.config;
  const withTeam = team ? team.wire({ ...deps, config }, () => agent?.taskId) : { ...deps, config };
  const base: AgentDeps = { ...withTeam, tools: withTeam.tools.filter((t) => t.name !== DELEGATE_TOOL_NAME) };
  const delegateTool = createDelegateTool(base, () => agent?.history ?? []);
  // The other tools came wrapped with their hooks; delegate_task gets PreToolUse (a hook may refuse a delegation).
  const hooked = base.config?.hooks?.wrapTool?.(delegateTool) ?? delegateTool;
  const full: AgentDeps = { ...base, tools: [...base.tools, hooked as never] };
  // A nested AGENTS.md is read before the tool that names its folder runs, so the next step's prompt has it.
  const touch = (args: unknown): Promise<void> => {
    if (!rules || !agent) return Promise.resolve();
    const id = agent.taskId;
    if (rules.touch) return rules.touch(id, args);
    const task = rules.forTask(id);
    return Promise.all(pathsInArgs(args).map((p) => task.touch(p))).then(() => undefined);
  };
  if (rules) full.tools = touchingRules(full.tools, touch);
  agent = snapshot ? Agent.restore(snapshot, full) : new Agent(full);
  const built = agent;
  if (rules) built.on((e) => void rules.onAgentEvent(built.taskId, e));
  team?.follow(built);
  return built;
}

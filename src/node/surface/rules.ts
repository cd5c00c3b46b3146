// Project rules for every surface: the base rules (AGENTS.md, .forge/rules) and one TaskRules per task, where a
// folder's nested AGENTS.md joins once a tool call names a path under it. The extension re-reads the base on file
// changes (host/rules/rules-service.ts); the CLI reads it once per run.
import type { AgentEvent } from '../../core/loop/events';
import { ConfinedReader } from '../../core/safety/confined-read';
import { discoverBaseRules, pathsInArgs, TaskRules, type RuleSource } from '../../core/rules/project-rules';
import type { Tool } from '../../core/tools/types';
import type { WorkspaceFs } from '../../core/workspace/types';

/** What the agent builder needs of a surface's rules. */
export interface SurfaceRules {
  forTask(taskId: string): TaskRules;
  /** Reads the nested rules a tool call's arguments name; resolves when they are in the task's rules. */
  touch?(taskId: string, args: unknown): Promise<void>;
  /** Follows a task's events: a tool call naming a path may bring its folder's AGENTS.md in. */
  onAgentEvent(taskId: string, e: AgentEvent): void;
}

export class WorkspaceRules implements SurfaceRules {
  private base: RuleSource[] = [];
  private readonly tasks = new Map<string, TaskRules>();
  /** Every rule file is read under the read_file rule (core/safety/confined-read.ts). */
  readonly reader: ConfinedReader;

  constructor(
    fs: WorkspaceFs,
    private readonly warn: (m: string) => void,
    /** A nested rule joined a task (the extension logs it and refreshes the panel). */
    private readonly onNested: (taskId: string, rules: TaskRules) => void = () => undefined,
  ) {
    this.reader = new ConfinedReader(fs, { warn });
  }

  /** Reads the base rules again (at start, and when a rule file changed). */
  async load(opts: { importOthers?: boolean } = {}): Promise<RuleSource[]> {
    this.base = await discoverBaseRules(this.reader, { ...opts, warn: this.warn });
    return this.base;
  }

  baseSources(): readonly RuleSource[] {
    return this.base;
  }

  /** The rules of one task (created on first use; the prompt reads text() every step). */
  forTask(taskId: string): TaskRules {
    let rules = this.tasks.get(taskId);
    if (!rules) {
      rules = new TaskRules(this.reader, () => this.base, this.warn);
      this.tasks.set(taskId, rules);
      if (this.tasks.size > 50) this.tasks.delete(this.tasks.keys().next().value as string);
    }
    return rules;
  }

  hasTask(taskId: string): boolean {
    return this.tasks.has(taskId);
  }

  /** Resolves once the nested rules a call named are read, so the next step's prompt has them. */
  onAgentEvent(taskId: string, e: AgentEvent): Promise<void> {
    return e.type === 'tool_call_end' ? this.touch(taskId, e.args) : Promise.resolve();
  }

  /** Reads the AGENTS.md of the folders a tool call's arguments name (once per folder and task). */
  async touch(taskId: string, args: unknown): Promise<void> {
    const rules = this.forTask(taskId);
    const added = await Promise.all(pathsInArgs(args).map((p) => rules.touch(p).catch(() => false)));
    if (added.some(Boolean)) this.onNested(taskId, rules);
  }
}

/**
 * The tools, each reading the nested rules its call names before it runs: the rules are in the prompt of the very
 * next step (an event listener alone raced that step and lost when the tool was quick).
 */
export function touchingRules(tools: readonly Tool[], touch: (args: unknown) => Promise<void>): Tool[] {
  return tools.map((tool) => ({
    ...tool,
    execute: async (input, ctx) => {
      await touch(input).catch(() => undefined);
      return tool.execute(input, ctx);
    },
  }));
}

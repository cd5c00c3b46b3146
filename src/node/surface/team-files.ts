// The team's skills and custom agents for every surface: read from the workspace and the user's home through
// core's confined readers, each problem reported once with its reason, and wired into a task's Agent: use_skill,
// the skills and agents index in the prompt, custom agents as modes (and delegate_task targets), a skill's
// allowed-tools narrowing the run. The extension re-reads on file changes (host/rules/team-files-service.ts);
// the CLI reads once per run.
import type { Agent, AgentDeps } from '../../core/loop/agent';
import { customAgentIndexText, discoverCustomAgents } from '../../core/modes/custom-agents';
import type { ModeDefinition } from '../../core/modes';
import type { ConfinedReader } from '../../core/safety/confined-read';
import { discoverSkills, skillIndexText, type Skill } from '../../core/skills/skills';
import type { AgentFileProblem } from '../../core/skills/sources';
import { createUseSkillTool, SkillSession, USE_SKILL } from '../../core/skills/use-skill';
import type { Tool } from '../../core/tools/types';
import type { WorkspaceFs } from '../../core/workspace/types';

export interface TeamFilesOptions {
  /** The user's home (os.homedir()); undefined reads the workspace only. */
  homeDir?: string;
  /** The workspace's confined reader (its .forgeignore and secret patterns). */
  reader?: ConfinedReader;
  /** Where a file that cannot be used is named, once per distinct problem. */
  warn: (message: string) => void;
}

export class TeamFiles {
  skills: Skill[] = [];
  agents: ModeDefinition[] = [];
  problems: AgentFileProblem[] = [];
  private readonly reported = new Set<string>();
  private readonly sessions = new Map<string, SkillSession>();
  private index = '';

  constructor(
    private readonly fs: WorkspaceFs,
    private readonly opts: TeamFilesOptions,
  ) {}

  /** (Re-)reads every skill and agent file; a problem already reported is not reported again. */
  async load(): Promise<void> {
    const o = {
      ...(this.opts.homeDir ? { homeDir: this.opts.homeDir } : {}),
      ...(this.opts.reader ? { reader: this.opts.reader } : {}),
    };
    const [skills, agents] = await Promise.all([discoverSkills(this.fs, o), discoverCustomAgents(this.fs, o)]);
    this.skills = skills.skills;
    this.agents = agents.agents;
    this.problems = [...skills.problems, ...agents.problems];
    for (const p of this.problems) {
      const key = `${p.display}\u0000${p.reason}`;
      if (this.reported.has(key)) continue;
      this.reported.add(key);
      this.opts.warn(`${p.display} is not used: ${p.reason}`);
    }
    this.index = [skillIndexText(this.skills), customAgentIndexText(this.agents)].filter(Boolean).join('\n\n');
  }

  /** One task's skills (created on first use). */
  session(taskId: string): SkillSession {
    let s = this.sessions.get(taskId);
    if (!s) {
      s = new SkillSession(() => this.skills);
      this.sessions.set(taskId, s);
      if (this.sessions.size > 50) this.sessions.delete(this.sessions.keys().next().value as string);
    }
    return s;
  }

  /** The skills a task loaded, in the order of the list. */
  loadedBy(taskId: string | undefined): string[] {
    const s = taskId ? this.sessions.get(taskId) : undefined;
    return s ? this.skills.filter((k) => s.loaded.has(k.name)).map((k) => k.name) : [];
  }

  /**
   * `deps` with the team's files: use_skill (when there are skills), the index in the prompt, custom agents as
   * modes and a skill's narrowing. `taskId` names the task once its Agent exists; `follow` then subscribes it.
   */
  wire(deps: AgentDeps, taskId: () => string | undefined): AgentDeps {
    const session = () => {
      const id = taskId();
      return id ? this.session(id) : undefined;
    };
    const lazy = new SkillSession(() => this.skills);
    const tools = deps.tools.filter((t) => t.name !== USE_SKILL);
    if (this.skills.length) {
      // The task's session exists once the Agent does; the tool looks it up on each call.
      const tool = createUseSkillTool(lazy);
      const forTask: typeof tool = {
        ...tool,
        execute: (input, ctx) => createUseSkillTool(session() ?? lazy).execute(input, ctx),
      };
      tools.push(forTask as unknown as Tool);
    }
    return {
      ...deps,
      tools,
      config: {
        ...deps.config,
        customModes: () => this.agents,
        skillIndex: () => this.index,
        narrowTools: () => session()?.narrow(),
      },
    };
  }

  /** Follows a task's events (a new run ends the narrowing of the skills of the run before). */
  follow(agent: Agent): void {
    agent.on((e) => this.session(agent.taskId).onEvent(e));
  }
}

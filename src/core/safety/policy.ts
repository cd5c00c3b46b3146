// Approval policy: per risk class allow/ask/deny, per-tool overrides, and "allow for this task".
import type { PolicyAction } from './approval';
import type { RiskClass, SensitiveCall, Tool } from '../tools/types';

export interface PolicyConfig {
  byRisk: Record<RiskClass, PolicyAction>;
  /** Per-tool overrides, by tool name. */
  byTool?: Record<string, PolicyAction>;
}

export const DEFAULT_POLICY: PolicyConfig = {
  byRisk: { read: 'allow', write: 'ask', execute: 'ask', network: 'ask' },
};

export class Policy {
  private readonly config: PolicyConfig;

  constructor(config: Partial<PolicyConfig> = {}) {
    this.config = {
      byRisk: { ...DEFAULT_POLICY.byRisk, ...config.byRisk },
      byTool: { ...config.byTool },
    };
  }

  /**
   * What to do with a call. A tool the user allowed for this task skips the question, but an explicit
   * per-tool 'deny' always wins (the user's standing rule beats a one-off click).
   */
  decide(tool: Pick<Tool, 'name' | 'risk' | 'policy' | 'taskGrant'>, allowedForTask: ReadonlySet<string> = new Set(), input?: unknown): PolicyAction {
    return this.evaluate(tool, allowedForTask, input).action;
  }

  /**
   * decide(), with the tool's own reason when its rule (e.g. a parsed command line) is what denied the call.
   * `sensitive` (a control-plane edit, from Tool.sensitive): a deny still denies, anything else asks, whatever the
   * risk-class policy, a per-tool 'allow', the tool's own rule or a grant for this task says.
   */
  evaluate(
    tool: Pick<Tool, 'name' | 'risk' | 'policy' | 'taskGrant'>,
    allowedForTask: ReadonlySet<string> = new Set(),
    input?: unknown,
    sensitive?: SensitiveCall,
  ): { action: PolicyAction; reason?: string; by: PolicyDecider } {
    const override = this.config.byTool?.[tool.name];
    const byRisk = this.config.byRisk[tool.risk] ?? 'ask';
    if (override === 'deny') return { action: 'deny', by: 'rule' };
    const grants = grantsFor(tool.name, allowedForTask);
    const hint = input !== undefined ? tool.policy?.(input, grants) : undefined;
    if (hint?.action === 'deny') return { action: 'deny', reason: hint.reason, by: 'rule' };
    if (sensitive) {
      if (byRisk === 'deny') return { action: 'deny', by: 'policy' };
      return { action: 'ask', reason: sensitive.notice, by: 'rule' };
    }
    // Tools with their own grants (taskGrant) are allowed through policy() above, never wholesale by name.
    if (!tool.taskGrant && allowedForTask.has(tool.name)) return { action: 'allow', by: 'task_grant' };
    if (hint?.action === 'allow' && byRisk !== 'deny') {
      // Allowed by the tool's own rule, or only thanks to a grant for this task (asked again without the grants).
      const byGrant = grants.size > 0 && tool.policy?.(input, new Set())?.action !== 'allow';
      return { action: 'allow', by: byGrant ? 'task_grant' : 'rule' };
    }
    return { action: override ?? byRisk, by: override ? 'rule' : 'policy' };
  }
}

/** What made a policy decision: a rule (per-tool setting, the tool's own rule), a grant for this task, or the risk-class policy. */
export type PolicyDecider = 'rule' | 'task_grant' | 'policy';

/** How a task grant is stored in the task's allowed set: the tool name, or `tool:key` for a tool's own grants. */
export function taskGrantEntries(tool: Pick<Tool, 'name' | 'taskGrant'>, input: unknown): string[] {
  if (!tool.taskGrant) return [tool.name];
  return tool.taskGrant(input).map((key) => `${tool.name}:${key}`);
}

function grantsFor(toolName: string, allowed: ReadonlySet<string>): Set<string> {
  const prefix = `${toolName}:`;
  const out = new Set<string>();
  for (const entry of allowed) if (entry.startsWith(prefix)) out.add(entry.slice(prefix.length));
  return out;
}

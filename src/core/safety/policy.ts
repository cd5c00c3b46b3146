// Approval policy: per risk class allow/ask/deny, per-tool overrides, and "allow for this task".
import type { PolicyAction } from './approval';
import type { RiskClass, SensitiveCall, Tool } from '../tools/types';

/**
 * What a surface lets run without a question, by risk class, and where that comes from ('forge.autoApprove.write',
 * '--approve commands-sandboxed'): the extension's settings and the CLI's flags, read on every call.
 */
export type StandingApprovals = Partial<Record<Exclude<RiskClass, 'read'> | 'mcp', string>>;

export interface PolicyConfig {
  byRisk: Record<RiskClass, PolicyAction>;
  /** Per-tool overrides, by tool name. */
  byTool?: Record<string, PolicyAction>;
  /** Standing approvals: a call the risk class would ask about is allowed (never a deny, a sensitive call or MCP). */
  standing?: () => StandingApprovals;
}

const DEFAULT_POLICY: PolicyConfig = {
  byRisk: { read: 'allow', write: 'ask', execute: 'ask', network: 'ask' },
};

export class Policy {
  private readonly config: PolicyConfig;

  constructor(config: Partial<PolicyConfig> = {}) {
    this.config = {
      byRisk: { ...DEFAULT_POLICY.byRisk, ...config.byRisk },
      byTool: { ...config.byTool },
      ...(config.standing ? { standing: config.standing } : {}),
    };
  }

  /**
   * What to do with a call. A tool the user allowed for this task skips the question, but an explicit
   * per-tool 'deny' always wins (the user's standing rule beats a one-off click).
   */
  decide(
    tool: Pick<Tool, 'name' | 'risk' | 'policy' | 'taskGrant'>,
    allowedForTask: ReadonlySet<string> = new Set(),
    input?: unknown,
  ): PolicyAction {
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
    const action = override ?? byRisk;
    // MCP tools never ride on a risk class's standing approval: only on one for MCP (the CLI's --approve network);
    // the extension's forge.mcp.autoApprove allows per server and tool, through their policy() above.
    if (action === 'ask' && tool.risk !== 'read') {
      const standing = this.config.standing?.();
      const source = tool.name.startsWith('mcp__') ? standing?.mcp : standing?.[tool.risk];
      if (source) return { action: 'allow', reason: source, by: 'setting' };
    }
    return { action, by: override ? 'rule' : 'policy' };
  }
}

/**
 * What made a policy decision: a rule (per-tool setting, the tool's own rule), a grant for this task, a standing
 * approval (a setting or a flag), or the risk-class policy.
 */
type PolicyDecider = 'rule' | 'task_grant' | 'setting' | 'policy';

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

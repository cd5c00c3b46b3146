// The one allow / ask / deny decision: per risk class, per-tool overrides, the tool's prepared call, task grants
// and standing approvals (settings, --approve flags). Hosts only route the questions it asks.
import type { PolicyAction } from './approval';
import type { PreparedCall, RiskClass } from '../tools/types';

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
   * Allow / ask / deny for one prepared call, for the extension and the CLI alike (both run it through the loop).
   * In order: a per-tool 'deny'; the tool's own 'deny'; a sensitive call (asked, unless its risk class is denied);
   * a grant for this task; the tool's own 'allow'; the per-tool or risk-class policy; a standing approval.
   * `grants`: the task's allowed set, from the task's state alone.
   */
  decide(call: CallToDecide, grants: ReadonlySet<string> = new Set()): PolicyDecision {
    const { name, risk } = call;
    const ready = call.prepared ?? {};
    const override = this.config.byTool?.[name];
    const byRisk = this.config.byRisk[risk] ?? 'ask';
    if (override === 'deny') return { action: 'deny', by: 'rule' };
    const granted = grantsFor(name, grants);
    const hint = ready.policyHint?.(granted);
    if (hint?.action === 'deny') return { action: 'deny', reason: hint.reason, by: 'rule' };
    if (ready.sensitive) {
      if (byRisk === 'deny') return { action: 'deny', by: 'policy' };
      return { action: 'ask', reason: ready.sensitive.notice, by: 'rule' };
    }
    // Tools with their own grant keys are allowed through policyHint above, never wholesale by name.
    if (!ready.grantKeys && grants.has(name)) return { action: 'allow', by: 'task_grant' };
    if (hint?.action === 'allow' && byRisk !== 'deny') {
      // Allowed by the tool's own rule, or only thanks to a grant for this task (asked again without the grants).
      const byGrant = granted.size > 0 && ready.policyHint?.(new Set())?.action !== 'allow';
      return { action: 'allow', by: byGrant ? 'task_grant' : 'rule' };
    }
    const action = override ?? byRisk;
    // MCP tools never ride on a risk class's standing approval: only on one for MCP (the CLI's --approve network);
    // the extension's forge.mcp.autoApprove allows per server and tool, through their policyHint above.
    if (action === 'ask' && risk !== 'read') {
      const standing = this.config.standing?.();
      const source = name.startsWith('mcp__') ? standing?.mcp : standing?.[risk];
      if (source) return { action: 'allow', reason: source, by: 'setting' };
    }
    return { action, by: override ? 'rule' : 'policy' };
  }
}

/** A call as the policy sees it: the tool's name and risk class, and what its prepare() said (absent: nothing). */
export interface CallToDecide {
  name: string;
  risk: RiskClass;
  prepared?: Omit<Extract<PreparedCall, { kind: 'ready' }>, 'kind'>;
}

export interface PolicyDecision {
  action: PolicyAction;
  /** The tool's rule, the sensitive call's notice or the standing approval that decided. */
  reason?: string;
  by: PolicyDecider;
}

/**
 * What made a policy decision: a rule (per-tool setting, the tool's own rule), a grant for this task, a standing
 * approval (a setting or a flag), or the risk-class policy.
 */
type PolicyDecider = 'rule' | 'task_grant' | 'setting' | 'policy';

/** How a task grant is stored in the task's allowed set: the tool name, or `tool:key` for a tool's own grant keys. */
export function taskGrantEntries(call: Pick<CallToDecide, 'name' | 'prepared'>): string[] {
  const keys = call.prepared?.grantKeys;
  if (!keys) return [call.name];
  return keys.map((key) => `${call.name}:${key}`);
}

function grantsFor(toolName: string, allowed: ReadonlySet<string>): Set<string> {
  const prefix = `${toolName}:`;
  const out = new Set<string>();
  for (const entry of allowed) if (entry.startsWith(prefix)) out.add(entry.slice(prefix.length));
  return out;
}

// Approval policy: per risk class allow/ask/deny, per-tool overrides, and "allow for this task".
import type { PolicyAction } from './approval';
import type { RiskClass, Tool } from '../tools/types';

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
  decide(tool: Pick<Tool, 'name' | 'risk' | 'policy'>, allowedForTask: ReadonlySet<string> = new Set(), input?: unknown): PolicyAction {
    const override = this.config.byTool?.[tool.name];
    const byRisk = this.config.byRisk[tool.risk] ?? 'ask';
    if (override === 'deny') return 'deny';
    const hint = input !== undefined ? tool.policy?.(input)?.action : undefined;
    if (hint === 'deny') return 'deny';
    if (allowedForTask.has(tool.name)) return 'allow';
    if (hint === 'allow' && byRisk !== 'deny') return 'allow';
    return override ?? byRisk;
  }
}

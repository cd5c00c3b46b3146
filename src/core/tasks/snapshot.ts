// The agent's whole state as plain JSON: what dump() returns and restore() accepts.
import type { ChatMessage, ToolCall, Usage } from '../model/types';
import type { ModeName } from '../modes';
import type { ApprovalRequest } from '../safety/approval';
import type { TokenAnchor } from '../context/tokens';
import type { Plan } from '../tools/builtin/update-plan';

/** An approval the user has not answered yet, with the step's calls still to run (the pending one first). */
export interface PendingApproval {
  request: ApprovalRequest;
  calls: ToolCall[];
  iteration: number;
}

export interface AgentSnapshot {
  version: 1;
  taskId: string;
  mode: ModeName;
  history: ChatMessage[];
  /** Iterations used since the last user message, and the current limit. */
  iterations: number;
  maxIterations: number;
  /** Tool names the user allowed "for this task". */
  allowedForTask: string[];
  /** Totals for the whole task (all runs). */
  usage: Usage;
  costUsd?: number;
  anchor?: TokenAnchor;
  memoryText?: string;
  lastUserMessage?: string;
  pending?: PendingApproval;
  counters: { runs: number; approvals: number };
  /** The live plan (update_plan, or edited by the user). */
  plan?: Plan;
  /** The user edited the plan since the model's last update_plan: the next step's context says so. */
  planEditedByUser?: boolean;
  /** Things that happened outside the conversation (files restored to a checkpoint): told with the next user message. */
  notes?: string[];
}

export const SNAPSHOT_VERSION = 1;

/** Cheap structural check so a corrupt or foreign file fails loudly instead of half-restoring. */
export function assertSnapshot(value: unknown): asserts value is AgentSnapshot {
  const s = value as Partial<AgentSnapshot> | null;
  if (!s || typeof s !== 'object') throw new Error('Invalid agent snapshot: not an object');
  if (s.version !== SNAPSHOT_VERSION) throw new Error(`Unsupported agent snapshot version: ${String(s.version)}`);
  if (typeof s.taskId !== 'string' || !Array.isArray(s.history) || typeof s.iterations !== 'number') {
    throw new Error('Invalid agent snapshot: missing taskId, history or iterations');
  }
}

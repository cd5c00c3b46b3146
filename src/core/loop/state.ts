// The agent's mutable state, shared by the Agent facade and the run that is executing.
import type { ChatMessage, Usage } from '../model/types';
import type { ModeName } from '../modes';
import type { TokenAnchor } from '../context/tokens';
import type { AgentSnapshot, PendingApproval } from '../tasks/snapshot';
import { SNAPSHOT_VERSION } from '../tasks/snapshot';
import { ZERO_USAGE } from './usage';

export interface AgentState {
  taskId: string;
  mode: ModeName;
  history: ChatMessage[];
  iterations: number;
  maxIterations: number;
  allowedForTask: Set<string>;
  usage: Usage;
  costUsd?: number;
  anchor?: TokenAnchor;
  memoryText?: string;
  lastUserMessage?: string;
  pending?: PendingApproval;
  counters: { runs: number; approvals: number };
  /** Paths/commands seen over the task, to ground compaction summaries. Not snapshotted (derivable). */
  facts: { read: Set<string>; edited: Set<string>; commands: string[] };
}

export function initialState(taskId: string, mode: ModeName, maxIterations: number, priced: boolean): AgentState {
  return {
    taskId,
    mode,
    history: [],
    iterations: 0,
    maxIterations,
    allowedForTask: new Set(),
    usage: { ...ZERO_USAGE },
    costUsd: priced ? 0 : undefined,
    counters: { runs: 0, approvals: 0 },
    facts: { read: new Set(), edited: new Set(), commands: [] },
  };
}

export function toSnapshot(s: AgentState): AgentSnapshot {
  return structuredClone({
    version: SNAPSHOT_VERSION,
    taskId: s.taskId,
    mode: s.mode,
    history: s.history,
    iterations: s.iterations,
    maxIterations: s.maxIterations,
    allowedForTask: [...s.allowedForTask],
    usage: s.usage,
    costUsd: s.costUsd,
    anchor: s.anchor,
    memoryText: s.memoryText,
    lastUserMessage: s.lastUserMessage,
    pending: s.pending,
    counters: s.counters,
  }) as AgentSnapshot;
}

export function fromSnapshot(snap: AgentSnapshot): AgentState {
  const copy = structuredClone(snap);
  return {
    taskId: copy.taskId,
    mode: copy.mode,
    history: copy.history,
    iterations: copy.iterations,
    maxIterations: copy.maxIterations,
    allowedForTask: new Set(copy.allowedForTask),
    usage: copy.usage,
    costUsd: copy.costUsd,
    anchor: copy.anchor,
    memoryText: copy.memoryText,
    lastUserMessage: copy.lastUserMessage,
    pending: copy.pending,
    counters: copy.counters ?? { runs: 0, approvals: 0 },
    facts: { read: new Set(), edited: new Set(), commands: [] },
  };
}

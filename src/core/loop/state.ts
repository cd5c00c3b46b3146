// The agent's mutable state, shared by the Agent facade and the run that is executing.
import type { ModeName } from '../modes';
import type { AgentSnapshot } from '../tasks/snapshot';
import { SNAPSHOT_VERSION } from '../tasks/snapshot';
import { ZERO_USAGE } from './usage';

/** The snapshot's fields in working form (a Set for task-scoped grants), plus what is derivable and not saved. */
export type AgentState = Omit<AgentSnapshot, 'version' | 'allowedForTask'> & {
  allowedForTask: Set<string>;
  /** Paths/commands seen over the task, to ground compaction summaries. Not snapshotted (derivable). */
  facts: { read: Set<string>; edited: Set<string>; commands: string[] };
  /** The mode's gathered context for the current user message (not snapshotted: gathered again per message). */
  modeContextText?: string;
};

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
  const { allowedForTask, facts: _derived, modeContextText: _gathered, ...saved } = s;
  return structuredClone({ ...saved, version: SNAPSHOT_VERSION, allowedForTask: [...allowedForTask] });
}

export function fromSnapshot(snap: AgentSnapshot): AgentState {
  const { version: _version, allowedForTask, ...saved } = structuredClone(snap);
  return {
    ...saved,
    allowedForTask: new Set(allowedForTask),
    counters: saved.counters ?? { runs: 0, approvals: 0 },
    facts: { read: new Set(), edited: new Set(), commands: [] },
  };
}

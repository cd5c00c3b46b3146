// What a run needs (ports, registry, policy, config) and what starts it: shared by run.ts and its helpers
// (reflection, perceive), kept apart so neither imports the other.
import type { MemoryPort } from '../memory/port';
import type { Model } from '../model/types';
import type { Approver } from '../safety/approval';
import type { Policy } from '../safety/policy';
import type { ToolRegistry } from '../tools/registry';
import type { ToolSource } from '../tools/types';
import type { AgentConfig, Clock } from './config';
import type { AgentEvent } from './events';
import type { OutputStore } from '../context/output-store';
import type { SteerInbox } from './steering';

export interface RunDeps {
  model: Model;
  summarizer: Model;
  approver: Approver;
  memory?: MemoryPort;
  clock: Clock;
  outputStore: OutputStore;
  registry: ToolRegistry;
  policy: Policy;
  config: AgentConfig;
  log(message: string): void;
  /** Dynamic tools (MCP), loaded at the start of each run. */
  toolSources?: ToolSource[];
  /** The model a mode or custom agent runs on (forge.modeModels, an agent's `model:`); undefined = `model`. */
  modelFor?: (mode: string) => Model | undefined;
}

export interface RunOptions {
  runId: string;
  kind: 'send' | 'continue' | 'resume';
  userMessage: string;
  signal: AbortSignal;
  emit(event: AgentEvent): void;
  /** The send's user turn id (run_start carries it). */
  turnId?: string;
  /** Messages the user typed while this run works, delivered at step boundaries. */
  inbox?: SteerInbox;
}

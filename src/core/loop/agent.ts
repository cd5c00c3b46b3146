// The Agent facade: owns state and listeners, starts runs (one at a time), stop, dump/restore.
import { closeDanglingToolCalls } from '../context/history';
import { createReadOutputTool, InMemoryOutputStore, type OutputStore } from '../context/output-store';
import type { MemoryPort } from '../memory/port';
import type { ChatMessage, Model } from '../model/types';
import { getMode, type ModeName } from '../modes';
import type { Approver } from '../safety/approval';
import { Policy } from '../safety/policy';
import { assertSnapshot, type AgentSnapshot } from '../tasks/snapshot';
import { loopControlTools } from '../tools/loop-control';
import { ToolRegistry } from '../tools/registry';
import type { Tool, ToolSource } from '../tools/types';
import { resolveConfig, systemClock, type AgentConfig, type Clock } from './config';
import type { AgentEvent, AgentEventListener, RunReport } from './events';
import { CONTINUE_NUDGE, isPriced, Run, type RunDeps } from './run';
import { fromSnapshot, initialState, toSnapshot, type AgentState } from './state';

export interface AgentDeps {
  model: Model;
  tools: Tool[];
  approver: Approver;
  config?: Partial<AgentConfig>;
  memory?: MemoryPort;
  clock?: Clock;
  /** Model for compaction summaries and reflection (defaults to `model`). */
  summarizer?: Model;
  taskId?: string;
  /** Keeps full tool outputs for paging; in-memory by default. */
  outputStore?: OutputStore;
  /** Diagnostics sink (defaults to nothing). */
  log?: (message: string) => void;
  /** Tools loaded at the start of every run (MCP servers), swapped into the registry. */
  toolSources?: ToolSource[];
}

let taskCounter = 0;
function newTaskId(): string {
  return `task-${Date.now().toString(36)}-${(++taskCounter).toString(36)}`;
}

export class Agent {
  private state: AgentState;
  private readonly listeners = new Set<AgentEventListener>();
  private readonly runDeps: RunDeps;
  private readonly config: AgentConfig;
  private controller?: AbortController;
  private current?: Promise<RunReport>;

  constructor(deps: AgentDeps) {
    this.config = resolveConfig(deps.config);
    const outputStore = deps.outputStore ?? new InMemoryOutputStore();
    const registry = new ToolRegistry(deps.tools);
    for (const tool of loopControlTools) if (!registry.has(tool.name)) registry.register(tool);
    if (!registry.has('read_output')) registry.register(createReadOutputTool(outputStore, this.config.toolOutputCapChars) as unknown as Tool);
    this.runDeps = {
      model: deps.model,
      summarizer: deps.summarizer ?? deps.model,
      approver: deps.approver,
      memory: deps.memory,
      clock: deps.clock ?? systemClock,
      outputStore,
      registry,
      policy: new Policy(this.config.policy),
      config: this.config,
      log: deps.log ?? (() => undefined),
      toolSources: deps.toolSources ?? [],
    };
    this.state = initialState(deps.taskId ?? newTaskId(), this.config.mode, this.limitFor(this.config.mode), isPriced(this.config.price, deps.model.info));
  }

  /** Subscribes to every event; returns the unsubscribe function. */
  on(listener: AgentEventListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  get mode(): ModeName {
    return this.state.mode;
  }

  /** Takes effect from the next iteration; the limit of the new mode applies from the next user message. */
  setMode(mode: ModeName): void {
    getMode(mode); // throws on an unknown name
    this.state.mode = mode;
  }

  get history(): readonly ChatMessage[] {
    return this.state.history;
  }

  get running(): boolean {
    return this.current !== undefined;
  }

  get taskId(): string {
    return this.state.taskId;
  }

  /** The tool registry (includes loop-control tools and read_output). */
  get tools(): ToolRegistry {
    return this.runDeps.registry;
  }

  /** Adds the user message and runs until a termination. Resolves with the report; provider/tool faults never reject. */
  send(userMessage: string): Promise<RunReport> {
    this.assertIdle();
    this.state.history.push({ role: 'user', content: userMessage });
    this.state.lastUserMessage = userMessage;
    this.state.iterations = 0;
    this.state.maxIterations = this.limitFor(this.state.mode);
    return this.start('send', userMessage);
  }

  /**
   * Continues the same conversation after max_iterations / stagnation / breaker / stopped.
   * `extraIterations` raises the limit; without it the limit is extended by the mode's default only when it was reached.
   */
  continueRun(extraIterations?: number): Promise<RunReport> {
    this.assertIdle();
    if (extraIterations !== undefined) this.state.maxIterations = Math.max(this.state.maxIterations, this.state.iterations) + extraIterations;
    else if (this.state.iterations >= this.state.maxIterations) this.state.maxIterations += this.limitFor(this.state.mode);
    closeDanglingToolCalls(this.state.history);
    const last = this.state.history[this.state.history.length - 1];
    if (last?.role === 'assistant') this.state.history.push({ role: 'user', content: CONTINUE_NUDGE });
    return this.start('continue', this.state.lastUserMessage ?? '');
  }

  /** Aborts the current run; it ends with reason 'stopped' promptly even if a tool or the model ignores the signal. */
  stop(): void {
    this.controller?.abort();
  }

  /** JSON-serialisable state, including a pending approval (safe to call while a run waits for one). */
  dump(): AgentSnapshot {
    return toSnapshot(this.state);
  }

  static restore(snapshot: AgentSnapshot, deps: AgentDeps): Agent {
    assertSnapshot(snapshot);
    const agent = new Agent({ ...deps, taskId: snapshot.taskId });
    agent.state = fromSnapshot(snapshot);
    if (!agent.state.pending) {
      closeDanglingToolCalls(agent.state.history, 'Interrupted: Forge was reloaded before this tool call finished.');
    }
    return agent;
  }

  /** After restore(): asks the pending approval again and continues the run. undefined when nothing is pending. */
  resumePending(): Promise<RunReport | undefined> {
    if (!this.state.pending) return Promise.resolve(undefined);
    this.assertIdle();
    return this.start('resume', this.state.lastUserMessage ?? '');
  }

  private limitFor(mode: ModeName): number {
    return this.config.maxIterations ?? getMode(mode).maxIterations;
  }

  private assertIdle(): void {
    if (this.current) throw new Error('Forge is already running a task; stop it or wait for it to finish.');
  }

  private emit(event: AgentEvent): void {
    for (const listener of [...this.listeners]) {
      try {
        listener(event);
      } catch (err) {
        this.runDeps.log(`event listener failed on ${event.type}: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
  }

  private start(kind: 'send' | 'continue' | 'resume', userMessage: string): Promise<RunReport> {
    const controller = new AbortController();
    this.controller = controller;
    const runId = `${this.state.taskId}-run-${++this.state.counters.runs}`;
    const run = new Run(this.state, this.runDeps, { runId, kind, userMessage, signal: controller.signal, emit: (e) => this.emit(e) });
    const promise = run.execute().finally(() => {
      if (this.controller === controller) this.controller = undefined;
      this.current = undefined;
    });
    this.current = promise;
    return promise;
  }
}

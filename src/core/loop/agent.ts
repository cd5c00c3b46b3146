// The Agent facade: owns state and listeners, starts runs (one at a time), stop, dump/restore.
import { compactHistory } from '../context/compaction';
import { closeDanglingToolCalls, turnStarts } from '../context/history';
import { estimateMessagesTokens } from '../context/tokens';
import { createReadOutputTool, InMemoryOutputStore, type OutputStore } from '../context/output-store';
import type { MemoryPort } from '../memory/port';
import type { ChatMessage, ImagePart, Model } from '../model/types';
import { findMode, getMode, type ModeName } from '../modes';
import type { Approver } from '../safety/approval';
import { Policy } from '../safety/policy';
import { assertSnapshot, type AgentSnapshot } from '../tasks/snapshot';
import { normalizePlan, updatePlanTool, type Plan } from '../tools/builtin/update-plan';
import { loopControlTools } from '../tools/loop-control';
import { ToolRegistry } from '../tools/registry';
import type { Tool, ToolSource } from '../tools/types';
import { resolveConfig, systemClock, type AgentConfig, type Clock } from './config';
import { agentContextUsage } from './context-usage';
import type { ContextUsage } from '../context/usage-report';
import type { AgentEvent, AgentEventListener, RunReport } from './events';
import { CONTINUE_NUDGE, isPriced, Run, type RunDeps } from './run';
import { meteredModel } from './spend';
import { fromSnapshot, initialState, toSnapshot, type AgentState } from './state';
import { SteerInbox, type SteerMessage } from './steering';
import { addCost, addUsage } from './usage';
import { errorText } from '../error-text';

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
  /** The model a mode or custom agent runs on; undefined = `model`. Sub-agents inherit it. */
  modelFor?: (mode: string) => Model | undefined;
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
  private compacting = false;
  /** What the user typed while the run works (steering), delivered at its next step boundary. */
  private readonly inbox = new SteerInbox();
  private steerCount = 0;

  constructor(deps: AgentDeps) {
    this.config = resolveConfig(deps.config);
    const outputStore = deps.outputStore ?? new InMemoryOutputStore();
    const registry = new ToolRegistry(deps.tools);
    for (const tool of loopControlTools) if (!registry.has(tool.name)) registry.register(tool);
    if (!registry.has(updatePlanTool.name)) registry.register(updatePlanTool as unknown as Tool);
    if (!registry.has('read_output'))
      registry.register(createReadOutputTool(outputStore, this.config.toolOutputCapChars) as unknown as Tool);
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
      ...(deps.modelFor ? { modelFor: deps.modelFor } : {}),
    };
    this.state = initialState(
      deps.taskId ?? newTaskId(),
      this.config.mode,
      this.limitFor(this.config.mode),
      isPriced(this.config.price, deps.model.info),
    );
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
    getMode(mode, this.config.customModes?.()); // throws on an unknown name
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
  send(userMessage: string, images?: readonly ImagePart[]): Promise<RunReport> {
    this.assertIdle();
    const notes = this.state.notes?.length ? `${this.state.notes.join('\n')}\n\n` : '';
    this.state.notes = undefined;
    const turnId = `${this.state.taskId}-turn-${this.state.counters.runs + 1}`;
    this.state.history.push({ role: 'user', content: notes + userMessage, turnId });
    const sent = this.state.history[this.state.history.length - 1];
    if (images?.length && sent.role === 'user') sent.images = [...images];
    this.state.lastUserMessage = userMessage;
    this.state.iterations = 0;
    this.state.maxIterations = this.limitFor(this.state.mode);
    return this.start('send', userMessage, turnId);
  }

  /**
   * Continues the same conversation after max_iterations / stagnation / breaker / stopped.
   * `extraIterations` raises the limit; without it the limit is extended by the mode's default only when it was reached.
   */
  continueRun(extraIterations?: number): Promise<RunReport> {
    this.assertIdle();
    if (extraIterations !== undefined)
      this.state.maxIterations = Math.max(this.state.maxIterations, this.state.iterations) + extraIterations;
    else if (this.state.iterations >= this.state.maxIterations)
      this.state.maxIterations += this.limitFor(this.state.mode);
    closeDanglingToolCalls(this.state.history);
    const last = this.state.history[this.state.history.length - 1];
    if (last?.role === 'assistant') this.state.history.push({ role: 'user', content: CONTINUE_NUDGE });
    return this.start('continue', this.state.lastUserMessage ?? '');
  }

  /** The task's live plan (a copy), if any. */
  get plan(): Plan | undefined {
    return this.state.plan && structuredClone(this.state.plan);
  }

  /**
   * The user edited the plan (in the panel): validated, stored, and shown to the model in its next step's context
   * with a note that the user changed it. Allowed while a run is in flight (it applies from the next step). Throws
   * a readable error on an invalid plan.
   */
  setPlan(input: unknown): Plan {
    const plan = normalizePlan(input, 'user', this.runDeps.clock.now());
    this.state.plan = plan;
    this.state.planEditedByUser = true;
    this.emit({ type: 'plan_updated', runId: '', plan: structuredClone(plan) });
    return structuredClone(plan);
  }

  /**
   * Rewinds the conversation to the end of the step that made `toolCallId` (the assistant turn with that call and
   * its results stay; everything after goes). Only when idle. Returns how many messages were dropped, or undefined
   * when the call is not in the history (compacted away, or unknown).
   */
  rewindToToolCall(toolCallId: string): number | undefined {
    this.assertIdle();
    const h = this.state.history;
    const at = h.findIndex((m) => m.role === 'assistant' && m.toolCalls?.some((c) => c.id === toolCallId));
    if (at < 0) return undefined;
    let end = at + 1;
    while (end < h.length && h[end].role === 'tool') end++;
    const dropped = h.length - end;
    h.splice(end);
    this.state.pending = undefined;
    this.state.iterations = 0;
    return dropped;
  }

  /**
   * The user's words for the run in flight, delivered at its next step boundary without stopping it. Returns the
   * message's turn id, or undefined when no run is in flight (send it instead).
   */
  steer(text: string, images?: ImagePart[]): string | undefined {
    if (!this.current || !text.trim()) return undefined;
    // Unique in the history too: a restored Agent counts again from 1 within the same run number.
    let turnId: string;
    do turnId = `${this.state.taskId}-steer-${this.state.counters.runs}-${++this.steerCount}`;
    while (this.state.history.some((m) => m.role === 'user' && m.turnId === turnId));
    this.inbox.push({ turnId, text, ...(images?.length ? { images } : {}) });
    return turnId;
  }

  /** Steering messages the last run ended without delivering (it stopped, asked or failed first), oldest first. */
  takeUndelivered(): SteerMessage[] {
    return this.running ? [] : this.inbox.take();
  }

  /**
   * Edit and resend: the conversation goes back to just before the user message `turnId` (it and everything after
   * it go). Only when idle. Returns the index it was at and the tool calls made from it on (their edits are the
   * files to restore), or undefined when the message is no longer in the history (compacted into a summary).
   */
  rewindToTurn(turnId: string): { dropped: number; toolCallIds: string[] } | undefined {
    this.assertIdle();
    const h = this.state.history;
    const at = h.findIndex((m) => m.role === 'user' && m.turnId === turnId);
    if (at < 0) return undefined;
    const removed = h.splice(at);
    this.state.pending = undefined;
    this.state.iterations = 0;
    const toolCallIds = removed.flatMap((m) => (m.role === 'assistant' ? (m.toolCalls ?? []).map((c) => c.id) : []));
    return { dropped: removed.length, toolCallIds };
  }

  /** Tells the model, with the next user message, of something that happened outside the conversation. */
  addNote(text: string): void {
    (this.state.notes ??= []).push(`[Forge] ${text}`);
  }

  /** Aborts the current run; it ends with reason 'stopped' promptly even if a tool or the model ignores the signal. */
  stop(): void {
    this.controller?.abort();
  }

  /**
   * Compacts the conversation now (the /compact command): the task and the latest user message with what followed
   * stay, the middle becomes a structured summary. Its usage is booked on the task. undefined when there is too
   * little to compact.
   */
  async compact(
    signal: AbortSignal = new AbortController().signal,
  ): Promise<{ beforeTokens: number; afterTokens: number; summary: string } | undefined> {
    this.assertIdle();
    this.compacting = true;
    const runId = `${this.state.taskId}-compact`;
    this.emit({ type: 'compacting', runId, phase: 'begin', auto: false });
    try {
      const { config } = this.runDeps;
      const model = meteredModel(this.runDeps.summarizer, (usage, info) => {
        this.state.usage = addUsage(this.state.usage, usage);
        this.state.costUsd = addCost(this.state.costUsd, config.price ? config.price(usage, info) : undefined);
      });
      closeDanglingToolCalls(this.state.history);
      const beforeTokens = estimateMessagesTokens(this.state.history);
      // Everything from the latest user message on stays as it is.
      const history = this.state.history;
      let lastUser = history.length - 1;
      while (lastUser > 0 && history[lastUser].role !== 'user') lastUser--;
      const keepRecentTurns = Math.max(1, turnStarts(history).filter((i) => i >= lastUser).length);
      const result = await compactHistory(history, { model, signal, keepRecentTurns });
      if (!result) return undefined;
      this.state.history.splice(0, this.state.history.length, ...result.history);
      this.state.anchor = undefined;
      const out = { beforeTokens, afterTokens: estimateMessagesTokens(this.state.history), summary: result.summary };
      this.emit({ type: 'compaction', runId, ...out });
      return out;
    } finally {
      this.compacting = false;
      this.emit({ type: 'compacting', runId, phase: 'end', auto: false });
    }
  }

  /** What fills the model's window now (the /context view): the next step's request, part by part. */
  contextUsage(): ContextUsage {
    return agentContextUsage(this.state, this.runDeps);
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
    return this.config.maxIterations ?? findMode(mode, this.config.customModes?.())?.maxIterations ?? 25;
  }

  private assertIdle(): void {
    if (this.current) throw new Error('Forge is already running a task; stop it or wait for it to finish.');
    if (this.compacting) throw new Error('Forge is compacting this conversation; send again in a moment.');
  }

  private emit(event: AgentEvent): void {
    for (const listener of [...this.listeners]) {
      try {
        listener(event);
      } catch (err) {
        this.runDeps.log(`event listener failed on ${event.type}: ${errorText(err)}`);
      }
    }
  }

  private start(kind: 'send' | 'continue' | 'resume', userMessage: string, turnId?: string): Promise<RunReport> {
    const controller = new AbortController();
    this.controller = controller;
    const runId = `${this.state.taskId}-run-${++this.state.counters.runs}`;
    const run = new Run(this.state, this.runDeps, {
      runId,
      kind,
      userMessage,
      signal: controller.signal,
      emit: (e) => this.emit(e),
      turnId,
      inbox: this.inbox,
    });
    const promise = run.execute().finally(() => {
      if (this.controller === controller) this.controller = undefined;
      this.current = undefined;
    });
    this.current = promise;
    return promise;
  }
}

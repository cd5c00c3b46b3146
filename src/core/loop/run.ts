// One run: from a user message (or continue/resume) to a termination. Perceive -> reason -> act -> learn.
import { compactHistory } from '../context/compaction';
import { closeDanglingToolCalls, danglingToolCalls } from '../context/history';
import type { OutputStore } from '../context/output-store';
import { buildSystemLayers } from '../context/prompt';
import { contextTokens } from '../context/tokens';
import { memoryBudget } from '../memory/budget';
import type { MemoryPort } from '../memory/port';
import { ModelError } from '../model/errors';
import type { Model, ModelRequest, ToolSpec } from '../model/types';
import { getMode, isToolAllowedInMode } from '../modes';
import type { Approver } from '../safety/approval';
import type { Policy } from '../safety/policy';
import type { ToolRegistry } from '../tools/registry';
import { isAbort, raceAbort, RunAbortedError } from './abort';
import type { AgentConfig, Clock } from './config';
import { RunDeadline, TIME_BUDGET_RESULT } from './deadline';
import type { AgentEvent, RunReport, StepReport, TerminationReason } from './events';
import { partialOf, runModelStep } from './model-step';
import { RunMonitors } from './monitors';
import { Reflections } from './reflection';
import { StagnationDetector } from './stagnation';
import type { AgentState } from './state';
import { runToolCalls, type CallOutcome, type ToolRunContext } from './tool-runner';
import { addCost, addUsage, ZERO_USAGE } from './usage';

export const TEXT_ONLY_REMINDER =
  '[Forge] Your last reply did not call a tool. Continue the task with a tool call, or call task_completion if it is done, ' +
  'ask_question if you need the user, or converse to simply reply.';
export const CONTINUE_NUDGE = '[Forge] Continue the task from where you left off.';

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
}

export interface RunOptions {
  runId: string;
  kind: 'send' | 'continue' | 'resume';
  userMessage: string;
  signal: AbortSignal;
  emit(event: AgentEvent): void;
}

interface Ending {
  reason: TerminationReason;
  detail: string;
}

export class Run {
  private readonly started: number;
  private readonly steps: StepReport[] = [];
  private usage = { ...ZERO_USAGE };
  private cost: number | undefined;
  private readonly monitors: RunMonitors;
  private readonly stagnation: StagnationDetector;
  private stagnationWarning?: string;
  private remindedLastStep = false;
  private budgetWarned = false;
  private readonly reflections: Reflections;
  /** The user's stop and the wall-time deadline in one signal: all in-flight work gets `this.signal`. */
  private readonly deadline: RunDeadline;

  constructor(private readonly state: AgentState, private readonly deps: RunDeps, private readonly opts: RunOptions) {
    this.started = deps.clock.now();
    this.cost = deps.config.price ? 0 : undefined;
    this.monitors = new RunMonitors(deps.config);
    this.stagnation = new StagnationDetector(deps.config.stagnation);
    this.reflections = new Reflections(deps, opts, () => this.state.history);
    this.deadline = new RunDeadline(opts.signal, deps.clock, this.started, deps.config.maxWallTimeMs);
  }

  private get signal(): AbortSignal {
    return this.deadline.signal;
  }

  private emit(event: AgentEvent): void {
    this.opts.emit(event);
  }

  async execute(): Promise<RunReport> {
    const { runId } = this.opts;
    this.emit({ type: 'run_start', runId, taskId: this.state.taskId, mode: this.state.mode, maxIterations: this.state.maxIterations, userMessage: this.opts.userMessage });
    let ending: Ending;
    try {
      if (this.opts.kind === 'send') await this.recallMemory();
      ending = (this.opts.kind === 'resume' ? await this.resumePending() : undefined) ?? (await this.loop());
    } catch (err) {
      if (isAbort(err, this.signal)) ending = this.deadline.expired ? this.timeUp(danglingToolCalls(this.state.history).length) : { reason: 'stopped', detail: 'Stopped by the user. Continue to resume the task.' };
      else {
        this.deps.log(`run ${runId} crashed: ${err instanceof Error ? err.stack : String(err)}`);
        ending = { reason: 'error', detail: `Internal error: ${err instanceof Error ? err.message : String(err)}. Continue to retry.` };
      }
    }
    this.deadline.dispose();
    this.state.pending = undefined;
    closeDanglingToolCalls(this.state.history, this.deadline.expired ? TIME_BUDGET_RESULT : undefined);
    const report = this.report(ending);
    if (ending.reason !== 'stopped') await this.reflections.atRunEnd(report);
    this.emit({ type: 'run_end', runId, report });
    return report;
  }

  private report(ending: Ending): RunReport {
    return {
      runId: this.opts.runId,
      taskId: this.state.taskId,
      reason: ending.reason,
      detail: ending.detail,
      iterations: this.state.iterations,
      steps: this.steps,
      usage: this.usage,
      costUsd: this.cost,
      elapsedMs: this.deps.clock.now() - this.started,
    };
  }

  /** The deadline passed while work was in flight (between steps, budgetCheck() trips first). */
  private timeUp(unfinishedCalls: number): Ending {
    const max = this.deps.config.maxWallTimeMs ?? 0;
    const elapsed = this.deps.clock.now() - this.started;
    const calls = unfinishedCalls ? ` ${unfinishedCalls} unfinished tool call${unfinishedCalls > 1 ? 's were' : ' was'} cut off.` : '';
    return {
      reason: 'breaker',
      detail: `Time budget reached: ran ${Math.round(elapsed / 1000)} s of ${Math.round(max / 1000)} s allowed; cut off while ${this.deadline.interrupted}.${calls} Continue to keep going.`,
    };
  }

  private async recallMemory(): Promise<void> {
    const memory = this.deps.memory;
    if (!memory) return;
    const window = this.contextWindow();
    // The perceive-time context (memories / conversation / environment) gets a tenth of the window, at most 8k
    // tokens, split 60 / 30 / 10; memories take their 60%.
    const perceiveBudget = Math.min(Math.floor(window * 0.1), 8000);
    const budget = this.deps.config.memoryTokenBudget ?? memoryBudget(perceiveBudget, 0).memory;
    try {
      const recalled = await this.deadline.during('memory', 'recalling memories', () => raceAbort(memory.recall(this.opts.userMessage, budget), this.signal));
      this.state.memoryText = recalled.promptText;
      if (recalled.items.length) {
        this.emit({ type: 'memory_recalled', runId: this.opts.runId, memories: recalled.items.map((m) => ({ id: m.id, content: m.content, type: m.type })) });
      }
    } catch (err) {
      if (isAbort(err, this.signal)) throw err;
      this.emit({ type: 'warning', runId: this.opts.runId, kind: 'other', message: `Memory recall failed: ${err instanceof Error ? err.message : String(err)}` });
    }
  }

  private contextWindow(): number {
    return this.deps.config.contextWindow ?? this.deps.model.info.contextWindow;
  }

  private toolSpecs(): ToolSpec[] {
    const mode = getMode(this.state.mode);
    return this.deps.registry.specs((t) => isToolAllowedInMode(mode, t));
  }

  private toolRunContext(iteration: number): ToolRunContext {
    return {
      runId: this.opts.runId,
      taskId: this.state.taskId,
      signal: this.signal,
      clock: this.deps.clock,
      config: this.deps.config,
      registry: this.deps.registry,
      policy: this.deps.policy,
      approver: this.deps.approver,
      outputStore: this.deps.outputStore,
      mode: getMode(this.state.mode),
      allowedForTask: this.state.allowedForTask,
      history: this.state.history,
      iteration,
      emit: (e) => this.emit(e),
      nextApprovalId: () => `${this.state.taskId}-approval-${++this.state.counters.approvals}`,
      setPending: (p) => (this.state.pending = p),
      track: (id, what) => this.deadline.track(`tool:${id}`, what),
    };
  }

  /** After restore(): re-ask the pending approval, run the rest of that step, then carry on. */
  private async resumePending(): Promise<Ending | undefined> {
    const pending = this.state.pending;
    if (!pending) return undefined;
    const step: StepReport = { iteration: pending.iteration, latencyMs: 0, toolCalls: [] };
    const t0 = this.deps.clock.now();
    const outcomes = await runToolCalls(this.toolRunContext(pending.iteration), pending.calls, pending.request);
    step.latencyMs = this.deps.clock.now() - t0;
    return this.afterTools(step, outcomes);
  }

  private async loop(): Promise<Ending> {
    while (true) {
      const ending = await this.iterate();
      if (ending) return ending;
    }
  }

  private budgetCheck(): Ending | undefined {
    const elapsed = this.deps.clock.now() - this.started;
    const trip = this.monitors.checkBudgets(elapsed, this.cost);
    if (trip) return trip;
    const max = this.deps.config.maxCostUsd;
    if (!this.budgetWarned && max !== undefined && this.cost !== undefined && this.cost >= max * 0.8) {
      this.budgetWarned = true;
      this.emit({ type: 'warning', runId: this.opts.runId, kind: 'budget', message: `Cost $${this.cost.toFixed(4)} is at 80% of the $${max} budget.` });
    }
    return undefined;
  }

  private async iterate(): Promise<Ending | undefined> {
    const { runId } = this.opts;
    const signal = this.signal;
    if (signal.aborted) throw new RunAbortedError();
    const budget = this.budgetCheck();
    if (budget) return budget;
    if (this.state.iterations >= this.state.maxIterations) {
      return { reason: 'max_iterations', detail: `Reached the limit of ${this.state.maxIterations} iterations. Continue to extend the limit.` };
    }
    const iteration = ++this.state.iterations;
    const mode = getMode(this.state.mode);
    const tools = this.toolSpecs();
    const system = () =>
      buildSystemLayers({
        mode,
        memoryText: this.state.memoryText,
        iteration,
        maxIterations: this.state.maxIterations,
        warnRatio: this.deps.config.iterationWarningRatio,
        stagnationWarning: this.stagnationWarning,
        environment: typeof this.deps.config.environment === 'function' ? this.deps.config.environment() : this.deps.config.environment,
      });
    await this.maybeCompact(system(), tools);
    if (iteration === Math.ceil(this.state.maxIterations * this.deps.config.iterationWarningRatio)) {
      this.emit({ type: 'warning', runId, kind: 'iteration_limit', message: `Iteration ${iteration} of ${this.state.maxIterations}: the model was asked to wrap up.` });
    }
    const request: ModelRequest = {
      system: system(),
      messages: [...this.state.history],
      tools,
      maxOutputTokens: this.deps.config.maxOutputTokens,
      temperature: this.deps.config.temperature,
      thinkingBudgetTokens: this.deps.config.thinkingBudgetTokens,
      signal,
    };
    this.emit({ type: 'step_start', runId, iteration, maxIterations: this.state.maxIterations });
    const t0 = this.deps.clock.now();
    const stepReport: StepReport = { iteration, latencyMs: 0, toolCalls: [] };
    let step;
    try {
      step = await this.deadline.during('model', `waiting for the model's reply (step ${iteration})`, () =>
        runModelStep(this.deps.model, request, { runId, emit: (e) => this.emit(e), signal, clock: this.deps.clock, retry: this.deps.config.modelRetry }),
      );
    } catch (err) {
      stepReport.latencyMs = this.deps.clock.now() - t0;
      if (isAbort(err, signal)) {
        // Keep what the model already said (text only: half a tool call cannot be replayed).
        const partial = partialOf(err);
        const by = this.deadline.expired ? 'the time budget' : 'the user';
        if (partial?.text.trim()) this.state.history.push({ role: 'assistant', content: `${partial.text}\n[interrupted by ${by}]` });
        stepReport.error = 'stopped';
        this.endStep(stepReport);
        throw err;
      }
      const me = err instanceof ModelError ? err : new ModelError('bad_request', String(err));
      stepReport.error = `${me.kind}: ${me.message}`;
      this.endStep(stepReport);
      return { reason: 'error', detail: `Model error (${me.kind}${me.status ? ` ${me.status}` : ''}): ${me.message}\n${me.advice}` };
    }
    stepReport.latencyMs = this.deps.clock.now() - t0;
    stepReport.finishReason = step.finishReason;
    this.recordUsage(stepReport, step.usage, request.messages.length);

    this.state.history.push({
      role: 'assistant',
      content: step.text,
      ...(step.thinking.length ? { thinking: step.thinking } : {}),
      ...(step.toolCalls.length ? { toolCalls: step.toolCalls.map(({ id, name, args, rawArgs }) => ({ id, name, args, rawArgs })) } : {}),
    });

    if (step.toolCalls.length === 0) {
      if (!this.remindedLastStep) {
        this.remindedLastStep = true;
        this.state.history.push({ role: 'user', content: TEXT_ONLY_REMINDER });
        this.endStep(stepReport);
        return undefined;
      }
      this.endStep(stepReport);
      return { reason: 'converse', detail: step.text };
    }
    this.remindedLastStep = false;
    const outcomes = await runToolCalls(this.toolRunContext(iteration), step.toolCalls);
    return this.afterTools(stepReport, outcomes);
  }

  private recordUsage(stepReport: StepReport, usage: StepReport['usage'], messageCount: number): void {
    if (!usage) return;
    stepReport.usage = usage;
    const price = this.deps.config.price;
    stepReport.costUsd = price?.(usage);
    this.usage = addUsage(this.usage, usage);
    this.cost = addCost(this.cost, price ? stepReport.costUsd : undefined);
    this.state.usage = addUsage(this.state.usage, usage);
    this.state.costUsd = addCost(this.state.costUsd, price ? stepReport.costUsd : undefined);
    if (usage.inputTokens > 0) this.state.anchor = { inputTokens: usage.inputTokens, messageCount };
  }

  private endStep(step: StepReport): void {
    this.steps.push(step);
    const { runId } = this.opts;
    this.emit({ type: 'step_end', runId, step });
    const tools = this.toolSpecs();
    this.emit({
      type: 'iteration',
      runId,
      iteration: step.iteration,
      maxIterations: this.state.maxIterations,
      usage: this.usage,
      costUsd: this.cost,
      elapsedMs: this.deps.clock.now() - this.started,
      contextTokens: contextTokens(this.state.anchor, this.state.history, { system: [], tools }),
      contextWindow: this.contextWindow(),
    });
  }

  private afterTools(step: StepReport, outcomes: CallOutcome[]): Ending | undefined {
    step.toolCalls = outcomes.map((o) => o.report);
    this.endStep(step);
    for (const o of outcomes) {
      this.monitors.recordCall(o.kind, o.call.name, o.result.content);
      const effects = o.result.effects;
      if (effects) {
        effects.read?.forEach((p) => this.state.facts.read.add(p));
        effects.edited?.forEach((p) => this.state.facts.edited.add(p));
        if (effects.command) this.state.facts.commands.push(effects.command);
      }
      if (o.kind === 'error') this.reflections.onToolError();
    }
    const control = outcomes.find((o) => o.loopControl)?.loopControl;
    if (control) return { reason: control.kind, detail: control.text };

    const trip = this.monitors.checkCalls();
    if (trip) return trip;

    this.stagnation.observeIteration(
      outcomes.map((o) => ({
        name: o.call.name,
        args: o.input ?? o.call.args,
        isError: !!o.result.isError,
        content: o.result.content,
        effects: o.result.effects,
        ran: o.kind === 'ok' || o.kind === 'error',
      })),
    );
    const stuck = this.stagnation.detect();
    if (!stuck) {
      this.stagnationWarning = undefined;
      return undefined;
    }
    if (this.stagnationWarning) {
      return { reason: 'stagnation', detail: `Forge seems stuck: ${stuck}. What was tried:\n${this.stagnation.summary()}\nGive guidance, then continue.` };
    }
    this.stagnationWarning = `Warning: you appear to be stuck (${stuck}). Change your approach: re-read the error, try a different tool or arguments, or call ask_question to get help from the user.`;
    this.emit({ type: 'warning', runId: this.opts.runId, kind: 'stagnation', message: `Possible stagnation: ${stuck}.` });
    return undefined;
  }

  private async maybeCompact(system: ReturnType<typeof buildSystemLayers>, tools: ToolSpec[]): Promise<void> {
    const window = this.contextWindow();
    const before = contextTokens(this.state.anchor, this.state.history, { system, tools });
    if (before < window * this.deps.config.compactAt) return;
    const facts = this.state.facts;
    const factText = [
      facts.read.size ? `Files read: ${[...facts.read].join(', ')}` : '',
      facts.edited.size ? `Files edited: ${[...facts.edited].join(', ')}` : '',
      facts.commands.length ? `Commands run: ${facts.commands.slice(-20).join(' ; ')}` : '',
    ].filter(Boolean).join('\n');
    try {
      const result = await this.deadline.during('compaction', 'compacting the context', () =>
        compactHistory(this.state.history, { model: this.deps.summarizer, signal: this.signal, keepRecentTurns: this.deps.config.keepRecentTurns, facts: factText }),
      );
      if (!result) return;
      this.state.history.splice(0, this.state.history.length, ...result.history);
      this.state.anchor = undefined;
      if (result.usage) {
        this.usage = addUsage(this.usage, result.usage);
        this.state.usage = addUsage(this.state.usage, result.usage);
        const c = this.deps.config.price?.(result.usage);
        this.cost = addCost(this.cost, this.deps.config.price ? c : undefined);
        this.state.costUsd = addCost(this.state.costUsd, this.deps.config.price ? c : undefined);
      }
      const after = contextTokens(undefined, this.state.history, { system, tools });
      this.emit({ type: 'compaction', runId: this.opts.runId, beforeTokens: before, afterTokens: after, summary: result.summary });
    } catch (err) {
      if (isAbort(err, this.signal)) throw err;
      this.emit({ type: 'warning', runId: this.opts.runId, kind: 'other', message: `Context compaction failed: ${err instanceof Error ? err.message : String(err)}` });
    }
  }
}

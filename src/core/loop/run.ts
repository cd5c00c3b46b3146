// One run: from a user message (or continue/resume) to a termination. Perceive -> reason -> act -> learn.
import { closeDanglingToolCalls, danglingToolCalls } from '../context/history';
import { modelAdvice } from './surface';
import { contextTokens, estimateTextTokens } from '../context/tokens';
import { isProviderOutage, ModelError } from '../model/errors';
import type { Model, ModelInfo, ModelRequest, ToolSpec } from '../model/types';
import { findMode, isToolAllowedInMode, MODES, narrowMode, type ModeDefinition } from '../modes';
import { UPDATE_PLAN, type Plan } from '../tools/builtin/update-plan';
import { firePromptHooks } from '../hooks/run-hooks';
import { isAbort, RunAbortedError } from './abort';
import type { AgentConfig } from './config';
import { RunDeadline, TIME_BUDGET_RESULT } from './deadline';
import type { AgentEvent, RunReport, StepReport, TerminationReason } from './events';
import { partialOf, runModelStep, type StepOutput } from './model-step';
import { RunMonitors } from './monitors';
import { Reflections } from './reflection';
import { StagnationDetector } from './stagnation';
import type { AgentState } from './state';
import type { RunDeps, RunOptions } from './run-deps';
import { maybeCompact } from './maybe-compact';
import { gatherModeContext, loadToolSources, recallMemory, type PerceiveScope } from './perceive';
import { RunSpend } from './run-spend';
import { meteredModel, type SpendSource } from './spend';
import { stepSystem } from './step-system';
import { runToolCalls, type CallOutcome, type ToolRunContext } from './tool-runner';
import { ZERO_USAGE } from './usage';
import { runTotals } from './run-totals';
import { ACT_NUDGE, announcesAction } from './narration';
import { deliverSteers, steerKeepsGoing } from './steering';
import { errorText } from '../error-text';

export const TEXT_ONLY_REMINDER =
  '[Forge] Your last reply did not call a tool. Continue the task with a tool call, or call task_completion if it is done, ' +
  'ask_question if you need the user, or converse to simply reply.';
export const CONTINUE_NUDGE = '[Forge] Continue the task from where you left off.';

export type { RunDeps, RunOptions } from './run-deps';

/** Tools that hand control back rather than act: a mode with only these has nothing to nudge towards. */
const LOOP_CONTROL = new Set(['task_completion', 'ask_question', 'converse', 'read_output', 'update_plan']);

interface Ending {
  reason: TerminationReason;
  detail: string;
}

const modelId = (info: ModelInfo) => `${info.provider}:${info.model}`;

/** true when `price` knows the model's price (a free model's 0 included). */
export function isPriced(price: AgentConfig['price'], info: ModelInfo): boolean {
  return price?.(ZERO_USAGE, info) !== undefined;
}

export class Run {
  private readonly started: number;
  private readonly steps: StepReport[] = [];
  /** Everything the run spent (steps, compaction, reflection, sub-agents): the report's and the budgets' numbers. */
  private readonly spend: RunSpend;
  /** The model in use: the primary, or the fallback after the primary kept failing. */
  private model: Model;
  private fallback?: RunReport['fallback'];
  /** Compaction and reflection go through this, so their usage lands in `spend`. */
  private readonly summarizer: Model;
  private readonly monitors: RunMonitors;
  private readonly stagnation: StagnationDetector;
  private stagnationWarning?: string;
  private remindedLastStep = false;
  /** The model was nudged to act on what it announced (at most once per run). */
  private nudgedToAct = false;
  /** A tool was called in this run: from then on a text-only reply is a lapse (reminded), not an answer. */
  private calledTools = false;
  private readonly reflections: Reflections;
  /** The user's stop and the wall-time deadline in one signal: all in-flight work gets `this.signal`. */
  private readonly deadline: RunDeadline;

  constructor(
    private readonly state: AgentState,
    private readonly deps: RunDeps,
    private readonly opts: RunOptions,
  ) {
    this.started = deps.clock.now();
    // A mode or custom agent may run on its own model (priced at its own price).
    this.model = deps.modelFor?.(state.mode) ?? deps.model;
    const priced = isPriced(deps.config.price, this.model.info);
    this.spend = new RunSpend(priced, state, deps.config, opts.runId, (e) => this.emit(e));
    // A task that has spent nothing yet takes the price as it is now (the model may have been set up since).
    if (
      priced &&
      this.state.costUsd === undefined &&
      this.state.usage.inputTokens + this.state.usage.outputTokens === 0
    )
      this.state.costUsd = 0;
    this.monitors = new RunMonitors(deps.config);
    this.stagnation = new StagnationDetector(deps.config.stagnation);
    // The summarizer follows the run onto the fallback when it is the run's own model.
    const summarizerOf = () => (deps.summarizer === deps.model ? this.model : deps.summarizer);
    const metered = (source: SpendSource): Model => {
      const inner = {
        get info() {
          return summarizerOf().info;
        },
        stream: (r: ModelRequest) => summarizerOf().stream(r),
      };
      return meteredModel(inner, (usage, info) => this.spend.record(source, usage, info));
    };
    this.summarizer = metered('compaction');
    this.reflections = new Reflections(
      { ...deps, summarizer: metered('reflection') },
      opts,
      () => this.state.history,
      () => this.spend.overBudget(),
    );
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
    this.emit({
      type: 'run_start',
      runId,
      taskId: this.state.taskId,
      mode: this.state.mode,
      maxIterations: this.state.maxIterations,
      userMessage: this.opts.userMessage,
      ...(this.opts.turnId ? { turnId: this.opts.turnId } : {}),
    });
    let ending: Ending;
    try {
      if (this.opts.kind === 'send') {
        await recallMemory(this.perceiveScope());
        await gatherModeContext(this.perceiveScope());
      }
      await loadToolSources(this.perceiveScope());
      ending =
        (await this.promptHooks()) ??
        (this.opts.kind === 'resume' ? await this.resumePending() : undefined) ??
        (await this.loop());
    } catch (err) {
      if (isAbort(err, this.signal))
        ending = this.deadline.expired
          ? this.timeUp(danglingToolCalls(this.state.history).length)
          : { reason: 'stopped', detail: 'Stopped by the user. Continue to resume the task.' };
      else {
        this.deps.log(`run ${runId} crashed: ${err instanceof Error ? err.stack : String(err)}`);
        ending = {
          reason: 'error',
          detail: `Internal error: ${errorText(err)}. Continue to retry.`,
        };
      }
    }
    this.deadline.dispose();
    this.state.pending = undefined;
    closeDanglingToolCalls(this.state.history, this.deadline.expired ? TIME_BUDGET_RESULT : undefined);
    const report = this.report(ending);
    if (ending.reason !== 'stopped') {
      const over = this.spend.overBudget();
      if (over) this.deps.log(`run ${runId}: no run-end reflection, ${over}`);
      else {
        await this.reflections.atRunEnd(report);
        // The reflection's own spend belongs to this run (same report object: the reflection was handed it).
        const { usage, costUsd, spend } = this.report(ending);
        Object.assign(report, { usage, costUsd, spend });
      }
    }
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
      usage: { ...this.spend.usage },
      costUsd: this.spend.costUsd,
      spend: this.spend.breakdown(),
      ...(this.fallback ? { fallback: this.fallback } : {}),
      elapsedMs: this.deps.clock.now() - this.started,
      totals: runTotals(this.steps),
    };
  }

  /** The deadline passed while work was in flight (between steps, budgetCheck() trips first). */
  private timeUp(unfinishedCalls: number): Ending {
    const max = this.deps.config.maxWallTimeMs ?? 0;
    const elapsed = this.deps.clock.now() - this.started;
    const calls = unfinishedCalls
      ? ` ${unfinishedCalls} unfinished tool call${unfinishedCalls > 1 ? 's were' : ' was'} cut off.`
      : '';
    return {
      reason: 'breaker',
      detail: `Time budget reached: ran ${Math.round(elapsed / 1000)} s of ${Math.round(max / 1000)} s allowed; cut off while ${this.deadline.interrupted}.${calls} Continue to keep going.`,
    };
  }

  private perceiveScope(): PerceiveScope {
    const { runId, userMessage } = this.opts;
    const { state, deps, deadline } = this;
    return {
      state,
      deps,
      runId,
      userMessage,
      deadline,
      contextWindow: this.contextWindow(),
      emit: (e) => this.emit(e),
      warn: (m) => this.warn(m),
    };
  }

  /**
   * The current mode: a built-in or a custom agent (an agent file removed meanwhile falls back to agent mode),
   * narrowed to an active skill's allowed-tools.
   */
  private mode(): ModeDefinition {
    const mode = findMode(this.state.mode, this.deps.config.customModes?.()) ?? MODES.agent;
    return narrowMode(mode, this.deps.config.narrowTools?.());
  }

  /** SessionStart and UserPromptSubmit hooks on a sent message: a block ends the run before any model call. */
  private async promptHooks(): Promise<Ending | undefined> {
    if (this.opts.kind !== 'send') return undefined;
    const blocked = await firePromptHooks(this.deps.config.hooks, {
      history: this.state.history,
      prompt: this.opts.userMessage,
      taskId: this.state.taskId,
      signal: this.signal,
      notice: (m) => this.warn(`Hook: ${m}`),
    });
    return blocked ? { reason: 'guardrail', detail: blocked } : undefined;
  }

  private warn(message: string): void {
    this.emit({ type: 'warning', runId: this.opts.runId, kind: 'other', message });
  }

  private contextWindow(): number {
    return this.deps.config.contextWindow ?? this.model.info.contextWindow;
  }

  private toolSpecs(): ToolSpec[] {
    const mode = this.mode();
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
      mode: this.mode(),
      allowedForTask: this.state.allowedForTask,
      history: this.state.history,
      iteration,
      emit: (e) => this.emit(e),
      nextApprovalId: () => `${this.state.taskId}-approval-${++this.state.counters.approvals}`,
      setPending: (p) => (this.state.pending = p),
      track: (id, what) => this.deadline.track(`tool:${id}`, what),
      spend: this.spend.port(),
      iterations: {
        left: () => Math.max(0, this.state.maxIterations - this.state.iterations),
        add: (n) => (this.state.iterations += Math.max(0, Math.floor(n))),
      },
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
      // The step boundary: what the user typed meanwhile joins the conversation before the next model call.
      deliverSteers(this.opts.inbox, this.state.history, this.opts.runId, (e) => this.emit(e));
      const ending = await this.iterate();
      if (ending && !steerKeepsGoing(ending.reason, this.opts.inbox)) return ending;
    }
  }

  private budgetCheck(): Ending | undefined {
    const trip = this.monitors.checkBudgets(
      this.deps.clock.now() - this.started,
      this.spend.costUsd,
      this.spend.tokens,
    );
    if (trip) return trip;
    this.spend.warnNearBudgets();
    return undefined;
  }

  private async iterate(): Promise<Ending | undefined> {
    const { runId } = this.opts;
    const signal = this.signal;
    if (signal.aborted) throw new RunAbortedError();
    const budget = this.budgetCheck();
    if (budget) return budget;
    if (this.state.iterations >= this.state.maxIterations) {
      return {
        reason: 'max_iterations',
        detail: `Reached the limit of ${this.state.maxIterations} iterations. Continue to extend the limit.`,
      };
    }
    const iteration = ++this.state.iterations;
    const mode = this.mode();
    const tools = this.toolSpecs();
    const system = () =>
      stepSystem(this.deps.config, this.state, { mode, iteration, stagnationWarning: this.stagnationWarning });
    await maybeCompact(
      {
        state: this.state,
        config: this.deps.config,
        runId,
        deadline: this.deadline,
        summarizer: this.summarizer,
        contextWindow: this.contextWindow(),
        emit: (e) => this.emit(e),
        warn: (m) => this.warn(m),
      },
      system(),
      tools,
    );
    if (iteration === Math.ceil(this.state.maxIterations * this.deps.config.iterationWarningRatio)) {
      this.emit({
        type: 'warning',
        runId,
        kind: 'iteration_limit',
        message: `Iteration ${iteration} of ${this.state.maxIterations}: the model was asked to wrap up.`,
      });
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
    let step: StepOutput;
    try {
      step = await this.deadline.during('model', `waiting for the model's reply (step ${iteration})`, () =>
        this.modelStep(request, iteration),
      );
    } catch (err) {
      stepReport.latencyMs = this.deps.clock.now() - t0;
      if (isAbort(err, signal)) {
        // Keep what the model already said (text only: half a tool call cannot be replayed).
        const partial = partialOf(err);
        const by = this.deadline.expired ? 'the time budget' : 'the user';
        if (partial?.text.trim())
          this.state.history.push({ role: 'assistant', content: `${partial.text}\n[interrupted by ${by}]` });
        stepReport.error = 'stopped';
        this.endStep(stepReport);
        throw err;
      }
      const me = err instanceof ModelError ? err : new ModelError('bad_request', String(err));
      stepReport.error = `${me.kind}: ${me.message}`;
      this.endStep(stepReport);
      return {
        reason: 'error',
        detail: `Model error (${me.kind}${me.status ? ` ${me.status}` : ''}): ${me.message}\n${modelAdvice(me, this.deps.config.controls)}`,
      };
    }
    stepReport.latencyMs = this.deps.clock.now() - t0;
    stepReport.finishReason = step.finishReason;
    if (this.fallback || this.model !== this.deps.model) stepReport.model = modelId(this.model.info);
    this.recordUsage(stepReport, step, request);

    this.state.history.push({
      role: 'assistant',
      content: step.text,
      ...(step.thinking.length ? { thinking: step.thinking } : {}),
      ...(step.toolCalls.length
        ? { toolCalls: step.toolCalls.map(({ id, name, args, rawArgs }) => ({ id, name, args, rawArgs })) }
        : {}),
    });
    this.emitProgress(stepReport.iteration);

    if (step.toolCalls.length === 0) {
      // A plain answer to a fresh message (no tool used yet in this run) is the reply: asking again would cost a
      // second request and make the model wrap a finished answer in task_completion.
      if (
        this.opts.kind === 'send' &&
        !this.calledTools &&
        step.text.trim() &&
        step.finishReason !== 'length' &&
        tools.some((t) => t.name === 'converse')
      ) {
        // "I'll look into the failing tests." is not an answer: nudge once to act (an acting mode only).
        if (!this.nudgedToAct && announcesAction(step.text) && tools.some((t) => !LOOP_CONTROL.has(t.name))) {
          this.nudgedToAct = true;
          this.state.history.push({ role: 'user', content: ACT_NUDGE });
          this.deps.log(`run ${runId}: the reply announced an action but called no tool; nudged to act`);
          this.endStep(stepReport);
          return undefined;
        }
        this.endStep(stepReport);
        return { reason: 'converse', detail: step.text };
      }
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
    this.calledTools = true;
    const outcomes = await runToolCalls(this.toolRunContext(iteration), step.toolCalls);
    return this.afterTools(stepReport, outcomes);
  }

  /**
   * One model step with retries; when the retries are spent on a provider outage (overloaded, 5xx, unreachable,
   * stalled) and a fallback model is configured, the step is retried on the fallback, which then serves the rest
   * of the run. Auth and bad-request errors never fall back.
   */
  private async modelStep(request: ModelRequest, iteration: number): Promise<StepOutput> {
    const { runId } = this.opts;
    const stepOpts = (suffix: string) => ({
      runId,
      emit: (e: AgentEvent) => this.emit(e),
      signal: this.signal,
      clock: this.deps.clock,
      retry: this.deps.config.modelRetry,
      idleTimeoutMs: this.deps.config.streamIdleTimeoutMs,
      warningKey: `model-retry-${iteration}${suffix}`,
    });
    try {
      return await runModelStep(this.model, request, stepOpts(this.fallback ? '-fallback' : ''));
    } catch (err) {
      if (this.fallback || !(err instanceof ModelError) || !isProviderOutage(err)) throw err;
      const fallback = this.fallbackModel();
      if (!fallback) throw err;
      const from = modelId(this.model.info);
      const to = modelId(fallback.info);
      this.fallback = {
        from,
        to,
        reason: `${err.kind}${err.status ? ` ${err.status}` : ''}: ${err.message.split('\n')[0].slice(0, 200)}`,
      };
      this.model = fallback;
      this.deps.log(
        `run ${runId}: switching to the fallback model ${to} after ${from} failed (${this.fallback.reason})`,
      );
      this.emit({
        type: 'warning',
        runId,
        kind: 'fallback',
        key: 'fallback',
        message: `${from} keeps failing (${err.kind}${err.status ? ` ${err.status}` : ''}); switched to the fallback model ${to} for the rest of this run.`,
      });
      return runModelStep(this.model, request, stepOpts('-fallback'));
    }
  }

  private fallbackModel(): Model | undefined {
    const fb = this.deps.config.fallbackModel;
    let model: Model | undefined;
    try {
      model = typeof fb === 'function' ? fb() : fb;
    } catch (err) {
      this.deps.log(`fallback model unavailable: ${errorText(err)}`);
      return undefined;
    }
    if (!model || model === this.model || modelId(model.info) === modelId(this.model.info)) return undefined;
    return model;
  }

  private recordUsage(stepReport: StepReport, step: StepOutput, request: ModelRequest): void {
    let usage = step.usage;
    if (!usage) {
      // No usage from the provider (some local servers): estimate, so the token budget still counts this step.
      const output =
        step.text + step.thinking.map((t) => t.text).join('') + step.toolCalls.map((c) => c.name + c.rawArgs).join('');
      if (!output) return;
      usage = {
        inputTokens: contextTokens(this.state.anchor, request.messages, {
          system: request.system,
          tools: request.tools,
        }),
        outputTokens: estimateTextTokens(output),
      };
      stepReport.usageEstimated = true;
    }
    stepReport.usage = usage;
    stepReport.costUsd = this.spend.record('steps', usage, this.model.info);
    if (!stepReport.usageEstimated && usage.inputTokens > 0)
      this.state.anchor = { inputTokens: usage.inputTokens, messageCount: request.messages.length };
  }

  private endStep(step: StepReport): void {
    this.steps.push(step);
    const { runId } = this.opts;
    this.emit({ type: 'step_end', runId, step });
    this.emitProgress(step.iteration);
  }

  /** The run's figures so far: at each step's end, and once its reply is in (an approval may wait long after). */
  private emitProgress(iteration: number): void {
    const tools = this.toolSpecs();
    this.emit({
      type: 'iteration',
      runId: this.opts.runId,
      iteration,
      maxIterations: this.state.maxIterations,
      usage: { ...this.spend.usage },
      costUsd: this.spend.costUsd,
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
      if (o.call.name === UPDATE_PLAN && o.kind === 'ok' && o.result.data) {
        this.state.plan = o.result.data as Plan;
        this.state.planEditedByUser = false;
        this.emit({ type: 'plan_updated', runId: this.opts.runId, plan: structuredClone(this.state.plan) });
      }
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
      return {
        reason: 'stagnation',
        detail: `Forge seems stuck: ${stuck}. What was tried:\n${this.stagnation.summary()}\nGive guidance, then continue.`,
      };
    }
    this.stagnationWarning = `Warning: you appear to be stuck (${stuck}). Change your approach: re-read the error, try a different tool or arguments, or call ask_question to get help from the user.`;
    this.emit({
      type: 'warning',
      runId: this.opts.runId,
      kind: 'stagnation',
      message: `Possible stagnation: ${stuck}.`,
    });
    return undefined;
  }
}

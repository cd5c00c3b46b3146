// Runs one step's tool calls: parse check -> mode -> validate -> prepare -> policy -> approval -> execute (retry) -> cap.
import { capToolOutput, type OutputStore } from '../context/output-store';
import type { ChatMessage, ToolCall } from '../model/types';
import { isToolAllowedInMode, type ModeDefinition } from '../modes';
import type { ApprovalRequest, Approver } from '../safety/approval';
import { taskGrantEntries, type Policy } from '../safety/policy';
import { sensitiveRefusal, uncheckedCall } from '../safety/sensitive';
import { loopControlText } from '../tools/loop-control';
import { PreviewFailed } from '../tools/preview-failed';
import type { ToolRegistry } from '../tools/registry';
import {
  classifyThrown,
  declaredErrorClass,
  isTransientError,
  withErrorClass,
  type ToolErrorClass,
} from '../tools/error-class';
import {
  ToolError,
  type ApprovalDecision,
  type LoopControl,
  type PreparedCall,
  type SensitiveCall,
  type Tool,
  type ToolContext,
  type ToolResult,
} from '../tools/types';
import { raceAbort, RunAbortedError } from './abort';
import { backoffMs, type AgentConfig, type Clock } from './config';
import type { AgentEvent, IterationPort, NestingToolContext, ToolCallReport } from './events';
import type { CallKind } from './monitors';
import type { StepToolCall } from './model-step';
import type { LoopToolContext, SpendPort } from './spend';
import type { PendingApproval } from '../tasks/snapshot';
import { errorText } from '../error-text';

export interface ToolRunContext {
  runId: string;
  taskId: string;
  signal: AbortSignal;
  clock: Clock;
  config: AgentConfig;
  registry: ToolRegistry;
  policy: Policy;
  approver: Approver;
  outputStore: OutputStore;
  mode: ModeDefinition;
  allowedForTask: Set<string>;
  history: ChatMessage[];
  iteration: number;
  emit(event: AgentEvent): void;
  nextApprovalId(): string;
  setPending(pending: PendingApproval | undefined): void;
  /** Records what this call is doing (undefined: done), so a time-budget trip can say what it cut off. */
  track?(callId: string, what: string | undefined): void;
  /** The run's spend account: tools that call models themselves (delegate_task) draw on it and book there. */
  spend?: SpendPort;
  /** The run's iteration count (sub-agents' steps count against it). */
  iterations?: IterationPort;
}

/** A call its tool prepared and did not refuse. */
type Ready = Extract<PreparedCall, { kind: 'ready' }>;

export interface CallOutcome {
  call: StepToolCall;
  kind: CallKind;
  result: ToolResult;
  report: ToolCallReport;
  loopControl?: { kind: LoopControl; text: string };
  /** Validated input (for stagnation signatures). */
  input?: unknown;
}

/** A tool's time limit when it declares none (tools declare their own: read 30 s, search 60 s, a command its timeout). */
export const DEFAULT_TOOL_TIMEOUT_MS = 120_000;

/** The call's time limit in ms; 0 = none. delegate_task runs a sub-agent bounded by its own limits and the run's. */
export function toolTimeLimitMs(tool: Tool, input: unknown): number {
  let v: number | undefined;
  try {
    v = typeof tool.timeoutMs === 'function' ? tool.timeoutMs(input) : tool.timeoutMs;
  } catch {
    v = undefined;
  }
  if (v === undefined) return tool.name === 'delegate_task' ? 0 : DEFAULT_TOOL_TIMEOUT_MS;
  return Number.isFinite(v) && v > 0 ? v : 0;
}

/** The call ran past its time limit (its signal was aborted; it was abandoned whether or not it stopped). */
class ToolTimeoutError extends Error {
  override readonly name = 'ToolTimeoutError';
  constructor(readonly limitMs: number) {
    super(`timed out after ${formatSeconds(limitMs)} s`);
  }
}

function formatSeconds(ms: number): string {
  const s = ms / 1000;
  return s >= 10 || Number.isInteger(s) ? String(Math.round(s)) : s.toFixed(1);
}

/**
 * Runs `work` with a signal that aborts on the run's signal or after `limitMs` (a real timer: a time limit is a
 * watchdog on wall time, and a hung tool must not hold a fake clock's timers). The work is raced against that
 * signal, so a tool that ignores it is abandoned all the same: RunAbortedError on Stop, ToolTimeoutError at the limit.
 */
export async function withTimeLimit<T>(
  runSignal: AbortSignal,
  limitMs: number,
  work: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  if (!limitMs)
    return raceAbort(
      Promise.resolve().then(() => work(runSignal)),
      runSignal,
    );
  // One controller that the run's signal or the timer aborts, unlinked when the call ends. (AbortSignal.any would
  // register every call's signal on the run's signal for the whole run: on Node 20 those records pile up, ~3 KB
  // per tool call.)
  const timer = new AbortController();
  const signal = timer.signal;
  const onRunAbort = () => timer.abort(runSignal.reason);
  if (runSignal.aborted) onRunAbort();
  else runSignal.addEventListener('abort', onRunAbort, { once: true });
  const handle = setTimeout(() => timer.abort(new ToolTimeoutError(limitMs)), limitMs);
  try {
    return await raceAbort(
      Promise.resolve().then(() => work(signal)),
      signal,
    );
  } catch (err) {
    if (timer.signal.aborted && !runSignal.aborted) throw new ToolTimeoutError(limitMs);
    throw err;
  } finally {
    clearTimeout(handle);
    runSignal.removeEventListener('abort', onRunAbort);
  }
}

function timeoutResult(tool: Tool, err: ToolTimeoutError): ToolResult {
  const seconds = formatSeconds(err.limitMs);
  const effect =
    tool.risk === 'read'
      ? 'It may still be running in the background; its result will be ignored.'
      : 'It may still be running in the background and may still change things: check its effect before trying again.';
  return {
    isError: true,
    content:
      `${tool.name} timed out after ${seconds} s (its time limit) and was stopped. ${effect} ` +
      'Try a smaller request (a line range, a sub-folder, a narrower pattern). The user can raise the limit with the forge.toolTimeoutSeconds setting.',
    data: { errorClass: 'timeout', timedOut: true, timeoutSeconds: err.limitMs / 1000 },
  };
}

function availableNames(ctx: ToolRunContext): string[] {
  return ctx.registry
    .list()
    .filter((t) => isToolAllowedInMode(ctx.mode, t))
    .map((t) => t.name);
}

async function approve(
  ctx: ToolRunContext,
  tool: Tool,
  prepared: Ready,
  input: unknown,
  call: ToolCall,
  rest: ToolCall[],
  reuse?: ApprovalRequest,
): Promise<ApprovalDecision | { kind: 'failed'; result: ToolResult }> {
  const { sensitive } = prepared;
  let preview: ApprovalRequest['preview'];
  // A control-plane edit is shown as it is now, never from a stored preview.
  if (reuse?.preview && !sensitive) preview = reuse.preview;
  else if (prepared.preview) {
    try {
      // Building the preview loads what execute() would (the file being edited): the same time limit applies.
      preview = await withTimeLimit(ctx.signal, toolTimeLimitMs(tool, input), prepared.preview);
    } catch (err) {
      if (ctx.signal.aborted) throw new RunAbortedError();
      // The tool's own answer (a search that no longer matches): nothing to approve, it is the model's result.
      if (err instanceof PreviewFailed) return { kind: 'failed', result: { ...err.result, isError: true } };
      // A preview that broke on its own: still asked, the call summarised without it.
      preview = { kind: 'generic', summary: `${tool.name} (preview unavailable: ${errorText(err)})` };
    }
  }
  const request: ApprovalRequest = {
    id: reuse?.id ?? ctx.nextApprovalId(),
    taskId: ctx.taskId,
    toolCallId: call.id,
    toolName: tool.name,
    risk: tool.risk,
    args: input,
    preview,
    ...(sensitive ? { sensitive } : {}),
  };
  ctx.setPending({ request, calls: [call, ...rest], iteration: ctx.iteration });
  ctx.emit({ type: 'approval_requested', runId: ctx.runId, request });
  let decision: ApprovalDecision;
  try {
    decision = await raceAbort(ctx.approver.request(request, ctx.signal), ctx.signal);
  } catch (err) {
    if (ctx.signal.aborted) throw new RunAbortedError();
    decision = { kind: 'reject', reason: `approval failed: ${errorText(err)}` };
  }
  ctx.setPending(undefined);
  if (sensitive) decision = personOnly(decision, sensitive);
  ctx.emit({ type: 'approval_resolved', runId: ctx.runId, requestId: request.id, decision });
  if (decision.kind === 'approve' && decision.scope === 'task')
    for (const entry of taskGrantEntries({ name: tool.name, prepared })) ctx.allowedForTask.add(entry);
  return decision;
}

/**
 * A sensitive call counts as approved only when a person approved it, for this call: an automatic approval (a setting,
 * a grant) becomes a refusal the model can read, and "Always for this task" approves this call only.
 */
function personOnly(decision: ApprovalDecision, sensitive: SensitiveCall): ApprovalDecision {
  if (decision.kind !== 'approve') return decision;
  if (decision.auto)
    return {
      kind: 'reject',
      by: 'policy',
      reason: sensitiveRefusal(
        sensitive,
        decision.auto === 'setting' ? 'an auto-approve setting' : 'a grant for this task',
      ),
    };
  return decision.scope === 'task' ? { ...decision, scope: 'once' } : decision;
}

/**
 * Tool.prepare for the call. A prepare that fails counts as sensitive (asked of a person, never automatic): what it
 * would have refused or marked is unknown.
 */
async function prepareCall(ctx: ToolRunContext, tool: Tool, input: unknown, call: ToolCall): Promise<PreparedCall> {
  if (!tool.prepare) return { kind: 'ready' };
  try {
    return await raceAbort(
      tool.prepare(input, { signal: ctx.signal, taskId: ctx.taskId, toolCallId: call.id }),
      ctx.signal,
    );
  } catch (err) {
    if (ctx.signal.aborted || err instanceof RunAbortedError) throw new RunAbortedError();
    const what =
      typeof (input as { path?: unknown })?.path === 'string' ? String((input as { path: string }).path) : tool.name;
    return { kind: 'ready', sensitive: uncheckedCall(what, err) };
  }
}

/**
 * Executes under the tool's time limit, with retries for transient failures (TransientToolError, busy / try-again /
 * out-of-handles I/O errors: 1 s, 2 s, 4 s ... capped). Any other throw becomes an error result with its class.
 */
async function executeWithRetry(
  ctx: ToolRunContext,
  tool: Tool,
  input: unknown,
  toolCtx: ToolContext,
): Promise<{ result: ToolResult; attempts: number }> {
  const retry = ctx.config.toolRetry;
  const limitMs = toolTimeLimitMs(tool, input);
  for (let attempt = 1; ; attempt++) {
    try {
      const result = await withTimeLimit(ctx.signal, limitMs, (signal) => tool.execute(input, { ...toolCtx, signal }));
      const content = typeof result?.content === 'string' ? result.content : JSON.stringify(result?.content ?? '');
      return { result: { ...result, content }, attempts: attempt };
    } catch (err) {
      if (ctx.signal.aborted || err instanceof RunAbortedError) throw new RunAbortedError();
      if (err instanceof ToolTimeoutError) return { result: timeoutResult(tool, err), attempts: attempt };
      if (isTransientError(err) && attempt <= retry.retries) {
        const wait = backoffMs(attempt, retry);
        ctx.emit({
          type: 'warning',
          runId: ctx.runId,
          kind: 'retry',
          key: `tool-retry-${toolCtx.toolCallId}`,
          message: `${tool.name}: ${errorText(err)}. Retry ${attempt}/${retry.retries} in ${wait / 1000} s.`,
        });
        try {
          await ctx.clock.sleep(wait, ctx.signal);
        } catch {
          throw new RunAbortedError();
        }
        if (ctx.signal.aborted) throw new RunAbortedError();
        continue;
      }
      const prefix =
        err instanceof ToolError
          ? ''
          : attempt > 1
            ? `${tool.name} failed after ${attempt} attempts: `
            : `${tool.name} failed: `;
      const errorClass: ToolErrorClass = err instanceof ToolError ? 'tool' : classifyThrown(err);
      return {
        result: { isError: true, content: `${prefix}${errorText(err)}`, data: { errorClass } },
        attempts: attempt,
      };
    }
  }
}

/** policy -> (approval) -> execute with retries. */
async function decideAndExecute(
  ctx: ToolRunContext,
  tool: Tool,
  prepared: Ready,
  input: unknown,
  call: StepToolCall,
  rest: ToolCall[],
  reuse: ApprovalRequest | undefined,
): Promise<{ kind: CallKind; result: ToolResult; attempts: number }> {
  const { name, risk } = tool;
  const { action, reason: why, by } = ctx.policy.decide({ name, risk, prepared }, ctx.allowedForTask);
  let decision: ApprovalDecision | undefined;
  const decided = { type: 'tool_decision', runId: ctx.runId, toolCallId: call.id, toolName: call.name } as const;
  if (action === 'ask') {
    ctx.track?.(call.id, `waiting for approval of ${call.name}`);
    const answer = await approve(ctx, tool, prepared, input, call, rest, reuse);
    if (answer.kind === 'failed') return { kind: 'error', result: answer.result, attempts: 1 };
    decision = answer;
    ctx.emit(
      decision.kind === 'approve'
        ? {
            ...decided,
            outcome: 'approve',
            by: decision.auto === 'task_grant' ? 'task_grant' : decision.auto ? 'auto' : 'user',
            scope: decision.scope ?? 'once',
          }
        : {
            ...decided,
            outcome: 'reject',
            by: decision.by === 'policy' ? 'rule' : 'user',
            ...(decision.reason ? { reason: decision.reason } : {}),
          },
    );
  } else {
    ctx.emit({ ...decided, outcome: action, by, ...(why ? { reason: why } : {}) });
  }
  if (action === 'deny') {
    const content = why
      ? `Refused: ${why} The call was not run. Do not retry it; use another approach or ask the user.`
      : `Denied by policy: "${call.name}" (${tool.risk}) is not allowed by the approval policy. Do not retry it; use another approach or ask the user.`;
    return { kind: 'denied', result: { isError: true, content }, attempts: 0 };
  }
  if (decision?.kind === 'reject' && decision.by === 'policy') {
    return {
      kind: 'denied',
      result: {
        isError: true,
        content:
          decision.reason?.trim() ||
          `Refused by Forge's policy, not by a person: "${call.name}" needs a person's approval.`,
      },
      attempts: 0,
    };
  }
  if (decision?.kind === 'reject') {
    return {
      kind: 'rejected',
      result: {
        isError: true,
        content: `User rejected: ${decision.reason?.trim() || 'no reason given'}. Do not repeat this action unchanged.`,
      },
      attempts: 0,
    };
  }
  const toolCtx: LoopToolContext & NestingToolContext = {
    signal: ctx.signal,
    taskId: ctx.taskId,
    toolCallId: call.id,
    approval: decision,
    onProgress: (chunk) => ctx.emit({ type: 'tool_progress', runId: ctx.runId, id: call.id, chunk }),
    ...(ctx.spend ? { spend: ctx.spend } : {}),
    ...(ctx.iterations ? { iterations: ctx.iterations } : {}),
    emitNested: (event) => ctx.emit({ type: 'sub_agent', runId: ctx.runId, parentCallId: call.id, event }),
    mode: ctx.mode.name,
  };
  ctx.track?.(call.id, `running tool ${call.name} (${call.id})`);
  const executed = await executeWithRetry(ctx, tool, input, toolCtx);
  // A partly accepted edit: the model learns which hunks were left out, where, and why.
  if (decision?.kind === 'approve' && decision.reviewNote && !executed.result.isError)
    executed.result.content += `\n\n${decision.reviewNote}`;
  const kind: CallKind = executed.result.isError ? 'error' : tool.loopControl ? 'control' : 'ok';
  return { kind, result: executed.result, attempts: executed.attempts };
}

/** Decides and runs one call. Never throws except RunAbortedError. */
export async function runToolCall(
  ctx: ToolRunContext,
  call: StepToolCall,
  rest: ToolCall[],
  reuse?: ApprovalRequest,
): Promise<CallOutcome> {
  const started = ctx.clock.now();
  let kind: CallKind = 'error';
  let result: ToolResult;
  let attempts = 0;
  let input: unknown = call.args;
  let loopControl: CallOutcome['loopControl'];
  /** The class of an error result when the tool's data does not say (what failed before or around the tool). */
  let errorClass: ToolErrorClass = 'tool';
  const tool = ctx.registry.get(call.name);

  if (call.parseError !== undefined || (call.args === undefined && call.rawArgs.trim() !== '')) {
    result = {
      isError: true,
      content: `Could not parse the arguments of "${call.name}": ${call.parseError ?? 'invalid JSON'}. Raw arguments: ${call.rawArgs.slice(0, 500)}\nSend valid JSON arguments.`,
    };
    errorClass = 'validation';
  } else if (tool && !isToolAllowedInMode(ctx.mode, tool)) {
    kind = 'disallowed';
    errorClass = 'permission';
    result = {
      isError: true,
      content: `Tool "${call.name}" is not available in ${ctx.mode.label} mode. Available tools: ${availableNames(ctx).join(', ')}.`,
    };
  } else {
    const validation = ctx.registry.validate(call.name, call.args, availableNames(ctx));
    if (!validation.ok) {
      result = validation.result;
      errorClass = 'validation';
    } else {
      input = validation.input;
      const prepared = await prepareCall(ctx, validation.tool, input, call);
      if (prepared.kind === 'refuse') {
        kind = 'denied';
        result = { ...prepared.result, isError: true };
        errorClass = 'permission';
      } else {
        const outcome = await decideAndExecute(ctx, validation.tool, prepared, input, call, rest, reuse);
        ({ kind, result, attempts } = outcome);
        if (kind === 'denied' || kind === 'rejected') errorClass = 'permission';
        if (validation.tool.loopControl && !result.isError) {
          loopControl = {
            kind: validation.tool.loopControl,
            text: loopControlText(call.name, input) || result.content,
          };
        }
      }
    }
  }

  ctx.track?.(call.id, undefined);
  let resultClass: ToolErrorClass | undefined;
  if (result.isError) {
    // The tool's own word wins (a refusal, a timeout, a network failure it knows of); else what failed around it.
    resultClass =
      (kind === 'denied' || kind === 'rejected' || kind === 'disallowed'
        ? errorClass
        : declaredErrorClass(result.data)) ?? errorClass;
    result = { ...result, data: withErrorClass(result.data, resultClass) };
  }
  const capped = await capToolOutput(result.content, ctx.config.toolOutputCapChars, ctx.outputStore, {
    toolName: call.name,
    toolCallId: call.id,
  });
  const latencyMs = ctx.clock.now() - started;
  ctx.history.push({
    role: 'tool',
    toolCallId: call.id,
    toolName: call.name,
    content: capped.content,
    ...(result.isError ? { isError: true } : {}),
    ...(result.images?.length && !result.isError ? { images: result.images } : {}),
  });
  ctx.emit({
    type: 'tool_result',
    runId: ctx.runId,
    id: call.id,
    name: call.name,
    content: capped.content,
    isError: !!result.isError,
    latencyMs,
    fullOutputRef: capped.ref,
    ...(resultClass ? { errorClass: resultClass } : {}),
    ...(result.data !== undefined ? { data: result.data } : {}),
  });
  const report: ToolCallReport = {
    id: call.id,
    name: call.name,
    args: call.args,
    latencyMs,
    resultChars: result.content.length,
    attempts,
  };
  if (result.isError) {
    report.error = result.content.split('\n')[0].slice(0, 300);
    report.errorClass = resultClass;
  }
  return { call, kind, result, report, loopControl, input };
}

function parallelizable(ctx: ToolRunContext, calls: readonly StepToolCall[]): boolean {
  if (calls.length < 2) return false;
  return calls.every((c) => {
    const tool = ctx.registry.get(c.name);
    return (
      !!tool &&
      tool.risk === 'read' &&
      !tool.loopControl &&
      isToolAllowedInMode(ctx.mode, tool) &&
      ctx.policy.decide(tool, ctx.allowedForTask).action === 'allow'
    );
  });
}

/**
 * Runs a step's calls: concurrently when all are allowed read-only tools, else in order. Results are
 * appended to history in call order. Stops at the first loop-control call; later calls get a "skipped" result.
 */
export async function runToolCalls(
  ctx: ToolRunContext,
  calls: readonly StepToolCall[],
  reuse?: ApprovalRequest,
): Promise<CallOutcome[]> {
  if (parallelizable(ctx, calls)) {
    // Each call writes to its own scratch history; merged in call order so the transcript is deterministic.
    const scratch: ChatMessage[][] = calls.map(() => []);
    const settled = await Promise.allSettled(
      calls.map((call, i) => runToolCall({ ...ctx, history: scratch[i] }, call, [])),
    );
    for (const part of scratch) ctx.history.push(...part);
    if (settled.some((s) => s.status === 'rejected')) throw new RunAbortedError();
    return settled.map((s) => (s as PromiseFulfilledResult<CallOutcome>).value);
  }
  const outcomes: CallOutcome[] = [];
  for (let i = 0; i < calls.length; i++) {
    const outcome = await runToolCall(ctx, calls[i], calls.slice(i + 1), i === 0 ? reuse : undefined);
    outcomes.push(outcome);
    if (outcome.loopControl) {
      for (const skipped of calls.slice(i + 1)) {
        ctx.history.push({
          role: 'tool',
          toolCallId: skipped.id,
          toolName: skipped.name,
          content: `Skipped: the run ended with ${calls[i].name}.`,
          isError: true,
        });
      }
      break;
    }
  }
  return outcomes;
}

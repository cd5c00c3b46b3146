// One model turn: stream events out as they arrive, accumulate the assistant turn, retry provider faults.
import { ModelError } from '../model/errors';
import type { FinishReason, Model, ModelEvent, ModelRequest, ThinkingBlock, ToolCall, Usage } from '../model/types';
import { raceAbort, RunAbortedError } from './abort';
import { backoffMs, clockTimeout, type Clock, type RetryConfig } from './config';
import type { AgentEvent } from './events';
import { mergeStepUsage } from './usage';
import { errorText } from '../error-text';

export interface StepToolCall extends ToolCall {
  parseError?: string;
}

export interface StepOutput {
  text: string;
  thinking: ThinkingBlock[];
  toolCalls: StepToolCall[];
  usage?: Usage;
  finishReason?: FinishReason;
  /** Model attempts this step needed (1 = no retry). */
  attempts: number;
}

type Emit = (event: AgentEvent) => void;

interface StreamOptions {
  runId: string;
  emit: Emit;
  signal: AbortSignal;
  /** With idleTimeoutMs: the clock the stall watchdog runs on. */
  clock?: Clock;
  /** No event for this long ends the attempt with a 'stall' ModelError (0 / absent = off). */
  idleTimeoutMs?: number;
}

/**
 * Streams a single attempt. Partial output lives only in the returned object, so a failed attempt leaves no trace in history.
 * The attempt has its own AbortSignal (a child of the run's): the SDK call is aborted when the run stops, when the
 * stream stalls, or when the attempt fails for any other reason.
 */
async function streamOnce(
  model: Model,
  request: ModelRequest,
  opts: StreamOptions,
  partial: StepOutput,
): Promise<void> {
  const { runId, emit } = opts;
  const handle = (event: ModelEvent) => {
    switch (event.type) {
      case 'text':
        partial.text += event.delta;
        emit({ type: 'text_delta', runId, delta: event.delta });
        return;
      case 'thinking': {
        const last = partial.thinking[partial.thinking.length - 1];
        if (!last || last.signature) partial.thinking.push({ text: event.delta, signature: event.signature });
        else {
          last.text += event.delta;
          if (event.signature) last.signature = event.signature;
        }
        if (event.delta) emit({ type: 'thinking_delta', runId, delta: event.delta });
        return;
      }
      case 'tool_call_start':
        emit({ type: 'tool_call_start', runId, id: event.id, name: event.name });
        return;
      case 'tool_call_delta':
        emit({ type: 'tool_call_args_delta', runId, id: event.id, delta: event.argsDelta });
        return;
      case 'tool_call_end':
        partial.toolCalls.push({
          id: event.id,
          name: event.name,
          args: event.args,
          rawArgs: event.rawArgs,
          parseError: event.parseError,
        });
        emit({ type: 'tool_call_end', runId, id: event.id, name: event.name, args: event.args });
        return;
      case 'usage':
        partial.usage = mergeStepUsage(partial.usage, event.usage);
        return;
      case 'finish':
        partial.finishReason = event.reason;
        return;
    }
  };
  const attempt = new AbortController();
  const onRunAbort = () => attempt.abort();
  if (opts.signal.aborted) throw new RunAbortedError();
  opts.signal.addEventListener('abort', onRunAbort, { once: true });
  const watchdog =
    opts.clock && opts.idleTimeoutMs ? new StallWatchdog(opts.clock, opts.idleTimeoutMs, attempt) : undefined;
  let finished = false;
  let iterator: AsyncIterator<ModelEvent> | undefined;
  try {
    iterator = model.stream({ ...request, signal: attempt.signal })[Symbol.asyncIterator]();
    while (true) {
      let next: IteratorResult<ModelEvent>;
      try {
        next = await raceAbort(iterator.next(), attempt.signal);
      } catch (err) {
        if (watchdog?.stalled) throw watchdog.error();
        throw err;
      }
      if (next.done) {
        finished = true;
        return;
      }
      watchdog?.touch();
      handle(next.value);
    }
  } finally {
    watchdog?.dispose();
    opts.signal.removeEventListener('abort', onRunAbort);
    if (!finished) {
      attempt.abort();
      // Fire and forget: a hung provider must not hold the retry (or the stop) up.
      const it = iterator;
      Promise.resolve()
        .then(() => it?.return?.())
        .catch(() => undefined);
    }
  }
}

/**
 * Ends an attempt whose stream delivers nothing for `idleMs` on the loop's Clock (twice that before the first
 * event: prompt processing, a local model loading). One timer, re-armed lazily: events only move a timestamp.
 */
class StallWatchdog {
  stalled = false;
  private last: number;
  private limit: number;
  private idleFor = 0;
  private readonly stop = new AbortController();
  private timer?: AbortController;

  constructor(
    private readonly clock: Clock,
    private readonly idleMs: number,
    private readonly attempt: AbortController,
  ) {
    this.last = clock.now();
    this.limit = idleMs * 2;
    this.arm();
  }

  touch(): void {
    this.last = this.clock.now();
    if (this.limit !== this.idleMs) {
      // The first event: from now on the (shorter) idle limit applies; the armed timer was for the longer one.
      this.limit = this.idleMs;
      this.arm();
    }
  }

  error(): ModelError {
    const first = this.limit > this.idleMs;
    return new ModelError(
      'stall',
      `the model stream ${first ? 'sent nothing' : 'went silent'} for ${formatSeconds(this.idleFor)}`,
    );
  }

  dispose(): void {
    this.stop.abort();
    this.timer?.abort();
  }

  private arm(): void {
    this.timer?.abort();
    const timer = new AbortController();
    this.timer = timer;
    const remaining = this.limit - (this.clock.now() - this.last);
    clockTimeout(this.clock, Math.max(0, remaining), timer.signal).then(
      () => {
        if (this.stop.signal.aborted || timer.signal.aborted) return;
        const idle = this.clock.now() - this.last;
        if (idle < this.limit) return this.arm();
        this.idleFor = idle;
        this.stalled = true;
        this.attempt.abort();
      },
      () => undefined, // disposed
    );
  }
}

function formatSeconds(ms: number): string {
  const s = ms / 1000;
  return `${s < 10 ? Math.round(s * 10) / 10 : Math.round(s)} s`;
}

interface RetryingStepOptions extends StreamOptions {
  clock: Clock;
  retry: RetryConfig;
  /** The retry warnings of this step share this key: one line in the transcript that updates in place. */
  warningKey?: string;
}

function emptyStep(attempts: number): StepOutput {
  return { text: '', thinking: [], toolCalls: [], attempts };
}

function toModelError(err: unknown): ModelError {
  if (err instanceof ModelError) return err;
  const message = errorText(err);
  return new ModelError('bad_request', `Unexpected model failure: ${message}`, { cause: err });
}

/** A short name for what went wrong, for the one-line retry warning. */
function describeModelError(e: ModelError): string {
  const status = e.status ? ` (${e.status})` : '';
  switch (e.kind) {
    case 'stall':
      return 'Model stream stalled';
    case 'overloaded':
      return `Model overloaded${status}`;
    case 'rate_limit':
      return `Rate limited${status}`;
    case 'server':
      return `Model server error${status}`;
    case 'network':
      return 'Could not reach the model';
    case 'stream':
      return 'Model stream broke off';
    default:
      return `Model error (${e.kind})${status}`;
  }
}

/**
 * Streams a step, retrying retryable ModelErrors (including a stream cut mid tool call, and a stalled stream) with
 * backoff that honours retry-after. Throws RunAbortedError on stop and a ModelError when it gives up.
 * All retries of the step update one warning (`warningKey`): "Model stream stalled; retry 2/3 in 4 s".
 */
export async function runModelStep(
  model: Model,
  request: ModelRequest,
  opts: RetryingStepOptions,
): Promise<StepOutput> {
  const key = opts.warningKey ?? `model-retry:${opts.runId}`;
  let last: ModelError | undefined;
  const warn = (message: string) => opts.emit({ type: 'warning', runId: opts.runId, kind: 'retry', key, message });
  for (let attempt = 1; ; attempt++) {
    const partial = emptyStep(attempt);
    try {
      await streamOnce(model, request, opts, partial);
      if (last) warn(`${describeModelError(last)}; recovered on retry ${attempt - 1}/${opts.retry.retries}.`);
      return partial;
    } catch (err) {
      if (opts.signal.aborted || err instanceof RunAbortedError) {
        throw Object.assign(new RunAbortedError(), { partial });
      }
      const modelError = toModelError(err);
      if (modelError.kind === 'aborted') throw Object.assign(new RunAbortedError(), { partial });
      if (!modelError.retryable || attempt > opts.retry.retries) {
        if (last)
          warn(
            `${describeModelError(modelError)}; gave up after ${attempt - 1} ${attempt - 1 === 1 ? 'retry' : 'retries'}.`,
          );
        throw modelError;
      }
      last = modelError;
      const wait = Math.min(opts.retry.capMs, modelError.retryAfterMs ?? backoffMs(attempt, opts.retry));
      const detail =
        modelError.kind === 'stall'
          ? ` (${modelError.message})`
          : ` — ${modelError.message.split('\n')[0].slice(0, 160)}`;
      warn(
        `${describeModelError(modelError)}; retry ${attempt}/${opts.retry.retries} in ${formatSeconds(wait)}${detail}${partial.text || partial.toolCalls.length ? '. Partial output discarded' : ''}.`,
      );
      try {
        await opts.clock.sleep(wait, opts.signal);
      } catch {
        throw new RunAbortedError();
      }
      if (opts.signal.aborted) throw new RunAbortedError();
    }
  }
}

/** The partial step attached to a RunAbortedError thrown mid-stream (if any). */
export function partialOf(err: unknown): StepOutput | undefined {
  return (err as { partial?: StepOutput }).partial;
}

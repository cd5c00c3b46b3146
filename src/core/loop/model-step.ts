// One model turn: stream events out as they arrive, accumulate the assistant turn, retry provider faults.
import { ModelError } from '../model/errors';
import type { FinishReason, Model, ModelEvent, ModelRequest, ThinkingBlock, ToolCall, Usage } from '../model/types';
import { iterateWithAbort, RunAbortedError } from './abort';
import { backoffMs, type Clock, type RetryConfig } from './config';
import type { AgentEvent } from './events';
import { mergeStepUsage } from './usage';

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
}

/** Streams a single attempt. Partial output lives only in the returned object, so a failed attempt leaves no trace in history. */
export async function streamOnce(model: Model, request: ModelRequest, opts: StreamOptions, partial: StepOutput): Promise<void> {
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
        partial.toolCalls.push({ id: event.id, name: event.name, args: event.args, rawArgs: event.rawArgs, parseError: event.parseError });
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
  for await (const event of iterateWithAbort(model.stream(request), opts.signal)) handle(event);
}

export interface RetryingStepOptions extends StreamOptions {
  clock: Clock;
  retry: RetryConfig;
}

function emptyStep(attempts: number): StepOutput {
  return { text: '', thinking: [], toolCalls: [], attempts };
}

function toModelError(err: unknown): ModelError {
  if (err instanceof ModelError) return err;
  const message = err instanceof Error ? err.message : String(err);
  return new ModelError('bad_request', `Unexpected model failure: ${message}`, { cause: err });
}

/**
 * Streams a step, retrying retryable ModelErrors (including a stream cut mid tool call) with backoff that
 * honours retry-after. Throws RunAbortedError on stop and a ModelError when it gives up.
 * `onPartialDiscarded` lets the caller keep the text of a turn that is abandoned on stop.
 */
export async function runModelStep(model: Model, request: ModelRequest, opts: RetryingStepOptions): Promise<StepOutput> {
  for (let attempt = 1; ; attempt++) {
    const partial = emptyStep(attempt);
    try {
      await streamOnce(model, request, opts, partial);
      return partial;
    } catch (err) {
      if (opts.signal.aborted || err instanceof RunAbortedError) {
        throw Object.assign(new RunAbortedError(), { partial });
      }
      const modelError = toModelError(err);
      if (modelError.kind === 'aborted') throw Object.assign(new RunAbortedError(), { partial });
      if (!modelError.retryable || attempt > opts.retry.retries) throw modelError;
      const wait = Math.min(opts.retry.capMs, modelError.retryAfterMs ?? backoffMs(attempt, opts.retry));
      opts.emit({
        type: 'warning',
        runId: opts.runId,
        kind: 'retry',
        message: `Model error (${modelError.kind}): ${modelError.message}. Retrying in ${Math.round(wait / 100) / 10} s (attempt ${attempt + 1} of ${opts.retry.retries + 1}); partial output discarded.`,
      });
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

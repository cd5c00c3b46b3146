// In-memory Model for loop tests: yields scripted turns, records every request, can fail, delay or hang.
import type { Clock } from '../../src/core/loop/config';
import { ModelError } from '../../src/core/model/errors';
import type { Model, ModelEvent, ModelInfo, ModelRequest, Usage } from '../../src/core/model/types';

export interface TurnScript {
  events?: ModelEvent[];
  /** Thrown after `events` were yielded (e.g. a stream cut mid tool call). */
  error?: Error;
  /** After `events`: wait forever. 'honour' rejects when the signal aborts; 'ignore' never settles. */
  hang?: 'honour' | 'ignore';
  /** Real milliseconds to wait before each event (honours the signal). */
  delayMs?: number;
}

export type Turn = ModelEvent[] | TurnScript | ((request: RecordedRequest) => ModelEvent[] | TurnScript);

export type RecordedRequest = Omit<ModelRequest, 'signal'> & { signal: AbortSignal };

const DEFAULT_INFO: ModelInfo = {
  provider: 'scripted',
  model: 'scripted-1',
  contextWindow: 100_000,
  maxOutputTokens: 4096,
  nativeTools: true,
};

let callSeq = 0;

export class ScriptedModel implements Model {
  readonly info: ModelInfo;
  readonly requests: RecordedRequest[] = [];
  private readonly turns: Turn[];

  constructor(turns: Turn[] = [], info: Partial<ModelInfo> = {}) {
    this.turns = [...turns];
    this.info = { ...DEFAULT_INFO, ...info };
  }

  push(...turns: Turn[]): void {
    this.turns.push(...turns);
  }

  get remaining(): number {
    return this.turns.length;
  }

  /** System layer texts of request `i`, joined (for prompt assertions). */
  systemText(i: number): string {
    return this.requests[i].system.map((l) => l.text).join('\n');
  }

  async *stream(request: ModelRequest): AsyncIterable<ModelEvent> {
    const recorded: RecordedRequest = {
      ...request,
      system: structuredClone(request.system),
      messages: structuredClone(request.messages),
      tools: structuredClone(request.tools),
    };
    this.requests.push(recorded);
    const next = this.turns.shift();
    if (!next) throw new Error(`ScriptedModel: no scripted turn left for request #${this.requests.length}`);
    const resolved = typeof next === 'function' ? next(recorded) : next;
    const script: TurnScript = Array.isArray(resolved) ? { events: resolved } : resolved;
    for (const event of script.events ?? []) {
      if (script.delayMs) await abortableDelay(script.delayMs, request.signal);
      if (request.signal.aborted) throw new ModelError('aborted', 'aborted');
      yield event;
    }
    if (script.error) throw script.error;
    if (script.hang === 'ignore') await new Promise<never>(() => undefined);
    if (script.hang === 'honour') {
      await new Promise<never>((_, reject) =>
        request.signal.addEventListener('abort', () => reject(new ModelError('aborted', 'aborted')), { once: true }),
      );
    }
  }
}

function abortableDelay(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        reject(new ModelError('aborted', 'aborted'));
      },
      { once: true },
    );
  });
}

// ---- turn builders ----

export function text(delta: string): ModelEvent {
  return { type: 'text', delta };
}

export function usage(inputTokens: number, outputTokens: number): ModelEvent {
  return { type: 'usage', usage: { inputTokens, outputTokens } satisfies Usage };
}

/** Events for one complete tool call (start, one args delta, end). */
export function call(name: string, args: unknown, id = `call_${++callSeq}`): ModelEvent[] {
  const rawArgs = JSON.stringify(args);
  return [
    { type: 'tool_call_start', id, name },
    { type: 'tool_call_delta', id, argsDelta: rawArgs },
    { type: 'tool_call_end', id, name, args, rawArgs },
  ];
}

/** A turn that calls the given tools and finishes with 'tool_calls'. */
export function callsTurn(...calls: [name: string, args: unknown][]): ModelEvent[] {
  return [
    ...calls.flatMap(([name, args]) => call(name, args)),
    usage(100, 10),
    { type: 'finish', reason: 'tool_calls' },
  ];
}

export function textTurn(content: string): ModelEvent[] {
  return [text(content), usage(100, 10), { type: 'finish', reason: 'stop' }];
}

export function doneTurn(result = 'done'): ModelEvent[] {
  return callsTurn(['task_completion', { result }]);
}

// ---- fake clock ----

interface FakeTimer {
  due: number;
  fire(): void;
}

/**
 * Virtual time: sleep() records the wait and advances time instantly (rejects if the signal already aborted).
 * timeout() timers fire (in due order) when sleep() or advance() moves time past them; never on their own.
 */
export class FakeClock implements Clock {
  time = 0;
  readonly sleeps: number[] = [];
  private timers: FakeTimer[] = [];

  now(): number {
    return this.time;
  }

  async sleep(ms: number, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) throw new Error('aborted');
    this.sleeps.push(ms);
    this.advance(ms);
  }

  advance(ms: number): void {
    this.time += ms;
    this.fireDue();
  }

  timeout(ms: number, signal: AbortSignal): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      if (signal.aborted) return reject(new Error('aborted'));
      const timer: FakeTimer = {
        due: this.time + Math.max(0, ms),
        fire: () => {
          signal.removeEventListener('abort', onAbort);
          resolve();
        },
      };
      const onAbort = () => {
        this.timers = this.timers.filter((t) => t !== timer);
        reject(new Error('aborted'));
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.timers.push(timer);
      this.fireDue();
    });
  }

  /** Timers armed and not yet fired or cleared. */
  get pendingTimers(): number {
    return this.timers.length;
  }

  private fireDue(): void {
    const due = this.timers.filter((t) => t.due <= this.time).sort((a, b) => a.due - b.due);
    if (!due.length) return;
    this.timers = this.timers.filter((t) => t.due > this.time);
    for (const t of due) t.fire();
  }
}

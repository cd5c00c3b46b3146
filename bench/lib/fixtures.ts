// Synthetic but realistic agent histories and zero-latency models/tools for the loop benchmarks.
import { z } from 'zod';
import type { ChatMessage, Model, ModelEvent, ModelInfo, ModelRequest } from '../../src/core/model/types';
import type { Approver } from '../../src/core/safety/approval';
import type { Tool } from '../../src/core/tools/types';

const WORDS = 'const value return function import export async await interface type string number if else for of in new this'.split(' ');

/** Deterministic pseudo-code text of about `chars` characters. */
export function codeText(chars: number, seed = 1): string {
  let s = seed >>> 0 || 1;
  const rnd = () => ((s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32);
  let out = '';
  let line = '';
  while (out.length < chars) {
    line += WORDS[Math.floor(rnd() * WORDS.length)] + ' ';
    if (line.length > 40 + rnd() * 40) {
      out += line.trimEnd() + '\n';
      line = '';
    }
  }
  return out.slice(0, chars);
}

/**
 * A history of `messages` messages in the shape a real task has: the user task, then turns of
 * assistant (text + one tool call) and tool result. `charsPerResult` sizes the tool outputs.
 */
export function makeHistory(messages: number, charsPerResult = 1200): ChatMessage[] {
  const h: ChatMessage[] = [{ role: 'user', content: 'Refactor the payment module to use the new gateway client and keep the tests green.' }];
  let i = 0;
  while (h.length < messages) {
    const id = `hist_${i}`;
    const path = `src/module${i % 37}/file${i}.ts`;
    h.push({
      role: 'assistant',
      content: `Looking at ${path} next to see how the client is constructed.`,
      toolCalls: [{ id, name: 'read_file', args: { path }, rawArgs: JSON.stringify({ path }) }],
    });
    if (h.length < messages) h.push({ role: 'tool', toolCallId: id, toolName: 'read_file', content: codeText(charsPerResult, i + 7) });
    i++;
  }
  // Never leave a dangling call: end on a result or a user message.
  if (h[h.length - 1]!.role === 'assistant') h[h.length - 1] = { role: 'user', content: 'Keep going.' };
  return h;
}

/** Total estimated tokens of a history at 4 chars/token (the loop's own estimator). */
export function historyChars(h: ChatMessage[]): number {
  let n = 0;
  for (const m of h) {
    n += m.content.length;
    if (m.role === 'assistant') for (const c of m.toolCalls ?? []) n += c.rawArgs.length;
  }
  return n;
}

export const allowAll: Approver = {
  request: async () => ({ kind: 'approve' }),
};

const probeInput = z.object({ path: z.string() });

/** A read-only tool that answers at once, reporting a new file read each call (so stagnation never trips). */
export function probeTool(resultChars = 400): Tool<typeof probeInput> {
  const body = codeText(resultChars, 3);
  return {
    name: 'probe',
    description: 'Reads a file (benchmark stand-in that answers at once).',
    input: probeInput,
    risk: 'read',
    async execute(input) {
      return { content: `${input.path}\n${body}`, effects: { read: [input.path] } };
    },
  };
}

export type TurnFn = (request: ModelRequest, index: number) => ModelEvent[];

/**
 * A model that answers instantly from `turn(request, i)`, without copying the request (unlike the test
 * ScriptedModel, which deep-clones every request for assertions and would dominate the measurement).
 */
export class InstantModel implements Model {
  readonly info: ModelInfo;
  calls = 0;
  /** performance.now() at the moment each stream() body started (= the loop handed over the request). */
  readonly startedAt: number[] = [];
  onStream?: (request: ModelRequest, index: number) => void;

  constructor(private readonly turn: TurnFn, info: Partial<ModelInfo> = {}) {
    this.info = { provider: 'bench', model: 'instant', contextWindow: 1_000_000, maxOutputTokens: 4096, nativeTools: true, ...info };
  }

  async *stream(request: ModelRequest): AsyncIterable<ModelEvent> {
    this.startedAt.push(performance.now());
    const i = this.calls++;
    this.onStream?.(request, i);
    for (const e of this.turn(request, i)) yield e;
  }
}

let seq = 0;
export function toolCallTurn(name: string, args: unknown, inputTokens = 0): ModelEvent[] {
  const id = `bench_${++seq}`;
  const rawArgs = JSON.stringify(args);
  const events: ModelEvent[] = [
    { type: 'text', delta: 'Checking the next file.' },
    { type: 'tool_call_start', id, name },
    { type: 'tool_call_delta', id, argsDelta: rawArgs },
    { type: 'tool_call_end', id, name, args, rawArgs },
  ];
  if (inputTokens > 0) events.push({ type: 'usage', usage: { inputTokens, outputTokens: 20 } });
  events.push({ type: 'finish', reason: 'tool_calls' });
  return events;
}

export function doneTurn(): ModelEvent[] {
  return toolCallTurn('task_completion', { result: 'done' });
}

export function summaryTurn(): ModelEvent[] {
  return [
    { type: 'text', delta: '## Goal\nRefactor payments.\n## Decisions\nUse gateway client.\n## Files touched\nsrc/a.ts\n## Open errors\nnone\n## Next steps\nRun tests.' },
    { type: 'usage', usage: { inputTokens: 1000, outputTokens: 60 } },
    { type: 'finish', reason: 'stop' },
  ];
}

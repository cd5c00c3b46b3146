// Shared fixtures for the memory tests: a scripted Model and run reports.
import type { ChatMessage, Model, ModelEvent, ModelRequest, Usage } from '../../../../src/core/model/types';
import type { RunReport, TerminationReason } from '../../../../src/core/loop/events';

export type Reply = string | Error | ((req: ModelRequest) => string);

/** A Model that answers each stream() call with the next scripted reply, in two text chunks. */
export class ScriptedReflectionModel implements Model {
  readonly info = {
    provider: 'fake',
    model: 'fake-1',
    contextWindow: 100_000,
    maxOutputTokens: 4096,
    nativeTools: true,
  };
  readonly requests: ModelRequest[] = [];
  constructor(
    private readonly replies: Reply[],
    private readonly usage?: Usage,
  ) {}

  async *stream(req: ModelRequest): AsyncIterable<ModelEvent> {
    this.requests.push(req);
    const reply = this.replies.shift();
    if (reply === undefined) throw new Error('ScriptedReflectionModel: no reply scripted');
    if (reply instanceof Error) throw reply;
    const text = typeof reply === 'function' ? reply(req) : reply;
    const mid = Math.floor(text.length / 2);
    yield { type: 'text', delta: text.slice(0, mid) };
    yield { type: 'text', delta: text.slice(mid) };
    if (this.usage) yield { type: 'usage', usage: this.usage };
    yield { type: 'finish', reason: 'stop' };
  }
}

export function report(
  reason: TerminationReason,
  iterations: number,
  opts: { toolError?: string; runId?: string } = {},
): RunReport {
  return {
    runId: opts.runId ?? 'run-1',
    taskId: 'task-1',
    reason,
    detail: reason === 'done' ? 'Finished.' : `Ended: ${reason}`,
    iterations,
    steps: Array.from({ length: iterations }, (_, i) => ({
      iteration: i + 1,
      latencyMs: 10,
      toolCalls:
        opts.toolError && i === 0
          ? [
              {
                id: 'c1',
                name: 'execute_command',
                args: {},
                latencyMs: 5,
                resultChars: 10,
                error: opts.toolError,
                attempts: 1,
              },
            ]
          : [],
    })),
    usage: { inputTokens: 100, outputTokens: 50 },
    elapsedMs: 100,
  };
}

export const HISTORY: ChatMessage[] = [
  { role: 'user', content: 'Run the unit tests and fix failures' },
  {
    role: 'assistant',
    content: 'Running tests.',
    toolCalls: [
      { id: 'c1', name: 'execute_command', args: { command: 'npm test' }, rawArgs: '{"command":"npm test"}' },
    ],
  },
  {
    role: 'tool',
    toolCallId: 'c1',
    toolName: 'execute_command',
    content: 'ERR: this repo uses pnpm (npm is not supported)',
    isError: true,
  },
];

export const GOOD_LEARNING = {
  type: 'procedural',
  content: 'In this repo, run tests with pnpm test, not npm test',
  context: 'running tests',
  confidence: 0.9,
  tags: ['pnpm', 'tests'],
};

export function collectLog(): { lines: string[]; log: (m: string) => void } {
  const lines: string[] = [];
  return { lines, log: (m) => lines.push(m) };
}

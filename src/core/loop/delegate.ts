// Delegation: run a sub-task in a child Agent on a forked copy of the conversation and return its result.
import * as z from 'zod';
import { forkHistory } from '../context/history';
import type { ChatMessage } from '../model/types';
import { MODE_NAMES, type ModeName } from '../modes';
import { SNAPSHOT_VERSION } from '../tasks/snapshot';
import type { Tool } from '../tools/types';
import { Agent, type AgentDeps } from './agent';
import type { AgentEventListener, RunReport } from './events';

export const DELEGATE_TOOL_NAME = 'delegate_task';

export interface DelegateOptions {
  mode?: ModeName;
  maxIterations?: number;
  signal?: AbortSignal;
  /** The parent's conversation; the child gets a deep copy (a trailing unanswered tool call is dropped). */
  history?: readonly ChatMessage[];
  taskId?: string;
  /** Receives the child's events (e.g. to show its progress). */
  onEvent?: AgentEventListener;
}

export interface DelegateResult {
  report: RunReport;
  /** The sub-task's answer: the task_completion result, the question it asks, or why it stopped. */
  result: string;
}

let subCounter = 0;

export async function delegate(parentDeps: AgentDeps, task: string, opts: DelegateOptions = {}): Promise<DelegateResult> {
  const taskId = opts.taskId ?? `${parentDeps.taskId ?? 'task'}-sub-${++subCounter}`;
  const mode = opts.mode ?? parentDeps.config?.mode ?? 'agent';
  const childDeps: AgentDeps = {
    ...parentDeps,
    // No recursion, and no second reflection pass on the same work.
    tools: parentDeps.tools.filter((t) => t.name !== DELEGATE_TOOL_NAME),
    memory: undefined,
    taskId,
    config: { ...parentDeps.config, mode, maxIterations: opts.maxIterations ?? parentDeps.config?.maxIterations },
  };
  const child = Agent.restore(
    {
      version: SNAPSHOT_VERSION,
      taskId,
      mode,
      history: forkHistory(opts.history ?? []),
      iterations: 0,
      maxIterations: 0,
      allowedForTask: [],
      usage: { inputTokens: 0, outputTokens: 0 },
      counters: { runs: 0, approvals: 0 },
    },
    childDeps,
  );
  if (opts.onEvent) child.on(opts.onEvent);
  const onAbort = () => child.stop();
  opts.signal?.addEventListener('abort', onAbort, { once: true });
  try {
    const running = child.send(task);
    if (opts.signal?.aborted) child.stop();
    const report = await running;
    const result =
      report.reason === 'done' || report.reason === 'converse'
        ? report.detail
        : report.reason === 'asked'
          ? `The sub-task needs an answer: ${report.detail}`
          : `The sub-task ended without finishing (${report.reason}): ${report.detail}`;
    return { report, result };
  } finally {
    opts.signal?.removeEventListener('abort', onAbort);
  }
}

export const delegateTaskInput = z.object({
  task: z.string().min(1).describe('A self-contained sub-task with everything the helper needs to know.'),
  mode: z.enum(MODE_NAMES as [ModeName, ...ModeName[]]).optional().describe('Mode for the sub-task (default: the current mode).'),
  maxIterations: z.number().int().min(1).max(50).optional(),
});

/**
 * The `delegate_task` tool. `getHistory` gives the parent's conversation to fork (usually `() => agent.history`);
 * without it the child starts fresh.
 */
export function createDelegateTool(parentDeps: AgentDeps, getHistory?: () => readonly ChatMessage[]): Tool<typeof delegateTaskInput> {
  return {
    name: DELEGATE_TOOL_NAME,
    description:
      'Hand a focused sub-task (e.g. investigate a module, write tests for one file) to a helper agent that works on a copy of this conversation and returns its result.',
    input: delegateTaskInput,
    // The helper asks for approval for its own risky calls.
    risk: 'read',
    async execute(input, ctx) {
      const { report, result } = await delegate(parentDeps, input.task, {
        mode: input.mode,
        maxIterations: input.maxIterations,
        signal: ctx.signal,
        history: getHistory?.(),
        onEvent: (e) => {
          if (e.type === 'tool_result') ctx.onProgress?.(`[sub-task] ${e.name}${e.isError ? ' (error)' : ''}\n`);
        },
      });
      const ok = report.reason === 'done' || report.reason === 'converse';
      return { content: result, isError: !ok, data: { reason: report.reason, iterations: report.iterations, usage: report.usage } };
    },
  };
}

// Shared fixtures for core loop tests: fake tools, scripted approver, event capture.
import { z } from 'zod';
import { Agent, type AgentDeps } from '../../src/core/loop/agent';
import type { AgentEvent } from '../../src/core/loop/events';
import type { ApprovalRequest, Approver } from '../../src/core/safety/approval';
import type { ApprovalDecision, Tool, ToolContext, ToolResult } from '../../src/core/tools/types';
import { FakeClock, ScriptedModel, type Turn } from './scripted-model';

export const readInput = z.object({ path: z.string() });

/** read_file fake: returns "content of <path>" and reports the read effect. */
export function fakeReadTool(
  calls: string[] = [],
  impl?: (path: string, ctx: ToolContext) => Promise<ToolResult>,
): Tool {
  return {
    name: 'read_file',
    description: 'Read a file',
    input: readInput,
    risk: 'read',
    async execute(input: unknown, ctx: ToolContext) {
      const { path } = input as { path: string };
      calls.push(path);
      if (impl) return impl(path, ctx);
      return { content: `content of ${path}`, effects: { read: [path] } };
    },
  };
}

export const writeInput = z.object({ path: z.string(), content: z.string() });

export function fakeWriteTool(writes: { path: string; content: string; approval?: ApprovalDecision }[] = []): Tool {
  return {
    name: 'write_file',
    description: 'Write a file',
    input: writeInput,
    risk: 'write',
    async prepare(input: unknown) {
      const { path, content } = input as { path: string; content: string };
      return {
        kind: 'ready',
        preview: async () => ({ kind: 'edit', path, original: '', proposed: content, isNewFile: true }),
      };
    },
    async execute(input: unknown, ctx: ToolContext) {
      const { path, content } = input as { path: string; content: string };
      writes.push({ path, content, approval: ctx.approval });
      return { content: `wrote ${path}`, effects: { edited: [path] } };
    },
  };
}

/** Approver answering from a queue of decisions; records every request. */
export class ScriptedApprover implements Approver {
  readonly requests: ApprovalRequest[] = [];
  readonly signals: AbortSignal[] = [];
  constructor(private readonly decisions: (ApprovalDecision | 'hang')[] = []) {}
  request(req: ApprovalRequest, signal: AbortSignal): Promise<ApprovalDecision> {
    this.requests.push(req);
    this.signals.push(signal);
    const next = this.decisions.shift() ?? { kind: 'approve' };
    if (next === 'hang') {
      return new Promise((_, reject) =>
        signal.addEventListener('abort', () => reject(new Error('aborted')), { once: true }),
      );
    }
    return Promise.resolve(next);
  }
}

export interface Harness {
  agent: Agent;
  model: ScriptedModel;
  clock: FakeClock;
  approver: ScriptedApprover;
  events: AgentEvent[];
  ofType<T extends AgentEvent['type']>(type: T): Extract<AgentEvent, { type: T }>[];
}

export function harness(turns: Turn[], deps: Partial<AgentDeps> = {}, approver = new ScriptedApprover()): Harness {
  const model = (deps.model as ScriptedModel | undefined) ?? new ScriptedModel(turns);
  const clock = (deps.clock as FakeClock | undefined) ?? new FakeClock();
  const agent = new Agent({
    tools: [fakeReadTool()],
    approver,
    ...deps,
    model,
    clock,
    taskId: deps.taskId ?? 'task-1',
  });
  const events: AgentEvent[] = [];
  agent.on((e) => events.push(e));
  return {
    agent,
    model,
    clock,
    approver,
    events,
    ofType: <T extends AgentEvent['type']>(type: T) =>
      events.filter((e): e is Extract<AgentEvent, { type: T }> => e.type === type),
  };
}

/** The history is valid for providers: every assistant tool call has exactly one result, and results follow their call. */
export function assertHistoryConsistent(history: readonly import('../../src/core/model/types').ChatMessage[]): void {
  const open = new Set<string>();
  for (const m of history) {
    if (m.role === 'assistant') {
      if (open.size) throw new Error(`unanswered tool calls before a new assistant turn: ${[...open].join(',')}`);
      for (const c of m.toolCalls ?? []) open.add(c.id);
    } else if (m.role === 'tool') {
      if (!open.delete(m.toolCallId)) throw new Error(`tool result without a pending call: ${m.toolCallId}`);
    } else if (open.size) {
      throw new Error(`user message while tool calls are unanswered: ${[...open].join(',')}`);
    }
  }
  if (open.size) throw new Error(`dangling tool calls at the end: ${[...open].join(',')}`);
}

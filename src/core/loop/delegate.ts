// Delegation: run a sub-task in a child Agent on a forked copy of the conversation and return its result.
import * as z from 'zod';
import { forkHistory } from '../context/history';
import { emptyVerdict, type HookPort } from '../hooks/types';
import type { ChatMessage } from '../model/types';
import { findMode, getMode, MODE_NAMES, type ModeDefinition, type ModeName } from '../modes';
import { SNAPSHOT_VERSION } from '../tasks/snapshot';
import type { Tool } from '../tools/types';
import { Agent, type AgentDeps } from './agent';
import type { AgentEventListener, IterationPort, NestingToolContext, RunReport } from './events';
import type { LoopToolContext, SpendPort } from './spend';

export const DELEGATE_TOOL_NAME = 'delegate_task';

interface DelegateOptions {
  mode?: ModeName;
  maxIterations?: number;
  signal?: AbortSignal;
  /** The parent's conversation; the child gets a deep copy (a trailing unanswered tool call is dropped). */
  history?: readonly ChatMessage[];
  taskId?: string;
  /** Receives the child's events (e.g. to show its progress). */
  onEvent?: AgentEventListener;
  /**
   * The parent run's account: the child gets what is left of the parent's token and cost budgets, and what it
   * spends is booked on the parent as 'sub_agents' (so it counts in the parent's report and breakers).
   */
  spend?: SpendPort;
  /**
   * The parent run's iteration count: the child may take at most what the parent has left, and the steps it
   * took are booked on the parent (so the parent's limit covers the work its helpers do).
   */
  iterations?: IterationPort;
  /** A hook's notice (a failure, a systemMessage) for the user. */
  onNotice?: (message: string) => void;
}

interface DelegateResult {
  report: RunReport;
  /** The sub-task's answer: the task_completion result, the question it asks, or why it stopped. */
  result: string;
}

let subCounter = 0;

/** A helper's hooks: its tool calls and compactions fire them, but not the session and prompt events of its own. */
function subAgentHooks(port: HookPort): HookPort {
  return {
    ...port,
    fire: (event, input, signal) =>
      event === 'SessionStart' || event === 'UserPromptSubmit'
        ? Promise.resolve(emptyVerdict())
        : port.fire(event, input, signal),
  };
}

function lastAssistantText(history: readonly ChatMessage[]): string | undefined {
  for (let i = history.length - 1; i >= 0; i--) {
    const m = history[i]!;
    if (m.role === 'assistant' && m.content.trim()) return m.content;
  }
  return undefined;
}

export async function delegate(
  parentDeps: AgentDeps,
  task: string,
  opts: DelegateOptions = {},
): Promise<DelegateResult> {
  const taskId = opts.taskId ?? `${parentDeps.taskId ?? 'task'}-sub-${++subCounter}`;
  const mode = opts.mode ?? parentDeps.config?.mode ?? 'agent';
  const left = opts.spend?.remaining() ?? {};
  const requested =
    opts.maxIterations ??
    parentDeps.config?.maxIterations ??
    getMode(mode, parentDeps.config?.customModes?.()).maxIterations;
  const maxIterations = opts.iterations
    ? Math.min(requested, opts.iterations.left())
    : (opts.maxIterations ?? parentDeps.config?.maxIterations);
  const hooks = parentDeps.config?.hooks;
  const childDeps: AgentDeps = {
    ...parentDeps,
    // No recursion, and no second reflection pass on the same work.
    tools: parentDeps.tools.filter((t) => t.name !== DELEGATE_TOOL_NAME),
    memory: undefined,
    taskId,
    config: {
      ...parentDeps.config,
      ...(hooks ? { hooks: subAgentHooks(hooks) } : {}),
      mode,
      maxIterations,
      // The parent's budgets are shared, not copied: the child may spend only what the parent has left.
      ...(left.tokens !== undefined
        ? { maxTokens: Math.min(left.tokens, parentDeps.config?.maxTokens ?? Infinity) }
        : {}),
      ...(left.costUsd !== undefined
        ? { maxCostUsd: Math.min(left.costUsd, parentDeps.config?.maxCostUsd ?? Infinity) }
        : {}),
    },
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
    const signal = opts.signal ?? new AbortController().signal;
    const who = { agent_id: taskId, agent_type: mode, session_id: parentDeps.taskId ?? taskId };
    // SubagentStart cannot stop a helper (PreToolUse of delegate_task can); its context joins the helper's task.
    const start = hooks ? await hooks.fire('SubagentStart', who, signal) : undefined;
    start?.notices.forEach((n) => opts.onNotice?.(n));
    const context = start?.context.length ? `\n\n<hook-context>\n${start.context.join('\n')}\n</hook-context>` : '';
    const running = child.send(task + context);
    if (opts.signal?.aborted) child.stop();
    const report = await running;
    // A helper that finished fired SubagentStop from task_completion (core/hooks/tool-hooks.ts, where a block keeps
    // it working); one that ended otherwise is told to the hooks here, too late to keep it going.
    if (hooks && report.reason !== 'done' && !signal.aborted) {
      const v = await hooks.fire(
        'SubagentStop',
        { ...who, stop_hook_active: false, last_assistant_message: lastAssistantText(child.history) ?? report.detail },
        signal,
      );
      v.notices.forEach((n) => opts.onNotice?.(n));
    }
    opts.spend?.record('sub_agents', report.usage, report.costUsd, report.steps.length);
    opts.iterations?.add(report.iterations);
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

const delegateTaskInput = z.object({
  task: z.string().min(1).describe('A self-contained sub-task with everything the helper needs to know.'),
  mode: z
    .enum(MODE_NAMES as [ModeName, ...ModeName[]])
    .optional()
    .describe('Mode for the sub-task (default: the current mode).'),
  agent: z
    .string()
    .max(64)
    .optional()
    .describe(
      "One of the team's custom agents, by name: it works on the sub-task with its own prompt, tools and model.",
    ),
  maxIterations: z.number().int().min(1).max(50).optional(),
});

/** The risk classes a mode can actually use: its allowlist's tools' risks when it has one. */
function risksOf(mode: ModeDefinition, tools: readonly Tool[]): string[] {
  if (!mode.allow) return [...mode.risks];
  const risks = mode.allow.flatMap((n) => tools.filter((t) => t.name === n).map((t) => t.risk));
  return [...new Set(risks)].filter((r) => mode.risks.includes(r));
}

/** Why a helper in `child` would have more rights than the task's `parent` mode; undefined when it would not. */
function widens(child: ModeDefinition, parent: ModeDefinition, tools: readonly Tool[]): string | undefined {
  const extra = risksOf(child, tools).filter((r) => !risksOf(parent, tools).includes(r));
  if (extra.length) return `it may ${extra.join(', ')}, which ${parent.label} mode may not`;
  const outside = parent.allow && (child.allow ?? ['(every tool)']).filter((t) => !parent.allow!.includes(t));
  if (outside?.length) return `it may use ${outside.join(', ')}, which ${parent.label} may not`;
  return undefined;
}

/**
 * The `delegate_task` tool. `getHistory` gives the parent's conversation to fork (usually `() => agent.history`);
 * without it the child starts fresh.
 */
export function createDelegateTool(
  parentDeps: AgentDeps,
  getHistory?: () => readonly ChatMessage[],
): Tool<typeof delegateTaskInput> {
  return {
    name: DELEGATE_TOOL_NAME,
    description:
      'Hand a focused sub-task (e.g. investigate a module, write tests for one file) to a helper agent that works on a copy of this conversation and returns its result.',
    input: delegateTaskInput,
    // The helper asks for approval for its own risky calls.
    risk: 'read',
    async execute(input, ctx) {
      const nest = ctx as LoopToolContext & NestingToolContext;
      if (nest.iterations && nest.iterations.left() < 1) {
        return {
          content: 'No iterations left for a sub-task: finish the work yourself or call task_completion.',
          isError: true,
        };
      }
      const custom = parentDeps.config?.customModes?.() ?? [];
      const current = nest.mode;
      const currentMode = current ? findMode(current, custom) : undefined;
      let mode = input.mode ?? current;
      let history = getHistory?.();
      if (input.agent !== undefined) {
        const agent = custom.find((m) => m.name === input.agent);
        if (!agent) {
          const names = custom.map((m) => m.name).join(', ');
          return {
            content: names
              ? `There is no custom agent "${input.agent}". Agents: ${names}.`
              : `There is no custom agent "${input.agent}": this workspace defines none.`,
            isError: true,
          };
        }
        // A helper never gets more rights than the mode the task is in, a team's agent included.
        const why = currentMode && widens(agent, currentMode, parentDeps.tools);
        if (why) return { content: `The ${agent.name} agent cannot take this sub-task: ${why}.`, isError: true };
        mode = agent.name;
        // A custom agent starts fresh, with its own prompt and the task, as the anchors' subagents do.
        history = undefined;
      } else if (currentMode && input.mode && widens(getMode(input.mode), currentMode, parentDeps.tools)) {
        // A helper never gets more rights than the mode the task is in (a plan-mode task cannot edit through one).
        const allowed = MODE_NAMES.filter((m) => !widens(getMode(m), currentMode, parentDeps.tools));
        return {
          content: `A helper in ${input.mode} mode would have more rights than this task's ${current} mode. Use one of: ${allowed.join(', ')}.`,
          isError: true,
        };
      }
      const { report, result } = await delegate(parentDeps, input.task, {
        mode,
        maxIterations: input.maxIterations,
        signal: ctx.signal,
        history,
        spend: nest.spend,
        iterations: nest.iterations,
        onNotice: (m) => {
          parentDeps.log?.(`hook: ${m}`);
          ctx.onProgress?.(`[hook] ${m}\n`);
        },
        onEvent: (e) => {
          // Shown nested under this call where the host renders sub-agent events; a one-line progress otherwise.
          if (nest.emitNested) nest.emitNested(e);
          else if (e.type === 'tool_result') ctx.onProgress?.(`[sub-task] ${e.name}${e.isError ? ' (error)' : ''}\n`);
        },
      });
      const ok = report.reason === 'done' || report.reason === 'converse';
      return {
        content: result,
        isError: !ok,
        data: { reason: report.reason, iterations: report.iterations, usage: report.usage, costUsd: report.costUsd },
      };
    },
  };
}

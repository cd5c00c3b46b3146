// Typed events out of the loop. The panel, status bar, logs and tests all consume this one stream.
import type { FinishReason, Usage } from '../model/types';
import type { ApprovalRequest } from '../safety/approval';
import type { ToolErrorClass } from '../tools/error-class';
import type { Plan } from '../tools/builtin/update-plan';
import type { ApprovalDecision } from '../tools/types';
import type { ModeName } from '../modes';
import type { SpendBreakdown } from './spend';

export type TerminationReason =
  'done' | 'asked' | 'converse' | 'stopped' | 'max_iterations' | 'breaker' | 'stagnation' | 'guardrail' | 'error';

export interface ToolCallReport {
  id: string;
  name: string;
  args: unknown;
  latencyMs: number;
  resultChars: number;
  error?: string;
  /** With `error`: validation | permission | network | timeout | tool. */
  errorClass?: ToolErrorClass;
  attempts: number;
}

export interface StepReport {
  iteration: number;
  latencyMs: number;
  usage?: Usage;
  costUsd?: number;
  /** The provider reported no usage for this step: `usage` is Forge's estimate. */
  usageEstimated?: boolean;
  /** "<provider>:<model>" when the step ran on another model than the primary (the mode's own, or the fallback). */
  model?: string;
  finishReason?: FinishReason;
  toolCalls: ToolCallReport[];
  error?: string;
}

export interface RunReport {
  runId: string;
  taskId: string;
  reason: TerminationReason;
  /** Human-readable detail: the result, the question, the breaker that tripped, the error and what to do. */
  detail: string;
  iterations: number;
  steps: StepReport[];
  /** Everything the run spent: model steps, compaction summaries, reflection and sub-agents (see `spend`). */
  usage: Usage;
  /** undefined when the model has no known price (tokens are still reported). */
  costUsd?: number;
  /** `usage` / `costUsd` by source. */
  spend?: SpendBreakdown;
  /** Set when the run switched to the fallback model. */
  fallback?: { from: string; to: string; reason: string };
  elapsedMs: number;
  /** Time spent waiting for the model (every step) and running tools (every call), in ms. */
  totals?: { modelMs: number; toolMs: number; toolCalls: number; toolErrors: number };
}

export type AgentEvent =
  | {
      type: 'run_start';
      runId: string;
      taskId: string;
      mode: string;
      maxIterations: number;
      userMessage: string;
      /** The user message's turn id (a send), for edit-and-resend. */
      turnId?: string;
    }
  /** A message the user typed while the run worked joined the conversation at a step boundary (steering). */
  | { type: 'user_steer'; runId: string; turnId: string; text: string }
  | { type: 'step_start'; runId: string; iteration: number; maxIterations: number }
  | { type: 'text_delta'; runId: string; delta: string }
  | { type: 'thinking_delta'; runId: string; delta: string }
  | { type: 'tool_call_start'; runId: string; id: string; name: string }
  | { type: 'tool_call_args_delta'; runId: string; id: string; delta: string }
  | { type: 'tool_call_end'; runId: string; id: string; name: string; args: unknown }
  | { type: 'approval_requested'; runId: string; request: ApprovalRequest }
  | { type: 'approval_resolved'; runId: string; requestId: string; decision: ApprovalDecision }
  | { type: 'tool_progress'; runId: string; id: string; chunk: string }
  | {
      type: 'tool_result';
      runId: string;
      id: string;
      name: string;
      content: string;
      isError: boolean;
      latencyMs: number;
      /** set when the content shown is truncated; the full text can be paged by this handle */
      fullOutputRef?: string;
      /** For an error result: validation | permission | network | timeout | tool. */
      errorClass?: ToolErrorClass;
      /** The tool's structured result (e.g. a command's exit code and containment), for subscribers such as the audit log. */
      data?: unknown;
    }
  | {
      /** How a call that passed validation was decided, and by whom (the audit trail's record of it). */
      type: 'tool_decision';
      runId: string;
      toolCallId: string;
      toolName: string;
      outcome: 'allow' | 'deny' | 'approve' | 'reject';
      by: DecidedBy;
      scope?: 'once' | 'task';
      reason?: string;
    }
  /** A model call besides the steps (compaction summary, reflection, a sub-agent's run) spent this. */
  | {
      type: 'model_usage';
      runId: string;
      source: 'compaction' | 'reflection' | 'sub_agents';
      usage: Usage;
      costUsd?: number;
      calls: number;
    }
  /** The task's live plan changed: the model called update_plan, or the user edited it (runId '' outside a run). */
  | { type: 'plan_updated'; runId: string; plan: Plan }
  | {
      type: 'iteration';
      runId: string;
      iteration: number;
      maxIterations: number;
      usage: Usage;
      costUsd?: number;
      elapsedMs: number;
      contextTokens: number;
      contextWindow: number;
    }
  | {
      type: 'warning';
      runId: string;
      kind: 'iteration_limit' | 'stagnation' | 'retry' | 'budget' | 'fallback' | 'other';
      message: string;
      /** Warnings with the same key (within a run) are one line that updates in place, e.g. retries of one step. */
      key?: string;
    }
  | { type: 'compaction'; runId: string; beforeTokens: number; afterTokens: number; summary: string }
  /**
   * A compaction begins or is over (done, nothing to do, failed or stopped): `auto` is the run's own, else /compact.
   * The host records it durably, so a reload that cuts one off can say it did not happen.
   */
  | { type: 'compacting'; runId: string; phase: 'begin' | 'end'; auto: boolean }
  | { type: 'memory_recalled'; runId: string; memories: { id: string; content: string; type: string }[] }
  | { type: 'memory_learned'; runId: string; memories: { id: string; content: string; type: string }[] }
  | { type: 'step_end'; runId: string; step: StepReport }
  /** Context a mode gathered before the first step (plan: manifests + tree, review: diff, test: test files). */
  | { type: 'mode_context'; runId: string; mode: string; sources: string[]; tokens: number }
  /**
   * An event of a sub-agent (delegate_task) started by the tool call `parentCallId` of this run: consumers show
   * it nested under that call. Sub-agents do not delegate further, so there is one level.
   */
  | { type: 'sub_agent'; runId: string; parentCallId: string; event: AgentEvent }
  | { type: 'run_end'; runId: string; report: RunReport };

/**
 * Who decided a call: the user (clicked), a rule (a tool's own rule or the user's per-tool policy), a grant the user
 * gave for this task, the risk-class policy (e.g. reads are allowed), or automatic approval (the user's setting).
 */
type DecidedBy = 'user' | 'rule' | 'task_grant' | 'setting' | 'policy' | 'auto';

export type AgentEventListener = (event: AgentEvent) => void;

/** The run's iteration count as a tool sees it: a sub-agent's steps count against the parent's limit. */
export interface IterationPort {
  /** Iterations left before the run's limit. */
  left(): number;
  /** Books `n` iterations done on the run's behalf (by a sub-agent). */
  add(n: number): void;
}

/** What the loop gives tools that nest work (delegate_task), besides ToolContext. */
export interface NestingToolContext {
  /** Forwards a nested agent's event into this run's stream (as a `sub_agent` event for this call). */
  emitNested?(event: AgentEvent): void;
  iterations?: IterationPort;
  /** The run's current mode (a helper defaults to it and may not have more rights than it). */
  mode?: ModeName;
}

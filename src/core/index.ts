// Public API of Forge's core (pure TypeScript; never imports 'vscode').
export { Agent, type AgentDeps } from './loop/agent';
export { delegate, createDelegateTool, DELEGATE_TOOL_NAME, type DelegateOptions, type DelegateResult } from './loop/delegate';
export { DEFAULT_CONFIG, resolveConfig, systemClock, backoffMs, type AgentConfig, type Clock, type RetryConfig } from './loop/config';
export { TEXT_ONLY_REMINDER, CONTINUE_NUDGE } from './loop/run';
export type * from './loop/events';

export type * from './model/types';
export { ModelError, type ModelErrorKind } from './model/errors';

export type * from './tools/types';
export { ToolError, TransientToolError } from './tools/types';
export { ToolRegistry, toolSpec, type ValidationOutcome } from './tools/registry';
export { toJsonSchema, formatZodIssues } from './tools/schema';
export { taskCompletionTool, askQuestionTool, converseTool, loopControlTools, loopControlText } from './tools/loop-control';

export type { Approver, ApprovalRequest, PolicyAction } from './safety/approval';
export { Policy, DEFAULT_POLICY, type PolicyConfig } from './safety/policy';

export { MODES, MODE_NAMES, getMode, isModeName, isToolAllowedInMode, type ModeName, type ModeDefinition } from './modes';

export { InMemoryOutputStore, capToolOutput, createReadOutputTool, type OutputStore } from './context/output-store';
export { compactHistory, ensureSections, SUMMARY_SECTIONS, type CompactionOptions } from './context/compaction';
export { contextTokens, estimateTextTokens, estimateMessagesTokens, type TokenAnchor } from './context/tokens';
export { closeDanglingToolCalls, danglingToolCalls, forkHistory, CANCELLED_RESULT } from './context/history';
export { buildSystemLayers } from './context/prompt';

export { assertSnapshot, SNAPSHOT_VERSION, type AgentSnapshot, type PendingApproval } from './tasks/snapshot';
export type * from './memory/port';

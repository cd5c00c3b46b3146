// Hooks on the Claude Code contract: the events, one configured command, what running it gave, and the port the
// loop calls. Plain TypeScript: the commands run in src/node (hook-executor.ts), the decisions are made here.

/** The events Forge fires, named as Claude Code names them (the team's hook files use these names). */
export const HOOK_EVENTS = [
  'PreToolUse',
  'PostToolUse',
  'UserPromptSubmit',
  'Stop',
  'SubagentStop',
  'PreCompact',
  'SessionStart',
  'Notification',
] as const;

export type HookEventName = (typeof HOOK_EVENTS)[number];

/** Where a hook came from: the user's own settings run as they are; a workspace's only after the user allowed them. */
export type HookScope = 'user' | 'workspace';

/** One configured command for one event. */
export interface HookCommand {
  event: HookEventName;
  /** Claude Code matcher: '' or '*' = all; only [A-Za-z0-9_ ,|-] = exact names; else an unanchored regex. */
  matcher: string;
  command: string;
  /** Time limit of one run. */
  timeoutMs: number;
  scope: HookScope;
  /** The file it came from, for people ("~/.claude/settings.json", ".claude/settings.json"). */
  source: string;
}

/** What running a hook's command gave. */
export interface HookRun {
  /** null: killed (timeout, abort) or never started. */
  exitCode: number | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  /** Output past the cap was dropped. */
  truncated: boolean;
  /** The command could not be started, or was refused before it ran (not allowed, sandbox failure). */
  failed?: string;
  ms: number;
}

export interface HookExecutor {
  run(hook: HookCommand, stdin: string, signal: AbortSignal): Promise<HookRun>;
}

/** What the hooks of one event decided, together. */
export interface HookVerdict {
  /** The action is blocked; the reason the model (or the user, for events without a model) reads. */
  block?: string;
  /** PreToolUse's permission decision (deny > ask > allow); Forge never lets 'allow' skip an approval. */
  permission?: 'deny' | 'ask' | 'allow';
  permissionReason?: string;
  /** Text the model reads as context (additionalContext, plain stdout where the contract says so). */
  context: string[];
  /** continue:false: the run stops, with this reason for the user. */
  stop?: string;
  /** Messages for the user: systemMessage, and every hook that failed, timed out or printed too much. */
  notices: string[];
}

/** What the loop calls: runs the matching hooks of an event and folds their answers. Never throws but on abort. */
export interface HookPort {
  fire(event: HookEventName, input: Record<string, unknown>, signal: AbortSignal): Promise<HookVerdict>;
}

export function emptyVerdict(): HookVerdict {
  return { context: [], notices: [] };
}

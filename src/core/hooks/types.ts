// Hooks on the Claude Code contract: the events, one configured command, what running it gave, and the port the
// loop calls. Plain TypeScript: the commands run in src/node (hook-executor.ts), the decisions are made here.
import type { Tool } from '../tools/types';

/** The events Forge fires, named as Claude Code names them (the team's hook files use these names). */
export const HOOK_EVENTS = [
  'PreToolUse',
  'PostToolUse',
  'UserPromptSubmit',
  'Stop',
  'SubagentStart',
  'SubagentStop',
  'PreCompact',
  'SessionStart',
  'Notification',
] as const;

export type HookEventName = (typeof HOOK_EVENTS)[number];

/** Where a hook came from: the user's own settings run as they are; a workspace's only after the user allowed them. */
export type HookScope = 'user' | 'workspace';

/** The handler kinds Claude Code knows; Forge runs all but 'agent' (hook-runners.ts in src/node). */
export const HOOK_TYPES = ['command', 'http', 'prompt', 'mcp_tool', 'agent'] as const;
export type HookType = (typeof HOOK_TYPES)[number];

/** One configured handler for one event: a command, or (type) an http POST, a model prompt or an MCP tool call. */
export interface HookCommand {
  event: HookEventName;
  /** Claude Code matcher: '' or '*' = all; only [A-Za-z0-9_ ,|-] = exact names; else an unanchored regex. */
  matcher: string;
  /** What runs, as people read it (and the permission key holds): the command line, `POST <url>`, the prompt... */
  command: string;
  /** Absent: 'command'. */
  type?: HookType;
  /** http: the http(s) URL the event is POSTed to, its headers, and the env vars a user's hook may put in them. */
  url?: string;
  headers?: Record<string, string>;
  allowedEnvVars?: string[];
  /** prompt: the question for the model ($ARGUMENTS is the event's JSON). */
  prompt?: string;
  /** mcp_tool: the connected server and its tool; `input` is sent as the arguments (default: the event). */
  server?: string;
  tool?: string;
  input?: Record<string, unknown>;
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

/** A run timed from `started`: a clean exit with no output, but for `fields`. */
export function hookRun(started: number, fields: Partial<HookRun>): HookRun {
  return {
    exitCode: 0,
    stdout: '',
    stderr: '',
    timedOut: false,
    truncated: false,
    ms: Date.now() - started,
    ...fields,
  };
}

/** A hook that could not run, and why. */
export function hookFailed(started: number, why: string): HookRun {
  return hookRun(started, { exitCode: null, failed: why });
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
  /** The tool with its PreToolUse / PostToolUse hooks (for a tool added after the surface wrapped the rest). */
  wrapTool?<T extends Tool>(tool: T): T;
}

export function emptyVerdict(): HookVerdict {
  return { context: [], notices: [] };
}

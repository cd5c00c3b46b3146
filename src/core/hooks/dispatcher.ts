// Fires an event: picks the hooks whose matcher selects it, runs them in parallel through the executor (src/node
// runs them as contained commands), and folds their answers into one verdict. Used by the extension and the CLI.
import { interpretHookRun, mergeVerdicts } from './decision';
import { anchorToolName, matcherSelects } from './matcher';
import {
  emptyVerdict,
  hookFailed,
  type HookCommand,
  type HookEventName,
  type HookExecutor,
  type HookPort,
  type HookRun,
  type HookVerdict,
} from './types';
import { errorText } from '../error-text';

export interface HookDispatcherOptions {
  /** The hooks in effect now (user hooks, and the workspace hooks the user allowed). */
  hooks(): readonly HookCommand[] | Promise<readonly HookCommand[]>;
  executor: HookExecutor;
  /** The fields every event carries: session_id, cwd, transcript_path, permission_mode. */
  common(): Record<string, unknown>;
  /** Each run and what it meant, for the log and the panel. */
  onRun?(hook: HookCommand, run: HookRun, verdict: HookVerdict): void;
}

/** The values an event's matcher is tested against. */
function matchValues(event: HookEventName, input: Record<string, unknown>): string[] | undefined {
  if (event === 'PreToolUse' || event === 'PostToolUse') {
    const name = String(input.tool_name ?? '');
    return [name, anchorToolName(name)];
  }
  if (event === 'SessionStart') return [String(input.source ?? '')];
  if (event === 'PreCompact') return [String(input.trigger ?? '')];
  if (event === 'Notification') return [String(input.notification_type ?? '')];
  if (event === 'SubagentStart' || event === 'SubagentStop') return [String(input.agent_type ?? '')];
  return undefined; // UserPromptSubmit, Stop: matchers are ignored
}

/** A tool event as Claude Code's scripts read it: its tool name, `file_path` beside Forge's `path`. */
function toolPayload(input: Record<string, unknown>): Record<string, unknown> {
  const name = String(input.tool_name ?? '');
  const toolInput = input.tool_input;
  const inputObj =
    typeof toolInput === 'object' && toolInput !== null ? (toolInput as Record<string, unknown>) : undefined;
  let withAlias: unknown = toolInput;
  if (inputObj && typeof inputObj.path === 'string') withAlias = { file_path: inputObj.path, ...inputObj };
  // delegate_task as Claude Code's Task: its prompt and the sub-agent's type.
  else if (inputObj && name === 'delegate_task')
    withAlias = {
      prompt: inputObj.task,
      subagent_type: inputObj.agent ?? inputObj.mode ?? 'general-purpose',
      ...inputObj,
    };
  return { ...input, tool_name: anchorToolName(name), forge_tool_name: name, tool_input: withAlias };
}

export class HookDispatcher implements HookPort {
  constructor(private readonly opts: HookDispatcherOptions) {}

  async fire(event: HookEventName, input: Record<string, unknown>, signal: AbortSignal): Promise<HookVerdict> {
    let all: readonly HookCommand[];
    try {
      all = await this.opts.hooks();
    } catch (err) {
      const v = emptyVerdict();
      v.notices.push(`hooks could not be read: ${errorText(err)}`);
      return v;
    }
    const values = matchValues(event, input);
    const chosen = all.filter((h) => h.event === event && (!values || matcherSelects(h.matcher, values)));
    if (!chosen.length) return emptyVerdict();
    const payload = {
      ...this.opts.common(),
      hook_event_name: event,
      ...(event === 'PreToolUse' || event === 'PostToolUse' ? toolPayload(input) : input),
    };
    const stdin = JSON.stringify(payload);
    const parts = await Promise.all(
      chosen.map(async (hook) => {
        let run: HookRun;
        try {
          run = await this.opts.executor.run(hook, stdin, signal);
        } catch (err) {
          signal.throwIfAborted();
          run = hookFailed(Date.now(), String(err));
        }
        const verdict = interpretHookRun(hook, run);
        this.opts.onRun?.(hook, run, verdict);
        return verdict;
      }),
    );
    signal.throwIfAborted();
    return mergeVerdicts(parts);
  }
}

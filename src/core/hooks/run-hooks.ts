// The hooks around a run that are not about one tool: SessionStart (a task's first message) and UserPromptSubmit
// (each message the user sends; exit 2 drops it, output adds context), PreCompact (a block skips the compaction),
// and Notification (Forge needs the user: an approval or a question), fired from the agent's events.
import type { ChatMessage } from '../model/types';
import type { HookPort } from './types';

interface PromptHookArgs {
  history: ChatMessage[];
  prompt: string;
  taskId: string;
  signal: AbortSignal;
  notice(message: string): void;
}

const CONTEXT_TAG = 'hook-context';

/**
 * SessionStart (on the task's first message) and UserPromptSubmit. Context joins the user's message; a block
 * takes the message out of the history and returns why (the run ends without calling the model).
 */
export async function firePromptHooks(port: HookPort | undefined, a: PromptHookArgs): Promise<string | undefined> {
  if (!port) return undefined;
  const userTurns = a.history.filter((m) => m.role === 'user').length;
  const context: string[] = [];
  if (userTurns <= 1) {
    const start = await port.fire('SessionStart', { source: 'startup', session_id: a.taskId }, a.signal);
    start.notices.forEach((n) => a.notice(n));
    context.push(...start.context);
  }
  const v = await port.fire('UserPromptSubmit', { prompt: a.prompt, session_id: a.taskId }, a.signal);
  v.notices.forEach((n) => a.notice(n));
  const last = a.history[a.history.length - 1];
  if (v.block || v.stop) {
    if (last?.role === 'user') a.history.pop();
    return `A UserPromptSubmit hook blocked this message: ${v.block ?? v.stop}`;
  }
  context.push(...v.context);
  if (context.length && last?.role === 'user')
    a.history[a.history.length - 1] = {
      ...last,
      content: `${last.content}\n\n<${CONTEXT_TAG}>\n${context.join('\n')}\n</${CONTEXT_TAG}>`,
    };
  return undefined;
}

/** PreCompact: true when a hook blocked the compaction (the run goes on without it). */
export async function preCompactBlocked(
  port: HookPort | undefined,
  taskId: string,
  signal: AbortSignal,
  notice: (m: string) => void,
): Promise<boolean> {
  if (!port) return false;
  const v = await port.fire('PreCompact', { trigger: 'auto', custom_instructions: '', session_id: taskId }, signal);
  v.notices.forEach((n) => notice(n));
  if (v.block) notice(`a PreCompact hook blocked compaction: ${v.block}`);
  return !!v.block;
}

/** What the agent's events mean for Notification hooks: Forge waits for the user. */
export function notificationFor(event: {
  type: string;
  request?: { toolName?: string };
  report?: { reason?: string };
}): { message: string; notification_type: string } | undefined {
  if (event.type === 'approval_requested')
    return {
      message: `Forge needs your permission to use ${event.request?.toolName ?? 'a tool'}`,
      notification_type: 'permission_prompt',
    };
  if (event.type === 'run_end' && event.report?.reason === 'asked')
    return { message: 'Forge asked you a question and waits for your answer', notification_type: 'idle_prompt' };
  return undefined;
}

// Hooks around tool calls, as a wrapper of each Tool (so the loop stays as it is): PreToolUse in prepare (before the
// policy and the approval: a block is a refusal the model reads), PostToolUse after a successful execute (its context
// joins the result), Stop / SubagentStop when task_completion would end the run (a block keeps the agent working).
import type { PreparedCall, Tool, ToolContext, ToolResult, ToolSource } from '../tools/types';
import type { HookPort, HookVerdict } from './types';

/** Claude Code ends a Stop loop after this many continuations. */
const MAX_STOP_BLOCKS = 8;

export interface ToolHookOptions {
  /** A notice for the user (a hook failed, timed out, printed too much, or sent a systemMessage). */
  notice(message: string): void;
}

/** A sub-agent's task id (core/loop/delegate.ts names them `<parent>-sub-<n>`): its end fires SubagentStop. */
const SUB_AGENT = /-sub-\d+$/;

function withContext(result: ToolResult, verdict: HookVerdict, event: string): ToolResult {
  if (!verdict.context.length) return result;
  return { ...result, content: `${result.content}\n\n[${event} hook]\n${verdict.context.join('\n')}` };
}

function refusal(reason: string): PreparedCall {
  return {
    kind: 'refuse',
    result: {
      isError: true,
      content: `Blocked by a PreToolUse hook: ${reason}\nThe call was not run. Do not retry it unchanged; follow the hook's reason or ask the user.`,
      data: { errorClass: 'permission', hook: 'PreToolUse' },
    },
  };
}

export class ToolHooks {
  /** Stop blocks so far per task (reset when a stop goes through). */
  private readonly stopBlocks = new Map<string, number>();

  constructor(
    private readonly port: HookPort,
    private readonly opts: ToolHookOptions,
  ) {}

  private report(v: HookVerdict): void {
    for (const n of v.notices) this.opts.notice(n);
  }

  /** The tool with its hooks; the loop-control tools' own `done` gets the Stop hooks. */
  wrap<T extends Tool>(tool: T): T {
    const original = tool;
    const wrapped: Tool = {
      ...original,
      prepare: async (input: unknown, ctx: ToolContext): Promise<PreparedCall> => {
        const v = await this.port.fire(
          'PreToolUse',
          { tool_name: original.name, tool_input: input, tool_use_id: ctx.toolCallId, session_id: ctx.taskId },
          ctx.signal,
        );
        this.report(v);
        if (v.block) return refusal(v.block);
        if (v.stop) return refusal(`${v.stop} (the hook asked Forge to stop)`);
        const prepared: PreparedCall = original.prepare ? await original.prepare(input, ctx) : { kind: 'ready' };
        // "ask" (or a reason) from a hook never lets the tool's own rule skip the question; "allow" grants nothing.
        if (prepared.kind === 'ready' && v.permission === 'ask' && prepared.policyHint) {
          const hint = prepared.policyHint;
          return {
            ...prepared,
            policyHint: (grants) => {
              const h = hint(grants);
              return h?.action === 'allow' ? undefined : h;
            },
          };
        }
        return prepared;
      },
      execute: async (input: unknown, ctx: ToolContext): Promise<ToolResult> => {
        const result = await original.execute(input, ctx);
        if (original.loopControl === 'done' && !result.isError) return this.onStop(result, ctx);
        if (result.isError || original.loopControl) return result;
        const v = await this.port.fire(
          'PostToolUse',
          {
            tool_name: original.name,
            tool_input: input,
            tool_use_id: ctx.toolCallId,
            tool_response: result.content.slice(0, 100_000),
            session_id: ctx.taskId,
          },
          ctx.signal,
        );
        this.report(v);
        return withContext(result, v, 'PostToolUse');
      },
    };
    return wrapped as T;
  }

  private async onStop(result: ToolResult, ctx: ToolContext): Promise<ToolResult> {
    const sub = SUB_AGENT.test(ctx.taskId);
    const blocks = this.stopBlocks.get(ctx.taskId) ?? 0;
    const mode = (ctx as { mode?: string }).mode;
    const v = await this.port.fire(
      sub ? 'SubagentStop' : 'Stop',
      {
        stop_hook_active: blocks > 0,
        last_assistant_message: result.content,
        session_id: sub ? ctx.taskId.replace(SUB_AGENT, '') : ctx.taskId,
        // Claude Code's SubagentStop names the helper: its id and its type (a custom agent's name, or the mode).
        ...(sub ? { agent_id: ctx.taskId, agent_type: mode ?? 'agent' } : {}),
      },
      ctx.signal,
    );
    this.report(v);
    if (v.block && blocks < MAX_STOP_BLOCKS) {
      this.stopBlocks.set(ctx.taskId, blocks + 1);
      return {
        isError: true,
        content: `A ${sub ? 'SubagentStop' : 'Stop'} hook did not let the task end yet: ${v.block}\nDo what it asks, then call task_completion again.`,
        data: { errorClass: 'tool', hook: sub ? 'SubagentStop' : 'Stop' },
      };
    }
    if (v.block) this.opts.notice(`a Stop hook blocked ${MAX_STOP_BLOCKS} times in a row; the task ends anyway`);
    this.stopBlocks.delete(ctx.taskId);
    return result;
  }

  /** A tool source (MCP servers) whose tools get the hooks too. */
  wrapSource(source: ToolSource): ToolSource {
    return { id: source.id, load: async (signal) => (await source.load(signal)).map((t) => this.wrap(t)) };
  }
}

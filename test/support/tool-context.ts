import type { ApprovalDecision, Tool, ToolContext, ToolResult } from '../../src/core/tools/types';

export function ctx(extra: Partial<ToolContext> = {}): ToolContext {
  return { signal: new AbortController().signal, taskId: 't1', toolCallId: 'c1', ...extra };
}

export function approved(editedContent?: string): ApprovalDecision {
  return { kind: 'approve', editedContent };
}

/** Validate args with the tool's zod schema (as the loop does) and run it. */
export async function call(tool: Tool, args: unknown, c: ToolContext = ctx()): Promise<ToolResult> {
  const input = tool.input.parse(args);
  return tool.execute(input, c);
}

export function byName(tools: Tool[], name: string): Tool {
  const t = tools.find((x) => x.name === name);
  if (!t) throw new Error(`no tool ${name}`);
  return t;
}

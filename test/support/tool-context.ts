import type {
  ApprovalDecision,
  ApprovalPreview,
  PreparedCall,
  SensitiveCall,
  Tool,
  ToolContext,
  ToolResult,
} from '../../src/core/tools/types';

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

/** A call its tool prepared and did not refuse. */
export type Ready = Extract<PreparedCall, { kind: 'ready' }>;

/** Tool.prepare on a validated input, as the loop calls it ({ kind: 'ready' } for a tool without one). */
export async function prepared(tool: Tool, input: unknown, c: ToolContext = ctx()): Promise<PreparedCall> {
  return tool.prepare ? tool.prepare(input, c) : { kind: 'ready' };
}

/** What prepare refuses before anyone is asked (undefined: ready). */
export async function refusalOf(tool: Tool, input: unknown, c: ToolContext = ctx()): Promise<ToolResult | undefined> {
  const p = await prepared(tool, input, c);
  return p.kind === 'refuse' ? p.result : undefined;
}

/** The sensitive marker prepare puts on a call (undefined: not sensitive; throws when prepare refuses). */
export async function sensitiveOf(
  tool: Tool,
  input: unknown,
  c: ToolContext = ctx(),
): Promise<SensitiveCall | undefined> {
  const p = await prepared(tool, input, c);
  if (p.kind === 'refuse') throw new Error(`${tool.name} refused: ${p.result.content}`);
  return p.sensitive;
}

/** The preview the approver would see (throws when prepare refuses or gives none). */
export async function previewOf(tool: Tool, input: unknown, c: ToolContext = ctx()): Promise<ApprovalPreview> {
  const p = await prepared(tool, input, c);
  if (p.kind === 'refuse') throw new Error(`${tool.name} refused: ${p.result.content}`);
  if (!p.preview) throw new Error(`${tool.name} has no preview`);
  return p.preview(c.signal);
}

import { diffLines } from 'diff';
import * as z from 'zod';
import type { WorkspaceSandbox } from '../../safety/paths';
import type { EditApplier } from '../../workspace/types';
import type { ApprovalPreview, ToolContext, ToolResult } from '../types';
import type { Tool } from '../types';
import { checkEditTarget, decodeText, dominantEol } from './common';

export const writeFileInput = z.object({
  path: z.string().describe('File path relative to the workspace root. Parent folders are created.'),
  content: z.string().describe('The COMPLETE new file content (not a fragment, no line numbers).'),
});

export function lineChangeCounts(before: string, after: string): { added: number; removed: number } {
  let added = 0;
  let removed = 0;
  for (const c of diffLines(before, after)) {
    if (c.added) added += c.count ?? 0;
    else if (c.removed) removed += c.count ?? 0;
  }
  return { added, removed };
}

/** The content the user accepted: their edit of the proposed side wins over the model's proposal. */
export function acceptedContent(ctx: ToolContext, proposed: string): { content: string; userEdited: boolean } {
  const edited = ctx.approval?.kind === 'approve' ? ctx.approval.editedContent : undefined;
  return edited !== undefined && edited !== proposed ? { content: edited, userEdited: true } : { content: proposed, userEdited: false };
}

interface Current {
  abs: string;
  shown: string;
  original: string;
  exists: boolean;
}

const WRITE_TARGET = {
  mustExist: false,
  messages: {
    missing: (shown: string) => `File not found: ${shown}.`,
    dir: (shown: string) => `${shown} is a directory; give a file path.`,
    binary: (shown: string) => `${shown} is a binary file; Forge only edits text files.`,
  },
};

/** Refusals known without the new content (precheck runs this before the user is asked). */
async function refusal(sandbox: WorkspaceSandbox, path: string, ctx: ToolContext): Promise<ToolResult | undefined> {
  const t = await checkEditTarget(sandbox, path, ctx.signal, WRITE_TARGET, 'head');
  return t.ok ? undefined : t.result;
}

async function loadCurrent(sandbox: WorkspaceSandbox, path: string, ctx: ToolContext): Promise<Current | ToolResult> {
  const t = await checkEditTarget(sandbox, path, ctx.signal, WRITE_TARGET, 'whole');
  if (!t.ok) return t.result;
  const { abs, shown } = t;
  return { abs, shown, original: t.bytes ? decodeText(t.bytes) : '', exists: t.exists };
}

/** Keep a CRLF file CRLF when the model wrote plain LF content. */
function matchEol(original: string, content: string): string {
  if (!original || dominantEol(original) !== '\r\n' || content.includes('\r\n')) return content;
  return content.replace(/\n/g, '\r\n');
}

export function createWriteFileTool(sandbox: WorkspaceSandbox, applier: EditApplier): Tool<typeof writeFileInput> {
  return {
    name: 'write_file',
    description:
      'Create a file or replace a file\'s entire content. Prefer apply_diff for changing part of an existing file. ' +
      'Always pass the complete content. The user reviews the change as a diff and may edit it before accepting.',
    input: writeFileInput,
    risk: 'write',
    precheck: (input, ctx) => refusal(sandbox, input.path, ctx),
    async preview(input, ctx): Promise<ApprovalPreview> {
      const cur = await loadCurrent(sandbox, input.path, ctx);
      if ('content' in cur) return { kind: 'generic', summary: cur.content };
      return { kind: 'edit', path: cur.abs, displayPath: sandbox.display(cur.abs), original: cur.original, proposed: matchEol(cur.original, input.content), isNewFile: !cur.exists };
    },
    async execute(input, ctx) {
      const cur = await loadCurrent(sandbox, input.path, ctx);
      if ('content' in cur) return cur;
      const { content, userEdited } = acceptedContent(ctx, matchEol(cur.original, input.content));
      ctx.signal.throwIfAborted();
      await applier.apply({ path: cur.abs, content, isNewFile: !cur.exists, original: cur.exists ? cur.original : undefined, taskId: ctx.taskId }, ctx.signal);
      const { added, removed } = lineChangeCounts(cur.original, content);
      let text = cur.exists ? `Wrote ${cur.shown} (+${added} -${removed} lines).` : `Created ${cur.shown} (${added} lines).`;
      if (userEdited) text += ' The user edited your proposal before accepting; re-read the file before changing it again.';
      return { content: text, effects: { edited: [cur.shown] }, data: { path: cur.shown, created: !cur.exists, added, removed, userEdited } };
    },
  };
}

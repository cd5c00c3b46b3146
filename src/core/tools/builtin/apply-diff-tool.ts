import * as z from 'zod';
import type { WorkspaceSandbox } from '../../safety/paths';
import type { EditApplier } from '../../workspace/types';
import { applyDiff, type AppliedBlock } from '../apply-diff/apply-diff';
import type { ApprovalPreview, Tool, ToolContext, ToolResult } from '../types';
import { PreviewFailed } from '../preview-failed';
import { checkEditTarget, decodeTextPaced, errorResult, prepareEdit } from './common';
import { acceptedContent, approvedEdit, lineChangeCountsPaced } from './write-file';
import { noun, plural } from '../../plural';

const applyDiffInput = z.object({
  path: z.string().describe('File to edit, relative to the workspace root.'),
  blocks: z
    .array(
      z.object({
        search: z
          .string()
          .describe(
            'Exact lines currently in the file (copied from read_file, without line-number prefixes). Must match one place.',
          ),
        replace: z.string().describe('The lines that replace them. Empty string deletes them.'),
        startLine: z
          .number()
          .int()
          .min(1)
          .optional()
          .describe(
            'Optional: the line number (as read_file showed it) where the search starts. Only used to choose when the search matches several places.',
          ),
      }),
    )
    .min(1)
    .describe('Search/replace blocks, all matched against the current file; they must not overlap.'),
});

type Input = z.infer<typeof applyDiffInput>;

const DIFF_TARGET = {
  mustExist: true,
  messages: {
    missing: (shown: string) =>
      `File not found: ${shown}. apply_diff edits existing files; use write_file to create one.`,
    dir: (shown: string) => `${shown} is a directory.`,
    binary: (shown: string) => `${shown} is a binary file; apply_diff only edits text.`,
  },
};

async function compute(sandbox: WorkspaceSandbox, input: Input, ctx: ToolContext) {
  const t = await checkEditTarget(sandbox, input.path, ctx.signal, DIFF_TARGET, 'whole');
  if (!t.ok) return { error: t.result };
  const { abs, shown } = t;
  const original = await decodeTextPaced(t.bytes ?? new Uint8Array(), ctx.signal);
  const result = await applyDiff(original, input.blocks, { signal: ctx.signal });
  return { abs, shown, original, result };
}

export function createApplyDiffTool(sandbox: WorkspaceSandbox, applier: EditApplier): Tool<typeof applyDiffInput> {
  return {
    name: 'apply_diff',
    description:
      'Edit part of an existing file with search/replace blocks. Each search must be text copied exactly from the ' +
      'file (a few lines, enough to be unique); small indentation differences are tolerated and re-indented. ' +
      'Either every block applies or the file is left untouched and you get a report with the closest match.',
    input: applyDiffInput,
    risk: 'write',
    /**
     * Path refusals, a missing, folder or binary target (without computing the diff); the control plane, always
     * asked of a person; the diff, computed only when someone is asked.
     */
    prepare: (input, ctx) =>
      prepareEdit(sandbox, input.path, ctx, DIFF_TARGET, async (signal): Promise<ApprovalPreview> => {
        const c = await compute(sandbox, input, { ...ctx, signal });
        // What execute() would answer, answered now: a failed preview is a result for the model, not a question.
        if ('error' in c) throw new PreviewFailed(c.error!);
        if (!c.result.ok) throw new PreviewFailed(errorResult(c.result.message, { failures: c.result.failures }));
        return {
          kind: 'edit',
          path: c.abs,
          displayPath: sandbox.display(c.abs),
          original: c.original,
          proposed: c.result.content,
          isNewFile: false,
        };
      }),
    async execute(input, ctx): Promise<ToolResult> {
      // Approved from a preview: the blocks are matched again in memory against the text that was shown (for the
      // report), the file is not read again; the applier refuses if it changed since.
      const ok = approvedEdit(ctx);
      const c = ok
        ? {
            abs: ok.path,
            shown: sandbox.display(ok.path),
            original: ok.original,
            result: await applyDiff(ok.original, input.blocks, { signal: ctx.signal }),
          }
        : await compute(sandbox, input, ctx);
      if ('error' in c) return c.error!;
      if (!c.result.ok) return errorResult(c.result.message, { failures: c.result.failures });
      const { content, userEdited } = ok
        ? {
            content: ok.content,
            userEdited:
              ctx.approval?.kind === 'approve' && ctx.approval.editedContent !== undefined && !ctx.approval.reviewNote,
          }
        : acceptedContent(ctx, c.result.content);
      ctx.signal.throwIfAborted();
      await applier.apply(
        {
          path: c.abs,
          content,
          isNewFile: false,
          original: c.original,
          taskId: ctx.taskId,
          toolCallId: ctx.toolCallId,
        },
        ctx.signal,
      );
      const { added, removed } = await lineChangeCountsPaced(c.original, content, ctx.signal);
      const applied: AppliedBlock[] = c.result.applied;
      const which = (f: (a: AppliedBlock) => boolean | undefined) => applied.filter(f).map((a) => a.index + 1);
      const tolerant = which((a) => a.match === 'tolerant');
      const hinted = which((a) => a.settledByHint);
      const stripped = which((a) => a.strippedLineNumbers);
      let text = `Applied ${plural(c.result.applied.length, 'block')} to ${c.shown} (+${added} -${removed} lines).`;
      if (tolerant.length)
        text += ` ${noun(tolerant.length, 'Block')} ${tolerant.join(', ')} matched after ignoring indentation; the replacement was re-indented to fit.`;
      if (hinted.length)
        text += ` ${noun(hinted.length, 'Block')} ${hinted.join(', ')} matched several places; startLine chose the one at ${applied
          .filter((a) => a.settledByHint)
          .map((a) => `line ${a.startLine}`)
          .join(', ')}.`;
      if (stripped.length)
        text += ` ${noun(stripped.length, 'Block')} ${stripped.join(', ')} carried read_file line-number prefixes; they were removed (send text without them).`;
      if (userEdited)
        text += ' The user edited your proposal before accepting; re-read the file before changing it again.';
      return {
        content: text,
        effects: { edited: [c.shown] },
        data: { path: c.shown, applied: c.result.applied, added, removed, userEdited },
      };
    },
  };
}

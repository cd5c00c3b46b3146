import { diffArrays } from 'diff';
import * as z from 'zod';
import type { WorkspaceSandbox } from '../../safety/paths';
import type { EditApplier } from '../../workspace/types';
import type { ApprovalPreview, ApprovedEdit, ToolContext, ToolResult } from '../types';
import type { Tool } from '../types';
import { PreviewFailed } from '../preview-failed';
import { checkEditTarget, decodeTextPaced, dominantEol, Pacer, prepareEdit } from './common';

const writeFileInput = z.object({
  path: z.string().describe('File path relative to the workspace root. Parent folders are created.'),
  content: z.string().describe('The COMPLETE new file content (not a fragment, no line numbers).'),
});

interface LineChanges {
  added: number;
  removed: number;
  /** The line diff ran out of time: counted as lines that appear more or fewer times (a lower bound for moves). */
  approximate?: boolean;
}

/** Time the line diff may take (it runs on the extension host's thread); past it the cheaper count is used. */
const DIFF_TIME_MS = 15;

/** Lines with their terminator (as jsdiff's diffLines tokenises), so "a" and "a\n" differ like they do there. */
function lineTokens(text: string, out: string[], from: number, to: number): number {
  let at = from;
  while (at < to) {
    const nl = text.indexOf('\n', at);
    if (nl < 0 || nl >= to) {
      out.push(text.slice(at, to));
      return to;
    }
    out.push(text.slice(at, nl + 1));
    at = nl + 1;
  }
  return at;
}

/** Counts on token arrays: common ends trimmed, then a time-limited diff of the middle (undefined past the limit). */
function countTokens(a: string[], b: string[], timeoutMs: number): LineChanges | { midA: string[]; midB: string[] } {
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--;
    endB--;
  }
  if (endA === start || endB === start) return { added: endB - start, removed: endA - start };
  const midA = a.slice(start, endA);
  const midB = b.slice(start, endB);
  const changes = diffArrays(midA, midB, { timeout: timeoutMs });
  if (changes) {
    let added = 0;
    let removed = 0;
    for (const c of changes) {
      if (c.added) added += c.count ?? c.value.length;
      else if (c.removed) removed += c.count ?? c.value.length;
    }
    return { added, removed };
  }
  return { midA, midB };
}

/** Slices of the multiset count between pacer checks. */
const COUNT_SLICE = 4096;

/** Counts lines[from, to) into `seen`. */
function addLines(seen: Map<string, number>, lines: string[], from: number, to: number): void {
  for (let i = from; i < to; i++) seen.set(lines[i]!, (seen.get(lines[i]!) ?? 0) + 1);
}

/** Takes lines[from, to) out of `seen`; returns how many were there (lines both sides share). */
function takeLines(seen: Map<string, number>, lines: string[], from: number, to: number): number {
  let common = 0;
  for (let i = from; i < to; i++) {
    const n = seen.get(lines[i]!);
    if (n) {
      seen.set(lines[i]!, n - 1);
      common++;
    }
  }
  return common;
}

/** Lines gained and lost (a multiset count): linear, and exact unless lines moved. */
function multisetCountSync(midA: string[], midB: string[]): LineChanges {
  const seen = new Map<string, number>();
  addLines(seen, midA, 0, midA.length);
  const common = takeLines(seen, midB, 0, midB.length);
  return { added: midB.length - common, removed: midA.length - common, approximate: true };
}

/** multisetCountSync in slices, pausing when the pacer says so. */
async function multisetCount(midA: string[], midB: string[], pacer: Pacer): Promise<LineChanges> {
  const seen = new Map<string, number>();
  for (let i = 0; i < midA.length; i += COUNT_SLICE) {
    addLines(seen, midA, i, Math.min(midA.length, i + COUNT_SLICE));
    if (pacer.due()) await pacer.pause();
  }
  let common = 0;
  for (let i = 0; i < midB.length; i += COUNT_SLICE) {
    common += takeLines(seen, midB, i, Math.min(midB.length, i + COUNT_SLICE));
    if (pacer.due()) await pacer.pause();
  }
  return { added: midB.length - common, removed: midA.length - common, approximate: true };
}

/**
 * Lines added and removed. Bounded: the line diff stops after DIFF_TIME_MS (every line of a 10,000-line file
 * changed would otherwise take jsdiff seconds) and the count falls back to lines gained and lost.
 */
export function lineChangeCounts(before: string, after: string): LineChanges {
  const a: string[] = [];
  const b: string[] = [];
  lineTokens(before, a, 0, before.length);
  lineTokens(after, b, 0, after.length);
  const r = countTokens(a, b, DIFF_TIME_MS);
  return 'midA' in r ? multisetCountSync(r.midA, r.midB) : r;
}

/** Characters tokenised per slice in lineChangeCountsPaced. */
const TOKEN_SLICE = 512 * 1024;

/** lineChangeCounts with pauses between slices of work, for big files on the extension host. */
export async function lineChangeCountsPaced(before: string, after: string, signal?: AbortSignal): Promise<LineChanges> {
  const pacer = new Pacer(signal);
  const tokens = async (text: string) => {
    const out: string[] = [];
    for (let at = 0; at < text.length;) {
      // Slice ends fall after a newline so no line is cut in two.
      let to = Math.min(text.length, at + TOKEN_SLICE);
      const nl = to < text.length ? text.indexOf('\n', to - 1) : -1;
      to = nl < 0 ? text.length : nl + 1;
      at = lineTokens(text, out, at, to);
      if (at < text.length) await pacer.pause();
    }
    return out;
  };
  const a = await tokens(before);
  const b = await tokens(after);
  // The diff below may take DIFF_TIME_MS: pause first only if the tokens took a slice already. (An unconditional
  // pause here, right after the edit reached the disk, let other extensions' reactions to it run first.)
  await pacer.pauseIfSpent();
  signal?.throwIfAborted();
  const r = countTokens(a, b, DIFF_TIME_MS);
  if (!('midA' in r)) return r;
  await pacer.pause();
  return multisetCount(r.midA, r.midB, pacer);
}

/** The edit the user approved as it was previewed, when the approver passed it on (no second read or diff). */
export function approvedEdit(ctx: ToolContext): ApprovedEdit | undefined {
  return ctx.approval?.kind === 'approve' ? ctx.approval.edit : undefined;
}

/** The content the user accepted: their edit of the proposed side wins over the model's proposal. */
export function acceptedContent(ctx: ToolContext, proposed: string): { content: string; userEdited: boolean } {
  const edited = ctx.approval?.kind === 'approve' ? ctx.approval.editedContent : undefined;
  return edited !== undefined && edited !== proposed
    ? { content: edited, userEdited: true }
    : { content: proposed, userEdited: false };
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

async function loadCurrent(sandbox: WorkspaceSandbox, path: string, ctx: ToolContext): Promise<Current | ToolResult> {
  const t = await checkEditTarget(sandbox, path, ctx.signal, WRITE_TARGET, 'whole');
  if (!t.ok) return t.result;
  const { abs, shown } = t;
  return { abs, shown, original: t.bytes ? await decodeTextPaced(t.bytes, ctx.signal) : '', exists: t.exists };
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
      "Create a file or replace a file's entire content. Prefer apply_diff for changing part of an existing file. " +
      'Always pass the complete content. The user reviews the change as a diff and may edit it before accepting.',
    input: writeFileInput,
    risk: 'write',
    /** Path refusals, a folder or binary target; the control plane, always asked of a person; the diff, lazily. */
    prepare: (input, ctx) =>
      prepareEdit(sandbox, input.path, ctx, WRITE_TARGET, async (signal): Promise<ApprovalPreview> => {
        const cur = await loadCurrent(sandbox, input.path, { ...ctx, signal });
        if ('content' in cur) throw new PreviewFailed({ ...cur, isError: true });
        return {
          kind: 'edit',
          path: cur.abs,
          displayPath: sandbox.display(cur.abs),
          original: cur.original,
          proposed: matchEol(cur.original, input.content),
          isNewFile: !cur.exists,
        };
      }),
    async execute(input, ctx) {
      // Approved from a preview: write what was shown (the applier refuses if the file changed since).
      const ok = approvedEdit(ctx);
      const cur = ok
        ? { abs: ok.path, shown: sandbox.display(ok.path), original: ok.original, exists: !ok.isNewFile }
        : await loadCurrent(sandbox, input.path, ctx);
      if ('content' in cur) return cur;
      const { content, userEdited } = ok
        ? {
            content: ok.content,
            userEdited:
              ctx.approval?.kind === 'approve' && ctx.approval.editedContent !== undefined && !ctx.approval.reviewNote,
          }
        : acceptedContent(ctx, matchEol(cur.original, input.content));
      ctx.signal.throwIfAborted();
      await applier.apply(
        {
          path: cur.abs,
          content,
          isNewFile: !cur.exists,
          original: cur.exists ? cur.original : undefined,
          taskId: ctx.taskId,
          toolCallId: ctx.toolCallId,
        },
        ctx.signal,
      );
      // The edit is on disk: counting its lines must not fail the call, and must not hold the host.
      const { added, removed, approximate } = await lineChangeCountsPaced(cur.original, content).catch(() => ({
        added: 0,
        removed: 0,
        approximate: true,
      }));
      const about = approximate ? '~' : '';
      let text = cur.exists
        ? `Wrote ${cur.shown} (+${about}${added} -${about}${removed} lines).`
        : `Created ${cur.shown} (${added} lines).`;
      if (userEdited)
        text += ' The user edited your proposal before accepting; re-read the file before changing it again.';
      return {
        content: text,
        effects: { edited: [cur.shown] },
        data: {
          path: cur.shown,
          created: !cur.exists,
          added,
          removed,
          userEdited,
          ...(approximate ? { approximateCounts: true } : {}),
        },
      };
    },
  };
}

// @-mentions on the wire: what the composer attaches to a message (files, folders, a selection, problems, the
// terminal's output, the working-tree changes), the picker's query and answer, and the chips a sent message shows.
// The host re-checks every path (workspace only, no secrets, .forgeignore): the schema only bounds the shape.
// Namespace import: `{ z }` would pull every zod locale (~250 KiB) into the webview bundle.
import * as z from 'zod';
import { Count, Label, LIMITS } from './primitives';

const MentionPath = z
  .string()
  .min(1)
  .max(LIMITS.path)
  .refine((p) => !p.includes('\0'), 'path must not contain NUL');
const Line = z.number().int().positive().max(10_000_000);

export const MentionSchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('file'), path: MentionPath }),
  z.strictObject({ kind: z.literal('folder'), path: MentionPath }),
  z.strictObject({ kind: z.literal('selection'), path: MentionPath, startLine: Line, endLine: Line }),
  z.strictObject({ kind: z.literal('problems'), path: MentionPath.optional() }),
  z.strictObject({ kind: z.literal('terminal') }),
  z.strictObject({ kind: z.literal('git') }),
]);
export type MentionView = z.infer<typeof MentionSchema>;
export const MAX_MENTIONS = 20;
export const MentionListSchema = z.array(MentionSchema).max(MAX_MENTIONS);

/** A chip: the mention and the text it shows (the host makes the label). */
export const MentionChipSchema = z.object({ mention: MentionSchema, label: Label });
export type MentionChip = z.infer<typeof MentionChipSchema>;

/** One row of the @ picker. */
export const MentionOptionSchema = z.object({
  mention: MentionSchema,
  label: Label,
  /** The folder of a file, or what a special entry attaches. */
  detail: Label.optional(),
});
export type MentionOption = z.infer<typeof MentionOptionSchema>;

/** The picker asks (webview -> host); `seq` pairs the answer with the latest query. */
export const MentionQueryMessageSchema = z.strictObject({
  type: z.literal('mention_query'),
  seq: Count,
  query: z.string().max(500),
});

export const MentionResultsMessageSchema = z.object({
  type: z.literal('mention_results'),
  seq: Count,
  options: z.array(MentionOptionSchema).max(100),
  /** The index is still being built: results may be incomplete. */
  indexing: z.boolean().optional(),
});

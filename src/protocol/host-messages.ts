// Host -> webview: the snapshot and its patches, provider and history updates, notices, slash commands and
// the ecosystem strip.
// Namespace import: `{ z }` would pull every zod locale (~250 KiB) into the webview bundle.
import * as z from 'zod';
import { ActionSchema, TranscriptItemSchema } from './items';
import { MAX_MENTIONS, MentionChipSchema, MentionResultsMessageSchema } from './mentions';
import { Count, Id, Label, LIMITS, Preview, Text } from './primitives';
import { QueueSchema } from './steering';
import {
  PlanViewSchema,
  ProgressSchema,
  ProviderStatusSchema,
  RunStatusSchema,
  SnapshotSchema,
  TaskSummarySchema,
} from './state';

export const SlashCommandInfoSchema = z.object({
  name: z
    .string()
    .min(1)
    .max(64)
    .regex(/^[A-Za-z][\w.:-]*$/),
  description: Label,
  argumentHint: z.string().max(100).optional(),
  source: z.string().max(100),
  /** Values the first argument takes (completed after "/name "). */
  choices: z.array(z.string().min(1).max(64).regex(/^\S+$/)).max(50).optional(),
  /** What a choice is (a custom agent's description), shown beside it. */
  choiceDescriptions: z
    .record(z.string().max(64), z.string().max(200))
    .refine((r) => Object.keys(r).length <= 50, 'at most 50 descriptions')
    .optional(),
});
export type SlashCommandInfoView = z.infer<typeof SlashCommandInfoSchema>;

/** Incremental updates, batched into one `patch` message per flush (~16-33 ms). */
export const PatchOpSchema = z.discriminatedUnion('op', [
  z.object({ op: z.literal('append'), item: TranscriptItemSchema }),
  /** Replaces the item with the same id (tool card and approval updates). */
  z.object({ op: z.literal('update'), item: TranscriptItemSchema }),
  /** Appends to a streamed field: assistant/thinking `text`, tool `argsText`. */
  z.object({ op: z.literal('delta'), id: Id, field: z.enum(['text', 'argsText']), delta: Text }),
  /** A streamed assistant/thinking item is complete. */
  z.object({ op: z.literal('end_stream'), id: Id }),
  z.object({ op: z.literal('progress'), progress: ProgressSchema }),
  z.object({ op: z.literal('status'), status: RunStatusSchema }),
  /** The live plan changed (null: the task has none). */
  z.object({ op: z.literal('plan'), plan: PlanViewSchema.nullable() }),
  /** The messages waiting above the composer (queued, or steering the run at its next step). */
  z.object({ op: z.literal('queue'), queue: QueueSchema }),
]);
export type PatchOp = z.infer<typeof PatchOpSchema>;

/** MCP servers, project rules in use and queued attachments: the panel's compact ecosystem strip. */
export const EcosystemSchema = z.object({
  mcp: z
    .array(z.object({ name: Label, state: z.string().max(20), tools: Count.optional(), error: Label.optional() }))
    .max(100),
  rules: z
    .array(
      z.object({
        display: z.string().max(LIMITS.path),
        kind: z.enum(['root', 'forge', 'nested', 'imported']),
        truncated: z.boolean(),
      }),
    )
    .max(200),
  attachments: z.array(Label).max(50),
  /** The team's skills (loaded: the current task loaded it), custom agents, and files that could not be used. */
  skills: z
    .array(z.object({ name: Label, display: z.string().max(LIMITS.path), loaded: z.boolean() }))
    .max(100)
    .optional(),
  agents: z
    .array(z.object({ name: Label, display: z.string().max(LIMITS.path), model: Label.optional() }))
    .max(30)
    .optional(),
  teamProblems: z
    .array(z.object({ display: z.string().max(LIMITS.path), reason: Label }))
    .max(50)
    .optional(),
});
export type EcosystemView = z.infer<typeof EcosystemSchema>;
export const EcosystemActionSchema = z.enum([
  'show_mcp_servers',
  'edit_rules',
  'attach_resource',
  'open_rule',
  /** Opens a skill's SKILL.md or an agent file in use (`display` names it). */
  'open_team_file',
]);
export type EcosystemAction = z.infer<typeof EcosystemActionSchema>;

export const HostMessageSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('state'), snapshot: SnapshotSchema }),
  z.object({ type: z.literal('patch'), seq: Count, ops: z.array(PatchOpSchema).max(LIMITS.opsPerPatch) }),
  z.object({ type: z.literal('provider_status'), provider: ProviderStatusSchema }),
  z.object({ type: z.literal('history'), tasks: z.array(TaskSummarySchema).max(LIMITS.history) }),
  /** A transient banner (not part of the transcript): what failed and what to do. */
  z.object({ type: z.literal('error'), message: Preview, actions: z.array(ActionSchema).max(6).optional() }),
  /** Puts text into the input box (e.g. "Add Selection to Chat") and focuses it. */
  z.object({
    type: z.literal('prefill'),
    text: z.string().max(LIMITS.userText),
    /** Chips put in the composer with the text (Add Selection to Chat; a message that could not be sent). */
    chips: z.array(MentionChipSchema).max(MAX_MENTIONS).optional(),
  }),
  /** Opens a part of the panel (the view title's History button). */
  z.object({ type: z.literal('show'), view: z.enum(['history', 'setup']) }),
  /** The current task's mode changed (mode switch, new task, task loaded). */
  z.object({ type: z.literal('mode'), mode: Label }),
  /** Answer to check_provider: whether the endpoint answers, its models, and local servers found. */
  z.object({
    type: z.literal('provider_check'),
    ok: z.boolean(),
    message: Preview.optional(),
    models: z.array(Label).max(LIMITS.models).optional(),
    local: z
      .array(
        z.object({ label: Label, baseUrl: z.string().max(LIMITS.path), models: z.array(Label).max(LIMITS.models) }),
      )
      .max(4)
      .optional(),
  }),
  /** The slash commands the input completes (built-ins, `.forge/commands/*.md`, MCP prompts). */
  z.object({ type: z.literal('slash_commands'), commands: z.array(SlashCommandInfoSchema).max(500) }),
  /** The answer to a slash command that starts no run (/help, /mode, an unknown command): shown by the input. */
  z.object({ type: z.literal('command_notice'), text: Preview, level: z.enum(['info', 'error']) }),
  z.object({ type: z.literal('ecosystem'), ecosystem: EcosystemSchema }),
  MentionResultsMessageSchema,
]);
export type HostMessage = z.infer<typeof HostMessageSchema>;

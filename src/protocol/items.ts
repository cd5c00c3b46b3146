// The transcript's items as the panel shows them, and the pieces they share with the messages (statuses,
// actions, approval previews, hunks, changed files).
// Namespace import: `{ z }` would pull every zod locale (~250 KiB) into the webview bundle.
import * as z from 'zod';
import { MAX_MENTIONS, MentionChipSchema } from './mentions';
import { ImageThumbsSchema } from './images';
import { Count, Id, Label, LIMITS, Ms, Preview, Text } from './primitives';

// ---------- shared pieces ----------

export const TerminationReasonSchema = z.enum([
  'done',
  'asked',
  'converse',
  'stopped',
  'max_iterations',
  'breaker',
  'stagnation',
  'guardrail',
  'error',
]);

/** Buttons the host can attach to a notice; the webview maps each to a WebviewMessage. */
export const ActionSchema = z.enum([
  'continue',
  'new_task',
  'set_api_key',
  'select_model',
  'open_settings',
  'show_logs',
  'retry',
  'setup_model',
  'implement_plan',
]);
export type Action = z.infer<typeof ActionSchema>;

export const ToolStatusSchema = z.enum([
  'pending',
  'running',
  'awaiting_approval',
  'done',
  'error',
  'rejected',
  'cancelled',
  'interrupted',
]);
export type ToolStatus = z.infer<typeof ToolStatusSchema>;

export const ApprovalStatusSchema = z.enum(['pending', 'approved', 'approved_task', 'rejected', 'cancelled']);
export type ApprovalStatus = z.infer<typeof ApprovalStatusSchema>;

export const HunkStateSchema = z.enum(['pending', 'accepted', 'rejected']);
export type HunkState = z.infer<typeof HunkStateSchema>;

/** One hunk of an edit proposal as the approval card lists it, with the user's decision on it. */
export const HunkViewSchema = z.object({
  index: Count,
  /** "@@ -12,3 +12,4 @@" */
  header: Label,
  /** Unified-diff lines (a little context around the change), capped. */
  body: Preview,
  oldStart: Count,
  oldLines: Count,
  newStart: Count,
  newLines: Count,
  state: HunkStateSchema,
  reason: z.string().max(LIMITS.rejectReason).optional(),
});
export type HunkView = z.infer<typeof HunkViewSchema>;

/** What the panel shows of an ApprovalPreview: the full diff lives in the diff editor, the card gets a capped one. */
export const ApprovalPreviewViewSchema = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('edit'),
    path: z.string().max(LIMITS.path),
    displayPath: z.string().max(LIMITS.path).optional(),
    isNewFile: z.boolean(),
    added: Count,
    removed: Count,
    diff: Preview,
    diffTruncated: z.boolean(),
    /** Per-hunk review (absent: the edit is approved whole); the host updates the states as the user decides. */
    hunks: z.array(HunkViewSchema).max(200).optional(),
  }),
  z.object({
    kind: z.literal('command'),
    command: Preview,
    cwd: z.string().max(LIMITS.path).optional(),
    /** What "Always for this task" allows from now on (e.g. "git commit"); absent: nothing beyond this call. */
    grant: z.string().max(LIMITS.path).optional(),
    /** Whether and how the command runs contained. */
    containment: z.string().max(LIMITS.path).optional(),
  }),
  z.object({ kind: z.literal('generic'), summary: Preview }),
]);
export type ApprovalPreviewView = z.infer<typeof ApprovalPreviewViewSchema>;

// ---------- transcript items ----------

/** parentId: the delegate_task tool item a sub-agent's item belongs to (shown nested under it). */
const base = { id: Id, ts: Ms, parentId: Id.optional() };
const MemorySchema = z.object({ id: Label, content: Preview, type: Label });

export const UserItemSchema = z.object({
  ...base,
  kind: z.literal('user'),
  text: Text,
  /** The message's turn in the conversation: edit-and-resend rewinds to it. */
  turnId: Id.optional(),
  /** Typed while a run worked and delivered to it at a step boundary. */
  steered: z.boolean().optional(),
  /** Thumbnails of the images sent with the message. */
  images: ImageThumbsSchema.optional(),
  /** What the user attached with @ (chips above the message's text). */
  mentions: z.array(MentionChipSchema).max(MAX_MENTIONS).optional(),
});
export const AssistantItemSchema = z.object({
  ...base,
  kind: z.literal('assistant'),
  text: Text,
  streaming: z.boolean(),
});
export const ThinkingItemSchema = z.object({
  ...base,
  kind: z.literal('thinking'),
  text: Text,
  streaming: z.boolean(),
});
export const ToolItemSchema = z.object({
  ...base,
  kind: z.literal('tool'),
  toolCallId: Id,
  name: Label,
  /** Raw (possibly partial) JSON arguments as streamed; pretty-printed once complete. */
  argsText: Text,
  /** One line for the collapsed card, e.g. the path or command. */
  argsSummary: Label,
  status: ToolStatusSchema,
  startedAt: Ms.optional(),
  durationMs: Ms.optional(),
  result: Preview.optional(),
  resultTruncated: z.boolean(),
  /** Handle for the host to page the full output (open_tool_output). */
  fullOutputRef: Id.optional(),
  /** Tail of live progress output (terminal chunks). */
  progress: Preview.optional(),
  /** An edit the user approved from its card: the row reads "edited src/x.ts +4 −1" and reopens the change. */
  edit: z
    .object({
      path: z.string().max(LIMITS.path),
      displayPath: z.string().max(LIMITS.path).optional(),
      isNewFile: z.boolean(),
      added: Count,
      removed: Count,
      requestId: Id,
      /** Hunks the user rejected in a per-hunk review: not written; the row names them with their reasons. */
      rejectedHunks: z
        .array(z.object({ n: Count, reason: z.string().max(LIMITS.rejectReason).optional() }))
        .max(200)
        .optional(),
    })
    .optional(),
  /** A command's exit code (null: killed by a signal); absent for other tools. */
  exitCode: z.number().int().nullable().optional(),
  /** The call changed files (edit journal): its step is a checkpoint the user can restore to. */
  checkpoint: z.boolean().optional(),
  /** Files a command changed, and how many more there were. */
  changedFiles: z.array(z.string().max(LIMITS.path)).max(200).optional(),
  changedFilesMore: Count.optional(),
  /** Set when the command's changes are in the task's checkpoints: how many of them are not (binary, large, links). */
  changedFilesUntracked: Count.optional(),
});
export const ApprovalItemSchema = z.object({
  ...base,
  kind: z.literal('approval'),
  requestId: Id,
  toolCallId: Id,
  toolName: Label,
  risk: z.enum(['read', 'write', 'execute', 'network']),
  summary: Label,
  preview: ApprovalPreviewViewSchema.optional(),
  status: ApprovalStatusSchema,
  reason: z.string().max(LIMITS.rejectReason).optional(),
  /**
   * A control-plane edit: the card says so ("control plane: VS Code ... reads its settings; this edit is never
   * auto-approved") and offers no "Always for this task".
   */
  sensitive: z.object({ path: z.string().max(LIMITS.path), notice: Label }).optional(),
});
export const WarningItemSchema = z.object({
  ...base,
  kind: z.literal('warning'),
  warningKind: z.enum(['iteration_limit', 'stagnation', 'retry', 'budget', 'fallback', 'other']),
  message: Preview,
});
export const CompactionItemSchema = z.object({
  ...base,
  kind: z.literal('compaction'),
  beforeTokens: Count,
  afterTokens: Count,
  summary: Preview,
});
export const MemoryItemSchema = z.object({
  ...base,
  kind: z.literal('memory'),
  direction: z.enum(['recalled', 'learned']),
  memories: z.array(MemorySchema).max(100),
});
export const RunEndItemSchema = z.object({
  ...base,
  kind: z.literal('run_end'),
  reason: TerminationReasonSchema,
  /** The result, the question, or what went wrong and what to do (markdown). */
  detail: Text,
  iterations: Count,
  inputTokens: Count,
  outputTokens: Count,
  costUsd: z.number().nonnegative().optional(),
  elapsedMs: Ms,
  actions: z.array(ActionSchema).max(6),
  /** The run finished, but the user rejected every edit it proposed: nothing was written (not a green "complete"). */
  nothingWritten: z.boolean().optional(),
  /** What besides the model steps the totals include (compaction, reflection, sub-agents); costUsd absent = unknown price. */
  spend: z
    .array(
      z.object({
        source: z.enum(['steps', 'compaction', 'reflection', 'sub_agents']),
        tokens: Count,
        costUsd: z.number().nonnegative().optional(),
      }),
    )
    .max(4)
    .optional(),
  /** "<provider>:<model>" the run switched to after the primary kept failing. */
  fallbackModel: Label.optional(),
});
/**
 * A visible mark: files were restored to a checkpoint, or the task's changes were undone (and the conversation maybe
 * rewound), or such a restore was redone (the task's edits put back).
 */
export const CheckpointItemSchema = z.object({
  ...base,
  kind: z.literal('checkpoint'),
  action: z.enum(['restore', 'undo', 'redo']),
  /** A restore or undo whose edits were put back since (it offers no Redo any more). */
  redone: z.boolean().optional(),
  /** The checkpoint (1-based, in task order) restored to; absent for a whole-task undo. */
  step: Count.optional(),
  restored: z.array(z.string().max(LIMITS.path)).max(2000),
  deleted: z.array(z.string().max(LIMITS.path)).max(2000),
  /** Files the user changed since: kept as they are (skipped) or reported (could not restore). */
  skipped: z.array(z.string().max(LIMITS.path)).max(2000),
  conflicts: z.array(z.object({ path: z.string().max(LIMITS.path), reason: Label })).max(2000),
  /** Messages dropped from the conversation when it was rewound to the checkpoint too. */
  rewoundMessages: Count.optional(),
});
/** One file a task changed, against the task's start. */
export const ChangedFileSchema = z.object({
  path: z.string().max(LIMITS.path),
  displayPath: z.string().max(LIMITS.path),
  added: Count,
  removed: Count,
  kind: z.enum(['created', 'modified', 'deleted']),
  /** changed: as the task left it; kept: the user kept it; undone: restored to the task's start; conflict: could not undo. */
  state: z.enum(['changed', 'kept', 'undone', 'conflict']),
  note: Label.optional(),
});
export type ChangedFile = z.infer<typeof ChangedFileSchema>;
/** The completion block's list of files the task changed (View changes, Undo / Keep per file, New task). */
export const ChangesItemSchema = z.object({
  ...base,
  kind: z.literal('changes'),
  taskId: Id,
  files: z.array(ChangedFileSchema).max(500),
  more: Count.optional(),
});
export const ErrorItemSchema = z.object({
  ...base,
  kind: z.literal('error'),
  message: Preview,
  actions: z.array(ActionSchema).max(6),
  /**
   * 'setup': about the model not being set up; goes away once one is. 'storage': what the storage can or cannot
   * write now. Neither is saved with the task: after a reload it would no longer be true.
   */
  topic: z.enum(['setup', 'storage']).optional(),
  /** 'ok': good news in the same place (the storage works again), shown as such rather than as an alert. */
  tone: z.enum(['ok']).optional(),
});
/** The context a mode gathered before its first step (plan: manifests + tree, review: diff, test: test files). */
export const ContextItemSchema = z.object({
  ...base,
  kind: z.literal('context'),
  mode: Label,
  sources: z.array(Label).max(50),
  tokens: Count,
});

export const TranscriptItemSchema = z.discriminatedUnion('kind', [
  UserItemSchema,
  AssistantItemSchema,
  ThinkingItemSchema,
  ToolItemSchema,
  ApprovalItemSchema,
  WarningItemSchema,
  CompactionItemSchema,
  MemoryItemSchema,
  RunEndItemSchema,
  ErrorItemSchema,
  CheckpointItemSchema,
  ChangesItemSchema,
  ContextItemSchema,
]);
export type TranscriptItem = z.infer<typeof TranscriptItemSchema>;
export type ItemKind = TranscriptItem['kind'];
export type ItemOf<K extends ItemKind> = Extract<TranscriptItem, { kind: K }>;

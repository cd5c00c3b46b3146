// The typed contract between the extension host and the chat webview. Both sides import this module only.
// Every message in both directions is validated here; anything that does not parse is dropped by the receiver.
// Namespace import: `{ z }` would pull every zod locale (~250 KiB) into the webview bundle.
import * as z from 'zod';

export const LIMITS = {
  /** A user chat message. */
  userText: 100_000,
  id: 256,
  path: 4_096,
  rejectReason: 2_000,
  /** Host-side strings: assistant text, thinking, tool args (the transcript caps tool output well below). */
  itemText: 2_000_000,
  preview: 50_000,
  label: 1_000,
  items: 200_000,
  opsPerPatch: 20_000,
  history: 5_000,
  models: 500,
} as const;

/** Printable ASCII without spaces: request ids, tool call ids, task ids. */
const Id = z.string().min(1).max(LIMITS.id).regex(/^[\x21-\x7e]+$/, 'id must be printable ASCII without spaces');
const Label = z.string().max(LIMITS.label);
const Text = z.string().max(LIMITS.itemText);
const Preview = z.string().max(LIMITS.preview);
const Count = z.number().int().nonnegative();
const Ms = z.number().nonnegative();

// ---------- shared pieces ----------

export const TerminationReasonSchema = z.enum([
  'done', 'asked', 'converse', 'stopped', 'max_iterations', 'breaker', 'stagnation', 'guardrail', 'error',
]);

/** Buttons the host can attach to a notice; the webview maps each to a WebviewMessage. */
export const ActionSchema = z.enum(['continue', 'new_task', 'set_api_key', 'select_model', 'open_settings', 'show_logs', 'retry', 'setup_model', 'implement_plan']);
export type Action = z.infer<typeof ActionSchema>;

export const ToolStatusSchema = z.enum(['pending', 'running', 'awaiting_approval', 'done', 'error', 'rejected', 'cancelled']);
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
  oldStart: Count, oldLines: Count, newStart: Count, newLines: Count,
  state: HunkStateSchema,
  reason: z.string().max(LIMITS.rejectReason).optional(),
});
export type HunkView = z.infer<typeof HunkViewSchema>;

/** What the panel shows of an ApprovalPreview: the full diff lives in the diff editor, the card gets a capped one. */
export const ApprovalPreviewViewSchema = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('edit'), path: z.string().max(LIMITS.path), displayPath: z.string().max(LIMITS.path).optional(), isNewFile: z.boolean(),
    added: Count, removed: Count, diff: Preview, diffTruncated: z.boolean(),
    /** Per-hunk review (absent: the edit is approved whole); the host updates the states as the user decides. */
    hunks: z.array(HunkViewSchema).max(200).optional(),
  }),
  z.object({
    kind: z.literal('command'), command: Preview, cwd: z.string().max(LIMITS.path).optional(),
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

export const UserItemSchema = z.object({ ...base, kind: z.literal('user'), text: Text });
export const AssistantItemSchema = z.object({ ...base, kind: z.literal('assistant'), text: Text, streaming: z.boolean() });
export const ThinkingItemSchema = z.object({ ...base, kind: z.literal('thinking'), text: Text, streaming: z.boolean() });
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
  edit: z.object({ path: z.string().max(LIMITS.path), displayPath: z.string().max(LIMITS.path).optional(), isNewFile: z.boolean(), added: Count, removed: Count, requestId: Id }).optional(),
  /** A command's exit code (null: killed by a signal); absent for other tools. */
  exitCode: z.number().int().nullable().optional(),
  /** The call changed files (edit journal): its step is a checkpoint the user can restore to. */
  checkpoint: z.boolean().optional(),
  /** Files a command changed (detected after it ran), and how many more there were; undo cannot restore these. */
  changedFiles: z.array(z.string().max(LIMITS.path)).max(200).optional(),
  changedFilesMore: Count.optional(),
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
});
export const WarningItemSchema = z.object({
  ...base, kind: z.literal('warning'),
  warningKind: z.enum(['iteration_limit', 'stagnation', 'retry', 'budget', 'fallback', 'other']), message: Preview,
});
export const CompactionItemSchema = z.object({
  ...base, kind: z.literal('compaction'), beforeTokens: Count, afterTokens: Count, summary: Preview,
});
export const MemoryItemSchema = z.object({
  ...base, kind: z.literal('memory'), direction: z.enum(['recalled', 'learned']), memories: z.array(MemorySchema).max(100),
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
  /** What besides the model steps the totals include (compaction, reflection, sub-agents); costUsd absent = unknown price. */
  spend: z.array(z.object({
    source: z.enum(['steps', 'compaction', 'reflection', 'sub_agents']), tokens: Count, costUsd: z.number().nonnegative().optional(),
  })).max(4).optional(),
  /** "<provider>:<model>" the run switched to after the primary kept failing. */
  fallbackModel: Label.optional(),
});
/** A visible mark: files were restored to a checkpoint, or the task's changes were undone (and the conversation maybe rewound). */
export const CheckpointItemSchema = z.object({
  ...base,
  kind: z.literal('checkpoint'),
  action: z.enum(['restore', 'undo']),
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
  ...base, kind: z.literal('changes'), taskId: Id, files: z.array(ChangedFileSchema).max(500), more: Count.optional(),
});
export const ErrorItemSchema = z.object({
  ...base, kind: z.literal('error'), message: Preview, actions: z.array(ActionSchema).max(6),
  /** 'setup': about the model not being set up; goes away once one is, and is never saved with the task. */
  topic: z.enum(['setup']).optional(),
});
/** The context a mode gathered before its first step (plan: manifests + tree, review: diff, test: test files). */
export const ContextItemSchema = z.object({
  ...base, kind: z.literal('context'), mode: Label, sources: z.array(Label).max(50), tokens: Count,
});

export const TranscriptItemSchema = z.discriminatedUnion('kind', [
  UserItemSchema, AssistantItemSchema, ThinkingItemSchema, ToolItemSchema, ApprovalItemSchema,
  WarningItemSchema, CompactionItemSchema, MemoryItemSchema, RunEndItemSchema, ErrorItemSchema,
  CheckpointItemSchema, ChangesItemSchema, ContextItemSchema,
]);
export type TranscriptItem = z.infer<typeof TranscriptItemSchema>;
export type ItemKind = TranscriptItem['kind'];
export type ItemOf<K extends ItemKind> = Extract<TranscriptItem, { kind: K }>;

// ---------- run status, progress, provider, history ----------

export const RunStatusSchema = z.object({
  state: z.enum(['idle', 'running', 'awaiting_approval', 'stopping']),
  runId: Id.optional(),
  /** The send_message / continue requestId that started the run: stop carries it back. */
  requestId: Id.optional(),
  mode: Label.optional(),
});
export type RunStatus = z.infer<typeof RunStatusSchema>;

export const ProgressSchema = z.object({
  iteration: Count,
  maxIterations: Count,
  inputTokens: Count,
  outputTokens: Count,
  /** Absent when the model has no known price: the UI then shows tokens only. */
  costUsd: z.number().nonnegative().optional(),
  elapsedMs: Ms,
  contextTokens: Count.optional(),
  contextWindow: Count.optional(),
});
export type Progress = z.infer<typeof ProgressSchema>;

export const ProviderStatusSchema = z.object({
  configured: z.boolean(),
  provider: Label.optional(),
  model: Label.optional(),
  /** Why it is not usable, and what to do (e.g. "No API key for OpenAI: run Forge: Set API Key"). */
  problem: Label.optional(),
  /** Models the dropdown offers; select_model {modelId} picks one, select_model {} opens the host's picker. */
  models: z.array(z.object({ id: Id, label: Label })).max(LIMITS.models).optional(),
  /** The id in `models` of the model in use (ids are provider-qualified, so `model` alone cannot pick it). */
  modelId: Id.optional(),
  /** How tool calls are made: native, or Forge's XML text format (auto switches when an endpoint cannot). */
  toolFormat: z.enum(['native', 'xml']).optional(),
  /** Why that format (the setting, a remembered decision, or what the endpoint / model did). */
  toolFormatReason: Label.optional(),
  /** Tokens, and where the number came from (server, setting, assumption). */
  contextWindow: z.number().int().positive().optional(),
  contextWindowSource: Label.optional(),
  /** A usable configuration with a caveat (e.g. the local server is not running yet). */
  warning: Label.optional(),
});
export type ProviderStatus = z.infer<typeof ProviderStatusSchema>;

export const TaskSummarySchema = z.object({
  id: Id,
  title: Label,
  updatedAt: Ms,
  status: z.string().max(40).optional(),
  /** Tokens the task spent so far and its cost (absent: unknown price). */
  tokens: Count.optional(),
  costUsd: z.number().nonnegative().optional(),
});
export type TaskSummary = z.infer<typeof TaskSummarySchema>;

/** The task's live plan as the panel shows it (update_plan; the user can edit it). */
export const PlanStepViewSchema = z.object({ text: z.string().min(1).max(500), status: z.enum(['pending', 'in_progress', 'done', 'skipped']) });
export const PlanViewSchema = z.object({
  goal: z.string().max(1_000),
  steps: z.array(PlanStepViewSchema).max(50),
  /** 1-based; 0 = none. */
  currentStep: Count,
  updatedBy: z.enum(['model', 'user']),
  updatedAt: Ms,
});
export type PlanView = z.infer<typeof PlanViewSchema>;

export const SnapshotSchema = z.object({
  /** Patches that follow carry seq + 1, seq + 2, ...; a gap makes the webview ask for a fresh snapshot. */
  seq: Count,
  taskId: Id.optional(),
  items: z.array(TranscriptItemSchema).max(LIMITS.items),
  status: RunStatusSchema,
  progress: ProgressSchema.optional(),
  provider: ProviderStatusSchema,
  history: z.array(TaskSummarySchema).max(LIMITS.history),
  /** The modes the panel's mode switch offers, and the current task's mode. */
  modes: z.array(z.object({ id: Id, label: Label })).max(20).optional(),
  mode: Label.optional(),
  plan: PlanViewSchema.optional(),
});
export type Snapshot = z.infer<typeof SnapshotSchema>;

// ---------- host -> webview ----------

export const SlashCommandInfoSchema = z.object({
  name: z.string().min(1).max(64).regex(/^[A-Za-z][\w.:-]*$/),
  description: Label,
  argumentHint: z.string().max(100).optional(),
  source: z.string().max(100),
  /** Values the first argument takes (completed after "/name "). */
  choices: z.array(z.string().min(1).max(64).regex(/^\S+$/)).max(50).optional(),
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
]);
export type PatchOp = z.infer<typeof PatchOpSchema>;

/** MCP servers, project rules in use and queued attachments: the panel's compact ecosystem strip. */
export const EcosystemSchema = z.object({
  mcp: z.array(z.object({ name: Label, state: z.string().max(20), tools: Count.optional(), error: Label.optional() })).max(100),
  rules: z.array(z.object({ display: z.string().max(LIMITS.path), kind: z.enum(['root', 'forge', 'nested', 'imported']), truncated: z.boolean() })).max(200),
  attachments: z.array(Label).max(50),
});
export type EcosystemView = z.infer<typeof EcosystemSchema>;
export const EcosystemActionSchema = z.enum(['show_mcp_servers', 'edit_rules', 'attach_resource', 'open_rule']);
export type EcosystemAction = z.infer<typeof EcosystemActionSchema>;

export const HostMessageSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('state'), snapshot: SnapshotSchema }),
  z.object({ type: z.literal('patch'), seq: Count, ops: z.array(PatchOpSchema).max(LIMITS.opsPerPatch) }),
  z.object({ type: z.literal('provider_status'), provider: ProviderStatusSchema }),
  z.object({ type: z.literal('history'), tasks: z.array(TaskSummarySchema).max(LIMITS.history) }),
  /** A transient banner (not part of the transcript): what failed and what to do. */
  z.object({ type: z.literal('error'), message: Preview, actions: z.array(ActionSchema).max(6).optional() }),
  /** Puts text into the input box (e.g. "Add Selection to Chat") and focuses it. */
  z.object({ type: z.literal('prefill'), text: z.string().max(LIMITS.userText) }),
  /** Opens a part of the panel (the view title's History button). */
  z.object({ type: z.literal('show'), view: z.enum(['history', 'setup']) }),
  /** The current task's mode changed (mode switch, new task, task loaded). */
  z.object({ type: z.literal('mode'), mode: Label }),
  /** Answer to check_provider: whether the endpoint answers, its models, and local servers found. */
  z.object({
    type: z.literal('provider_check'), ok: z.boolean(), message: Preview.optional(),
    models: z.array(Label).max(LIMITS.models).optional(),
    local: z.array(z.object({ label: Label, baseUrl: z.string().max(LIMITS.path), models: z.array(Label).max(LIMITS.models) })).max(4).optional(),
  }),
  /** The slash commands the input completes (built-ins, `.forge/commands/*.md`, MCP prompts). */
  z.object({ type: z.literal('slash_commands'), commands: z.array(SlashCommandInfoSchema).max(500) }),
  /** The answer to a slash command that starts no run (/help, /mode, an unknown command): shown by the input. */
  z.object({ type: z.literal('command_notice'), text: Preview, level: z.enum(['info', 'error']) }),
  z.object({ type: z.literal('ecosystem'), ecosystem: EcosystemSchema }),
]);
export type HostMessage = z.infer<typeof HostMessageSchema>;

export const ProviderIdSchema = z.enum(['vscode-lm', 'openai', 'anthropic', 'openai-compatible']);
export type PanelProviderId = z.infer<typeof ProviderIdSchema>;

// ---------- webview -> host (untrusted direction: strict objects, unknown keys rejected) ----------

export const PanelApprovalDecisionSchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('approve'), scope: z.enum(['once', 'task']) }),
  z.strictObject({ kind: z.literal('reject'), reason: z.string().max(LIMITS.rejectReason).optional() }),
]);
/** Structurally a subset of core's ApprovalDecision, so it can be passed straight to the Approver. */
export type PanelApprovalDecision = z.infer<typeof PanelApprovalDecisionSchema>;

export const WebviewMessageSchema = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('ready') }),
  z.strictObject({ type: z.literal('send_message'), requestId: Id, text: z.string().min(1).max(LIMITS.userText) }),
  /** requestId of the run to stop (RunStatus.requestId); absent = whatever is running. */
  z.strictObject({ type: z.literal('stop'), requestId: Id.optional() }),
  z.strictObject({ type: z.literal('approval_decision'), requestId: Id, decision: PanelApprovalDecisionSchema }),
  z.strictObject({ type: z.literal('continue'), requestId: Id }),
  z.strictObject({ type: z.literal('new_task') }),
  z.strictObject({ type: z.literal('load_task'), id: Id }),
  z.strictObject({ type: z.literal('open_file'), path: z.string().min(1).max(LIMITS.path), line: z.number().int().positive().optional() }),
  z.strictObject({ type: z.literal('open_diff'), requestId: Id }),
  z.strictObject({ type: z.literal('open_tool_output'), ref: Id }),
  z.strictObject({ type: z.literal('select_model'), modelId: Id.optional() }),
  z.strictObject({ type: z.literal('open_settings') }),
  z.strictObject({ type: z.literal('set_api_key'), provider: z.string().max(100).optional() }),
  z.strictObject({ type: z.literal('show_logs') }),
  z.strictObject({ type: z.literal('delete_task'), id: Id }),
  z.strictObject({ type: z.literal('set_mode'), mode: Id }),
  /** The setup form: ask an endpoint for its models (and look for local servers); the key is not stored. */
  z.strictObject({ type: z.literal('check_provider'), provider: ProviderIdSchema, baseUrl: z.string().max(LIMITS.path).optional(), apiKey: z.string().max(LIMITS.path).optional() }),
  /** The setup form's Save: settings for provider/base URL/model, SecretStorage for the key. */
  z.strictObject({
    type: z.literal('save_provider'), provider: ProviderIdSchema, baseUrl: z.string().max(LIMITS.path).optional(),
    model: z.string().max(LIMITS.label).optional(), apiKey: z.string().max(LIMITS.path).optional(),
  }),
  /** The user edited the plan's checklist: the whole plan as it now stands. */
  z.strictObject({
    /** Absent: the open task (a new task's id reaches the webview only with its next snapshot). */
    type: z.literal('edit_plan'), taskId: Id.optional(),
    plan: z.strictObject({ goal: z.string().min(1).max(1_000), steps: z.array(z.strictObject(PlanStepViewSchema.shape)).min(1).max(50), currentStep: z.number().int().min(1).max(50).optional() }),
  }),
  /** "Restore to here" on a tool card: the files go back to how they were at the end of that call's step. */
  z.strictObject({ type: z.literal('restore_checkpoint'), taskId: Id.optional(), toolCallId: Id }),
  /** The user's decision on one hunk of a pending edit ('pending' clears it). */
  z.strictObject({
    type: z.literal('hunk_decision'), requestId: Id, index: Count, state: HunkStateSchema,
    reason: z.string().max(LIMITS.rejectReason).optional(),
  }),
  /** The completion block: view all changes (multi-file diff), open one file's diff, undo or keep one file. */
  z.strictObject({
    type: z.literal('changes_action'), taskId: Id, action: z.enum(['view', 'open', 'undo', 'keep']),
    path: z.string().min(1).max(LIMITS.path).optional(),
  }),
  /** "Implement this plan" on a plan-mode run's completion: implement mode gets the plan as its task. */
  z.strictObject({ type: z.literal('implement_plan'), requestId: Id }),
  /** The ecosystem strip: MCP servers, rules (open_rule: `display` of a rule in use), attach a resource. */
  z.strictObject({ type: z.literal('ecosystem_action'), action: EcosystemActionSchema, display: z.string().min(1).max(LIMITS.path).optional() }),
]);
export type WebviewMessage = z.infer<typeof WebviewMessageSchema>;
export type WebviewMessageType = WebviewMessage['type'];

// ---------- parsing ----------

export type ParseResult<T> = { ok: true; message: T } | { ok: false; error: string };

function describe(x: unknown): string {
  if (x === null || typeof x !== 'object') return `not an object (${x === null ? 'null' : typeof x})`;
  const t = (x as { type?: unknown }).type;
  return typeof t === 'string' ? `'${t.slice(0, 40)}'` : 'without a string type';
}

function parseWith<T>(schema: z.ZodType<T>, known: ReadonlySet<string>, x: unknown): ParseResult<T> {
  const t = x !== null && typeof x === 'object' ? (x as { type?: unknown }).type : undefined;
  if (typeof t !== 'string' || !known.has(t)) return { ok: false, error: `unknown message ${describe(x)}` };
  const r = schema.safeParse(x);
  if (r.success) return { ok: true, message: r.data };
  const issues = r.error.issues
    .slice(0, 5)
    .map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`)
    .join('; ');
  return { ok: false, error: `invalid '${t}' message: ${issues}` };
}

const hostTypes = new Set<string>(HostMessageSchema.options.map((o) => o.shape.type.value));
const webviewTypes = new Set<string>(WebviewMessageSchema.options.map((o) => o.shape.type.value));

export function parseHostMessage(x: unknown): ParseResult<HostMessage> {
  return parseWith(HostMessageSchema, hostTypes, x);
}

export function parseWebviewMessage(x: unknown): ParseResult<WebviewMessage> {
  return parseWith(WebviewMessageSchema, webviewTypes, x);
}

/** Maps a notice button to the message it posts. `continue` needs a fresh request id. */
export function actionToMessage(action: Action, newRequestId: () => string): WebviewMessage {
  switch (action) {
    case 'continue':
    case 'retry': return { type: 'continue', requestId: newRequestId() };
    case 'setup_model': return { type: 'select_model' };
    case 'new_task': return { type: 'new_task' };
    case 'set_api_key': return { type: 'set_api_key' };
    case 'select_model': return { type: 'select_model' };
    case 'open_settings': return { type: 'open_settings' };
    case 'show_logs': return { type: 'show_logs' };
    case 'implement_plan': return { type: 'implement_plan', requestId: newRequestId() };
  }
}

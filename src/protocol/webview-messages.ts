// Webview -> host, the untrusted direction: strict objects, unknown keys rejected.
// Namespace import: `{ z }` would pull every zod locale (~250 KiB) into the webview bundle.
import * as z from 'zod';
import { EcosystemActionSchema } from './host-messages';
import { HunkStateSchema, type Action } from './items';
import { ImageAttachmentsSchema } from './images';
import { MentionListSchema, MentionQueryMessageSchema } from './mentions';
import { Count, Id, LIMITS } from './primitives';
import { PlanStepViewSchema } from './state';
import { SteeringMessageSchemas } from './steering';

export const ProviderIdSchema = z.enum(['vscode-lm', 'openai', 'anthropic', 'openai-compatible']);
export type PanelProviderId = z.infer<typeof ProviderIdSchema>;

export const PanelApprovalDecisionSchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('approve'), scope: z.enum(['once', 'task']) }),
  z.strictObject({ kind: z.literal('reject'), reason: z.string().max(LIMITS.rejectReason).optional() }),
]);
/** Structurally a subset of core's ApprovalDecision, so it can be passed straight to the Approver. */
export type PanelApprovalDecision = z.infer<typeof PanelApprovalDecisionSchema>;

export const WebviewMessageSchema = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('ready') }),
  z.strictObject({
    type: z.literal('send_message'),
    requestId: Id,
    text: z.string().min(1).max(LIMITS.userText),
    /** @-mentions (chips): resolved and attached by the host. */
    mentions: MentionListSchema.optional(),
    /** Pasted, dropped or attached images, scaled down by the webview (protocol/images.ts caps them). */
    images: ImageAttachmentsSchema.optional(),
  }),
  /** The @ picker's query: files and folders (fuzzy) and the special entries. */
  MentionQueryMessageSchema,
  /** requestId of the run to stop (RunStatus.requestId); absent = whatever is running. */
  z.strictObject({ type: z.literal('stop'), requestId: Id.optional() }),
  z.strictObject({ type: z.literal('approval_decision'), requestId: Id, decision: PanelApprovalDecisionSchema }),
  z.strictObject({ type: z.literal('continue'), requestId: Id }),
  z.strictObject({ type: z.literal('new_task') }),
  z.strictObject({ type: z.literal('load_task'), id: Id }),
  z.strictObject({
    type: z.literal('open_file'),
    path: z.string().min(1).max(LIMITS.path),
    line: z.number().int().positive().optional(),
  }),
  z.strictObject({ type: z.literal('open_diff'), requestId: Id }),
  z.strictObject({ type: z.literal('open_tool_output'), ref: Id }),
  z.strictObject({ type: z.literal('select_model'), modelId: Id.optional() }),
  z.strictObject({ type: z.literal('open_settings') }),
  z.strictObject({ type: z.literal('set_api_key'), provider: z.string().max(100).optional() }),
  z.strictObject({ type: z.literal('show_logs') }),
  z.strictObject({ type: z.literal('delete_task'), id: Id }),
  z.strictObject({ type: z.literal('set_mode'), mode: Id }),
  /** The setup form: ask an endpoint for its models (and look for local servers); the key is not stored. */
  z.strictObject({
    type: z.literal('check_provider'),
    provider: ProviderIdSchema,
    baseUrl: z.string().max(LIMITS.path).optional(),
    apiKey: z.string().max(LIMITS.path).optional(),
  }),
  /** The setup form's Save: settings for provider/base URL/model, SecretStorage for the key. */
  z.strictObject({
    type: z.literal('save_provider'),
    provider: ProviderIdSchema,
    baseUrl: z.string().max(LIMITS.path).optional(),
    model: z.string().max(LIMITS.label).optional(),
    apiKey: z.string().max(LIMITS.path).optional(),
  }),
  /** The user edited the plan's checklist: the whole plan as it now stands. */
  z.strictObject({
    /** Absent: the open task (a new task's id reaches the webview only with its next snapshot). */
    type: z.literal('edit_plan'),
    taskId: Id.optional(),
    plan: z.strictObject({
      goal: z.string().min(1).max(1_000),
      steps: z.array(z.strictObject(PlanStepViewSchema.shape)).min(1).max(50),
      currentStep: z.number().int().min(1).max(50).optional(),
    }),
  }),
  /** "Restore to here" on a tool card: the files go back to how they were at the end of that call's step. */
  z.strictObject({ type: z.literal('restore_checkpoint'), taskId: Id.optional(), toolCallId: Id }),
  z.strictObject({ type: z.literal('redo_checkpoint'), taskId: Id.optional() }),
  /** The user's decision on one hunk of a pending edit ('pending' clears it). */
  z.strictObject({
    type: z.literal('hunk_decision'),
    requestId: Id,
    index: Count,
    state: HunkStateSchema,
    reason: z.string().max(LIMITS.rejectReason).optional(),
  }),
  /** The completion block: view all changes (multi-file diff), open one file's diff, undo or keep one file. */
  z.strictObject({
    type: z.literal('changes_action'),
    taskId: Id,
    action: z.enum(['view', 'open', 'undo', 'keep']),
    path: z.string().min(1).max(LIMITS.path).optional(),
  }),
  /** "Implement this plan" on a plan-mode run's completion: implement mode gets the plan as its task. */
  z.strictObject({ type: z.literal('implement_plan'), requestId: Id }),
  /** The ecosystem strip: MCP servers, rules (open_rule: `display` of a rule in use), attach a resource. */
  z.strictObject({
    type: z.literal('ecosystem_action'),
    action: EcosystemActionSchema,
    display: z.string().min(1).max(LIMITS.path).optional(),
  }),
  ...SteeringMessageSchemas,
]);
export type WebviewMessage = z.infer<typeof WebviewMessageSchema>;
export type WebviewMessageType = WebviewMessage['type'];
export const WEBVIEW_MESSAGE_TYPES: readonly WebviewMessageType[] = WebviewMessageSchema.options.map(
  (o) => o.shape.type.value,
);

/** The messages that start a run: each comes with a Stop signal (its requestId) that lasts until the run ends. */
export const RUN_REQUESTS = [
  'send_message',
  'continue',
  'implement_plan',
  'edit_resend',
] as const satisfies readonly WebviewMessageType[];

/** Maps a notice button to the message it posts. `continue` needs a fresh request id. */
export function actionToMessage(action: Action, newRequestId: () => string): WebviewMessage {
  switch (action) {
    case 'continue':
    case 'retry':
      return { type: 'continue', requestId: newRequestId() };
    case 'setup_model':
      return { type: 'select_model' };
    case 'new_task':
      return { type: 'new_task' };
    case 'set_api_key':
      return { type: 'set_api_key' };
    case 'select_model':
      return { type: 'select_model' };
    case 'open_settings':
      return { type: 'open_settings' };
    case 'show_logs':
      return { type: 'show_logs' };
    case 'implement_plan':
      return { type: 'implement_plan', requestId: newRequestId() };
  }
}

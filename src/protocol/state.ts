// What the panel's state holds besides the items: run status, progress, the provider, the task history, the
// live plan, and the snapshot that carries it all.
// Namespace import: `{ z }` would pull every zod locale (~250 KiB) into the webview bundle.
import * as z from 'zod';
import { TranscriptItemSchema } from './items';
import { Count, Id, Label, LIMITS, Ms } from './primitives';
import { QueueSchema } from './steering';

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
  models: z
    .array(z.object({ id: Id, label: Label }))
    .max(LIMITS.models)
    .optional(),
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
  /** Whether the model takes images (attachments, read_file on an image); absent: not known to. */
  images: z.boolean().optional(),
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
export const PlanStepViewSchema = z.object({
  text: z.string().min(1).max(500),
  status: z.enum(['pending', 'in_progress', 'done', 'skipped']),
});
export const PlanViewSchema = z.object({
  goal: z.string().max(1_000),
  steps: z.array(PlanStepViewSchema).max(50),
  /** 1-based; 0 = none. */
  currentStep: Count,
  updatedBy: z.enum(['model', 'user']),
  updatedAt: Ms,
});
export type PlanView = z.infer<typeof PlanViewSchema>;

/** A mode in the mode switch: the built-in modes, then the team's custom agents. */
export const ModeChoiceSchema = z.object({
  id: Id,
  label: Label,
  /** The model it runs on, when it has one of its own. */
  model: Label.optional(),
  /** What it does, for a person picking it. */
  description: Label.optional(),
});
export type ModeChoiceView = z.infer<typeof ModeChoiceSchema>;

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
  modes: z.array(ModeChoiceSchema).max(40).optional(),
  mode: Label.optional(),
  plan: PlanViewSchema.optional(),
  /** Messages waiting above the composer (protocol/steering.ts). */
  queue: QueueSchema.optional(),
});
export type Snapshot = z.infer<typeof SnapshotSchema>;

// update_plan: the live plan the model keeps for a multi-step task (goal, steps with status, the current step).
// The tool itself is pure: it validates and normalises the plan and returns it as `data`; the loop stores it
// in the task's state (snapshotted, so it survives a reload and compaction) and shows it in every step's context.
// The user may edit the plan in the panel; the model then sees the edited plan in its next step's context.
import * as z from 'zod';
import type { Tool } from '../types';

export const UPDATE_PLAN = 'update_plan';

const PLAN_LIMITS = { steps: 50, text: 500, goal: 1_000 } as const;

const PlanStepStatusSchema = z.enum(['pending', 'in_progress', 'done', 'skipped']);
type PlanStepStatus = z.infer<typeof PlanStepStatusSchema>;

const updatePlanInput = z.object({
  goal: z.string().min(1).max(PLAN_LIMITS.goal).describe('What the task is to achieve, in one or two sentences.'),
  steps: z
    .array(
      z.object({
        text: z.string().min(1).max(PLAN_LIMITS.text).describe('One concrete step.'),
        status: PlanStepStatusSchema.describe('pending | in_progress | done | skipped'),
      }),
    )
    .min(1)
    .max(PLAN_LIMITS.steps)
    .describe('The whole plan, in order (send every step each time, not only the changed ones).'),
  currentStep: z
    .number()
    .int()
    .min(1)
    .optional()
    .describe('1-based index of the step you are working on now (default: the first in_progress step).'),
});

interface PlanStep {
  text: string;
  status: PlanStepStatus;
}

/** The plan as stored with the task. `currentStep` is 1-based, or 0 when no step is current. */
export interface Plan {
  goal: string;
  steps: PlanStep[];
  currentStep: number;
  updatedAt: number;
  /** Who changed it last: the model (update_plan) or the user (edited in the panel). */
  updatedBy: 'model' | 'user';
}

/** Validates and normalises a plan from any source (the model, the panel, a saved task). Throws a readable error. */
export function normalizePlan(input: unknown, updatedBy: Plan['updatedBy'], now: number): Plan {
  const parsed = updatePlanInput.safeParse(input);
  if (!parsed.success)
    throw new Error(
      parsed.error.issues
        .slice(0, 5)
        .map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`)
        .join('; '),
    );
  const { goal, steps } = parsed.data;
  let current = parsed.data.currentStep ?? 0;
  if (current > steps.length) current = 0;
  if (!current) current = steps.findIndex((s) => s.status === 'in_progress') + 1;
  return {
    goal: goal.trim(),
    steps: steps.map((s) => ({ text: s.text.trim(), status: s.status })),
    currentStep: current,
    updatedAt: now,
    updatedBy,
  };
}

/** A plan restored from disk (or undefined when it does not parse): never throws. */
export function planFromUnknown(value: unknown): Plan | undefined {
  if (!value || typeof value !== 'object') return undefined;
  const v = value as Partial<Plan>;
  try {
    const plan = normalizePlan(
      { goal: v.goal, steps: v.steps, ...(v.currentStep ? { currentStep: v.currentStep } : {}) },
      v.updatedBy === 'user' ? 'user' : 'model',
      typeof v.updatedAt === 'number' ? v.updatedAt : 0,
    );
    return plan;
  } catch {
    return undefined;
  }
}

const MARK: Record<PlanStepStatus, string> = { pending: '[ ]', in_progress: '[>]', done: '[x]', skipped: '[-]' };

/** The plan as the model reads it in the per-step context (and compaction's facts). */
export function planText(plan: Plan, opts: { editedByUser?: boolean } = {}): string {
  const lines = plan.steps.map(
    (s, i) => `${i + 1}. ${MARK[s.status]} ${s.text}${plan.currentStep === i + 1 ? '   <- current' : ''}`,
  );
  const done = plan.steps.filter((s) => s.status === 'done' || s.status === 'skipped').length;
  const head = opts.editedByUser
    ? 'Current plan (the USER edited it since your last update_plan: follow their version, and keep it up to date with update_plan):'
    : 'Current plan (keep it up to date with update_plan as you go):';
  return `${head}\nGoal: ${plan.goal}\n${lines.join('\n')}\n(${done}/${plan.steps.length} steps finished)`;
}

export const updatePlanTool: Tool<typeof updatePlanInput> = {
  name: UPDATE_PLAN,
  description:
    'Create or update the plan of a multi-step task: the goal, every step with its status (pending, in_progress, done, skipped) ' +
    'and the current step. The user sees it as a checklist and may edit it. Call it at the start of any task with several ' +
    'steps, and again whenever a step starts, finishes or the plan changes. Send the whole plan each time.',
  input: updatePlanInput,
  risk: 'read',
  timeoutMs: 5_000,
  async execute(input) {
    const plan = normalizePlan(input, 'model', Date.now());
    const done = plan.steps.filter((s) => s.status === 'done').length;
    const current = plan.currentStep
      ? ` Current step: ${plan.currentStep}. ${plan.steps[plan.currentStep - 1].text}`
      : '';
    return {
      content: `Plan updated (${done}/${plan.steps.length} done).${current}`,
      data: plan,
      effects: { observed: `plan:${JSON.stringify(plan.steps)}:${plan.currentStep}` },
    };
  },
};

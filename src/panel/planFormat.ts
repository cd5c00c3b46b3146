// The core's Plan as the panel shows it (PlanView): capped to the protocol's limits so a snapshot always validates.
import type { Plan } from '../core/tools/builtin/update-plan';
import type { PlanView } from '../protocol/messages';

export function planView(plan: Plan): PlanView {
  const steps = plan.steps.slice(0, 50).map((s) => ({ text: (s.text || '(empty)').slice(0, 500), status: s.status }));
  return {
    goal: plan.goal.slice(0, 1_000),
    steps,
    currentStep: plan.currentStep >= 1 && plan.currentStep <= steps.length ? plan.currentStep : 0,
    updatedBy: plan.updatedBy,
    updatedAt: Math.max(0, plan.updatedAt),
  };
}

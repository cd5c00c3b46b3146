// The system prompt of one step: the mode's role, the project's rules and skills, the recalled memories and the
// mode's context, the iteration against its limit, a stagnation warning, the plan and the host's environment.
import { buildSystemLayers } from '../context/prompt';
import type { ModeDefinition } from '../modes';
import { planText } from '../tools/builtin/update-plan';
import type { AgentConfig } from './config';
import type { AgentState } from './state';

/** A setting given as text or as a function that reads it now (rules and skills change while a task runs). */
const current = (v: string | (() => string) | undefined): string | undefined => (typeof v === 'function' ? v() : v);

export function stepSystem(
  config: AgentConfig,
  state: AgentState,
  step: { mode: ModeDefinition; iteration: number; stagnationWarning?: string },
): ReturnType<typeof buildSystemLayers> {
  return buildSystemLayers({
    mode: step.mode,
    rulesText: current(config.projectRules),
    skillIndex: current(config.skillIndex),
    memoryText: state.memoryText,
    modeContext: state.modeContextText,
    iteration: step.iteration,
    maxIterations: state.maxIterations,
    warnRatio: config.iterationWarningRatio,
    stagnationWarning: step.stagnationWarning,
    planText: state.plan ? planText(state.plan, { editedByUser: state.planEditedByUser }) : undefined,
    workplace: config.controls?.workplace,
    environment: current(config.environment),
  });
}

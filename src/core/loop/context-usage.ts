// The /context view of an Agent: the request its next step would send (system layers as the run builds them, the
// mode's tools, the conversation), measured by core/context/usage-report against the window and compaction point.
import { buildSystemLayers } from '../context/prompt';
import { contextUsage, type ContextUsage } from '../context/usage-report';
import { findMode, isToolAllowedInMode, MODES, narrowMode } from '../modes';
import { planText } from '../tools/builtin/update-plan';
import type { RunDeps } from './run-deps';
import type { AgentState } from './state';

const valueOf = <T>(v: T | (() => T) | undefined): T | undefined => (typeof v === 'function' ? (v as () => T)() : v);

export function agentContextUsage(state: AgentState, deps: RunDeps): ContextUsage {
  const { config } = deps;
  const mode = narrowMode(findMode(state.mode, config.customModes?.()) ?? MODES.agent, config.narrowTools?.());
  const model = deps.modelFor?.(state.mode) ?? deps.model;
  const system = buildSystemLayers({
    mode,
    rulesText: valueOf(config.projectRules),
    skillIndex: valueOf(config.skillIndex),
    memoryText: state.memoryText,
    modeContext: state.modeContextText,
    iteration: state.iterations,
    maxIterations: state.maxIterations,
    warnRatio: config.iterationWarningRatio,
    planText: state.plan ? planText(state.plan, { editedByUser: state.planEditedByUser }) : undefined,
    workplace: config.controls?.workplace,
    environment: valueOf(config.environment),
  });
  return contextUsage({
    system,
    tools: deps.registry.specs((t) => isToolAllowedInMode(mode, t)),
    history: state.history,
    anchor: state.anchor,
    window: config.contextWindow ?? model.info.contextWindow,
    compactAt: config.compactAt,
  });
}

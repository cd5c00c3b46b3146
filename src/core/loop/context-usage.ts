// The /context view of an Agent: the request its next step would send (system layers as the run builds them, the
// mode's tools, the conversation), measured by core/context/usage-report against the window and compaction point.
import { contextUsage, type ContextUsage } from '../context/usage-report';
import { findMode, isToolAllowedInMode, MODES, narrowMode } from '../modes';
import type { RunDeps } from './run-deps';
import type { AgentState } from './state';
import { stepSystem } from './step-system';

export function agentContextUsage(state: AgentState, deps: RunDeps): ContextUsage {
  const { config } = deps;
  const mode = narrowMode(findMode(state.mode, config.customModes?.()) ?? MODES.agent, config.narrowTools?.());
  const model = deps.modelFor?.(state.mode) ?? deps.model;
  const system = stepSystem(config, state, { mode, iteration: state.iterations });
  return contextUsage({
    system,
    tools: deps.registry.specs((t) => isToolAllowedInMode(mode, t)),
    history: state.history,
    anchor: state.anchor,
    window: config.contextWindow ?? model.info.contextWindow,
    compactAt: config.compactAt,
  });
}

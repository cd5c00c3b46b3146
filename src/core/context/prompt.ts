// System prompt layers: stable layers first (role, tool rules) so provider prompt caches hit; dynamic last.
// Per-step layers (iteration, warnings, environment) are flagged `perStep`: the caching adapters (Anthropic,
// OpenAI) send them after the conversation instead of in the system prompt, so the prefix they would otherwise
// invalidate (system + the whole history) is cached and read back on the next step. See stepContextText().
// Models without native tool calling are wrapped by core/tools/text-mode.ts, which renders the tool catalogue itself.
import type { SystemLayer } from '../model/types';
import type { ModeDefinition } from '../modes';
import { plural } from '../plural';

interface PromptInputs {
  mode: ModeDefinition;
  /** The project's rules (AGENTS.md, .forge/rules): stable, so they sit in the cached prefix after the tool rules. */
  rulesText?: string;
  /** The skills the model may load with use_skill (names and descriptions): stable, after the rules. */
  skillIndex?: string;
  memoryText?: string;
  iteration: number;
  maxIterations: number;
  /** Ratio of the limit from which the warning layer is added (0.8). */
  warnRatio: number;
  stagnationWarning?: string;
  environment?: string;
  /** The live plan as text (planText): part of every step's context, so the model always sees the current plan. */
  planText?: string;
  /** What the mode gathered before the first step (manifests, diff, test files). */
  modeContext?: string;
  /** Where the agent works, in the surface's words (default: the user's VS Code workspace). */
  workplace?: string;
}

const role = (
  workplace = "the user's VS Code workspace",
) => `You are Forge, an autonomous coding agent working inside ${workplace}.
Work in small verified steps: look before you change, keep edits minimal and consistent with the code base,
and check your work (build, tests) when you can. Be concise in text; let tool calls do the work.`;

const TOOL_RULES = `Tool rules:
- Every reply should call at least one tool. Use several read-only tools in one reply when they are independent.
- When the task is done, call task_completion with a short summary of what changed and how it was verified.
- If you are blocked or need a decision from the user, call ask_question. For a purely conversational
  message, call converse.
- Tool errors are feedback: read the error, fix the arguments or approach, and do not repeat a failing call unchanged.
- Large outputs are truncated; page the rest with read_output using the ref given in the note.
- If the user rejects an action, respect the reason and adapt.
- For a task with several steps, call update_plan first with the goal and the steps, and again whenever a step
  starts or finishes or the plan changes; the user sees the plan as a checklist and may edit it.`;

function iterationWarningText(iteration: number, maxIterations: number): string {
  const left = Math.max(0, maxIterations - iteration);
  return (
    `Iteration ${iteration} of ${maxIterations}: only ${plural(left, 'iteration')} left. Wrap up: finish the essential part, ` +
    `verify it, and call task_completion — or ask_question if you cannot finish.`
  );
}

export function buildSystemLayers(p: PromptInputs): SystemLayer[] {
  const layers: SystemLayer[] = [
    { id: 'role', stable: true, text: `${role(p.workplace)}\n\nMode: ${p.mode.label}. ${p.mode.prompt}` },
    { id: 'tool-rules', stable: true, text: TOOL_RULES },
  ];
  if (p.rulesText && p.rulesText.trim()) layers.push({ id: 'project-rules', stable: true, text: p.rulesText });
  if (p.skillIndex && p.skillIndex.trim()) layers.push({ id: 'skills', stable: true, text: p.skillIndex });
  // Memory is recalled once per user message: constant across the steps of a run, so it stays in the prefix.
  if (p.memoryText && p.memoryText.trim()) layers.push({ id: 'memory', stable: false, text: p.memoryText });
  // Gathered once per user message, like memory: constant across the run's steps.
  if (p.modeContext && p.modeContext.trim()) layers.push({ id: 'mode-context', stable: false, text: p.modeContext });
  if (p.iteration >= Math.ceil(p.maxIterations * p.warnRatio)) {
    layers.push({
      id: 'iteration-warning',
      stable: false,
      perStep: true,
      text: iterationWarningText(p.iteration, p.maxIterations),
    });
  }
  if (p.planText) layers.push({ id: 'plan', stable: false, perStep: true, text: p.planText });
  if (p.stagnationWarning)
    layers.push({ id: 'stagnation-warning', stable: false, perStep: true, text: p.stagnationWarning });
  const env = [`Iteration: ${p.iteration}/${p.maxIterations}`, p.environment].filter(Boolean).join('\n');
  layers.push({ id: 'environment', stable: false, perStep: true, text: `Environment:\n${env}` });
  return layers;
}

/** The layers that belong in the (cacheable) system prompt: everything but the per-step ones. */
export function prefixLayers(system: readonly SystemLayer[]): SystemLayer[] {
  return system.filter((l) => !l.perStep && l.text.trim() !== '');
}

export const STEP_CONTEXT_HEADER = '[Forge step context: refreshed every step, not written by the user]';

/**
 * The per-step layers as one text for the end of the request (after the last user / tool-result turn), or
 * undefined when there are none. It is never stored in history: the next step sends a fresh one.
 */
export function stepContextText(system: readonly SystemLayer[]): string | undefined {
  const parts = system.filter((l) => l.perStep && l.text.trim() !== '').map((l) => l.text.trim());
  return parts.length ? `${STEP_CONTEXT_HEADER}\n${parts.join('\n\n')}` : undefined;
}

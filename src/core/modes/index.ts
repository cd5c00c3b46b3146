// Modes: a role prompt, the tools the mode may use, and its iteration limit. Besides the built-in modes, the
// team's custom agents (core/modes/custom-agents.ts) are modes too: they reach the loop through
// AgentConfig.customModes, so every lookup here takes that list.
import { allowsTool } from '../skills/tool-names';
import type { RiskClass, Tool } from '../tools/types';

export type BuiltinModeName = 'agent' | 'plan' | 'implement' | 'review' | 'test' | 'deploy';
/** A built-in mode's name or a custom agent's. */
export type ModeName = string;

export interface ModeDefinition {
  name: ModeName;
  label: string;
  /** What it does, for a person picking it (a custom agent's description; shown in pickers and to delegate_task). */
  description?: string;
  /** Where a custom agent was defined (workspace-relative or ~/ path); absent for built-ins. */
  source?: string;
  /** A custom agent's file (absolute). */
  file?: string;
  /** A custom agent's `model:` (a model id, "<provider>:<model>", or an alias such as haiku). */
  model?: string;
  /** An allowlist of tool names: when set, only these (and loop-control tools) may run, whatever their risk. */
  allow?: readonly string[];
  /** A second allowlist laid over the first while a skill with allowed-tools is active (see narrowMode). */
  narrow?: readonly string[];
  /** Role text; goes into the stable system layer. */
  prompt: string;
  maxIterations: number;
  /** Risk classes the mode may use; loop-control tools and read_output are always allowed. */
  risks: readonly RiskClass[];
  /** Tool names allowed regardless of risk / denied regardless of risk. */
  include?: readonly string[];
  exclude?: readonly string[];
}

const ALL_RISKS: readonly RiskClass[] = ['read', 'write', 'execute', 'network'];

export const MODES: Readonly<Record<BuiltinModeName, ModeDefinition>> = {
  agent: {
    name: 'agent',
    label: 'Agent',
    description: 'Works through a task on its own: edits files, runs commands and checks the result',
    prompt:
      "You work autonomously on the user's task: inspect the workspace, make changes, run commands, verify, and report.",
    maxIterations: 25,
    risks: ALL_RISKS,
  },
  plan: {
    name: 'plan',
    label: 'Plan',
    description: 'Reads the code and writes a step-by-step plan; changes no files',
    prompt:
      'Plan mode: investigate the workspace read-only and produce a concrete, step-by-step implementation plan. Do not change files.',
    maxIterations: 20,
    risks: ['read'],
  },
  implement: {
    name: 'implement',
    label: 'Implement',
    description: 'For larger changes, with more steps than Agent: edits, builds and tests until they pass',
    prompt: 'Implement mode: carry out the task end to end — edit files, run the build and tests, fix what fails.',
    maxIterations: 50,
    risks: ALL_RISKS,
  },
  review: {
    name: 'review',
    label: 'Review',
    description: 'Reads the code and reports problems, risks and suggestions; changes no files',
    prompt:
      'Review mode: read the relevant code and report problems, risks and concrete suggestions. Do not change files.',
    maxIterations: 10,
    risks: ['read'],
  },
  test: {
    name: 'test',
    label: 'Test',
    description: "Runs the project's tests and explains what fails and why; changes no files",
    prompt: "Test mode: run the project's tests and report the results with the failing cases and their likely causes.",
    maxIterations: 5,
    risks: ['read', 'execute'],
  },
  deploy: {
    name: 'deploy',
    label: 'Deploy',
    description: "Runs the project's own deploy or release steps, exactly, and reports the outcome",
    prompt: "Deploy mode: run the project's documented deploy or release steps, exactly, and report the outcome.",
    maxIterations: 3,
    risks: ['read', 'execute', 'network'],
  },
};

export const MODE_NAMES = Object.keys(MODES) as BuiltinModeName[];

export function isModeName(value: string): value is BuiltinModeName {
  return Object.prototype.hasOwnProperty.call(MODES, value);
}

/** A built-in mode, or one of `custom` (custom agents); undefined when neither has the name. */
export function findMode(name: string, custom: readonly ModeDefinition[] = []): ModeDefinition | undefined {
  return isModeName(name) ? MODES[name] : custom.find((m) => m.name === name);
}

export function getMode(name: ModeName, custom?: readonly ModeDefinition[]): ModeDefinition {
  const mode = findMode(name, custom);
  if (!mode) throw new Error(`Unknown mode "${name}"`);
  return mode;
}

/** The mode with its tools narrowed to `only` (a skill's allowed-tools): it can only lose tools, never gain one. */
export function narrowMode(mode: ModeDefinition, only: readonly string[] | undefined): ModeDefinition {
  if (!only) return mode;
  return { ...mode, narrow: only };
}

/** Tools that every mode needs to hand control back or page output. */
const ALWAYS_ALLOWED = new Set(['task_completion', 'ask_question', 'converse', 'read_output']);

export function isToolAllowedInMode(mode: ModeDefinition, tool: Pick<Tool, 'name' | 'risk' | 'loopControl'>): boolean {
  if (tool.loopControl || ALWAYS_ALLOWED.has(tool.name)) return true;
  if (mode.exclude?.includes(tool.name)) return false;
  if (mode.narrow && !mode.narrow.some((a) => allowsTool(a, tool.name))) return false;
  // An allowlist narrows the risk classes, never widens them: a read-only mode stays read-only.
  if (mode.allow) return mode.allow.some((a) => allowsTool(a, tool.name)) && mode.risks.includes(tool.risk);
  if (mode.include?.includes(tool.name)) return true;
  return mode.risks.includes(tool.risk);
}

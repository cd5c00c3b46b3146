// Modes: a role prompt, the tools the mode may use, and its iteration limit.
import type { RiskClass, Tool } from '../tools/types';

export type ModeName = 'agent' | 'plan' | 'implement' | 'review' | 'test' | 'deploy';

export interface ModeDefinition {
  name: ModeName;
  label: string;
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

export const MODES: Readonly<Record<ModeName, ModeDefinition>> = {
  agent: {
    name: 'agent',
    label: 'Agent',
    prompt:
      "You work autonomously on the user's task: inspect the workspace, make changes, run commands, verify, and report.",
    maxIterations: 25,
    risks: ALL_RISKS,
  },
  plan: {
    name: 'plan',
    label: 'Plan',
    prompt:
      'Plan mode: investigate the workspace read-only and produce a concrete, step-by-step implementation plan. Do not change files.',
    maxIterations: 20,
    risks: ['read'],
  },
  implement: {
    name: 'implement',
    label: 'Implement',
    prompt: 'Implement mode: carry out the task end to end — edit files, run the build and tests, fix what fails.',
    maxIterations: 50,
    risks: ALL_RISKS,
  },
  review: {
    name: 'review',
    label: 'Review',
    prompt:
      'Review mode: read the relevant code and report problems, risks and concrete suggestions. Do not change files.',
    maxIterations: 10,
    risks: ['read'],
  },
  test: {
    name: 'test',
    label: 'Test',
    prompt: "Test mode: run the project's tests and report the results with the failing cases and their likely causes.",
    maxIterations: 5,
    risks: ['read', 'execute'],
  },
  deploy: {
    name: 'deploy',
    label: 'Deploy',
    prompt: "Deploy mode: run the project's documented deploy or release steps, exactly, and report the outcome.",
    maxIterations: 3,
    risks: ['read', 'execute', 'network'],
  },
};

export const MODE_NAMES = Object.keys(MODES) as ModeName[];

export function isModeName(value: string): value is ModeName {
  return Object.prototype.hasOwnProperty.call(MODES, value);
}

export function getMode(name: ModeName): ModeDefinition {
  const mode = MODES[name];
  if (!mode) throw new Error(`Unknown mode "${name}"`);
  return mode;
}

/** Tools that every mode needs to hand control back or page output. */
const ALWAYS_ALLOWED = new Set(['task_completion', 'ask_question', 'converse', 'read_output']);

export function isToolAllowedInMode(mode: ModeDefinition, tool: Pick<Tool, 'name' | 'risk' | 'loopControl'>): boolean {
  if (tool.loopControl || ALWAYS_ALLOWED.has(tool.name)) return true;
  if (mode.exclude?.includes(tool.name)) return false;
  if (mode.include?.includes(tool.name)) return true;
  return mode.risks.includes(tool.risk);
}

// A model per mode or custom agent (a cheap one for review, a strong one for implementation): the user's
// setting (forge.modeModels) first, then the agent file's `model:`. Models are built ahead, whenever the settings
// or the agent files change, so a run can pick its model without waiting; one that cannot be built is reported
// once and the mode runs on the task's model. Each model is priced at its own price (the run records usage
// against the model that produced it).
import type { Model } from '../../core/model/types';
import type { ModeDefinition } from '../../core/modes';
import { errorText } from '../../core/error-text';

/** Claude Code's model aliases, for an agent file written for it. */
const ANTHROPIC_ALIASES: Record<string, string> = {
  haiku: 'claude-haiku-4-5',
  sonnet: 'claude-sonnet-4-5',
  opus: 'claude-opus-4-1',
};

/**
 * "<provider>:<model>" for a model as a setting or agent file names it: a picker id as it is, an alias or a bare
 * id on the task's provider. undefined: `inherit`, empty, or an alias the provider has no model for.
 */
export function modelSpec(value: string | undefined, provider: string): string | undefined {
  const v = value?.trim();
  if (!v || v === 'inherit') return undefined;
  if (/^(openai|anthropic|openai-compatible|vscode-lm):./.test(v)) return v;
  const alias = ANTHROPIC_ALIASES[v.toLowerCase()];
  if (alias) return provider === 'anthropic' ? `anthropic:${alias}` : undefined;
  return `${provider}:${v}`;
}

/**
 * The spec of each mode that has its own model: the user's setting, else the agent file's (a model of the task's
 * provider only: a cloned repository's agent cannot send the work, or the key, to an endpoint of its choosing).
 */
export function modeModelSpecs(
  settings: Readonly<Record<string, string>>,
  agents: readonly ModeDefinition[],
  provider: string,
): Map<string, string> {
  const out = new Map<string, string>();
  for (const a of agents) {
    // A repository's agent file names a model, never an endpoint: no URL, no other provider (a key stays home).
    const bare = a.model?.replace(new RegExp(`^${provider}:`), '');
    if (!bare || /@|:\/\/|^(openai|anthropic|openai-compatible|vscode-lm):/.test(bare)) continue;
    const spec = modelSpec(bare, provider);
    if (spec) out.set(a.name, spec);
  }
  for (const [mode, value] of Object.entries(settings)) {
    const spec = modelSpec(value, provider);
    if (spec) out.set(mode, spec);
  }
  return out;
}

export class ModeModels {
  private specs = new Map<string, string>();
  private readonly built = new Map<string, Model>();
  private readonly reported = new Set<string>();

  /** Builds the models `specs` name (each once); a failure is reported once and that mode uses the task's model. */
  async prepare(
    specs: Map<string, string>,
    build: (spec: string) => Promise<{ model?: Model; problem?: string }>,
    warn: (message: string) => void,
  ): Promise<void> {
    this.specs = specs;
    // Built anew each time: a changed key or endpoint applies.
    this.built.clear();
    for (const [mode, spec] of specs) {
      if (this.built.has(spec)) continue;
      const r = await build(spec).catch((err: unknown) => ({
        model: undefined,
        problem: errorText(err),
      }));
      if (r.model) this.built.set(spec, r.model);
      else if (!this.reported.has(spec)) {
        this.reported.add(spec);
        warn(
          `The model ${spec} for ${mode} is not usable (${r.problem ?? 'not available'}); ${mode} runs on the task's model.`,
        );
      }
    }
  }

  /** The mode's own model, when it has one that works. */
  modelFor(mode: string): Model | undefined {
    const spec = this.specs.get(mode);
    return spec ? this.built.get(spec) : undefined;
  }

  /** What the panel shows next to a mode: its model's id, when it has its own. */
  label(mode: string): string | undefined {
    const m = this.modelFor(mode);
    return m ? m.info.model : undefined;
  }
}

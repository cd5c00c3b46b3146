// Settings + secrets -> the Model the agent talks to. The agent holds a SwitchableModel for the whole task, so
// picking another model or setting a key applies from the next model call without rebuilding the task.
import * as vscode from 'vscode';
import { ModelError } from '../../core/model/errors';
import { costOf, priceFor } from '../../core/model/pricing';
import type { Model, ModelEvent, ModelInfo, ModelRequest, Usage } from '../../core/model/types';
import { createModel } from '../../providers';
import { createVscodeLmModel, listVscodeLmModels } from '../../providers/vscode-lm';
import type { ProviderStatus } from '../../protocol/messages';
import type { ApiKeyStore } from '../secrets';
import type { ForgeSettings, ProviderId } from '../settings';

export const PROVIDER_LABELS: Record<ProviderId, string> = {
  'vscode-lm': 'VS Code chat model',
  openai: 'OpenAI',
  anthropic: 'Anthropic',
  'openai-compatible': 'OpenAI-compatible endpoint',
};

/** Defaults when forge.model is empty (the user can pick another with "Forge: Select Model"). */
export const DEFAULT_MODELS: Partial<Record<ProviderId, string>> = { openai: 'gpt-4.1', anthropic: 'claude-sonnet-4-5' };

/** Offered in the model picker besides the vscode.lm models. */
export const SUGGESTED_MODELS: Partial<Record<ProviderId, string[]>> = {
  openai: ['gpt-4.1', 'gpt-4.1-mini', 'gpt-5', 'gpt-5-mini', 'o4-mini'],
  anthropic: ['claude-sonnet-4-5', 'claude-opus-4-1', 'claude-haiku-4-5'],
};

/** Key used when an OpenAI-compatible server on this machine needs none (the SDK insists on one). */
export const PLACEHOLDER_KEY = 'forge-no-key';

export function isLoopbackUrl(url: string): boolean {
  try {
    const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
    return host === 'localhost' || host === '::1' || /^127\./.test(host);
  } catch {
    return false;
  }
}

export interface ResolvedModel {
  model?: Model;
  status: ProviderStatus;
}

/** A Model whose target can change between calls; without one it fails with what to do. */
export class SwitchableModel implements Model {
  private current: Model | undefined;
  private problem = 'No model is configured. Run "Forge: Select Model".';

  get info(): ModelInfo {
    return this.current?.info ?? { provider: 'none', model: 'none', contextWindow: 128_000, maxOutputTokens: 8_192, nativeTools: true };
  }

  get configured(): boolean {
    return this.current !== undefined;
  }

  set(model: Model | undefined, problem?: string): void {
    this.current = model;
    if (problem) this.problem = problem;
  }

  async *stream(request: ModelRequest): AsyncIterable<ModelEvent> {
    const model = this.current;
    if (!model) throw new ModelError('auth', this.problem);
    yield* model.stream(request);
  }

  /** USD for a usage with the current model's price; undefined when unknown (vscode.lm, local models). */
  price(usage: Usage): number | undefined {
    const info = this.current?.info;
    if (!info) return undefined;
    const p = priceFor(info.provider, info.model);
    return p ? costOf(usage, p) : undefined;
  }
}

export class ModelFactory {
  constructor(private readonly keys: ApiKeyStore) {}

  async resolve(s: ForgeSettings): Promise<ResolvedModel> {
    const provider = s.provider;
    const label = PROVIDER_LABELS[provider];
    const fail = (problem: string, model?: string): ResolvedModel => ({ status: { configured: false, provider, model, problem } });
    try {
      if (provider === 'vscode-lm') {
        const model = await createVscodeLmModel({ model: s.model || undefined });
        if (!model) {
          return fail(
            s.model
              ? `VS Code has no chat model "${s.model}". Run "Forge: Select Model" to pick another.`
              : 'No chat model is available in VS Code. Sign in to a chat model extension (e.g. GitHub Copilot), or run "Forge: Select Model" to use OpenAI, Anthropic or a local endpoint.',
          );
        }
        return { model, status: { configured: true, provider, model: model.info.model } };
      }
      const modelName = s.model || DEFAULT_MODELS[provider];
      if (!modelName) return fail(`Set the model name for the ${label}: run "Forge: Select Model" (setting forge.model).`);
      if (provider === 'openai-compatible' && !s.baseUrl) {
        return fail('Set forge.baseUrl to your endpoint (e.g. http://localhost:11434/v1 for Ollama).', modelName);
      }
      let apiKey = await this.keys.get(provider);
      if (!apiKey && provider === 'openai-compatible' && isLoopbackUrl(s.baseUrl)) apiKey = PLACEHOLDER_KEY;
      if (!apiKey) return fail(`No API key for ${label}: run "Forge: Set API Key".`, modelName);
      const model = createModel({
        provider,
        model: modelName,
        apiKey,
        baseUrl: s.baseUrl || undefined,
        maxOutputTokens: s.maxOutputTokens,
      });
      return { model, status: { configured: true, provider, model: modelName } };
    } catch (err) {
      return fail(`${label}: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  /** Choices for the panel's model dropdown and the picker: ids are "<provider>:<model>". */
  async choices(current: ForgeSettings): Promise<{ id: string; label: string; provider: ProviderId; model: string }[]> {
    const out: { id: string; label: string; provider: ProviderId; model: string }[] = [];
    for (const m of await listVscodeLmModels()) {
      out.push({ id: `vscode-lm:${m.id}`, label: `${m.name} (${m.vendor}, VS Code)`, provider: 'vscode-lm', model: m.id });
    }
    for (const provider of ['openai', 'anthropic'] as const) {
      for (const model of SUGGESTED_MODELS[provider] ?? []) {
        out.push({ id: `${provider}:${model}`, label: `${model} (${PROVIDER_LABELS[provider]})`, provider, model });
      }
    }
    if (current.provider === 'openai-compatible' && current.model) {
      out.push({ id: `openai-compatible:${current.model}`, label: `${current.model} (${current.baseUrl || 'endpoint'})`, provider: 'openai-compatible', model: current.model });
    }
    return out.filter((c) => /^[\x21-\x7e]+$/.test(c.id));
  }
}

/** Writes provider + model to the settings scope where the user keeps them (workspace if set there). */
export async function saveModelChoice(provider: ProviderId, model: string): Promise<void> {
  const c = vscode.workspace.getConfiguration('forge');
  const target = (key: string) => {
    const i = c.inspect(key);
    return i?.workspaceFolderValue !== undefined
      ? vscode.ConfigurationTarget.WorkspaceFolder
      : i?.workspaceValue !== undefined
        ? vscode.ConfigurationTarget.Workspace
        : vscode.ConfigurationTarget.Global;
  };
  await c.update('provider', provider, target('provider'));
  await c.update('model', model, target('model'));
}

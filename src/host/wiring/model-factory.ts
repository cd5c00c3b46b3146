// Settings + secrets -> the Model the agent talks to. The agent holds a SwitchableModel for the whole task, so
// picking another model or setting a key applies from the next model call without rebuilding the task.
import * as vscode from 'vscode';
import { errorText } from '../../core/error-text';
import { ModelError } from '../../core/model/errors';
import type { Model, ModelEvent, ModelInfo, ModelRequest, Usage } from '../../core/model/types';
import {
  buildEndpointModel,
  buildFallbackModel,
  parseModelId,
  priceOf,
  PROVIDER_LABELS,
  splitModelAtUrl,
  type EndpointModelDeps,
  type EndpointProvider,
  type ModelControls,
} from '../../node/surface/model';
import {
  ContextWindowCache,
  detectLocalServers,
  type DetectedServer,
  type DetectOptions,
} from '../../providers/endpoint-discovery';
import { MemoryToolFormatStore, type ToolFormatMemo, type ToolFormatStore } from '../../providers/tool-format';
import { createVscodeLmModel, listVscodeLmModels } from '../../providers/vscode-lm';
import type { ProviderStatus } from '../../protocol/messages';
import type { ApiKeyStore } from '../api-key-store';
import type { ForgeSettings, ProviderId } from '../settings';

/** The extension's words in the shared endpoint builder's messages (its commands and forge.* settings). */
const EXTENSION_MODEL_CONTROLS: ModelControls = {
  setApiKey: 'run "Forge: Set API Key"',
  selectModel: 'run "Forge: Select Model" (setting forge.model)',
  setBaseUrl: 'Set forge.baseUrl to your endpoint',
  contextWindow: 'forge.contextWindow',
  toolCallFormat: 'forge.toolCallFormat',
};

/** Offered in the model picker besides the vscode.lm models. */
export const SUGGESTED_MODELS: Partial<Record<ProviderId, string[]>> = {
  openai: ['gpt-4.1', 'gpt-4.1-mini', 'gpt-5', 'gpt-5-mini', 'o4-mini'],
  anthropic: ['claude-sonnet-4-5', 'claude-opus-4-1', 'claude-haiku-4-5'],
};

interface ResolvedModel {
  model?: Model;
  status: ProviderStatus;
}

/** A Model whose target can change between calls; without one it fails with what to do. */
export class SwitchableModel implements Model {
  private current: Model | undefined;
  private problem = 'No model is configured. Run "Forge: Select Model".';

  get info(): ModelInfo {
    return (
      this.current?.info ?? {
        provider: 'none',
        model: 'none',
        contextWindow: 128_000,
        maxOutputTokens: 8_192,
        nativeTools: true,
      }
    );
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

  /** The forge.fallbackModel resolved along with the current model (undefined when none or not usable). */
  get fallback(): Model | undefined {
    return this.current ? fallbacks.get(this.current) : undefined;
  }

  /**
   * USD for a usage with the current model's price (or `model`'s, e.g. the fallback that produced it); undefined
   * when unknown (vscode.lm, local models).
   */
  price(usage: Usage, model?: ModelInfo): number | undefined {
    const info = model ?? this.current?.info;
    return info ? priceOf(usage, info) : undefined;
  }
}

/** The bit of vscode.Memento the tool-format memory needs. */
interface MementoLike {
  get<T>(key: string): T | undefined;
  update(key: string, value: unknown): Thenable<void>;
}

/** forge.toolCallFormat auto's decisions, kept in globalState (per endpoint + model, across windows). */
export function mementoToolFormatStore(memento: MementoLike): ToolFormatStore {
  const k = (key: string) => `forge.toolFormat:${key}`;
  return {
    get: (key) => memento.get<ToolFormatMemo>(k(key)),
    set: (key, memo) => memento.update(k(key), memo),
    delete: (key) => (memento.get(k(key)) === undefined ? undefined : memento.update(k(key), undefined)),
  };
}

interface ModelFactoryOptions {
  /** Where auto remembers the tool-call format (default: memory only). */
  toolFormats?: ToolFormatStore;
  /** Called when auto switches a model's format mid-task (refresh the panel's status). */
  onToolFormatChange?: () => void;
  /** Probing Ollama / LM Studio on their default ports for the picker; false turns it off (tests). */
  detect?: DetectOptions | false;
  /** Connection check / discovery timeout per request (ms). */
  timeoutMs?: number;
  fetch?: typeof fetch;
  log?: (message: string) => void;
}

export class ModelFactory {
  private readonly toolFormats: ToolFormatStore;
  private readonly windows = new ContextWindowCache();
  private detected: { at: number; servers: Promise<DetectedServer[]> } | undefined;

  constructor(
    private readonly keys: ApiKeyStore,
    private readonly options: ModelFactoryOptions = {},
  ) {
    this.toolFormats = options.toolFormats ?? new MemoryToolFormatStore();
  }

  /** Local servers on their default ports (cached for 30 s; a closed port answers at once). */
  detectLocal(): Promise<DetectedServer[]> {
    if (this.options.detect === false) return Promise.resolve([]);
    if (!this.detected || Date.now() - this.detected.at > 30_000) {
      this.detected = {
        at: Date.now(),
        servers: detectLocalServers({ fetch: this.options.fetch, ...this.options.detect }),
      };
    }
    return this.detected.servers;
  }

  /**
   * The model for the settings, with forge.fallbackModel ("<provider>:<model>", the picker's ids) resolved beside
   * it (SwitchableModel.fallback): a run switches to it when the model keeps failing with provider outages.
   */
  async resolve(s: ForgeSettings): Promise<ResolvedModel> {
    const [resolved, fallback] = await Promise.all([this.resolvePrimary(s), this.resolveFallback(s)]);
    if (resolved.model && fallback.model) fallbacks.set(resolved.model, fallback.model);
    if (fallback.problem)
      this.options.log?.(`forge.fallbackModel "${s.fallbackModel}" is not usable: ${fallback.problem}`);
    return resolved;
  }

  /** forge.fallbackModel as a Model; { problem } when it is set but cannot be used. */
  async resolveFallback(s: ForgeSettings): Promise<{ model?: Model; problem?: string }> {
    // A VS Code chat model as the fallback is resolved like a primary one (the shared builder has no vscode.lm).
    const vscodeLm = async (next: { model: string }) => {
      const r = await this.resolvePrimary({ ...s, ...next, provider: 'vscode-lm', fallbackModel: '' });
      return r.model ? { model: r.model } : { problem: r.status.problem ?? 'not available' };
    };
    try {
      return await buildFallbackModel(s, this.endpointDeps(), s.keylessEndpoints, vscodeLm);
    } catch (err) {
      const provider = parseModelId(s.fallbackModel)?.provider;
      return { problem: `${provider ? PROVIDER_LABELS[provider] : 'forge.fallbackModel'}: ${errorText(err)}` };
    }
  }

  /** What the shared endpoint builder needs: the user's keys, the remembered formats and windows, the words. */
  private endpointDeps(): EndpointModelDeps {
    return {
      apiKey: (provider) => this.keys.get(provider),
      controls: EXTENSION_MODEL_CONTROLS,
      toolFormats: this.toolFormats,
      windows: this.windows,
      timeoutMs: this.options.timeoutMs ?? 2000,
      fetch: this.options.fetch,
      onToolFormatChange: () => this.options.onToolFormatChange?.(),
      log: this.options.log,
    };
  }

  private async resolvePrimary(s: ForgeSettings): Promise<ResolvedModel> {
    const provider = s.provider;
    const label = PROVIDER_LABELS[provider];
    const fail = (problem: string, model?: string): ResolvedModel => ({
      status: { configured: false, provider, model, problem },
    });
    try {
      if (provider === 'vscode-lm') {
        const model = await createVscodeLmModel({ model: s.model || undefined });
        if (model && s.imageInput !== 'auto') model.info.images = s.imageInput === 'on';
        if (!model) {
          return fail(
            s.model
              ? `VS Code has no chat model "${s.model}". Run "Forge: Select Model" to pick another.`
              : 'No chat model is available in VS Code. Sign in to a chat model extension (e.g. GitHub Copilot), or run "Forge: Select Model" to use OpenAI, Anthropic or a local endpoint.',
          );
        }
        return {
          model,
          status: {
            configured: true,
            provider,
            model: model.info.model,
            contextWindow: model.info.contextWindow,
            contextWindowSource: "VS Code (the model's maxInputTokens)",
            images: !!model.info.images,
          },
        };
      }
      // An endpoint the workspace named without the user's consent never receives a stored key.
      const built = await buildEndpointModel(
        { ...s, provider: provider as EndpointProvider },
        this.endpointDeps(),
        s.keylessEndpoints.baseUrl,
      );
      if (!built.model) return fail(built.problem ?? 'The endpoint is not usable.', built.modelName);
      return {
        model: built.model,
        status: {
          configured: true,
          provider,
          model: built.modelName,
          toolFormat: built.toolFormat,
          toolFormatReason: built.toolFormatReason?.slice(0, 1000),
          contextWindow: built.contextWindow,
          contextWindowSource: built.contextWindowSource?.slice(0, 1000),
          images: !!built.model.info.images,
          ...(built.warning ? { warning: built.warning.slice(0, 1000) } : {}),
        },
      };
    } catch (err) {
      return fail(`${label}: ${errorText(err)}`);
    }
  }

  /** Choices for the panel's model dropdown and the picker: ids are "<provider>:<model>". */
  async choices(current: ForgeSettings): Promise<{ id: string; label: string; provider: ProviderId; model: string }[]> {
    const out: { id: string; label: string; provider: ProviderId; model: string }[] = [];
    for (const m of await listVscodeLmModels()) {
      out.push({
        id: `vscode-lm:${m.id}`,
        label: `${m.name} (${m.vendor}, VS Code)`,
        provider: 'vscode-lm',
        model: m.id,
      });
    }
    for (const provider of ['openai', 'anthropic'] as const) {
      for (const model of SUGGESTED_MODELS[provider] ?? []) {
        out.push({ id: `${provider}:${model}`, label: `${model} (${PROVIDER_LABELS[provider]})`, provider, model });
      }
    }
    if (current.provider === 'openai-compatible' && current.model) {
      out.push({
        id: `openai-compatible:${current.model}`,
        label: `${current.model} (${current.baseUrl || 'endpoint'})`,
        provider: 'openai-compatible',
        model: current.model,
      });
    }
    // Ollama / LM Studio found on their default ports: "<model>@<baseUrl>" saves the URL too (saveModelChoice).
    const here = current.baseUrl.replace(/\/+$/, '');
    for (const server of await this.detectLocal().catch(() => [])) {
      for (const model of server.models.slice(0, 100)) {
        if (current.provider === 'openai-compatible' && model === current.model && server.baseUrl === here) continue;
        out.push({
          id: `openai-compatible:${model}@${server.baseUrl}`,
          label: `${model} (${server.label})`,
          provider: 'openai-compatible',
          model: `${model}@${server.baseUrl}`,
        });
      }
    }
    return out.filter((c) => /^[\x21-\x7e]+$/.test(c.id));
  }
}

/** Writes provider + model to the settings scope where the user keeps them (workspace if set there). */
export async function saveModelChoice(provider: ProviderId, model: string): Promise<void> {
  const c = vscode.workspace.getConfiguration('forge');
  const at = provider === 'openai-compatible' ? splitModelAtUrl(model) : undefined;
  if (at) {
    await c.update('baseUrl', at.baseUrl, vscode.ConfigurationTarget.Global);
    model = at.model;
  }
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

/** Models resolved as the fallback of a primary (read by SwitchableModel.fallback). */
const fallbacks = new WeakMap<Model, Model>();

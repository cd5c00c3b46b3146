// Choosing the model: the palette's API key prompt and model picker, and the panel's model dropdown, its
// "Set API key" and "Open settings" buttons. Every change re-resolves the model.
import * as vscode from 'vscode';
import type { ForgePanelProvider } from '../../panel/provider';
import type { WebviewHandlers } from '../../panel/webview-handlers';
import type { CommandHandlers } from './commands';
import type { ApiKeyStore } from '../api-key-store';
import { readSettings, type ProviderId } from '../settings';
import { saveModelChoice, type ModelFactory } from '../wiring/model-factory';
import { pickModel } from './pickers';
import { errorText } from '../../core/error-text';

interface ModelSettingsDeps {
  keys: ApiKeyStore;
  models: ModelFactory;
  refreshModel(): Promise<void>;
}

/** The panel's model ids are provider-qualified: "<provider>:<model>". */
const PANEL_MODEL_ID = /^(vscode-lm|openai|anthropic|openai-compatible):(.+)$/;
const PROVIDERS_WITH_KEYS: ProviderId[] = ['openai', 'anthropic', 'openai-compatible'];

export class ModelSettings {
  constructor(
    private readonly deps: () => ModelSettingsDeps,
    private readonly panel: () => ForgePanelProvider | undefined,
  ) {}

  async setApiKey(provider?: ProviderId): Promise<void> {
    const changed = await this.deps().keys.prompt(provider ?? readSettings().provider);
    if (changed) await this.deps().refreshModel();
  }

  async selectModel(): Promise<void> {
    const { models, keys } = this.deps();
    if (await pickModel(models, keys)) await this.deps().refreshModel();
  }

  /** The dropdown's choice, or the host's picker when there is none. */
  selectFromPanel(modelId?: string): void {
    const m = modelId ? PANEL_MODEL_ID.exec(modelId) : null;
    const done = m
      ? saveModelChoice(m[1] as ProviderId, m[2]).then(() => this.deps().refreshModel())
      : this.selectModel();
    void done.catch((err) => this.panel()?.showError(`Forge could not switch the model: ${errorText(err)}`));
  }

  /** `provider` comes from the webview: anything but a provider with keys asks for the configured one's. */
  setApiKeyFromPanel(provider?: string): void {
    void this.setApiKey(PROVIDERS_WITH_KEYS.includes(provider as ProviderId) ? (provider as ProviderId) : undefined);
  }

  openSettings(): void {
    void vscode.commands.executeCommand('workbench.action.openSettings', '@ext:forge-dev.forge-agent');
  }
}

export const modelMessages = (settings: ModelSettings) =>
  ({
    select_model: (m) => settings.selectFromPanel(m.modelId),
    set_api_key: (m) => settings.setApiKeyFromPanel(m.provider),
    open_settings: () => settings.openSettings(),
  }) satisfies Partial<WebviewHandlers>;

export const modelCommands = (settings: ModelSettings) =>
  ({
    'forge.setApiKey': () => settings.setApiKey(),
    'forge.selectModel': () => settings.selectModel(),
  }) satisfies Partial<CommandHandlers>;

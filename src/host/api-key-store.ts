// API keys live only in SecretStorage (never settings, never logs).
import * as vscode from 'vscode';
import type { ProviderId } from './settings';

type KeyedProvider = Exclude<ProviderId, 'vscode-lm'>;

const LABELS: Record<KeyedProvider, string> = {
  openai: 'OpenAI',
  anthropic: 'Anthropic',
  'openai-compatible': 'OpenAI-compatible endpoint',
};

export class ApiKeyStore {
  constructor(private readonly secrets: vscode.SecretStorage) {}

  private static key(provider: KeyedProvider): string {
    return `forge.apiKey.${provider}`;
  }

  get(provider: KeyedProvider): Promise<string | undefined> {
    return Promise.resolve(this.secrets.get(ApiKeyStore.key(provider)));
  }

  async set(provider: KeyedProvider, apiKey: string): Promise<void> {
    await this.secrets.store(ApiKeyStore.key(provider), apiKey.trim());
  }

  async delete(provider: KeyedProvider): Promise<void> {
    await this.secrets.delete(ApiKeyStore.key(provider));
  }

  /** Fires with the provider whose key changed (so a cached model client can be rebuilt). */
  onDidChange(listener: (provider: KeyedProvider) => void): vscode.Disposable {
    return this.secrets.onDidChange((e) => {
      const m = /^forge\.apiKey\.(.+)$/.exec(e.key);
      if (m && m[1] in LABELS) listener(m[1] as KeyedProvider);
    });
  }

  /**
   * "Forge: Set API Key": pick the provider (preselected: the configured one), then a password input.
   * An empty entry deletes the stored key. Returns the provider changed, or undefined when cancelled.
   */
  async prompt(preferred?: ProviderId): Promise<KeyedProvider | undefined> {
    const items = (Object.keys(LABELS) as KeyedProvider[]).map((id) => ({
      label: LABELS[id],
      id,
      picked: id === preferred,
    }));
    items.sort((a, b) => Number(b.picked) - Number(a.picked));
    const pick =
      preferred && preferred !== 'vscode-lm'
        ? items.find((i) => i.id === preferred)
        : await vscode.window.showQuickPick(items, { title: 'Forge: Set API Key', placeHolder: 'Provider' });
    if (!pick) return undefined;
    const has = (await this.get(pick.id)) !== undefined;
    const value = await vscode.window.showInputBox({
      title: `Forge: ${LABELS[pick.id]} API key`,
      prompt: has
        ? 'A key is stored. Enter a new one, or leave empty to delete it.'
        : 'Stored in VS Code secret storage.',
      password: true,
      ignoreFocusOut: true,
      placeHolder: pick.id === 'anthropic' ? 'sk-ant-...' : 'sk-...',
    });
    if (value === undefined) return undefined;
    if (value.trim() === '') await this.delete(pick.id);
    else await this.set(pick.id, value);
    return pick.id;
  }
}

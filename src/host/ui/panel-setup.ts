// The panel's inline model setup: "Check connection" asks the endpoint for its models (and looks for a local
// Ollama / LM Studio), "Save" writes provider, base URL and model to the settings and the API key to
// SecretStorage.
import * as vscode from 'vscode';
import type { ForgePanelProvider } from '../../panel/provider';
import type { WebviewHandlers, WebviewMessageOf } from '../../panel/webview-handlers';
import type { PanelProviderId } from '../../protocol/messages';
import { checkEndpoint, detectLocalServers, normaliseBaseUrl } from '../../providers/endpoint-discovery';
import { listVscodeLmModels } from '../../providers/vscode-lm';
import type { ApiKeyStore } from '../api-key-store';
import { readSettings } from '../settings';
import { SUGGESTED_MODELS, saveModelChoice } from '../wiring/model-factory';
import { errorText } from '../../core/error-text';

type CheckRequest = WebviewMessageOf<'check_provider'>;
type SaveRequest = WebviewMessageOf<'save_provider'>;

const OPENAI_URL = 'https://api.openai.com/v1';
const LOCAL_DEFAULT_URL = 'http://127.0.0.1:11434/v1';

interface PanelSetupDeps {
  keys(): ApiKeyStore;
  panel(): ForgePanelProvider | undefined;
  refreshModel(): Promise<void>;
  log(): { warn(m: string): void };
}

export class PanelSetup {
  constructor(private readonly deps: PanelSetupDeps) {}

  private reply(msg: {
    ok: boolean;
    message?: string;
    models?: string[];
    local?: { label: string; baseUrl: string; models: string[] }[];
  }): void {
    this.deps.panel()?.post({
      type: 'provider_check',
      ok: msg.ok,
      message: msg.message?.slice(0, 2000),
      ...(msg.models ? { models: msg.models.slice(0, 500).map((m) => m.slice(0, 500)) } : {}),
      ...(msg.local ? { local: msg.local.slice(0, 4).map((l) => ({ ...l, models: l.models.slice(0, 500) })) } : {}),
    });
  }

  private async storedKey(provider: PanelProviderId): Promise<string | undefined> {
    if (provider === 'vscode-lm') return undefined;
    return (
      (await this.deps
        .keys()
        .get(provider)
        .catch(() => undefined)) || undefined
    );
  }

  async check(req: CheckRequest): Promise<void> {
    try {
      const apiKey = req.apiKey?.trim() || (await this.storedKey(req.provider));
      switch (req.provider) {
        case 'vscode-lm': {
          const models = await listVscodeLmModels();
          this.reply(
            models.length
              ? {
                  ok: true,
                  message: `${models.length} chat model${models.length === 1 ? '' : 's'} available in VS Code.`,
                  models: models.map((m) => m.id),
                }
              : {
                  ok: false,
                  message:
                    'No chat model is available in VS Code. Sign in to GitHub Copilot (or another chat extension), or pick another provider.',
                },
          );
          return;
        }
        case 'anthropic': {
          if (!apiKey)
            return this.reply({
              ok: false,
              message: 'Enter your Anthropic API key.',
              models: SUGGESTED_MODELS.anthropic,
            });
          const r = await fetch('https://api.anthropic.com/v1/models?limit=100', {
            headers: { 'x-api-key': apiKey, 'anthropic-version': '2023-06-01' },
            signal: AbortSignal.timeout(5000),
          }).catch((err: unknown) => err as Error);
          if (r instanceof Error)
            return this.reply({
              ok: false,
              message: `Could not reach Anthropic (${r.message}).`,
              models: SUGGESTED_MODELS.anthropic,
            });
          if (r.status === 401 || r.status === 403)
            return this.reply({
              ok: false,
              message: `Anthropic refused the API key (HTTP ${r.status}).`,
              models: SUGGESTED_MODELS.anthropic,
            });
          const body = (await r.json().catch(() => ({}))) as { data?: { id?: unknown }[] };
          const models = (body.data ?? []).map((m) => (typeof m.id === 'string' ? m.id : '')).filter(Boolean);
          this.reply({
            ok: r.ok,
            message: r.ok ? `Connected: ${models.length} models.` : `Anthropic answered HTTP ${r.status}.`,
            models: models.length ? models : SUGGESTED_MODELS.anthropic,
          });
          return;
        }
        case 'openai':
        case 'openai-compatible': {
          const local = req.provider === 'openai-compatible' ? detectLocalServers() : Promise.resolve([]);
          const settings = readSettings();
          const baseUrl = normaliseBaseUrl(
            req.baseUrl?.trim() || (req.provider === 'openai' ? OPENAI_URL : settings.baseUrl || LOCAL_DEFAULT_URL),
          );
          if (req.provider === 'openai' && !apiKey) {
            return this.reply({ ok: false, message: 'Enter your OpenAI API key.', models: SUGGESTED_MODELS.openai });
          }
          const [result, found] = await Promise.all([checkEndpoint({ baseUrl, apiKey, timeoutMs: 4000 }), local]);
          const models = result.models.map((m) => m.id);
          this.reply({
            ok: result.ok,
            message: result.ok
              ? `Connected to ${baseUrl}: ${models.length} model${models.length === 1 ? '' : 's'}.`
              : result.message,
            models: models.length ? models : req.provider === 'openai' ? SUGGESTED_MODELS.openai : [],
            local: found.map((s) => ({ label: s.label, baseUrl: s.baseUrl, models: s.models })),
          });
          return;
        }
      }
    } catch (err) {
      this.reply({ ok: false, message: `The check failed: ${errorText(err)}` });
    }
  }

  async save(req: SaveRequest): Promise<void> {
    try {
      if (req.provider !== 'vscode-lm' && req.apiKey?.trim())
        await this.deps.keys().set(req.provider, req.apiKey.trim());
      const c = vscode.workspace.getConfiguration('forge');
      if (req.provider === 'openai-compatible' && req.baseUrl?.trim()) {
        await c.update('baseUrl', normaliseBaseUrl(req.baseUrl.trim()), vscode.ConfigurationTarget.Global);
      }
      const model = req.model?.trim();
      if (model) await saveModelChoice(req.provider, model);
      else await c.update('provider', req.provider, vscode.ConfigurationTarget.Global);
      await this.deps.refreshModel();
      this.reply({ ok: true, message: 'Saved.' });
    } catch (err) {
      this.reply({ ok: false, message: `Could not save: ${errorText(err)}` });
    }
  }
}

export const setupMessages = (setup: PanelSetup) =>
  ({
    check_provider: (m) => void setup.check(m),
    save_provider: (m) => void setup.save(m),
  }) satisfies Partial<WebviewHandlers>;

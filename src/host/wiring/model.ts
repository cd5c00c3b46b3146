// The one model every task, sub-agent and background task shares: switched in place when the settings, the API
// keys or the vscode.lm models change, with the panel's provider status following it.
import type * as vscode from 'vscode';
import type { ProviderStatus } from '../../protocol/messages';
import { ModelFactory, mementoToolFormatStore, SwitchableModel } from './model-factory';
import type { Logger } from '../logger';
import type { ApiKeyStore } from '../api-key-store';
import { readSettings } from '../settings';
import { refreshKeyPresence } from '../settings-consent';

interface ModelWiring {
  model: SwitchableModel;
  models: ModelFactory;
  /** Re-resolves the model from settings + secrets and updates the panel's provider status. */
  refresh(): Promise<void>;
}

interface ModelWiringDeps {
  context: vscode.ExtensionContext;
  keys: ApiKeyStore;
  log: Logger;
  /** The panel's provider status (the first refresh runs once the panel is registered). */
  showStatus(status: ProviderStatus): void;
  /** A model works now: the "no model" errors of a moment ago leave the transcript. */
  onModelWorks(): void;
}

export function wireModel({ context, keys, log, showStatus, onModelWorks }: ModelWiringDeps): ModelWiring {
  const model = new SwitchableModel();
  const models = new ModelFactory(keys, {
    toolFormats: mementoToolFormatStore(context.globalState),
    onToolFormatChange: () => void refresh(),
    log: (m) => log.info(m),
  });
  let refreshing = 0;
  let newest: Promise<void> = Promise.resolve();
  // A refresh overtaken by a newer one (a key check that finished, a settings change) resolves only when the newest
  // is done: whoever awaits it, such as the resume of a task restored with a pending approval, then sees the model
  // as it ends up. Resolving early left that resume with no model, and the approval was never asked again.
  const untilNewest = (p: Promise<void>): Promise<void> => {
    const next = (): Promise<void> | undefined => (newest === p ? undefined : untilNewest(newest));
    return p.then(next, next) as Promise<void>;
  };
  const refresh = (): Promise<void> => {
    const run = refreshOnce();
    newest = run;
    return untilNewest(run);
  };
  const refreshOnce = async (): Promise<void> => {
    const generation = ++refreshing;
    // Whether a key is stored decides whether a workspace's endpoint applies unasked: read it fresh, not from before.
    await refreshKeyPresence();
    if (generation !== refreshing) return;
    const settings = readSettings();
    const resolved = await models.resolve(settings);
    if (generation !== refreshing) return; // a newer refresh is on its way
    model.set(resolved.model, resolved.status.problem);
    const choices = await models.choices(settings).catch(() => []);
    if (generation !== refreshing) return;
    const inUse = choices.find(
      (c) => c.provider === settings.provider && (c.model === settings.model || c.model === resolved.status.model),
    );
    showStatus({
      ...resolved.status,
      models: choices.slice(0, 500).map((c) => ({ id: c.id, label: c.label })),
      modelId: inUse?.id,
    });
    if (!resolved.status.problem) onModelWorks();
    if (resolved.status.problem) log.info(`Model not ready: ${resolved.status.problem}`);
    else log.info(`Model: ${resolved.status.provider} ${resolved.status.model}`);
  };
  return { model, models, refresh };
}

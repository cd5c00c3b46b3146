// The palette and editor commands, and what follows the settings, the API keys and the vscode.lm models.
import * as vscode from 'vscode';
import { registerFixWithForge } from '../code-actions';
import { registerCommands } from '../commands';
import type { DeferredController } from '../controller/deferred-controller';
import type { Recovery } from '../controller/recovery';
import type { SessionManager } from '../controller/session-manager';
import type { Toolkit } from '../controller/tool-factory';
import type { Logger } from '../logger';
import { registerRecoveryCommands } from '../recovery-commands';
import type { ApiKeyStore } from '../secrets';
import { onSettingsChanged } from '../settings';

export interface CommandWiringDeps {
  context: vscode.ExtensionContext;
  /** Stands in for the Controller until it exists. */
  gate: DeferredController;
  log: Logger;
  /** Waits for the background initialisation. */
  recovery(): Promise<Recovery>;
  toolkit: Toolkit;
  keys: ApiKeyStore;
  refreshModel(): Promise<void>;
  /** The Controller's session manager, once there is one. */
  manager(): SessionManager | undefined;
}

export function registerCommandsAndListeners({ context, gate, log, recovery, toolkit, keys, refreshModel, manager }: CommandWiringDeps): void {
  context.subscriptions.push(
    registerCommands(gate, log),
    registerRecoveryCommands(recovery, log),
    registerFixWithForge(),
    onSettingsChanged((s) => {
      toolkit.refresh(s);
      // The idle task picks up the new limits, budgets and model window from its next message on.
      void refreshModel().finally(() => manager()?.current.rebuildAgent());
    }),
    keys.onDidChange(() => void refreshModel()),
    ...(vscode.lm?.onDidChangeChatModels ? [vscode.lm.onDidChangeChatModels(() => void refreshModel())] : []),
    { dispose: () => manager()?.dispose() },
  );
}

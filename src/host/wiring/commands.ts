// The palette and editor commands, and what follows the settings, the API keys and the vscode.lm models.
import * as vscode from 'vscode';
import type { ForgePanelProvider } from '../../panel/provider';
import { COMMAND_IDS } from '../../protocol/commands';
import { registerFixWithForge } from '../code-actions';
import { registerCommands, type CommandHandlers } from '../commands';
import type { ImmediateCommand } from '../controller/forge-controller';
import type { SessionManager } from '../controller/session-manager';
import type { Toolkit } from '../controller/tool-factory';
import type { Logger } from '../logger';
import { gatedTable, type ReadinessGate } from '../readiness-gate';
import type { ApiKeyStore } from '../secrets';
import { onSettingsChanged } from '../settings';
import type { Initialised } from './controller';

export interface CommandWiringDeps {
  context: vscode.ExtensionContext;
  /** Commands that need the session wait here; they fail once initialisation has. */
  gate: ReadinessGate<Initialised>;
  panel: ForgePanelProvider;
  log: Logger & { show(): void };
  toolkit: Toolkit;
  keys: ApiKeyStore;
  refreshModel(): Promise<void>;
  /** The Controller's session manager, once there is one. */
  manager(): SessionManager | undefined;
}

export function registerCommandsAndListeners(deps: CommandWiringDeps): void {
  const { context, gate, panel, log, toolkit, keys, refreshModel, manager } = deps;
  // What works without the session: showing the panel and the logs (to see why initialisation failed).
  const immediate: Pick<CommandHandlers, ImmediateCommand> = {
    'forge.openPanel': () => panel.reveal(),
    'forge.openPanelInEditor': () => panel.openInEditor(),
    'forge.showLogs': () => log.show(),
  };
  const commands = gatedTable<CommandHandlers, ImmediateCommand, Initialised>(
    COMMAND_IDS, immediate, gate, (s) => s.controller.commands,
  );
  context.subscriptions.push(
    registerCommands(commands, log),
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

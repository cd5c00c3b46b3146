// The palette and editor commands, and what follows the settings, the API keys and the vscode.lm models.
import * as vscode from 'vscode';
import type { ForgePanelProvider } from '../../panel/provider';
import { COMMAND_IDS } from '../../protocol/commands';
import { registerFixWithForge } from '../ui/code-actions';
import { registerCommands, type CommandHandlers } from '../ui/commands';
import type { ImmediateCommand } from '../ui/controller';
import { parallelCommands, type ParallelTasksUi } from '../ui/parallel-tasks-ui';
import type { SessionManager } from '../session/session-manager';
import type { AgentGuards } from './guards';
import type { Toolkit } from './toolkit';
import type { Ecosystem } from '../ecosystem';
import { hunkCommands } from '../edits/hunk-review';
import type { Logger } from '../logger';
import { mcpCommands } from '../mcp/mcp-commands';
import { gatedTable, type ReadinessGate } from '../ui/readiness-gate';
import { rulesCommands } from '../rules/rules-service';
import type { ApiKeyStore } from '../api-key-store';
import { onSettingsChanged, readSettings, reportSettingAdjustments } from '../settings';
import { consentCommands } from '../settings-consent';
import type { Initialised } from './controller';
import { welcomeOnFirstStart } from './welcome';
import { errorText } from '../../core/error-text';

interface CommandWiringDeps {
  context: vscode.ExtensionContext;
  /** Commands that need the session wait here; they fail once initialisation has. */
  gate: ReadinessGate<Initialised>;
  panel: ForgePanelProvider;
  log: Logger & { show(): void };
  toolkit: Toolkit;
  ecosystem: Ecosystem & { guards: AgentGuards };
  parallel: ParallelTasksUi;
  keys: ApiKeyStore;
  refreshModel(): Promise<void>;
  /** The Controller's session manager, once there is one. */
  manager(): SessionManager | undefined;
}

export function registerCommandsAndListeners(deps: CommandWiringDeps): void {
  const { context, gate, panel, log, toolkit, ecosystem, parallel, keys, refreshModel, manager } = deps;
  // What works without the session: the panel and the logs (to see why initialisation failed), the diff editor's
  // hunks, background tasks, MCP servers, project rules and the workspace settings' consent.
  const immediate: Pick<CommandHandlers, ImmediateCommand> = {
    'forge.openPanel': () => panel.reveal(),
    'forge.openPanelInEditor': () => panel.openInEditor(),
    'forge.showLogs': () => log.show(),
    ...hunkCommands(toolkit.diffApproval),
    ...parallelCommands(parallel),
    ...mcpCommands(ecosystem.mcp, log),
    ...rulesCommands(ecosystem.rules),
    ...consentCommands,
    ...ecosystem.guards.commands,
  };
  const commands = gatedTable<CommandHandlers, ImmediateCommand, Initialised>(
    COMMAND_IDS,
    immediate,
    gate,
    (s) => s.controller.commands,
  );
  const reportAdjusted = (s = readSettings()) => reportSettingAdjustments(s, (m) => log.warn(m));
  reportAdjusted();
  context.subscriptions.push(
    registerCommands(commands, log),
    registerFixWithForge(),
    onSettingsChanged((s) => {
      reportAdjusted(s);
      toolkit.refresh(s);
      // The idle task picks up the new limits, budgets and model window from its next message on.
      void refreshModel().finally(() => manager()?.current.rebuildAgent());
    }),
    keys.onDidChange(() => void refreshModel()),
    ...(vscode.lm?.onDidChangeChatModels ? [vscode.lm.onDidChangeChatModels(() => void refreshModel())] : []),
    { dispose: () => manager()?.dispose() },
  );
  // The first start in this profile: say that Forge is installed and where it is (once, never again).
  void welcomeOnFirstStart({
    globalState: context.globalState,
    showInformationMessage: (message, ...items) => vscode.window.showInformationMessage(message, ...items),
    executeCommand: (command) => vscode.commands.executeCommand(command),
  }).catch((err) => log.warn(`Welcome notification failed: ${errorText(err)}`));
}

// The chat panel, registered at once: its messages that need the session wait at the readiness gate; the panel
// already shows the modes, the slash commands and the ecosystem strip, and an initialisation failure.
import type * as vscode from 'vscode';
import { registerForgePanel, type ForgePanelProvider } from '../../panel/provider';
import type { Transcript } from '../../panel/transcript';
import type { HandledMessageType, WebviewHandlers } from '../../panel/webview-handlers';
import { WEBVIEW_MESSAGE_TYPES } from '../../protocol/messages';
import type { AgentExtras } from './agent-extras';
import type { ImmediateMessage } from '../ui/controller';
import type { Ecosystem } from '../ecosystem';
import { connectEcosystemPanel, ecosystemMessages } from '../ui/ecosystem-panel';
import type { Logger } from '../logger';
import { gatedTable, type ReadinessGate } from '../ui/readiness-gate';
import type { Initialised } from './controller';
import { errorText } from '../../core/error-text';

const HANDLED = WEBVIEW_MESSAGE_TYPES.filter((t): t is HandledMessageType => t !== 'ready');

interface PanelWiring {
  panel: ForgePanelProvider;
  /** Opens the gate once `ready` has made the session, or shows why it could not. */
  connect(ready: Promise<Initialised>): void;
}

interface PanelWiringDeps {
  context: vscode.ExtensionContext;
  log: Logger & { show(): void };
  extras: AgentExtras;
  ecosystem: Ecosystem;
  currentTaskId(): string | undefined;
  /** Messages that need the session wait here; they fail once initialisation has. */
  gate: ReadinessGate<Initialised>;
  /** What the panel shows until the session attaches the open task. */
  startup: Transcript;
}

export function registerPanel(deps: PanelWiringDeps): PanelWiring {
  const { context, log, extras, ecosystem, currentTaskId, gate, startup } = deps;
  const immediate: Pick<WebviewHandlers, ImmediateMessage> = {
    show_logs: () => log.show(),
    ...ecosystemMessages(ecosystem, currentTaskId),
  };
  const handlers = gatedTable<WebviewHandlers, ImmediateMessage, Initialised>(
    HANDLED,
    immediate,
    gate,
    (s) => s.controller.webview,
  );
  const panel = registerForgePanel(context, handlers, log);
  panel.attachTranscript(startup);
  // The built-in modes, then the team's custom agents (with the model each runs on when it has its own).
  const setModes = () =>
    panel.bridge.setModes(
      ecosystem.team.modes().map((m) => ({
        id: m.id.slice(0, 100),
        label: m.label.slice(0, 200),
        ...(m.model ? { model: m.model.slice(0, 200) } : {}),
        ...(m.description ? { description: m.description.slice(0, 300) } : {}),
      })),
    );
  setModes();
  context.subscriptions.push(ecosystem.team.onDidChange(setModes));
  extras.publishTo(panel);
  context.subscriptions.push(connectEcosystemPanel(panel.bridge, ecosystem, currentTaskId));
  const connect = (ready: Promise<Initialised>) => {
    gate.follow(ready);
    ready.catch((err: unknown) => {
      const message = errorText(err);
      log.error(`Forge could not initialise: ${err instanceof Error ? (err.stack ?? message) : message}`);
      // The placeholder transcript is part of every snapshot: a webview that opens later sees the error too.
      panel.bridge
        .getTranscript()
        .addError(`Forge could not start: ${message}. Reload the window to try again.`, ['show_logs']);
    });
  };
  return { panel, connect };
}

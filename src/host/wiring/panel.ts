// The chat panel, registered at once: until the Controller exists, a gate stands in for it (calls wait), the
// panel already shows the modes, the slash commands and the ecosystem strip, and an initialisation failure.
import type * as vscode from 'vscode';
import { MODES } from '../../core/modes';
import { registerForgePanel, type ForgePanelProvider } from '../../panel/provider';
import type { AgentExtras } from '../controller/agent-extras';
import { DeferredController } from '../controller/deferred-controller';
import type { Controller } from '../controller/forge-controller';
import type { Ecosystem } from '../ecosystem';
import { connectEcosystemPanel } from '../ecosystem-panel';
import type { Logger } from '../logger';

export interface PanelWiring {
  panel: ForgePanelProvider;
  /** Commands and panel messages go through it: they wait for the Controller, or fail once initialisation has. */
  gate: DeferredController;
  /** Hands the gate the Controller once `ready` has made it, or shows why it could not. */
  connect(ready: Promise<{ controller: Controller }>): void;
}

export interface PanelWiringDeps {
  context: vscode.ExtensionContext;
  log: Logger & { show(): void };
  extras: AgentExtras;
  ecosystem: Ecosystem;
  currentTaskId(): string | undefined;
}

export function registerPanel({ context, log, extras, ecosystem, currentTaskId }: PanelWiringDeps): PanelWiring {
  let settle!: { resolve(c: Controller): void; reject(err: unknown): void };
  const gate = new DeferredController(
    new Promise<Controller>((resolve, reject) => (settle = { resolve, reject })),
    { openPanel: () => panel.reveal(), openPanelInEditor: () => panel.openInEditor(), showLogs: () => log.show() },
    log,
  );
  const panel = registerForgePanel(context, gate, log, { registerOpenInEditorCommand: false });
  panel.bridge.setModes(Object.values(MODES).map((m) => ({ id: m.name, label: m.label })));
  extras.publishTo(panel);
  context.subscriptions.push(connectEcosystemPanel(panel.bridge, ecosystem, currentTaskId));
  const connect = (ready: Promise<{ controller: Controller }>) => {
    ready.then((s) => settle.resolve(s.controller), settle.reject);
    ready.catch((err: unknown) => {
      const message = err instanceof Error ? err.message : String(err);
      log.error(`Forge could not initialise: ${err instanceof Error ? err.stack ?? message : message}`);
      // The placeholder transcript is part of every snapshot: a webview that opens later sees the error too.
      panel.bridge.getTranscript().addError(`Forge could not start: ${message}. Reload the window to try again.`, ['show_logs']);
    });
  };
  return { panel, gate, connect };
}

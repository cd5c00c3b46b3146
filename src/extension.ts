// activate(): wire the host adapters into the core and register everything. Each step is a factory in
// host/wiring/ that takes what it needs; the glue they wire lives in host/controller.
import type * as vscode from 'vscode';
import { MemoryService } from './host/controller/agent-factory';
import { createLogger } from './host/logger';
import { ReadinessGate } from './host/readiness-gate';
import { ApiKeyStore } from './host/secrets';
import { initSettingsConsent } from './host/settings-consent';
import { ForgeStatusBar } from './host/status-bar';
import { createAgentTools } from './host/wiring/agent-tools';
import { registerCommandsAndListeners } from './host/wiring/commands';
import { initialiseController, type Initialised } from './host/wiring/controller';
import { wireEcosystem } from './host/wiring/ecosystem';
import { extensionApi } from './host/wiring/extension-api';
import { LateBound } from './host/wiring/late-bound';
import { flushForShutdown, resolveModelThenResume, warmFetchSoon } from './host/wiring/lifecycle';
import { wireModel } from './host/wiring/model';
import { createParallelTasks } from './host/wiring/parallel';
import { registerPanel } from './host/wiring/panel';
import { sessionManagerFactory } from './host/wiring/sessions';
import { openWorkspaceStorage } from './host/wiring/storage';

let shutdown: (() => Promise<void>) | undefined;

// Activation registers everything without waiting for the disk; the task store, edit journal, memory and the
// restore of the last task happen in the background (`ready`). Commands and panel messages wait for it.
export async function activate(context: vscode.ExtensionContext) {
  const started = Date.now();
  const log = createLogger(context);
  const keys = new ApiKeyStore(context.secrets);
  // First: every settings read from here on takes a workspace's widening values only with the user's consent.
  initSettingsConsent(context, keys, log);
  const statusBar = new ForgeStatusBar();
  context.subscriptions.push(statusBar);
  // The panel, Recovery and the Controller come after pieces that need them: those reach them through `late`.
  const late = new LateBound();

  const storage = openWorkspaceStorage(context, log, late.show);
  const { model, models, refresh: refreshModel } = wireModel({
    context, keys, log,
    showStatus: (status) => late.panel!.setProviderStatus(status),
    onModelWorks: () => late.controller?.manager.current.transcript.clearSetupErrors(),
  });
  const { toolkit, extras, outputs } = createAgentTools({ context, log, storage, currentTaskId: late.currentTaskId, recovery: () => late.recovery });
  const ecosystem = wireEcosystem(context, toolkit, extras, log);
  const memory = MemoryService.open(context, model, log);
  const newManager = sessionManagerFactory({
    model, toolkit, extras, ecosystem, outputs, storage, log,
    onEvent: (session, e) => {
      late.controller?.onAgentEvent(session, e);
      late.recovery?.onAgentEvent(session, e);
    },
  });

  // Panel messages and commands that need the session wait here until the background work is done.
  const gate = new ReadinessGate<Initialised>();
  const { panel, connect } = registerPanel({ context, log, extras, ecosystem, currentTaskId: late.currentTaskId, gate });
  late.panel = panel;
  const ready = initialiseController({ storage, memory, newManager, extras, ecosystem, panel, late, toolkit, model, models, keys, outputs, statusBar, log, refreshModel });
  connect(ready);
  const parallel = createParallelTasks({ context, model, memory, log, storageDir: storage.dir });
  registerCommandsAndListeners({ context, gate, panel, log, toolkit, keys, refreshModel, manager: () => late.controller?.manager });
  const modelReady = resolveModelThenResume(refreshModel, ready, log);
  shutdown = () => flushForShutdown(ready, storage);
  warmFetchSoon(context);

  const activationMs = Date.now() - started;
  log.info(`Forge activated in ${activationMs} ms`);
  return extensionApi({ context, activationMs, ready, modelReady, panel, toolkit, model, refreshModel, outputs, storage, newManager, late, ecosystem, parallel, statusBar, keys });
}

export async function deactivate(): Promise<void> {
  // Waits for the background initialisation (a task restored meanwhile is flushed too).
  await shutdown?.();
  shutdown = undefined;
}

// activate(): wire the host adapters into the core and register everything. Each step is a factory in
// host/wiring/ that takes what it needs; the glue they wire lives in host/session, ui, edits and terminal.
import type * as vscode from 'vscode';
import { MemoryService } from './host/wiring/memory-service';
import { createLogger } from './host/logger';
import { ReadinessGate } from './host/ui/readiness-gate';
import { ApiKeyStore } from './host/api-key-store';
import { initSettingsConsent } from './host/settings-consent';
import { ForgeStatusBar } from './host/ui/status-bar';
import { createAgentTools } from './host/wiring/agent-tools';
import { registerCommandsAndListeners } from './host/wiring/commands';
import { initialiseController, type Initialised } from './host/wiring/controller';
import { wireEcosystem } from './host/wiring/ecosystem';
import { extensionApi } from './host/wiring/extension-api';
import { flushForShutdown, resolveModelThenResume, warmFetchSoon } from './host/wiring/lifecycle';
import { wireModel } from './host/wiring/model';
import { createParallelTasks } from './host/wiring/parallel';
import { registerPanel } from './host/wiring/panel';
import { Attention } from './host/ui/attention';
import { sessionManagerFactory } from './host/wiring/sessions';
import { openWorkspaceStorage } from './host/wiring/storage';
import { Transcript } from './panel/transcript';

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
  // The session (the Controller and Recovery) comes last: panel messages and commands that need it wait at the
  // gate; the pieces made before it only peek at gate.current, which is undefined until it exists.
  const gate = new ReadinessGate<Initialised>();
  const currentTaskId = () => gate.current?.controller.manager.current.id;
  // What the panel shows until the session attaches the open task: storage failures and a failed start land here.
  const startup = new Transcript();
  const show = (message: string, resolved?: boolean) => {
    if (gate.current) gate.current.controller.manager.note(message, resolved ? 'storage-ok' : 'storage');
    else startup.storageNote(message, !!resolved);
  };

  const storage = openWorkspaceStorage(context, log, show);
  const { toolkit, extras, outputs } = createAgentTools({
    context,
    log,
    storage,
    currentTaskId,
    recovery: () => gate.current?.recovery,
  });
  const ecosystem = wireEcosystem(context, toolkit, extras, log);
  const { panel, connect } = registerPanel({ context, log, extras, ecosystem, currentTaskId, gate, startup });
  // Notifications, the badge and the status bar when a run needs the user and the panel is out of sight.
  const attention = new Attention({
    panel,
    statusBar,
    log,
    showDiff: (id) => void toolkit.diffApproval.show(id, { preserveFocus: false }),
  });
  context.subscriptions.push(attention);
  const {
    model,
    models,
    refresh: refreshModel,
  } = wireModel({
    context,
    keys,
    log,
    showStatus: (status) => panel.setProviderStatus(status),
    onModelWorks: () => gate.current?.controller.manager.current.transcript.clearSetupErrors(),
  });
  const memory = MemoryService.open(context, model, log);
  const newManager = sessionManagerFactory({
    model,
    toolkit,
    extras,
    ecosystem,
    outputs,
    storage,
    log,
    onEvent: (session, e) => {
      gate.current?.controller.onAgentEvent(session, e);
      gate.current?.recovery.onAgentEvent(session, e);
      attention.onEvent(e);
    },
  });

  const ready = initialiseController({
    storage,
    memory,
    newManager,
    extras,
    ecosystem,
    panel,
    gate,
    toolkit,
    model,
    models,
    keys,
    outputs,
    statusBar,
    log,
    refreshModel,
  });
  connect(ready);
  const parallel = createParallelTasks({ context, model, memory, log, storageDir: storage.dir });
  const manager = () => gate.current?.controller.manager;
  registerCommandsAndListeners({
    context,
    gate,
    panel,
    log,
    toolkit,
    ecosystem,
    parallel,
    keys,
    refreshModel,
    manager,
  });
  const modelReady = resolveModelThenResume(refreshModel, ready, log);
  shutdown = () => flushForShutdown(ready, storage);
  warmFetchSoon(context);

  const activationMs = Date.now() - started;
  log.info(`Forge activated in ${activationMs} ms`);
  return extensionApi({
    context,
    activationMs,
    ready,
    modelReady,
    panel,
    toolkit,
    model,
    refreshModel,
    outputs,
    storage,
    newManager,
    gate,
    ecosystem,
    parallel,
    statusBar,
    keys,
    attention,
  });
}

export async function deactivate(): Promise<void> {
  // Waits for the background initialisation (a task restored meanwhile is flushed too).
  await shutdown?.();
  shutdown = undefined;
}

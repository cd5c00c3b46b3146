// activate(): wire the host adapters into the core and register everything; the glue lives in host/controller.
import * as path from 'node:path';
import * as vscode from 'vscode';
import { InMemoryOutputStore } from './core/context/output-store';
import { Agent, type AgentDeps } from './core/loop/agent';
import { EditJournal } from './core/tasks/journal';
import type { AgentSnapshot } from './core/tasks/snapshot';
import { TaskStore, type TaskRecord } from './core/tasks/task-store';
import { registerFixWithForge } from './host/code-actions';
import { registerCommands } from './host/commands';
import { agentConfigFrom, MemoryService } from './host/controller/agent-factory';
import { Controller } from './host/controller/forge-controller';
import { ModelFactory, SwitchableModel } from './host/controller/model-factory';
import { SessionManager, workspaceKey } from './host/controller/session-manager';
import { createToolkit, spoolDirFor } from './host/controller/tool-factory';
import { createLogger } from './host/logger';
import { ApiKeyStore } from './host/secrets';
import { onSettingsChanged, readSettings } from './host/settings';
import { ForgeStatusBar } from './host/status-bar';
import { listVscodeLmModels } from './providers/vscode-lm';
import { registerForgePanel } from './panel/provider';

let shutdown: (() => Promise<void>) | undefined;

export async function activate(context: vscode.ExtensionContext) {
  const started = Date.now();
  const log = createLogger(context);
  const keys = new ApiKeyStore(context.secrets);
  const statusBar = new ForgeStatusBar();
  context.subscriptions.push(statusBar);

  // Task history and the edit journal live in global storage, one folder per workspace.
  const folders = (vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.fsPath);
  const storageDir = path.join(context.globalStorageUri.fsPath, workspaceKey(folders));
  const tasksDir = path.join(storageDir, 'history');
  const logTo = (m: string) => log.debug(m);
  const [store, journal] = await Promise.all([TaskStore.open(tasksDir, { log: logTo }), EditJournal.open(storageDir, { log: logTo })]);

  const model = new SwitchableModel();
  const models = new ModelFactory(keys);
  const outputs = new InMemoryOutputStore();
  let controller: Controller | undefined;
  const toolkit = createToolkit({
    log,
    currentTaskId: () => controller?.manager.current.id,
    record: async (entry) => void (await journal.record(entry)),
    spoolDir: spoolDirFor(context),
  });
  context.subscriptions.push(toolkit);
  const memory = await MemoryService.open(context, model, log);

  const makeAgent = (snapshot?: AgentSnapshot): Agent => {
    const deps: AgentDeps = {
      model,
      tools: toolkit.tools,
      approver: toolkit.approvals,
      config: agentConfigFrom(readSettings(), model),
      memory,
      outputStore: outputs,
      log: (m) => log.debug(m),
    };
    return snapshot ? Agent.restore(snapshot, deps) : new Agent(deps);
  };
  const newManager = (taskStore: TaskStore) =>
    new SessionManager({
      store: taskStore,
      makeAgent,
      log,
      onEvent: (session, e) => controller?.onAgentEvent(session, e),
    });

  let refreshing = 0;
  const refreshModel = async () => {
    const generation = ++refreshing;
    const settings = readSettings();
    const resolved = await models.resolve(settings);
    if (generation !== refreshing) return; // a newer refresh is on its way
    model.set(resolved.model, resolved.status.problem);
    const choices = await models.choices(settings).catch(() => []);
    if (generation !== refreshing) return;
    const inUse = choices.find((c) => c.provider === settings.provider && (c.model === settings.model || c.model === resolved.status.model));
    panel.setProviderStatus({ ...resolved.status, models: choices.slice(0, 500).map((c) => ({ id: c.id, label: c.label })), modelId: inUse?.id });
    if (resolved.status.problem) log.info(`Model not ready: ${resolved.status.problem}`);
    else log.info(`Model: ${resolved.status.provider} ${resolved.status.model}`);
  };

  controller = new Controller({
    manager: newManager(store),
    toolkit,
    model,
    models,
    keys,
    memory,
    journal,
    outputs,
    statusBar,
    log,
    refreshModel,
  });
  const panel = registerForgePanel(context, controller, log, { registerOpenInEditorCommand: false });
  controller.setPanel(panel);
  controller.manager.attach(panel);

  context.subscriptions.push(
    registerCommands(controller, log),
    registerFixWithForge(),
    onSettingsChanged((s) => {
      toolkit.refresh(s);
      // The idle task picks up the new limits, budgets and model window from its next message on.
      void refreshModel().finally(() => controller?.manager.current.rebuildAgent());
    }),
    keys.onDidChange(() => void refreshModel()),
    ...(vscode.lm?.onDidChangeChatModels ? [vscode.lm.onDidChangeChatModels(() => void refreshModel())] : []),
    { dispose: () => controller?.manager.dispose() },
  );

  // Never lose the conversation: bring back the last task of this workspace.
  try {
    const restored = await controller.manager.restoreLatest();
    if (restored) log.info(`Restored task ${restored.id} (${restored.record().title})`);
  } catch (err) {
    log.error(`Could not restore the last task: ${err instanceof Error ? err.message : String(err)}`);
  }
  const modelReady = refreshModel()
    .then(() => {
      void controller?.resumeIfPending();
    })
    .catch((err) => log.error(`Model setup failed: ${err instanceof Error ? err.message : String(err)}`));

  shutdown = async () => {
    await controller?.manager.flush().catch(() => undefined);
    await journal.flush().catch(() => undefined);
  };

  const activationMs = Date.now() - started;
  log.info(`Forge activated in ${activationMs} ms`);

  let currentStore = store;
  const testApi = {
    controller,
    panel,
    /** The TaskStore the current session manager saves to (simulateReload opens a fresh one). */
    get store() {
      return currentStore;
    },
    journal,
    toolkit,
    model,
    memory,
    outputs,
    modelReady,
    refreshModel,
    get manager() {
      return controller!.manager;
    },
    /**
     * Simulates a window reload: the current task is flushed and dropped, `record` (if given) is written as the
     * saved state, and a new session manager restores the latest task from a freshly opened TaskStore.
     */
    async simulateReload(record?: TaskRecord) {
      const old = controller!.manager;
      if (old.current.running) {
        old.current.stop();
        await old.current.currentRun;
      }
      await old.flush();
      old.dispose();
      if (record) {
        await store.save(record);
        await store.flush();
      }
      const reopened = await TaskStore.open(tasksDir, { log: logTo });
      currentStore = reopened;
      const manager = newManager(reopened);
      controller!.replaceManager(manager);
      const restored = await manager.restoreLatest();
      // As at activation: a restored task that waited for an approval asks again.
      const resumed = controller!.resumeIfPending();
      return { manager, restored, resumed };
    },
    /** vscode.lm models (to tell whether the default provider could work here). */
    listVscodeLmModels,
  };
  // Other extensions see only the activation time: handing them the approval centre would let them approve edits.
  const exposeInternals = context.extensionMode === vscode.ExtensionMode.Test || process.env.FORGE_TEST === '1';
  if (!exposeInternals) return { activationMs };
  return { diffApproval: toolkit.diffApproval, approvals: toolkit.approvals, statusBar, keys, activationMs, testApi };
}

export async function deactivate(): Promise<void> {
  await shutdown?.();
  shutdown = undefined;
}

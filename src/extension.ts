// activate(): wire the host adapters into the core and register everything; the glue lives in host/controller.
import * as path from 'node:path';
import * as vscode from 'vscode';
import { InMemoryOutputStore } from './core/context/output-store';
import { Agent, type AgentDeps } from './core/loop/agent';
import { MODES } from './core/modes';
import { AuditTrail } from './core/audit/audit-trail';
import { EditJournal } from './core/tasks/journal';
import { RunReportStore } from './core/tasks/run-reports';
import type { AgentSnapshot } from './core/tasks/snapshot';
import { TaskStore, type TaskRecord } from './core/tasks/task-store';
import { registerFixWithForge } from './host/code-actions';
import { registerCommands } from './host/commands';
import { agentConfigFrom, MemoryService } from './host/controller/agent-factory';
import { createAgentExtras, createDelegatingAgent } from './host/controller/agent-extras';
import { DeferredController } from './host/controller/deferred-controller';
import { createDurability, recordedLedger } from './host/controller/durability';
import { Controller } from './host/controller/forge-controller';
import { ModelFactory, mementoToolFormatStore, SwitchableModel } from './host/controller/model-factory';
import { SessionManager, workspaceKey } from './host/controller/session-manager';
import { createToolkit, spoolDirFor } from './host/controller/tool-factory';
import { warmFetch } from './host/fetch-warmup';
import { journalFsOf, Recovery } from './host/controller/recovery';
import { setupEcosystem } from './host/ecosystem';
import { McpPromptCommands } from './core/mcp/prompt-commands';
import { connectEcosystemPanel } from './host/ecosystem-panel';
import { ParallelTasksUi } from './host/controller/parallel-ui';
import { createLogger } from './host/logger';
import { AuditFileSink } from './host/node/audit-file-sink';
import { registerRecoveryCommands } from './host/recovery-commands';
import { ApiKeyStore } from './host/secrets';
import { onSettingsChanged, readSettings } from './host/settings';
import { ForgeStatusBar } from './host/status-bar';
import { listVscodeLmModels } from './providers/vscode-lm';
import { registerForgePanel } from './panel/provider';

let shutdown: (() => Promise<void>) | undefined;

/** What activation's background disk work produces (task history, edit journal, memory, the Controller). */
interface Initialised {
  controller: Controller;
  store: TaskStore;
  journal: EditJournal;
  memory: MemoryService;
}

// Activation registers everything without waiting for the disk; the task store, edit journal, memory and the
// restore of the last task happen in the background (`ready`). Commands and panel messages wait for it.
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
  const stores = Promise.all([TaskStore.open(tasksDir, { log: logTo, maxTasks: readSettings().historyMaxTasks }), EditJournal.open(storageDir, { log: logTo })]);
  // Intent before effect, reconcile on restore, loud storage failures, one owner per task (docs/DESIGN-durability.md).
  const durable = createDurability({
    storageDir,
    log,
    show: (m) => (controller ? controller.manager.note(m) : panel.bridge.getTranscript().addError(m, ['show_logs'])),
  });
  // The audit trail (every action, rotated JSON Lines) and the run reports live there too, never in the workspace.
  const auditSink = new AuditFileSink(path.join(storageDir, 'audit'));
  const audit = new AuditTrail(auditSink, { log: logTo });
  const reports = new RunReportStore(storageDir, { log: logTo });
  let recovery: Recovery | undefined;

  const model = new SwitchableModel();
  const models = new ModelFactory(keys, { toolFormats: mementoToolFormatStore(context.globalState), onToolFormatChange: () => void refreshModel(), log: (m) => log.info(m) });
  const outputs = new InMemoryOutputStore();
  let controller: Controller | undefined;
  let state: Initialised | undefined;
  const toolkit = createToolkit({
    log,
    currentTaskId: () => controller?.manager.current.id,
    // Edits happen only in runs, which start after `ready`; the journal is open by then.
    ledger: recordedLedger(durable.ledger(stores.then(([, journal]) => journal)), (entry) => recovery?.onFileRecorded(entry)),
    commands: async () => durable.commands,
    storage: durable.health,
    spoolDir: spoolDirFor(context),
    onCommandChanges: (taskId, toolCallId, files, more) => recovery?.onCommandChanges(taskId, toolCallId, files, more),
  });
  context.subscriptions.push(toolkit);
  const extras = createAgentExtras(toolkit, log);
  context.subscriptions.push(extras);
  // MCP servers (lazy) and project rules (AGENTS.md), wired into every Agent below.
  const ecosystem = setupEcosystem(context, toolkit.fs, log);
  // MCP prompts complete as slash commands once their server runs (completion never starts a server).
  context.subscriptions.push(extras.addSlashSource(new McpPromptCommands(ecosystem.mcp)), ecosystem.onDidChange(() => extras.refresh()));
  const memoryOpened = MemoryService.open(context, model, log);

  const newManager = (taskStore: TaskStore, memory: MemoryService) => {
    const makeAgent = (snapshot?: AgentSnapshot): Agent => {
      const deps: AgentDeps = {
        model,
        tools: toolkit.tools,
        approver: toolkit.approvals,
        config: { ...agentConfigFrom(readSettings(), model), modeContext: extras.modeContext },
        memory,
        outputStore: outputs,
        log: (m) => log.debug(m),
      };
      return ecosystem.wire(deps, (d) => createDelegatingAgent(d, snapshot));
    };
    return new SessionManager({
      store: taskStore,
      makeAgent,
      log,
      leases: durable.leases,
      storage: durable.health,
      reconcile: (record) => stores.then(([, journal]) => durable.reconciler(journal)(record)),
      onEvent: (session, e) => {
        controller?.onAgentEvent(session, e);
        recovery?.onAgentEvent(session, e);
      },
    });
  };

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
    // The "no model" error of a moment ago is moot once a model works: it leaves the transcript.
    if (!resolved.status.problem) controller?.manager.current.transcript.clearSetupErrors();
    if (resolved.status.problem) log.info(`Model not ready: ${resolved.status.problem}`);
    else log.info(`Model: ${resolved.status.provider} ${resolved.status.model}`);
  };

  const initialise = async (): Promise<Initialised> => {
    const [[store, journal], memory] = await Promise.all([stores, memoryOpened]);
    recovery = new Recovery({
      manager: () => created.manager, journal, audit, reports, journalFs: journalFsOf(toolkit.fs), auditFiles: () => auditSink.files(), log,
    });
    const created: Controller = new Controller({
      recovery,
      manager: newManager(store, memory),
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
      extras,
      beforeSend: (text) => ecosystem.mcp.withAttachments(text),
    });
    controller = created;
    created.setPanel(panel);
    // Attaching resends the snapshot to webviews that are already ready, and so does the restore's switch.
    created.manager.attach(panel);
    // Never lose the conversation: bring back the last task of this workspace.
    try {
      const restored = await created.manager.restoreLatest();
      if (restored) log.info(`Restored task ${restored.id} (${restored.record().title})`);
    } catch (err) {
      log.error(`Could not restore the last task: ${err instanceof Error ? err.message : String(err)}`);
    }
    state = { controller: created, store, journal, memory };
    return state;
  };
  // The gate forwards to the Controller once `ready` has made it; until then calls wait for it.
  let settle!: { resolve(c: Controller): void; reject(err: unknown): void };
  const gate = new DeferredController(
    new Promise<Controller>((resolve, reject) => (settle = { resolve, reject })),
    { openPanel: () => panel.reveal(), openPanelInEditor: () => panel.openInEditor(), showLogs: () => log.show() },
    log,
  );
  const panel = registerForgePanel(context, gate, log, { registerOpenInEditorCommand: false });
  panel.bridge.setModes(Object.values(MODES).map((m) => ({ id: m.name, label: m.label })));
  extras.publishTo(panel);
  context.subscriptions.push(connectEcosystemPanel(panel.bridge, ecosystem, () => controller?.manager.current.id));
  const ready = initialise();
  ready.then((s) => settle.resolve(s.controller), settle.reject);
  ready.catch((err: unknown) => {
    const message = err instanceof Error ? err.message : String(err);
    log.error(`Forge could not initialise: ${err instanceof Error ? err.stack ?? message : message}`);
    // The placeholder transcript is part of every snapshot: a webview that opens later sees the error too.
    panel.bridge.getTranscript().addError(`Forge could not start: ${message}. Reload the window to try again.`, ['show_logs']);
  });

  // Background tasks in their own git worktrees (forge.parallel.*), sharing the model and the memory.
  const parallel = new ParallelTasksUi({
    model,
    memory: { recall: async (t, b) => (await memoryOpened).recall(t, b), reflect: async (i) => (await memoryOpened).reflect(i) },
    log,
    worktreeDir: path.join(storageDir, 'worktrees'),
  });
  context.subscriptions.push(parallel);

  context.subscriptions.push(
    registerCommands(gate, log),
    registerRecoveryCommands(() => ready.then(() => recovery!), log),
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

  // The model resolves alongside the disk work; a restored task that waited for an approval asks again once both are done.
  const modelReady = refreshModel()
    .catch((err) => log.error(`Model setup failed: ${err instanceof Error ? err.message : String(err)}`))
    .then(() => ready)
    .then(
      (s) => void s.controller.resumeIfPending(),
      () => undefined, // reported above
    );

  shutdown = async () => {
    const s = await ready.catch(() => undefined);
    if (!s) return;
    await s.controller.manager.flush().catch(() => undefined);
    await s.journal.flush().catch(() => undefined);
    await durable.dispose().catch(() => undefined);
    await audit.flush().catch(() => undefined);
  };

  // Load fetch (the model SDKs' transport) while nobody waits, not in the first request after a reload.
  const fetchWarmup = setTimeout(() => void warmFetch(), 300);
  context.subscriptions.push({ dispose: () => clearTimeout(fetchWarmup) });

  const activationMs = Date.now() - started;
  log.info(`Forge activated in ${activationMs} ms`);

  // Awaiting it rethrows an initialisation failure; nobody awaiting it is not an unhandled rejection.
  const readyForTests = ready.then(() => undefined);
  readyForTests.catch(() => undefined);
  let currentStore: TaskStore | undefined;
  const initialised = () => {
    if (!state) throw new Error('Forge is not initialised yet: await testApi.ready first');
    return state;
  };
  const testApi = {
    /** Resolves when the task store, edit journal and memory are open and the last task is restored. */
    ready: readyForTests,
    get controller() {
      return initialised().controller;
    },
    panel,
    /** The TaskStore the current session manager saves to (simulateReload opens a fresh one). */
    get store() {
      return currentStore ?? initialised().store;
    },
    get journal() {
      return initialised().journal;
    },
    toolkit,
    model,
    get memory() {
      return initialised().memory;
    },
    outputs,
    modelReady,
    refreshModel,
    get manager() {
      return initialised().controller.manager;
    },
    /**
     * Simulates a window reload: the current task is flushed and dropped, `record` (if given) is written as the
     * saved state, and a new session manager restores the latest task from a freshly opened TaskStore.
     */
    async simulateReload(record?: TaskRecord, opts: { beforeReopen?: () => Promise<void> } = {}) {
      const { controller: ctl, store, memory } = await ready;
      const old = ctl.manager;
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
      await opts.beforeReopen?.(); // a fault test damages the stored state here, as a crash would
      const reopened = await TaskStore.open(tasksDir, { log: logTo, maxTasks: readSettings().historyMaxTasks });
      currentStore = reopened;
      const manager = newManager(reopened, memory);
      ctl.replaceManager(manager);
      const restored = await manager.restoreLatest();
      // As at activation: a restored task that waited for an approval asks again.
      const resumed = ctl.resumeIfPending();
      return { manager, restored, resumed };
    },
    audit,
    auditSink,
    reports,
    get recovery() {
      return recovery;
    },
    /** vscode.lm models (to tell whether the default provider could work here). */
    listVscodeLmModels,
    /** This workspace's storage folder (history/, journal/, commands/, leases/), for fault tests. */
    storageDir,
    /** MCP servers and project rules. */
    ecosystem,
    /** Background tasks in git worktrees. */
    parallel,
  };
  // Other extensions see only the activation time: handing them the approval centre would let them approve edits.
  const exposeInternals = context.extensionMode === vscode.ExtensionMode.Test || process.env.FORGE_TEST === '1';
  if (!exposeInternals) return { activationMs };
  return { diffApproval: toolkit.diffApproval, approvals: toolkit.approvals, statusBar, keys, activationMs, testApi };
}

export async function deactivate(): Promise<void> {
  // Waits for the background initialisation (a task restored meanwhile is flushed too).
  await shutdown?.();
  shutdown = undefined;
}

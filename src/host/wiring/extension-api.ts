// What activate() returns: only the activation time for other extensions; the internals too when the
// extension runs under test (integration tests, benchmarks).
import * as vscode from 'vscode';
import type { InMemoryOutputStore } from '../../core/context/output-store';
import type { TaskRecord, TaskStore } from '../../core/tasks/task-store';
import type { ForgePanelProvider } from '../../panel/provider';
import { listVscodeLmModels } from '../../providers/vscode-lm';
import type { SwitchableModel } from './model-factory';
import type { ParallelTasksUi } from '../ui/parallel-tasks-ui';
import type { Toolkit } from './toolkit';
import type { Ecosystem } from '../ecosystem';
import type { ReadinessGate } from '../ui/readiness-gate';
import type { ApiKeyStore } from '../api-key-store';
import type { ForgeStatusBar } from '../ui/status-bar';
import type { Attention } from '../ui/attention';
import type { Initialised } from './controller';
import type { NewSessionManager } from './sessions';
import type { WorkspaceStorage } from './storage';

interface ExtensionParts {
  context: vscode.ExtensionContext;
  activationMs: number;
  ready: Promise<Initialised>;
  modelReady: Promise<void>;
  panel: ForgePanelProvider;
  toolkit: Toolkit;
  model: SwitchableModel;
  refreshModel(): Promise<void>;
  outputs: InMemoryOutputStore;
  storage: WorkspaceStorage;
  newManager: NewSessionManager;
  gate: ReadinessGate<Initialised>;
  ecosystem: Ecosystem;
  parallel: ParallelTasksUi;
  statusBar: ForgeStatusBar;
  keys: ApiKeyStore;
  attention: Attention;
}

export function extensionApi(parts: ExtensionParts) {
  const { activationMs, toolkit } = parts;
  // Other extensions see only the activation time: handing them the approval centre would let them approve edits.
  const exposeInternals = parts.context.extensionMode === vscode.ExtensionMode.Test || process.env.FORGE_TEST === '1';
  if (!exposeInternals) return { activationMs };
  const testApi = createTestApi(parts);
  return {
    diffApproval: toolkit.diffApproval,
    approvals: toolkit.approvals,
    statusBar: parts.statusBar,
    keys: parts.keys,
    attention: parts.attention,
    activationMs,
    testApi,
  };
}

function createTestApi({
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
}: ExtensionParts) {
  let state: Initialised | undefined;
  ready.then(
    (s) => (state = s),
    () => undefined,
  );
  // Awaiting it rethrows an initialisation failure; nobody awaiting it is not an unhandled rejection.
  const readyForTests = ready.then(() => undefined);
  readyForTests.catch(() => undefined);
  let currentStore: TaskStore | undefined;
  const initialised = () => {
    if (!state) throw new Error('Forge is not initialised yet: await testApi.ready first');
    return state;
  };
  return {
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
      const reopened = await storage.openTaskStore();
      currentStore = reopened;
      const manager = newManager(reopened, memory);
      ctl.replaceManager(manager);
      const restored = await manager.restoreLatest();
      // As at activation: a restored task that waited for an approval asks again.
      const resumed = ctl.resumeIfPending();
      return { manager, restored, resumed };
    },
    audit: storage.audit,
    auditSink: storage.auditSink,
    reports: storage.reports,
    get recovery() {
      return gate.current?.recovery;
    },
    /** vscode.lm models (to tell whether the default provider could work here). */
    listVscodeLmModels,
    /** This workspace's storage folder (history/, journal/, commands/, leases/), for fault tests. */
    storageDir: storage.dir,
    /** MCP servers and project rules. */
    ecosystem,
    /** Background tasks in git worktrees. */
    parallel,
  };
}

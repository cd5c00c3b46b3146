// The background half of activation: once the task store, the edit journal and memory are open, Recovery and
// the Controller are made, attached to the panel, and the last task of this workspace is brought back.
import type { EditJournal } from '../../core/tasks/journal';
import type { TaskStore } from '../../core/tasks/task-store';
import type { ForgePanelProvider } from '../../panel/provider';
import type { AgentExtras } from './agent-extras';
import type { MemoryService } from './memory-service';
import { Controller, type ControllerDeps } from '../ui/controller';
import { journalFsOf, Recovery } from '../session/recovery';
import type { Ecosystem } from '../ecosystem';
import { readSettings } from '../settings';
import type { ReadinessGate } from '../ui/readiness-gate';
import type { NewSessionManager } from './sessions';
import type { WorkspaceStorage } from './storage';
import { errorText } from '../../core/error-text';

/** What activation's background disk work produces (task history, edit journal, memory, the Controller). */
export interface Initialised {
  controller: Controller;
  recovery: Recovery;
  store: TaskStore;
  journal: EditJournal;
  memory: MemoryService;
}

/** The Controller's own dependencies that exist before the disk work is done. */
type ReadyNow = Pick<
  ControllerDeps,
  'toolkit' | 'model' | 'models' | 'keys' | 'outputs' | 'statusBar' | 'log' | 'refreshModel'
>;

interface InitialiseDeps extends ReadyNow {
  storage: WorkspaceStorage;
  memory: Promise<MemoryService>;
  newManager: NewSessionManager;
  extras: AgentExtras;
  ecosystem: Ecosystem;
  panel: ForgePanelProvider;
  /** Gets the session as soon as it exists (the pieces made before it peek at gate.current). */
  gate: ReadinessGate<Initialised>;
}

export async function initialiseController(deps: InitialiseDeps): Promise<Initialised> {
  const { storage, newManager, ecosystem, panel, gate, log, toolkit } = deps;
  const [[store, journal], memory] = await Promise.all([storage.opened, deps.memory]);
  const recovery = new Recovery({
    manager: () => controller.manager,
    journal,
    audit: storage.audit,
    reports: storage.reports,
    journalFs: journalFsOf(toolkit.fs),
    auditFiles: () => storage.auditSink.files(),
    log,
    onFilesMoved: (taskId) => void controller.refreshChanges(taskId),
    answers: storage.durable.answers,
  });
  const controller: Controller = new Controller({
    recovery,
    manager: newManager(store, memory),
    toolkit,
    model: deps.model,
    models: deps.models,
    keys: deps.keys,
    memory,
    journal,
    outputs: deps.outputs,
    statusBar: deps.statusBar,
    log,
    refreshModel: deps.refreshModel,
    extras: deps.extras,
    beforeSend: (text) => ecosystem.mcp.withAttachments(text),
    customModes: () => ecosystem.team.team.agents,
    images: storage.images,
  });
  // A mode's or agent's own model: built with the user's keys, like forge.fallbackModel (never a workspace's key).
  ecosystem.team.useModels({
    build: (spec) => {
      const s = readSettings();
      return deps.models.resolveFallback({
        ...s,
        fallbackModel: spec,
        keylessEndpoints: { ...s.keylessEndpoints, fallbackModel: true },
      });
    },
    provider: () => readSettings().provider,
  });
  // /mode completes the team's agents too, and the list follows their files.
  deps.extras.slash.useModes(() => ecosystem.team.team.agents);
  ecosystem.team.onDidChange(() => deps.extras.refresh());
  const initialised: Initialised = { controller, recovery, store, journal, memory };
  gate.provide(initialised);
  controller.setPanel(panel);
  // Attaching resends the snapshot to webviews that are already ready, and so does the restore's switch.
  controller.manager.attach(panel);
  // Never lose the conversation: bring back the last task of this workspace.
  try {
    const restored = await controller.manager.restoreLatest();
    if (restored) log.info(`Restored task ${restored.id} (${restored.record().title})`);
  } catch (err) {
    log.error(`Could not restore the last task: ${errorText(err)}`);
  }
  return initialised;
}

// How a task's session manager is made: each task's Agent gets the shared model, tools and memory, the mode's
// context, the MCP tools and project rules; saved tasks are reconciled with the disk before they are restored.
import type { OutputStore } from '../../core/context/output-store';
import type { AgentDeps } from '../../core/loop/agent';
import type { AgentEvent } from '../../core/loop/events';
import type { ChatMessage } from '../../core/model/types';
import type { AgentSnapshot } from '../../core/tasks/snapshot';
import type { TaskStore } from '../../core/tasks/task-store';
import { createDelegatingAgent, type AgentExtras } from './agent-extras';
import { agentConfigFrom } from './agent-config';
import type { MemoryService } from './memory-service';
import type { SwitchableModel } from './model-factory';
import type { TaskSession } from '../session/task-session';
import { SessionManager } from '../session/session-manager';
import { markCompaction } from '../session/compaction-marks';
import type { Toolkit } from './toolkit';
import type { Ecosystem } from '../ecosystem';
import type { Logger } from '../logger';
import { readSettings } from '../settings';
import type { WorkspaceStorage } from './storage';
import { noun, plural } from '../../core/plural';

interface SessionWiringDeps {
  model: SwitchableModel;
  toolkit: Toolkit;
  extras: AgentExtras;
  ecosystem: Ecosystem;
  outputs: OutputStore;
  storage: WorkspaceStorage;
  log: Logger;
  /** Every task's events, for the Controller (status bar, logs) and Recovery (audit trail, checkpoints). */
  onEvent(session: TaskSession, e: AgentEvent): void;
}

export type NewSessionManager = (store: TaskStore, memory: MemoryService) => SessionManager;

export function sessionManagerFactory({
  model,
  toolkit,
  extras,
  ecosystem,
  outputs,
  storage,
  log,
  onEvent,
}: SessionWiringDeps): NewSessionManager {
  const { durable } = storage;
  return (store, memory) => {
    const makeAgent = (snapshot?: AgentSnapshot) => {
      const deps: AgentDeps = {
        model,
        tools: toolkit.tools,
        approver: toolkit.approvals,
        config: { ...agentConfigFrom(readSettings(), model), modeContext: extras.modeContext },
        memory,
        outputStore: outputs,
        log: (m) => log.debug(m),
      };
      return ecosystem.wire(deps, (d) => createDelegatingAgent(d, snapshot, ecosystem.rules));
    };
    return new SessionManager({
      store,
      makeAgent,
      log,
      leases: durable.leases,
      storage: durable.health,
      reconcile: async (record) => {
        const r = await storage.opened.then(([, journal]) => durable.reconciler(journal)(record));
        // The images a saved task holds by hash get their bytes back before its Agent is made.
        const missing = await storage.images.fill((r.record.snapshot as AgentSnapshot | undefined)?.history);
        if (missing)
          log.warn(
            `task ${record.id}: ${plural(missing, 'image')} ${noun(missing, 'is', 'are')} no longer in the task storage`,
          );
        return r;
      },
      onEvent: (session, e) => {
        // An image a tool returned (read_file) is kept by hash too: the saved task holds only the hash.
        if (e.type === 'tool_result') void keepToolImages(session.history, e.id, storage.images, log);
        markCompaction(session, e, durable.answers);
        onEvent(session, e);
      },
    });
  };
}

async function keepToolImages(
  history: readonly ChatMessage[],
  toolCallId: string,
  images: WorkspaceStorage['images'],
  log: Logger,
): Promise<void> {
  const m = [...history].reverse().find((x) => x.role === 'tool' && x.toolCallId === toolCallId);
  for (const img of (m?.role === 'tool' && m.images) || []) {
    if (img.data) await images.put({ ...img, data: img.data }).catch((err) => log.warn(`image not kept: ${err}`));
  }
}

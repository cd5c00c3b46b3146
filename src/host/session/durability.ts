// Wires the durability pieces for one workspace's storage folder: the command log, per-task leases, storage
// health, the edit ledger over the journal, and the restore-time reconciliation (docs/DESIGN-durability.md).
import * as path from 'node:path';
import { AnswerLog } from '../../core/tasks/answer-log';
import { CommandLog } from '../../core/tasks/command-log';
import type { TasksIO } from '../../core/tasks/io';
import type { EditJournal } from '../../core/tasks/journal';
import { TaskLeases } from '../../node/lease';
import { reconcileTask, type WorkspaceProbe } from '../../core/tasks/recovery';
import type { TaskRecord } from '../../core/tasks/task-store';
import type { Logger } from '../logger';
import { journalLedger, type EditIntentRecord, type EditLedger, type LedgerIntent } from '../../core/tasks/effects';
import { VscodeWorkspaceProbe } from './workspace-probe';
import { StorageHealth } from './storage-health';

interface DurabilityOptions {
  storageDir: string;
  /** The command log's disk access (src/node/tasks-io.ts). */
  io: TasksIO;
  log: Logger;
  /** Puts a message in the panel. */
  /** `resolved`: the storage works again (earlier storage notices are no longer true). */
  show(message: string, resolved?: boolean): void;
  /** A task this window held was taken over by another window. */
  onLeaseLost?(taskId: string): void;
  probe?: WorkspaceProbe;
}

export interface Durability {
  commands: CommandLog;
  /** The user's approval answers and reviews in progress, kept across a crash. */
  answers: AnswerLog;
  leases: TaskLeases;
  health: StorageHealth;
  ledger(journal: Promise<EditJournal>): EditLedger;
  reconciler(
    journal: EditJournal,
  ): (record: TaskRecord) => Promise<{ record: TaskRecord; notes: string[]; changed: boolean }>;
  dispose(): Promise<void>;
}

export function createDurability(opts: DurabilityOptions): Durability {
  const debug = (m: string) => opts.log.debug(m);
  const commands = new CommandLog(path.join(opts.storageDir, 'commands'), { io: opts.io, log: debug });
  const answers = new AnswerLog(path.join(opts.storageDir, 'answers'), opts.io, { log: debug });
  const leases = new TaskLeases(path.join(opts.storageDir, 'leases'), {
    log: debug,
    onLost: (id) => opts.onLeaseLost?.(id),
  });
  const health = new StorageHealth({ show: opts.show, log: opts.log, storageDir: opts.storageDir });
  const probe = opts.probe ?? new VscodeWorkspaceProbe();
  return {
    commands,
    answers,
    leases,
    health,
    ledger: (journalP) => journalLedger(journalP),
    reconciler: (journal) => (record) => reconcileTask(record, { journal, commands, answers, probe, log: debug }),
    dispose: () => leases.dispose(),
  };
}

/** The ledger, telling `onCommitted` about each edit once its outcome is recorded (audit trail, checkpoints). */
export function recordedLedger(inner: EditLedger, onCommitted: (entry: EditIntentRecord) => void): EditLedger {
  const recorded = (entry: EditIntentRecord, handle: LedgerIntent): LedgerIntent => ({
    commit: async () => {
      await handle.commit();
      onCommitted(entry);
    },
    abandon: (reason) => handle.abandon(reason),
  });
  return {
    begin: async (entry) => recorded(entry, await inner.begin(entry)),
    ...(inner.stage ? { stage: inner.stage.bind(inner) } : {}),
    ...(inner.propose ? { propose: inner.propose.bind(inner) } : {}),
    ...(inner.take
      ? { take: (entry: EditIntentRecord) => inner.take!(entry)?.then((handle) => recorded(entry, handle)) }
      : {}),
    ...(inner.withdraw ? { withdraw: inner.withdraw.bind(inner) } : {}),
  };
}

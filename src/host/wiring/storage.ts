// One workspace's storage, in global storage and never in the workspace: the task history, the edit journal,
// the durability pieces (command log, leases, storage health), the audit trail and the run reports.
import * as path from 'node:path';
import * as vscode from 'vscode';
import { AuditTrail } from '../../core/audit/audit-trail';
import { EditJournal } from '../../core/tasks/journal';
import { RunReportStore } from '../../core/tasks/run-reports';
import { TaskStore } from '../../core/tasks/task-store';
import { createDurability, type Durability } from '../session/durability';
import { workspaceKey } from '../session/session-manager';
import type { Logger } from '../logger';
import { AuditFileSink } from '../../node/audit-file-sink';
import { sweepStaleTemps } from '../../node/temp-sweep';
import { NodeTasksIO } from '../../node/tasks-io';
import { ImageStore } from '../../node/image-store';
import { readSettings } from '../settings';

export interface WorkspaceStorage {
  /** This workspace's folder (history/, journal/, commands/, leases/, audit/, worktrees/). */
  dir: string;
  /** The task store and the edit journal, opening in the background: activation does not wait for the disk. */
  opened: Promise<[TaskStore, EditJournal]>;
  /** Opens the task history again (tests simulate a reload with it). */
  openTaskStore(): Promise<TaskStore>;
  durable: Durability;
  audit: AuditTrail;
  auditSink: AuditFileSink;
  reports: RunReportStore;
  /** Images sent with messages or read by read_file, by hash (images/): task files keep only the hash. */
  images: ImageStore;
}

/** `show` puts a storage failure in front of the user (the panel). */
export function openWorkspaceStorage(
  context: vscode.ExtensionContext,
  log: Logger,
  show: (message: string) => void,
): WorkspaceStorage {
  // One folder per workspace, so the histories of different projects never mix.
  const folders = (vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.fsPath);
  const dir = path.join(context.globalStorageUri.fsPath, workspaceKey(folders));
  const logTo = (m: string) => log.debug(m);
  const io = new NodeTasksIO();
  const openTaskStore = () =>
    TaskStore.open(path.join(dir, 'history'), { io, log: logTo, maxTasks: readSettings().historyMaxTasks });
  const opened = Promise.all([openTaskStore(), EditJournal.open(dir, { io, log: logTo })]);
  // Intent before effect, reconcile on restore, loud storage failures, one owner per task (docs/DESIGN-durability.md).
  const durable = createDurability({ storageDir: dir, io, log, show });
  // The audit trail (every action, rotated JSON Lines) and the run reports.
  const auditSink = new AuditFileSink(path.join(dir, 'audit'));
  // A full disk delays audit lines, never drops them silently: they wait, and the panel says why.
  const audit = new AuditTrail(auditSink, {
    log: logTo,
    onWriteFailed: (err) => durable.health.failed('the audit log', err),
    onWriteRecovered: () => durable.health.succeeded('the audit log'),
  });
  // What an interrupted write left behind (a crash, a full disk) goes, once no live write can own it.
  void sweepStaleTemps(dir, { log: logTo });
  const reports = new RunReportStore(dir, { io, log: logTo });
  // An image stays while a task file (history/, its archive too) names it; the rest go a while after start and
  // after each deletion (TaskHistory).
  const images = new ImageStore(path.join(dir, 'images'), 16, {
    referencedIn: [path.join(dir, 'history')],
    log: logTo,
  });
  void opened.then(() => images.collectGarbageSoon(60_000)).catch(() => undefined);
  return { dir, opened, openTaskStore, durable, audit, auditSink, reports, images };
}

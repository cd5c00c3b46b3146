// Task history on disk, so tasks survive reloads and crashes.
// Layout under `dir`: tasks/<stem>.json (one record each, written atomically) and tasks-index.json (summaries
// only, so listing never parses snapshots). The task files are the truth; the index is a cache that is
// reconciled with them on open and rebuilt when missing or corrupt.
import * as path from 'node:path';
import { CoalescingWriter, isTempName, NodeTasksIO, safeFileStem, type TasksIO } from './io';

export interface TaskSummary {
  id: string;
  title: string;
  createdAt: number;
  updatedAt: number;
  mode: string;
  status: string;
  iterations?: number;
  costUsd?: number;
  /** Tokens the task spent (input + output). */
  tokens?: number;
}

export interface TaskRecord extends TaskSummary {
  snapshot: unknown /* AgentSnapshot */;
  transcript?: unknown /* panel transcript snapshot */;
}

export interface TaskStoreOptions {
  log?: (m: string) => void;
  /** Oldest (by updatedAt) are pruned beyond this. Default 200. */
  maxTasks?: number;
  /** Disk access; defaults to node:fs. */
  io?: TasksIO;
  /**
   * Tasks that left the store (pruned or removed), after their files were deleted: drop what else belongs to
   * them (their edit journal). Also called for tasks pruned while opening. Errors are logged.
   */
  onRemoved?: (ids: string[]) => void;
}

const INDEX_FILE = 'tasks-index.json';
const TASKS_DIR = 'tasks';
const FORMAT_VERSION = 1;
const INDEX_KEY = '\0index';

export class TaskStore {
  private readonly summaries = new Map<string, TaskSummary>();
  private readonly writer: CoalescingWriter<unknown>;
  private readonly removedListeners = new Set<(ids: string[]) => void>();
  /** Tasks removed while nobody listened (pruned while opening, typically): given to the next listener. */
  private unannounced: string[] = [];

  private constructor(
    private readonly dir: string,
    private readonly io: TasksIO,
    private readonly log: (m: string) => void,
    private readonly maxTasks: number,
    onRemoved?: (ids: string[]) => void,
  ) {
    if (onRemoved) this.removedListeners.add(onRemoved);
    this.writer = new CoalescingWriter((key, value) =>
      key === INDEX_KEY ? this.writeIndexNow() : this.io.writeAtomic(this.taskFile(key), JSON.stringify(value)),
    );
  }

  static async open(dir: string, opts: TaskStoreOptions = {}): Promise<TaskStore> {
    const store = new TaskStore(dir, opts.io ?? new NodeTasksIO(), opts.log ?? (() => undefined), Math.max(1, opts.maxTasks ?? 200), opts.onRemoved);
    await store.loadIndex();
    return store;
  }

  /**
   * Like the onRemoved option, for whoever gets the store after it was opened. A listener subscribing while
   * nobody listens also gets, asynchronously, the tasks removed meanwhile (e.g. pruned while opening).
   */
  onDidRemoveTasks(listener: (ids: string[]) => void): { dispose(): void } {
    this.removedListeners.add(listener);
    if (this.unannounced.length) {
      const ids = this.unannounced;
      this.unannounced = [];
      queueMicrotask(() => this.notify(listener, ids));
    }
    return { dispose: () => void this.removedListeners.delete(listener) };
  }

  /** Newest first. */
  async list(): Promise<TaskSummary[]> {
    return [...this.summaries.values()].sort((a, b) => b.updatedAt - a.updatedAt).map((s) => ({ ...s }));
  }

  /** The record, or undefined when it does not exist or is unreadable (logged). Never throws. */
  async load(id: string): Promise<TaskRecord | undefined> {
    const pending = this.writer.pending(id) as { task: TaskRecord } | undefined;
    if (pending) return structuredClone(pending.task);
    const file = this.taskFile(id);
    try {
      const text = await this.io.read(file);
      if (text === undefined) return undefined;
      const record = parseTaskFile(text);
      if (!record) throw new Error('not a task record');
      if (record.id !== id) throw new Error(`holds task ${record.id}, expected ${id}`);
      return record;
    } catch (err) {
      this.log(`[tasks] cannot read ${file}: ${errorText(err)}`);
      return undefined;
    }
  }

  /** Atomic per task; if saves of one task pile up, only the latest is written. */
  async save(record: TaskRecord): Promise<void> {
    if (typeof record?.id !== 'string' || record.id === '') throw new Error('TaskStore.save: record.id is required');
    this.summaries.set(record.id, summaryOf(record));
    const pruned = this.pruneVictims(record.id);
    const written = this.writer.submit(record.id, { version: FORMAT_VERSION, task: record });
    try {
      await Promise.all([written, this.deleteRemoved(pruned)]);
    } catch (err) {
      // The list must not advertise what never reached the disk: fall back to the record that did.
      if (this.writer.pending(record.id) === undefined && this.summaries.has(record.id)) {
        const onDisk = await this.load(record.id);
        if (onDisk) this.summaries.set(record.id, summaryOf(onDisk));
        else this.summaries.delete(record.id);
      }
      throw err;
    }
    await this.writer.submit(INDEX_KEY, null);
  }

  async remove(id: string): Promise<void> {
    await this.writer.cancel(id);
    this.summaries.delete(id);
    await this.deleteRemoved([id]);
    await this.writer.submit(INDEX_KEY, null);
  }

  /** Waits for every pending write (call on deactivate). */
  async flush(): Promise<void> {
    await this.writer.flush();
  }

  private taskFile(id: string): string {
    return path.join(this.dir, TASKS_DIR, `${safeFileStem(id)}.json`);
  }

  /** True when the file is gone. */
  private async deleteFile(id: string): Promise<boolean> {
    try {
      await this.io.remove(this.taskFile(id));
      return true;
    } catch (err) {
      this.log(`[tasks] cannot delete task ${id}: ${errorText(err)}`);
      return false;
    }
  }

  /** Deletes the tasks' files and announces those now gone (a file that stayed comes back on the next open). */
  private async deleteRemoved(ids: string[]): Promise<void> {
    if (!ids.length) return;
    const deleted = await Promise.all(ids.map((id) => this.deleteFile(id)));
    const gone = ids.filter((_, i) => deleted[i]);
    if (!gone.length) return;
    if (!this.removedListeners.size) {
      this.unannounced.push(...gone);
      return;
    }
    for (const listener of this.removedListeners) this.notify(listener, gone);
  }

  private notify(listener: (ids: string[]) => void, ids: string[]): void {
    try {
      listener([...ids]);
    } catch (err) {
      this.log(`[tasks] a removal listener failed: ${errorText(err)}`);
    }
  }

  private pruneVictims(keep: string): string[] {
    if (this.summaries.size <= this.maxTasks) return [];
    const oldestFirst = [...this.summaries.values()].sort((a, b) => a.updatedAt - b.updatedAt);
    const victims: string[] = [];
    for (const s of oldestFirst) {
      if (this.summaries.size - victims.length <= this.maxTasks) break;
      if (s.id === keep || this.writer.pending(s.id)) continue;
      victims.push(s.id);
    }
    for (const id of victims) this.summaries.delete(id);
    if (victims.length) this.log(`[tasks] pruned ${victims.length} old task(s) beyond ${this.maxTasks}`);
    return victims;
  }

  /** Temp files of writes a crash interrupted: never records, only litter. Nothing of ours is writing yet. */
  private async removeLeftoverTemps(taskNames: string[]): Promise<void> {
    const leftovers = [
      ...taskNames.filter(isTempName).map((n) => path.join(this.dir, TASKS_DIR, n)),
      ...(await this.io.list(this.dir)).filter((n) => n.startsWith(`.${INDEX_FILE}.`)).map((n) => path.join(this.dir, n)),
    ];
    for (const file of leftovers) await this.io.remove(file).catch(() => undefined);
    if (leftovers.length) this.log(`[tasks] removed ${leftovers.length} leftover temp file(s) of an interrupted write`);
  }

  private async writeIndexNow(): Promise<void> {
    const tasks = [...this.summaries.values()].sort((a, b) => b.updatedAt - a.updatedAt);
    await this.io.writeAtomic(path.join(this.dir, INDEX_FILE), JSON.stringify({ version: FORMAT_VERSION, tasks }));
  }

  /** Read the index and reconcile it with the task files (a crash can land between a task write and the index write). */
  private async loadIndex(): Promise<void> {
    const indexFile = path.join(this.dir, INDEX_FILE);
    let fromIndex: TaskSummary[] | undefined;
    try {
      const text = await this.io.read(indexFile);
      if (text !== undefined) {
        fromIndex = parseIndex(text);
        if (!fromIndex) this.log(`[tasks] ${indexFile} is corrupt; rebuilding from task files`);
      }
    } catch (err) {
      this.log(`[tasks] cannot read ${indexFile}: ${errorText(err)}; rebuilding from task files`);
    }

    const names = await this.io.list(path.join(this.dir, TASKS_DIR));
    await this.removeLeftoverTemps(names);
    const stems = new Set(
      names
        .filter((n) => !isTempName(n) && n.endsWith('.json'))
        .map((n) => n.slice(0, -'.json'.length)),
    );
    let changed = fromIndex === undefined;
    for (const s of fromIndex ?? []) {
      const stem = safeFileStem(s.id);
      if (stems.delete(stem)) this.summaries.set(s.id, s);
      else changed = true; // the file is gone
    }
    // Files the index does not know: written just before a crash, or the index was lost.
    for (const stem of stems) {
      const file = path.join(this.dir, TASKS_DIR, `${stem}.json`);
      try {
        const record = parseTaskFile((await this.io.read(file)) ?? '');
        if (!record || safeFileStem(record.id) !== stem) throw new Error('not a task record');
        this.summaries.set(record.id, summaryOf(record));
        changed = true;
      } catch (err) {
        this.log(`[tasks] skipping unreadable ${file}: ${errorText(err)}`);
      }
    }
    if (changed) {
      await this.deleteRemoved(this.pruneVictims(''));
      await this.writer.submit(INDEX_KEY, null).catch((err) => this.log(`[tasks] cannot write index: ${errorText(err)}`));
    }
  }
}

function summaryOf(r: TaskSummary): TaskSummary {
  const s: TaskSummary = {
    id: r.id,
    title: r.title,
    createdAt: r.createdAt,
    updatedAt: r.updatedAt,
    mode: r.mode,
    status: r.status,
  };
  if (r.iterations !== undefined) s.iterations = r.iterations;
  if (r.costUsd !== undefined) s.costUsd = r.costUsd;
  if (typeof r.tokens === 'number' && Number.isFinite(r.tokens) && r.tokens >= 0) s.tokens = r.tokens;
  return s;
}

function isSummary(v: unknown): v is TaskSummary {
  const s = v as Partial<TaskSummary> | null;
  return (
    !!s &&
    typeof s === 'object' &&
    typeof s.id === 'string' &&
    s.id !== '' &&
    typeof s.title === 'string' &&
    typeof s.createdAt === 'number' &&
    typeof s.updatedAt === 'number' &&
    typeof s.mode === 'string' &&
    typeof s.status === 'string' &&
    (s.iterations === undefined || typeof s.iterations === 'number') &&
    (s.costUsd === undefined || typeof s.costUsd === 'number')
  );
}

function parseTaskFile(text: string): TaskRecord | undefined {
  try {
    const doc = JSON.parse(text) as { version?: unknown; task?: unknown };
    if (doc?.version !== FORMAT_VERSION || !isSummary(doc.task) || !('snapshot' in doc.task)) return undefined;
    return doc.task as TaskRecord;
  } catch {
    return undefined;
  }
}

function parseIndex(text: string): TaskSummary[] | undefined {
  try {
    const doc = JSON.parse(text) as { version?: unknown; tasks?: unknown };
    if (doc?.version !== FORMAT_VERSION || !Array.isArray(doc.tasks) || !doc.tasks.every(isSummary)) return undefined;
    return doc.tasks.map(summaryOf);
  } catch {
    return undefined;
  }
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

// Task history on disk, so tasks survive reloads and crashes.
// Layout under `dir`: tasks/<stem>.json (one record each, written atomically) and tasks-index.json (summaries
// only, so listing never parses snapshots). The task files are the truth; the index is a cache that is
// reconciled with them on open and rebuilt when missing or corrupt.
// Damage is kept and explained (docs/DESIGN-durability.md): a task file that cannot be parsed is moved aside as
// tasks/<stem>.json.corrupt-<time>, what it still holds is salvaged into a fresh record, and a notice says so;
// the history never lists a task it cannot open. Old tasks beyond the limit are archived (archive/), not deleted.
import * as path from 'node:path';
import { CoalescingWriter, isTempName, safeFileStem, type TasksIO } from './io';
import { salvageTask } from './salvage';
import { FORMAT_VERSION, parseIndex, parseTaskFile, summaryOf, type TaskRecord, type TaskSummary } from './task-format';
import { errorText } from '../error-text';
import { plural } from '../plural';

export type { TaskRecord, TaskSummary } from './task-format';

interface TaskStoreOptions {
  log?: (m: string) => void;
  /** Oldest (by updatedAt) are archived beyond this (moved to archive/, never deleted). Default 1000. */
  maxTasks?: number;
  now?: () => number;
  /** Disk access: src/node/tasks-io.ts in the extension and the CLI. */
  io: TasksIO;
  /**
   * Tasks the user removed, after their files were deleted: drop what else belongs to them (their edit journal).
   * Archived tasks keep theirs. Errors are logged.
   */
  onRemoved?: (ids: string[]) => void;
}

/** Something the user should hear about the history: a damaged task kept aside, old tasks archived. */
export type StoreNotice =
  | {
      kind: 'damaged';
      id: string;
      title?: string;
      keptAt?: string;
      reason: string;
      recovered?: { messages: number; transcriptItems: number; rebuilt?: boolean };
    }
  | { kind: 'archived'; ids: string[]; titles: string[]; dir: string; limit: number };

type DamageNotice = Extract<StoreNotice, { kind: 'damaged' }>;

const INDEX_FILE = 'tasks-index.json';
const TASKS_DIR = 'tasks';
const ARCHIVE_DIR = 'archive';
const INDEX_KEY = '\0index';
const DEFAULT_MAX_TASKS = 1000;

export class TaskStore {
  private readonly summaries = new Map<string, TaskSummary>();
  private readonly writer: CoalescingWriter<unknown>;
  private readonly removedListeners = new Set<(ids: string[]) => void>();
  /** Tasks removed while nobody listened: given to the next listener. */
  private unannounced: string[] = [];
  /** Damaged files that could not be moved aside: a re-read (a failed save's fallback) does not announce them again. */
  private readonly damagedInPlace = new Set<string>();
  /** Size of each task's file as last written or checked (kept in the index to notice damage at open). */
  private readonly sizes = new Map<string, number>();
  private readonly noticeListeners = new Set<(n: StoreNotice) => void>();
  private unannouncedNotices: StoreNotice[] = [];
  private readonly now: () => number;

  private constructor(
    private readonly dir: string,
    private readonly io: TasksIO,
    private readonly log: (m: string) => void,
    private readonly maxTasks: number,
    onRemoved?: (ids: string[]) => void,
    now?: () => number,
  ) {
    this.now = now ?? Date.now;
    if (onRemoved) this.removedListeners.add(onRemoved);
    this.writer = new CoalescingWriter(async (key, value) => {
      if (key === INDEX_KEY) return this.writeIndexNow();
      const text = JSON.stringify(value);
      await this.io.writeAtomic(this.taskFile(key), text);
      this.sizes.set(key, Buffer.byteLength(text, 'utf8'));
    });
  }

  static async open(dir: string, opts: TaskStoreOptions): Promise<TaskStore> {
    const store = new TaskStore(
      dir,
      opts.io,
      opts.log ?? (() => undefined),
      Math.max(1, opts.maxTasks ?? DEFAULT_MAX_TASKS),
      opts.onRemoved,
      opts.now,
    );
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

  /** Damaged tasks kept aside and tasks archived; a listener subscribing late gets the notices of the open. */
  onNotice(listener: (n: StoreNotice) => void): { dispose(): void } {
    this.noticeListeners.add(listener);
    if (this.unannouncedNotices.length) {
      const notices = this.unannouncedNotices;
      this.unannouncedNotices = [];
      queueMicrotask(() => notices.forEach((n) => this.announce(n, listener)));
    }
    return { dispose: () => void this.noticeListeners.delete(listener) };
  }

  /** Newest first. */
  async list(): Promise<TaskSummary[]> {
    return [...this.summaries.values()].sort((a, b) => b.updatedAt - a.updatedAt).map((s) => ({ ...s }));
  }

  /** The record, or undefined when it does not exist or is unreadable (logged). Never throws. */
  async load(id: string): Promise<TaskRecord | undefined> {
    return (await this.open(id)).record;
  }

  /**
   * The record and, when its file was damaged, what happened: the file was moved aside and what it still held
   * was salvaged (record = the salvaged task, already saved) or nothing could be (record undefined, and the task
   * left the list). A file that cannot be read for another reason (permissions) stays where it is. Never throws.
   */
  async open(id: string): Promise<{ record?: TaskRecord; damage?: DamageNotice; error?: string }> {
    const pending = this.writer.pending(id) as { task: TaskRecord } | undefined;
    if (pending) return { record: structuredClone(pending.task) };
    const file = this.taskFile(id);
    let text: string | undefined;
    try {
      text = await this.io.read(file);
    } catch (err) {
      this.log(`[tasks] cannot read ${file}: ${errorText(err)}`);
      return { error: errorText(err) };
    }
    if (text === undefined) {
      // Listed but gone (deleted by hand, another window): the history must not keep offering it.
      if (this.summaries.delete(id)) await this.writer.submit(INDEX_KEY, null).catch(() => undefined);
      return {};
    }
    const record = parseTaskFile(text);
    if (record && record.id === id) return { record };
    const reason = record ? `it holds task ${record.id}` : 'the file is cut short or corrupted';
    this.log(`[tasks] cannot read ${file}: ${reason}`);
    const damage = await this.keepAside(id, text, reason);
    return { record: damage.record, damage: damage.notice };
  }

  /** Atomic per task; if saves of one task pile up, only the latest is written. */
  async save(record: TaskRecord): Promise<void> {
    if (typeof record?.id !== 'string' || record.id === '') throw new Error('TaskStore.save: record.id is required');
    this.summaries.set(record.id, summaryOf(record));
    const pruned = this.pruneVictims(record.id);
    const written = this.writer.submit(record.id, { version: FORMAT_VERSION, task: record });
    try {
      await Promise.all([written, this.archive(pruned)]);
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

  private pruneVictims(keep: string): TaskSummary[] {
    if (this.summaries.size <= this.maxTasks) return [];
    const oldestFirst = [...this.summaries.values()].sort((a, b) => a.updatedAt - b.updatedAt);
    const victims: TaskSummary[] = [];
    for (const s of oldestFirst) {
      if (this.summaries.size - victims.length <= this.maxTasks) break;
      if (s.id === keep || this.writer.pending(s.id)) continue;
      victims.push(s);
    }
    return victims;
  }

  /** Moves the tasks' files to archive/ (never deletes them) and says so. A file that cannot move stays listed. */
  private async archive(victims: TaskSummary[]): Promise<void> {
    if (!victims.length) return;
    const moved: TaskSummary[] = [];
    for (const s of victims) {
      try {
        if (!this.io.move) throw new Error('this storage cannot move files');
        await this.io.move(this.taskFile(s.id), path.join(this.dir, ARCHIVE_DIR, `${safeFileStem(s.id)}.json`));
        this.summaries.delete(s.id);
        this.sizes.delete(s.id);
        moved.push(s);
      } catch (err) {
        this.log(`[tasks] cannot archive task ${s.id}: ${errorText(err)}`);
      }
    }
    if (!moved.length) return;
    const dir = path.join(this.dir, ARCHIVE_DIR);
    this.log(`[tasks] archived ${plural(moved.length, 'old task')} beyond the limit of ${this.maxTasks} to ${dir}`);
    this.emitNotice({
      kind: 'archived',
      ids: moved.map((s) => s.id),
      titles: moved.map((s) => s.title),
      dir,
      limit: this.maxTasks,
    });
    await this.writer.submit(INDEX_KEY, null).catch(() => undefined);
  }

  /**
   * A damaged task file: moved aside (kept for the user), its intact part salvaged into a fresh record, the
   * history updated, and a notice emitted. Returns the salvaged record, if any.
   */
  private async keepAside(
    id: string,
    text: string,
    reason: string,
  ): Promise<{ record?: TaskRecord; notice: DamageNotice }> {
    const file = this.taskFile(id);
    const title = this.summaries.get(id)?.title;
    const keptAt = `${file}.corrupt-${new Date(this.now()).toISOString().replace(/[:.]/g, '-')}`;
    let kept: string | undefined;
    try {
      if (!this.io.move) throw new Error('this storage cannot move files');
      await this.io.move(file, keptAt);
      kept = keptAt;
    } catch (err) {
      this.log(`[tasks] cannot move the damaged ${file} aside: ${errorText(err)}`);
    }
    const salvaged = salvageTask(text, id, this.now());
    this.log(
      `[tasks] ${file} is damaged (${reason})${kept ? `; kept as ${kept}` : ''}; ${salvaged ? `recovered ${plural(salvaged.messages, 'message')}` : 'nothing recoverable'}`,
    );
    const notice: DamageNotice = {
      kind: 'damaged',
      id,
      reason,
      ...(title ? { title } : {}),
      ...(kept ? { keptAt: kept } : {}),
    };
    if (salvaged) {
      notice.recovered = {
        messages: salvaged.messages,
        transcriptItems: salvaged.transcriptItems,
        ...(salvaged.rebuilt ? { rebuilt: true } : {}),
      };
      if (title && salvaged.record.title === 'Recovered task') salvaged.record.title = title;
      this.summaries.set(id, summaryOf(salvaged.record));
      await this.writer
        .submit(id, { version: FORMAT_VERSION, task: salvaged.record })
        .catch((err) => this.log(`[tasks] cannot save the recovered task ${id}: ${errorText(err)}`));
    } else {
      this.summaries.delete(id);
    }
    await this.writer.submit(INDEX_KEY, null).catch(() => undefined);
    const again = !kept && this.damagedInPlace.has(id);
    if (kept) this.damagedInPlace.delete(id);
    else this.damagedInPlace.add(id);
    if (!again) this.emitNotice(notice);
    return { record: salvaged?.record, notice };
  }

  private emitNotice(n: StoreNotice): void {
    if (!this.noticeListeners.size) {
      this.unannouncedNotices.push(n);
      return;
    }
    for (const l of this.noticeListeners) this.announce(n, l);
  }

  private announce(n: StoreNotice, listener: (n: StoreNotice) => void): void {
    try {
      listener(n);
    } catch (err) {
      this.log(`[tasks] a notice listener failed: ${errorText(err)}`);
    }
  }

  /** Temp files of writes a crash interrupted: never records, only litter. Nothing of ours is writing yet. */
  private async removeLeftoverTemps(taskNames: string[]): Promise<void> {
    const leftovers = [
      ...taskNames.filter(isTempName).map((n) => path.join(this.dir, TASKS_DIR, n)),
      ...(await this.io.list(this.dir))
        .filter((n) => n.startsWith(`.${INDEX_FILE}.`))
        .map((n) => path.join(this.dir, n)),
    ];
    for (const file of leftovers) await this.io.remove(file).catch(() => undefined);
    if (leftovers.length)
      this.log(`[tasks] removed ${plural(leftovers.length, 'leftover temp file')} of an interrupted write`);
  }

  private async writeIndexNow(): Promise<void> {
    const tasks = [...this.summaries.values()]
      .sort((a, b) => b.updatedAt - a.updatedAt)
      .map((t) => (this.sizes.has(t.id) ? { ...t, size: this.sizes.get(t.id) } : t));
    await this.io.writeAtomic(path.join(this.dir, INDEX_FILE), JSON.stringify({ version: FORMAT_VERSION, tasks }));
  }

  /**
   * Read the index and reconcile it with the task files (a crash can land between a task write and the index
   * write). A file whose size differs from the one the index recorded is parsed now: a damaged one is kept aside
   * at once, so the history never lists a task it cannot open.
   */
  private async loadIndex(): Promise<void> {
    const indexFile = path.join(this.dir, INDEX_FILE);
    let fromIndex: ReturnType<typeof parseIndex>;
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
      names.filter((n) => !isTempName(n) && n.endsWith('.json')).map((n) => n.slice(0, -'.json'.length)),
    );
    let changed = fromIndex === undefined;
    for (const { summary: s, size } of fromIndex ?? []) {
      const stem = safeFileStem(s.id);
      if (!stems.delete(stem)) {
        changed = true; // the file is gone
        continue;
      }
      const actual = (await this.io.stat(this.taskFile(s.id)).catch(() => undefined))?.size;
      if (size !== undefined && actual !== undefined && actual !== size) {
        stems.add(stem); // changed behind our back: parse it below
        changed = true;
        continue;
      }
      this.summaries.set(s.id, s);
      if (actual !== undefined) this.sizes.set(s.id, actual);
      if (size === undefined) changed = true; // an older index: write the sizes back
    }
    // Files the index does not know (written just before a crash, or the index was lost) or that changed.
    for (const stem of stems) {
      const file = path.join(this.dir, TASKS_DIR, `${stem}.json`);
      let text: string | undefined;
      try {
        text = (await this.io.read(file)) ?? '';
      } catch (err) {
        this.log(`[tasks] skipping unreadable ${file}: ${errorText(err)}`);
        continue;
      }
      const record = parseTaskFile(text);
      changed = true;
      if (record && safeFileStem(record.id) === stem) {
        this.summaries.set(record.id, summaryOf(record));
        this.sizes.set(record.id, Buffer.byteLength(text, 'utf8'));
        continue;
      }
      const known = (fromIndex ?? []).find((e) => safeFileStem(e.summary.id) === stem)?.summary;
      if (known) this.summaries.set(known.id, known);
      const id = known?.id ?? salvagedId(text) ?? stem;
      if (safeFileStem(id) !== stem) {
        this.log(`[tasks] skipping unreadable ${file}: not a task record`);
        continue;
      }
      await this.keepAside(id, text, 'the file is cut short or corrupted');
    }
    if (changed) {
      await this.archive(this.pruneVictims(''));
      await this.writer
        .submit(INDEX_KEY, null)
        .catch((err) => this.log(`[tasks] cannot write index: ${errorText(err)}`));
    }
  }
}

/** The id a damaged task file names, if that much of it survived. */
function salvagedId(text: string): string | undefined {
  const m = /"task"\s*:\s*\{\s*"id"\s*:\s*("(?:[^"\\]|\\.)*")/.exec(text);
  try {
    return m ? (JSON.parse(m[1]) as string) : undefined;
  } catch {
    return undefined;
  }
}

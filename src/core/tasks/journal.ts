// The edit journal: a checkpoint of every accepted edit, so "Forge: Undo Task Changes" can restore what a
// task touched. Scales with the edits, not the workspace: only the before/after text of edited files is kept,
// as content-addressed blobs (each distinct content once), referenced from an append-only JSONL log per task.
// Layout under `dir`: journal/logs/<stem>.jsonl, journal/blobs/xx/<sha256>, journal/index.json (a cache).
// Retention: removeTask drops a task's log when the task leaves the history; collectGarbage then deletes the
// blobs no remaining log references.
import * as path from 'node:path';
import { BlobStore, type SweepResult } from './blob-store';
import { CoalescingWriter, isTempName, safeFileStem, type TasksIO } from './io';
import {
  addUndone,
  JOURNAL_VERSION as VERSION,
  parseIndex,
  parseLog,
  forgetUndone,
  movePaths,
  readIntents,
  redoPath,
  summarizeEdits,
  undoPath,
  type EditIntent,
  type EditLine,
  type EditSummary,
  type IndexEntry,
  type IntentLine,
  type LogLine,
  type OpenIntent,
  type TaskLog,
} from './journal-lines';
import { KeyedQueue } from './keyed-queue';
import { errorText } from '../error-text';
import { plural } from '../plural';

export type { EditIntent, EditSummary, OpenIntent } from './journal-lines';

export interface JournalEntry {
  taskId: string;
  seq: number;
  path: string;
  before: string | null /* null = file did not exist */;
  after: string | null;
  at: number;
  toolCallId?: string;
  /** Set when an undo has already reverted this edit. */
  undone?: boolean;
}

/** The workspace as the journal sees it during an undo (the host maps it onto vscode.workspace.fs). */
export interface JournalFs {
  read(path: string): Promise<string | null>;
  write(path: string, content: string): Promise<void>;
  remove(path: string): Promise<void>;
}

export interface UndoResult {
  restored: string[];
  deleted: string[];
  conflicts: { path: string; reason: string }[];
}

export interface EditJournalOptions {
  log?: (m: string) => void;
  /** Disk access: src/node/tasks-io.ts in the extension and the CLI. */
  io: TasksIO;
  now?: () => number;
  /** Blobs modified less than this long before a collection started are kept (writers in other windows). Default 10 min. */
  gcGraceMs?: number;
  /** Timer for collectGarbageSoon; returns a cancel function. Defaults to an unref'd setTimeout. */
  schedule?: (fn: () => void, ms: number) => () => void;
}

const INDEX_KEY = 'index';
const GC_GRACE_MS = 10 * 60_000;
const GC_DELAY_MS = 30_000;

export class EditJournal {
  private readonly logs = new Map<string, TaskLog>();
  private readonly index = new Map<string, IndexEntry>();
  private readonly queues = new KeyedQueue();
  private readonly blobs: BlobStore;
  private readonly indexWriter: CoalescingWriter<null>;
  /** Collections run one after another. */
  private gcChain: Promise<unknown> = Promise.resolve();
  private cancelGcTimer: (() => void) | undefined;
  private readonly disposed = new AbortController();

  private constructor(
    private readonly root: string,
    private readonly io: TasksIO,
    private readonly log: (m: string) => void,
    private readonly now: () => number,
    private readonly gcGraceMs: number,
    private readonly schedule: (fn: () => void, ms: number) => () => void,
  ) {
    this.blobs = new BlobStore(path.join(root, 'blobs'), io);
    this.indexWriter = new CoalescingWriter(() =>
      this.io.writeAtomic(
        this.indexFile(),
        JSON.stringify({ version: VERSION, tasks: Object.fromEntries(this.index) }),
      ),
    );
  }

  static async open(dir: string, opts: EditJournalOptions): Promise<EditJournal> {
    const journal = new EditJournal(
      path.join(dir, 'journal'),
      opts.io,
      opts.log ?? (() => undefined),
      opts.now ?? Date.now,
      opts.gcGraceMs ?? GC_GRACE_MS,
      opts.schedule ?? unrefTimer,
    );
    await journal.loadIndex();
    return journal;
  }

  /**
   * Appends one accepted edit. Contents go to blobs first, so a logged entry never points at a missing blob; they
   * stay pinned until the line is appended, so a concurrent collectGarbage cannot delete them in between.
   */
  record(entry: Omit<JournalEntry, 'seq' | 'at'>): Promise<JournalEntry> {
    return this.exclusive(entry.taskId, async () => {
      const log = await this.taskLog(entry.taskId);
      return this.blobs.putPinned([entry.before, entry.after], async ([before, after]) => {
        const line: EditLine = {
          k: 'edit',
          taskId: entry.taskId,
          seq: log.nextSeq,
          path: entry.path,
          before,
          after,
          at: this.now(),
        };
        if (entry.toolCallId !== undefined) line.toolCallId = entry.toolCallId;
        await this.append(log, line);
        log.edits.push(line);
        log.nextSeq++;
        this.touchIndex(entry.taskId, log);
        const out: JournalEntry = {
          taskId: line.taskId,
          seq: line.seq,
          path: line.path,
          before: entry.before,
          after: entry.after,
          at: line.at,
        };
        if (line.toolCallId !== undefined) out.toolCallId = line.toolCallId;
        return out;
      });
    });
  }

  /**
   * Intent, the first half of the durability rule (docs/DESIGN-durability.md): the edit's contents and an intent
   * line are durable BEFORE the file is touched. Rejects when they cannot be written: then the edit must not be
   * applied (Undo could not revert it). Settle with commitEdit (applied) or abandonEdit (not applied).
   */
  /**
   * Writes the texts' blobs ahead of beginEdit (while the user looks at the proposal), so the approved edit's intent
   * costs one append. Best effort and unreferenced until an intent names them: beginEdit writes whatever is missing.
   */
  async stageBlobs(texts: (string | null)[]): Promise<void> {
    await Promise.all(texts.map((t) => (t === null ? undefined : this.blobs.put(t).catch(() => undefined))));
  }

  /** `proposed`: recorded while the edit waits for approval (not approved yet; see EditLedger.propose). */
  beginEdit(entry: Omit<JournalEntry, 'seq' | 'at' | 'undone'> & { proposed?: boolean }): Promise<EditIntent> {
    return this.exclusive(entry.taskId, async () => {
      const log = await this.taskLog(entry.taskId);
      return this.blobs.putPinned([entry.before, entry.after], async ([before, after]) => {
        const line: IntentLine = {
          k: 'intent',
          taskId: entry.taskId,
          seq: log.nextSeq,
          path: entry.path,
          before,
          after,
          at: this.now(),
        };
        if (entry.toolCallId !== undefined) line.toolCallId = entry.toolCallId;
        if (entry.proposed) line.proposed = true;
        await this.append(log, line);
        (log.intents ??= new Map()).set(line.seq, line);
        log.nextSeq++;
        const intent: EditIntent = {
          taskId: entry.taskId,
          seq: line.seq,
          path: entry.path,
          before: entry.before,
          after: entry.after,
        };
        if (entry.toolCallId !== undefined) intent.toolCallId = entry.toolCallId;
        return intent;
      });
    });
  }

  /** Outcome: the intent's edit is on disk. Appends the edit line (same seq), so Undo sees it. */
  commitEdit(intent: Pick<EditIntent, 'taskId' | 'seq'>): Promise<JournalEntry | undefined> {
    return this.exclusive(intent.taskId, async () => {
      const log = await this.taskLog(intent.taskId);
      const open = log.intents?.get(intent.seq);
      if (!open) return undefined;
      const { proposed: _proposed, ...rest } = open;
      const line: EditLine = { ...rest, k: 'edit', at: this.now() };
      await this.append(log, line);
      log.intents!.delete(intent.seq);
      log.edits.push(line);
      this.touchIndex(intent.taskId, log);
      const before = line.before === null ? null : await this.blobs.get(line.before);
      const after = line.after === null ? null : await this.blobs.get(line.after);
      const out: JournalEntry = {
        taskId: line.taskId,
        seq: line.seq,
        path: line.path,
        before: before ?? null,
        after: after ?? null,
        at: line.at,
      };
      if (line.toolCallId !== undefined) out.toolCallId = line.toolCallId;
      return out;
    });
  }

  /** Outcome: the intent's edit did not happen (failed, refused, or found not applied after a crash). */
  abandonEdit(intent: Pick<EditIntent, 'taskId' | 'seq'>, reason?: string): Promise<void> {
    return this.exclusive(intent.taskId, async () => {
      const log = await this.taskLog(intent.taskId);
      if (!log.intents?.has(intent.seq)) return;
      await this.append(log, {
        k: 'void',
        taskId: intent.taskId,
        seqs: [intent.seq],
        at: this.now(),
        ...(reason ? { reason } : {}),
      });
      log.intents.delete(intent.seq);
    });
  }

  /**
   * The proposed intent was approved: its line is appended again without the mark (same seq), so a restore settles
   * it like any edit (an unsaved buffer holding it is saved, say). A no-op for an intent that is not open or not
   * proposed.
   */
  confirmProposed(intent: Pick<EditIntent, 'taskId' | 'seq'>): Promise<void> {
    return this.exclusive(intent.taskId, async () => {
      const log = await this.taskLog(intent.taskId);
      const open = log.intents?.get(intent.seq);
      if (!open?.proposed) return;
      const { proposed: _proposed, ...line } = open;
      await this.append(log, line);
      log.intents!.set(intent.seq, line);
    });
  }

  /** Whether the intent still has no outcome (as far as this journal knows: no I/O). */
  isOpen(intent: Pick<EditIntent, 'taskId' | 'seq'>): boolean {
    return !!this.logs.get(intent.taskId)?.intents?.has(intent.seq);
  }

  /** Intents of the task that have no outcome: edits a crash cut off, to reconcile with the disk. */
  openIntents(taskId: string): Promise<OpenIntent[]> {
    return this.exclusive(taskId, async () => {
      return readIntents(await this.taskLog(taskId), this.blobs, taskId);
    });
  }

  /** Per file: the live edits, and those whose contents are missing from the journal (Undo reports them). */
  async editSummary(taskId: string): Promise<EditSummary> {
    return summarizeEdits(await this.exclusive(taskId, () => this.taskLog(taskId)), this.blobs);
  }

  /**
   * Forgets a task (it left the task history): deletes its log and index entry. Its blobs go with the next
   * collectGarbage, unless another task's log references them. Resolves true when there was something to delete.
   */
  removeTask(taskId: string): Promise<boolean> {
    return this.exclusive(taskId, async () => {
      const stem = this.index.get(taskId)?.stem ?? this.logs.get(taskId)?.stem ?? safeFileStem(taskId);
      const file = this.logFile(stem);
      const existed = this.index.has(taskId) || this.logs.has(taskId) || (await this.io.stat(file)) !== undefined;
      await this.io.remove(file);
      this.logs.delete(taskId);
      if (this.index.delete(taskId)) {
        await this.indexWriter
          .submit(INDEX_KEY, null)
          .catch((err) => this.log(`[journal] cannot write index: ${errorText(err)}`));
      }
      return existed;
    });
  }

  /**
   * Mark-and-sweep: deletes the blobs no log on disk references. Safe while edits are recorded (their blobs are
   * pinned from before they are written until their line is appended) and never deletes a blob modified after
   * the collection started (or within gcGraceMs before it). Collections run one at a time.
   */
  collectGarbage(signal?: AbortSignal): Promise<SweepResult> {
    const run = this.gcChain
      .catch(() => undefined)
      .then(() => this.blobs.sweep(() => this.referencedBlobs(signal), this.now() - this.gcGraceMs, signal));
    this.gcChain = run;
    return run;
  }

  /** Debounced background collection (activation, after removals): runs once `delayMs` after the last call; logs its outcome. */
  collectGarbageSoon(delayMs = GC_DELAY_MS): void {
    if (this.disposed.signal.aborted) return;
    this.cancelGcTimer?.();
    this.cancelGcTimer = this.schedule(() => {
      this.cancelGcTimer = undefined;
      this.collectGarbage(this.disposed.signal).then(
        (r) => {
          if (r.removedBlobs)
            this.log(
              `[journal] collected ${plural(r.removedBlobs, 'unreferenced blob')}, ${Math.round(r.freedBytes / 1024)} KiB`,
            );
        },
        (err) => {
          if (!this.disposed.signal.aborted) this.log(`[journal] garbage collection failed: ${errorText(err)}`);
        },
      );
    }, delayMs);
  }

  /** Cancels a scheduled collection and stops a running one (it stops between blobs; what it deleted stays deleted). */
  dispose(): void {
    this.cancelGcTimer?.();
    this.cancelGcTimer = undefined;
    this.disposed.abort();
  }

  /** Every edit of the task in order, undone ones flagged. An edit whose content was lost is left out (logged). */
  async entries(taskId: string): Promise<JournalEntry[]> {
    const log = await this.exclusive(taskId, () => this.taskLog(taskId));
    const out: JournalEntry[] = [];
    for (const e of log.edits) {
      const before = e.before === null ? null : await this.blobs.get(e.before);
      const after = e.after === null ? null : await this.blobs.get(e.after);
      if (before === undefined || after === undefined) {
        this.log(`[journal] content of edit ${taskId}#${e.seq} (${e.path}) is missing`);
        continue;
      }
      const entry: JournalEntry = { taskId, seq: e.seq, path: e.path, before, after, at: e.at };
      if (e.toolCallId !== undefined) entry.toolCallId = e.toolCallId;
      if (log.undone.has(e.seq)) entry.undone = true;
      out.push(entry);
    }
    return out;
  }

  /** Tasks with edits that can still be undone, most recently edited first. */
  async tasksWithEdits(): Promise<string[]> {
    return [...this.index.entries()]
      .filter(([, e]) => e.live > 0)
      .sort((a, b) => b[1].lastAt - a[1].lastAt)
      .map(([id]) => id);
  }

  /**
   * Reverts the task's edits (those after `toSeq` when given), newest first. A file is restored only when its
   * current content is what the task last wrote; otherwise the user changed it since, so it is reported as a
   * conflict and left alone (unless `force`). Each path goes back to its earliest `before` (null -> deleted).
   * Reverted edits are marked undone in the log, so a second undo does nothing.
   */
  undoTask(
    taskId: string,
    fs: JournalFs,
    opts: { force?: boolean; toSeq?: number; /** only these files */ paths?: readonly string[] } = {},
  ): Promise<UndoResult> {
    return this.exclusive(taskId, async () => {
      const result: UndoResult = { restored: [], deleted: [], conflicts: [] };
      if (!this.index.has(taskId) && !this.logs.has(taskId)) return result;
      const log = await this.taskLog(taskId);
      const from = opts.toSeq ?? 0;
      // Group live edits per path, newest path first; within a group, edits stay in seq order.
      const groups = new Map<string, EditLine[]>();
      for (const e of [...log.edits].reverse()) {
        if (e.seq <= from || log.undone.has(e.seq) || (opts.paths && !opts.paths.includes(e.path))) continue;
        const g = groups.get(e.path);
        if (g) g.unshift(e);
        else groups.set(e.path, [e]);
      }
      // One undo line per file as soon as it moved, all of one batch (one redo puts them back together): a crash
      // in the middle leaves the journal saying exactly which files went back.
      const batch = `${this.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
      await movePaths(
        groups,
        (file, edits) => undoPath(this.blobs, file, edits, fs, !!opts.force),
        result,
        async (seqs) => {
          const sorted = [...seqs].sort((a, b) => a - b);
          await this.append(log, { k: 'undo', taskId, seqs: sorted, at: this.now(), batch });
          addUndone(log, sorted, batch);
          this.touchIndex(taskId, log);
        },
      );
      return result;
    });
  }

  /** Whether the task's last undo (or restore) can be redone: some of its edits are still undone. */
  async canRedo(taskId: string): Promise<boolean> {
    if (!this.index.has(taskId) && !this.logs.has(taskId)) return false;
    const log = await this.exclusive(taskId, () => this.taskLog(taskId));
    return (log.undoBatches?.length ?? 0) > 0;
  }

  /**
   * Puts the edits of the task's last undo (or checkpoint restore) back, file by file, oldest edit first. A file the
   * user changed since the undo is a conflict and stays as it is (unless `force`; `paths` limits the redo to those
   * files). `restored` lists the files that got the task's content again, `deleted` the ones the task had deleted.
   */
  redoLastUndo(
    taskId: string,
    fs: JournalFs,
    opts: { force?: boolean; paths?: readonly string[] } = {},
  ): Promise<UndoResult> {
    return this.exclusive(taskId, async () => {
      const result: UndoResult = { restored: [], deleted: [], conflicts: [] };
      if (!this.index.has(taskId) && !this.logs.has(taskId)) return result;
      const log = await this.taskLog(taskId);
      const batch = new Set(log.undoBatches?.at(-1) ?? []);
      const groups = new Map<string, EditLine[]>();
      for (const e of log.edits) {
        if (!batch.has(e.seq) || (opts.paths && !opts.paths.includes(e.path))) continue;
        groups.set(e.path, [...(groups.get(e.path) ?? []), e]);
      }
      const redone = await movePaths(
        groups,
        (file, edits) => redoPath(this.blobs, file, edits, fs, !!opts.force),
        result,
      );
      if (redone.length) {
        redone.sort((a, b) => a - b);
        await this.append(log, { k: 'redo', taskId, seqs: redone, at: this.now() });
        forgetUndone(log, redone);
        this.touchIndex(taskId, log);
      }
      return result;
    });
  }

  /** Waits for pending index writes. */
  async flush(): Promise<void> {
    await this.queues.settled();
    await this.indexWriter.flush();
  }

  /**
   * Every blob hash any log file mentions. Deliberately loose (any 64-hex run, torn lines included): keeping an
   * extra blob is harmless, losing a referenced one is not. A read error aborts the collection.
   */
  private async referencedBlobs(signal?: AbortSignal): Promise<Set<string>> {
    const live = new Set<string>();
    const dir = path.join(this.root, 'logs');
    for (const name of await this.io.list(dir)) {
      signal?.throwIfAborted();
      const text = await this.io.read(path.join(dir, name));
      for (const m of text?.matchAll(/[0-9a-f]{64}/g) ?? []) live.add(m[0]);
    }
    return live;
  }

  /** One writer per task log: appends must not interleave, and seqs must not repeat. */
  private exclusive<T>(taskId: string, fn: () => Promise<T>): Promise<T> {
    return this.queues.run(taskId, fn);
  }

  private async append(log: TaskLog, line: LogLine): Promise<void> {
    const text = `${log.needsNewline ? '\n' : ''}${JSON.stringify(line)}\n`;
    try {
      await this.io.append(this.logFile(log.stem), text);
    } catch (err) {
      log.needsNewline = true; // a torn append (full disk) may have left part of the line: start the next one fresh
      throw err;
    }
    log.needsNewline = false;
    log.size += Buffer.byteLength(text, 'utf8');
  }

  private touchIndex(taskId: string, log: TaskLog): void {
    const live = log.edits.filter((e) => !log.undone.has(e.seq)).length;
    const lastAt = log.edits.length ? log.edits[log.edits.length - 1].at : 0;
    this.index.set(taskId, { stem: log.stem, live, lastAt, size: log.size });
    this.indexWriter
      .submit(INDEX_KEY, null)
      .catch((err) => this.log(`[journal] cannot write index: ${errorText(err)}`));
  }

  private async taskLog(taskId: string): Promise<TaskLog> {
    let log = this.logs.get(taskId);
    if (!log) {
      const stem = safeFileStem(taskId);
      log = (await this.readLog(stem, taskId)) ?? {
        stem,
        edits: [],
        undone: new Set(),
        nextSeq: 1,
        size: 0,
        needsNewline: false,
      };
      this.logs.set(taskId, log);
    }
    return log;
  }

  /** Parses a log; unparseable lines (a torn last line after a crash) are skipped. undefined = no file. */
  private async readLog(stem: string, expectedTaskId?: string): Promise<(TaskLog & { taskId?: string }) | undefined> {
    const file = this.logFile(stem);
    const text = await this.io.read(file);
    if (text === undefined) return undefined;
    const { log, bad } = parseLog(text, stem, expectedTaskId);
    if (bad) this.log(`[journal] skipped ${plural(bad, 'unreadable line')} in ${file}`);
    return log;
  }

  /** Loads the index and reconciles it with the logs on disk (a crash can land between an append and the index write). */
  private async loadIndex(): Promise<void> {
    let stored: Record<string, IndexEntry> | undefined;
    try {
      const text = await this.io.read(this.indexFile());
      if (text !== undefined) {
        stored = parseIndex(text);
        if (!stored) this.log('[journal] index is corrupt; rebuilding from the logs');
      }
    } catch (err) {
      this.log(`[journal] cannot read index: ${errorText(err)}; rebuilding from the logs`);
    }
    const stems = new Set(
      (await this.io.list(path.join(this.root, 'logs')))
        .filter((n) => !isTempName(n) && n.endsWith('.jsonl'))
        .map((n) => n.slice(0, -6)),
    );
    let changed = stored === undefined;
    for (const [taskId, entry] of Object.entries(stored ?? {})) {
      if (!stems.delete(entry.stem)) {
        changed = true;
        continue;
      }
      const stat = await this.io.stat(this.logFile(entry.stem));
      if (stat?.size === entry.size) {
        this.index.set(taskId, entry);
        continue;
      }
      stems.add(entry.stem); // stale: re-read below
    }
    for (const stem of stems) {
      const log = await this.readLog(stem);
      if (!log?.taskId || safeFileStem(log.taskId) !== stem) {
        this.log(`[journal] skipping unreadable log ${this.logFile(stem)}`);
        continue;
      }
      this.logs.set(log.taskId, log);
      this.touchIndex(log.taskId, log);
      changed = true;
    }
    if (changed)
      await this.indexWriter
        .submit(INDEX_KEY, null)
        .catch((err) => this.log(`[journal] cannot write index: ${errorText(err)}`));
  }

  private indexFile(): string {
    return path.join(this.root, 'index.json');
  }

  private logFile(stem: string): string {
    return path.join(this.root, 'logs', `${stem}.jsonl`);
  }
}

function unrefTimer(fn: () => void, ms: number): () => void {
  const timer = setTimeout(fn, ms);
  timer.unref?.();
  return () => clearTimeout(timer);
}

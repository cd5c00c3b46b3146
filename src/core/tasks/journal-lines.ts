// The edit journal's log format: one JSON object per line (see docs/DESIGN-durability.md for the intent/outcome
// rule), and the pure reads over a folded log (intents, summaries, undo of one file).
//   edit    an applied edit (the outcome of an intent with the same seq, or a plain record)
//   undo    edits an undo reverted (one line per file; lines of one `batch` are one undo, redone together)
//   redo    edits of the last undo put back (the undo undone)
//   intent  an edit about to be applied: written BEFORE the file is touched, so a crash in between is visible
//   void    intents that did not happen (failed, refused, or found not applied when reconciling after a crash)
import type { BlobStore } from './blob-store';
import { errorText } from '../error-text';

export type EditLine = {
  k: 'edit';
  taskId: string;
  seq: number;
  path: string;
  before: string | null;
  after: string | null;
  at: number;
  toolCallId?: string;
};
type UndoLine = { k: 'undo'; taskId: string; seqs: number[]; at: number; batch?: string };
type RedoLine = { k: 'redo'; taskId: string; seqs: number[]; at: number };
export type IntentLine = {
  k: 'intent';
  taskId: string;
  seq: number;
  path: string;
  before: string | null;
  after: string | null;
  at: number;
  toolCallId?: string;
  proposed?: true;
};
type VoidLine = { k: 'void'; taskId: string; seqs: number[]; at: number; reason?: string };
export type LogLine = EditLine | UndoLine | RedoLine | IntentLine | VoidLine;

/** An edit recorded as about to happen (beginEdit); settle it with commitEdit or abandonEdit. */
export interface EditIntent {
  taskId: string;
  seq: number;
  path: string;
  before: string | null;
  after: string | null;
  toolCallId?: string;
}

/** An intent that has no outcome in the log: what a crash cut off. `before`/`after` undefined = content missing. */
export interface OpenIntent {
  taskId: string;
  seq: number;
  path: string;
  before: string | null | undefined;
  after: string | null | undefined;
  at: number;
  toolCallId?: string;
  /** Recorded while the edit waited for approval: it may never have been approved. */
  proposed?: true;
}

/** What Undo would touch, per file, and the files whose journal contents are gone (they cannot be restored). */
export interface EditSummary {
  live: { path: string; seq: number }[];
  missing: { path: string; seqs: number[] }[];
}

export interface TaskLog {
  stem: string;
  edits: EditLine[];
  undone: Set<number>;
  nextSeq: number;
  size: number;
  /** The log ends in a partial line (crash mid-append): the next append must start on a fresh line. */
  needsNewline: boolean;
  /** Intents with no outcome yet (an edit about to be applied, or cut off by a crash), by seq. */
  intents?: Map<number, IntentLine>;
  /** Each undo's edits that are still undone, oldest undo first: a redo puts back the last one. */
  undoBatches?: number[][];
  /** The `batch` of the last undo line: the next line of that batch joins its undo. */
  lastBatch?: string;
}

export interface IndexEntry {
  stem: string;
  live: number;
  lastAt: number;
  size: number;
}

export const JOURNAL_VERSION = 1;

function parseLine(raw: string): LogLine | undefined {
  try {
    const v = JSON.parse(raw) as { [K in keyof EditLine | keyof UndoLine | keyof VoidLine]?: unknown } | null;
    if (!v || typeof v !== 'object' || typeof v.taskId !== 'string' || typeof v.at !== 'number') return undefined;
    const isHash = (h: unknown) => h === null || (typeof h === 'string' && /^[0-9a-f]{64}$/.test(h));
    if (v.k === 'edit' && Number.isInteger(v.seq) && typeof v.path === 'string' && isHash(v.before) && isHash(v.after))
      return v as EditLine;
    if (
      v.k === 'intent' &&
      Number.isInteger(v.seq) &&
      typeof v.path === 'string' &&
      isHash(v.before) &&
      isHash(v.after)
    )
      return v as IntentLine;
    if (
      (v.k === 'undo' || v.k === 'redo' || v.k === 'void') &&
      Array.isArray(v.seqs) &&
      v.seqs.every((s: unknown) => Number.isInteger(s))
    )
      return v as UndoLine | RedoLine | VoidLine;
    return undefined;
  } catch {
    return undefined;
  }
}

export function parseIndex(text: string): Record<string, IndexEntry> | undefined {
  try {
    const doc = JSON.parse(text) as { version?: unknown; tasks?: Record<string, Partial<IndexEntry>> };
    if (doc?.version !== JOURNAL_VERSION || !doc.tasks || typeof doc.tasks !== 'object') return undefined;
    for (const e of Object.values(doc.tasks)) {
      if (
        typeof e?.stem !== 'string' ||
        typeof e.live !== 'number' ||
        typeof e.lastAt !== 'number' ||
        typeof e.size !== 'number'
      )
        return undefined;
    }
    return doc.tasks as Record<string, IndexEntry>;
  } catch {
    return undefined;
  }
}

/** Folds a log's text; unparseable lines (a torn last line after a crash) are counted and skipped. */
export function parseLog(
  text: string,
  stem: string,
  expectedTaskId?: string,
): { log: TaskLog & { taskId?: string }; bad: number } {
  const log: TaskLog & { taskId?: string } = {
    stem,
    edits: [],
    undone: new Set(),
    nextSeq: 1,
    size: Buffer.byteLength(text, 'utf8'),
    needsNewline: text.length > 0 && !text.endsWith('\n'),
  };
  let bad = 0;
  for (const raw of text.split('\n')) {
    if (!raw.trim()) continue;
    const line = parseLine(raw);
    if (
      !line ||
      (expectedTaskId !== undefined && line.taskId !== expectedTaskId) ||
      (log.taskId !== undefined && line.taskId !== log.taskId)
    ) {
      bad++;
      continue;
    }
    log.taskId = line.taskId;
    if (line.k === 'edit') {
      log.edits.push(line);
      log.nextSeq = Math.max(log.nextSeq, line.seq + 1);
      log.intents?.delete(line.seq);
    } else if (line.k === 'intent') {
      (log.intents ??= new Map()).set(line.seq, line);
      log.nextSeq = Math.max(log.nextSeq, line.seq + 1);
    } else if (line.k === 'void') {
      line.seqs.forEach((s) => log.intents?.delete(s));
    } else if (line.k === 'redo') {
      forgetUndone(log, line.seqs);
    } else {
      addUndone(log, line.seqs, typeof line.batch === 'string' ? line.batch : undefined);
    }
  }
  return { log, bad };
}

/** Edits an undo line reverted: a line of the last undo's batch joins it, any other starts a new undo. */
export function addUndone(log: TaskLog, seqs: readonly number[], batch?: string): void {
  seqs.forEach((s) => log.undone.add(s));
  const batches = (log.undoBatches ??= []);
  if (batch !== undefined && batch === log.lastBatch && batches.length) batches[batches.length - 1]!.push(...seqs);
  else batches.push([...seqs]);
  log.lastBatch = batch;
}

/** Edits put back by a redo: no longer undone, and out of the undo batches that held them. */
export function forgetUndone(log: TaskLog, seqs: readonly number[]): void {
  const gone = new Set(seqs);
  gone.forEach((s) => log.undone.delete(s));
  log.undoBatches = (log.undoBatches ?? []).map((b) => b.filter((s) => !gone.has(s))).filter((b) => b.length > 0);
}

/** The workspace as an undo sees it (same shape as journal.ts's JournalFs). */
interface UndoFs {
  read(path: string): Promise<string | null>;
  write(path: string, content: string): Promise<void>;
  remove(path: string): Promise<void>;
}

type PathOutcome = 'restored' | 'deleted' | { conflict: string };

const TASK_CONTENT_MISSING = 'the content the task wrote is missing from the journal';
const CHECKPOINT_CONTENT_MISSING = 'the checkpoint content is missing from the journal';

/** Reverts one file's edits (seq order) to the first edit's `before`, unless the user changed it since (conflict). */
export function undoPath(
  blobs: BlobStore,
  file: string,
  edits: EditLine[],
  fs: UndoFs,
  force: boolean,
): Promise<PathOutcome> {
  return movePath(blobs, file, fs, force, {
    from: edits[edits.length - 1]!.after,
    to: edits[0]!.before,
    fromMissing: TASK_CONTENT_MISSING,
    toMissing: CHECKPOINT_CONTENT_MISSING,
    since: 'since the task edited it',
    failed: 'restore failed',
  });
}

/**
 * Puts one file's undone edits back: the file must still be what the undo left (the first edit's `before`), else the
 * user changed it since and it is a conflict (unless `force`). It gets the last edit's `after` (null -> deleted).
 */
export function redoPath(
  blobs: BlobStore,
  file: string,
  edits: EditLine[],
  fs: UndoFs,
  force: boolean,
): Promise<PathOutcome> {
  return movePath(blobs, file, fs, force, {
    from: edits[0]!.before,
    to: edits[edits.length - 1]!.after,
    fromMissing: CHECKPOINT_CONTENT_MISSING,
    toMissing: TASK_CONTENT_MISSING,
    since: 'since it was restored',
    failed: 'redo failed',
  });
}

/**
 * Moves a file from the content `from` (blob hash; null = no file) to `to`. A file that is neither (the user changed
 * it) is a conflict unless `force`; one already at `to` counts as done.
 */
async function movePath(
  blobs: BlobStore,
  file: string,
  fs: UndoFs,
  force: boolean,
  m: { from: string | null; to: string | null; fromMissing: string; toMissing: string; since: string; failed: string },
): Promise<PathOutcome> {
  const target = m.to === null ? null : await blobs.get(m.to);
  if (target === undefined) return { conflict: m.toMissing };
  let current: string | null;
  try {
    current = await fs.read(file);
  } catch (err) {
    return { conflict: `cannot read the file: ${errorText(err)}` };
  }
  const targetKind = target === null ? 'deleted' : 'restored';
  if (current === target) return targetKind; // already there (e.g. the user reverted it)
  if (!force) {
    const expected = m.from === null ? null : await blobs.get(m.from);
    if (expected === undefined) return { conflict: m.fromMissing };
    if (current !== expected) return { conflict: `${current === null ? 'deleted' : 'modified'} ${m.since}` };
  }
  try {
    if (target === null) await fs.remove(file);
    else await fs.write(file, target);
  } catch (err) {
    return { conflict: `${m.failed}: ${errorText(err)}` };
  }
  return targetKind;
}

/** Moves each file (undo or redo), filling `result`; the seqs of the files that moved. */
export async function movePaths(
  groups: Map<string, EditLine[]>,
  move: (file: string, edits: EditLine[]) => Promise<PathOutcome>,
  result: { restored: string[]; deleted: string[]; conflicts: { path: string; reason: string }[] },
  /** Called with each file's seqs as soon as it moved (the undo records it then; a failure stops the rest). */
  onMoved?: (seqs: number[]) => Promise<void>,
): Promise<number[]> {
  const moved: number[] = [];
  for (const [file, edits] of groups) {
    const outcome = await move(file, edits);
    if (outcome === 'restored') result.restored.push(file);
    else if (outcome === 'deleted') result.deleted.push(file);
    else {
      result.conflicts.push({ path: file, reason: outcome.conflict });
      continue;
    }
    const seqs = edits.map((e) => e.seq);
    await onMoved?.(seqs);
    moved.push(...seqs);
  }
  return moved;
}

/** The log's intents without an outcome, with their contents (undefined = missing from the blobs). */
export async function readIntents(log: TaskLog, blobs: BlobStore, taskId: string): Promise<OpenIntent[]> {
  const out: OpenIntent[] = [];
  for (const line of log.intents?.values() ?? []) {
    const before = line.before === null ? null : await blobs.get(line.before);
    const after = line.after === null ? null : await blobs.get(line.after);
    const open: OpenIntent = { taskId, seq: line.seq, path: line.path, before, after, at: line.at };
    if (line.toolCallId !== undefined) open.toolCallId = line.toolCallId;
    if (line.proposed === true) open.proposed = true;
    out.push(open);
  }
  return out.sort((a, b) => a.seq - b.seq);
}

/** Live edits per file, and the files whose journal contents are gone. */
export async function summarizeEdits(log: TaskLog, blobs: BlobStore): Promise<EditSummary> {
  const summary: EditSummary = { live: [], missing: [] };
  const missing = new Map<string, number[]>();
  for (const e of log.edits) {
    if (log.undone.has(e.seq)) continue;
    summary.live.push({ path: e.path, seq: e.seq });
    const lost =
      (e.before !== null && (await blobs.get(e.before)) === undefined) ||
      (e.after !== null && (await blobs.get(e.after)) === undefined);
    if (lost) missing.set(e.path, [...(missing.get(e.path) ?? []), e.seq]);
  }
  summary.missing = [...missing].map(([p, seqs]) => ({ path: p, seqs }));
  return summary;
}

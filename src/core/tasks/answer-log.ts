// The user's answers to approvals, kept across a crash (docs/DESIGN-durability.md): an Approve or Reject, and the
// per-hunk decisions of a review still in progress, are appended the moment the user gives them. A restore that
// finds the approval still pending takes the recorded answer instead of asking again; a review in progress comes
// back with the user's decisions. Layout under `dir`: <task stem>.jsonl, one line per answer or review change.
import type { HunkState } from '../review/hunks';
import type { ApprovalDecision } from '../tools/types';
import { safeFileStem, type TasksIO } from './io';
import { errorText } from '../error-text';

/** One hunk's decision in a review in progress. */
export interface RecordedHunk {
  index: number;
  state: Exclude<HunkState, 'pending'>;
  reason?: string;
}

/** The review of an edit proposal so far: hunk decisions, and the proposed side if the user edited it. */
export interface RecordedReview {
  hunks: RecordedHunk[];
  /** The proposed text as the user left it, when it differs from the model's proposal. */
  proposed?: string;
}

/** What the log knows about one approval request. */
export interface RecordedAnswer {
  requestId: string;
  toolCallId: string;
  decision?: ApprovalDecision;
  review?: RecordedReview;
  at: number;
}

type AnswerLine =
  | { k: 'answer'; requestId: string; toolCallId: string; at: number; decision: ApprovalDecision }
  | { k: 'review'; requestId: string; toolCallId: string; at: number; review: RecordedReview };

/** A checkpoint restore the user started: begun before any file moves, ended after (or reported after a crash). */
type RestoreLine =
  | ({ k: 'restore'; id: string; files: string[]; rewind: boolean; at: number } & Partial<RestoreTarget>)
  | { k: 'restore_end'; id: string; at: number };

/** A compaction begun (`auto`: the run's own, else /compact) and over; one left open was cut off by a crash. */
type CompactLine =
  { k: 'compact'; id: string; auto: boolean; at: number } | { k: 'compact_end'; id: string; at: number };

/** A compaction a crash cut off: its summary never replaced the conversation. */
export interface CutCompaction {
  id: string;
  auto: boolean;
  at: number;
}

/** Where a restore takes the files: the journal's edits after `toSeq` are undone; `paths` as the journal names them. */
export interface RestoreTarget {
  toSeq: number;
  /** The journal's path of each of `files` (same order). */
  paths: string[];
}

/** A restore a crash cut off: some of its files may be restored, some not. */
export interface CutRestore extends Partial<RestoreTarget> {
  id: string;
  files: string[];
  rewind: boolean;
  at: number;
}

export class AnswerLog {
  private readonly log: (m: string) => void;
  private readonly now: () => number;
  /** Appends of one task run in order, so a later review never lands before an earlier one. */
  private readonly chains = new Map<string, Promise<void>>();

  constructor(
    private readonly dir: string,
    private readonly io: TasksIO,
    opts: { log?: (m: string) => void; now?: () => number } = {},
  ) {
    this.log = opts.log ?? (() => undefined);
    this.now = opts.now ?? Date.now;
  }

  /** Records the user's answer. Resolves when it is durable; never rejects (a failure is logged). */
  answered(taskId: string, requestId: string, toolCallId: string, decision: ApprovalDecision): Promise<void> {
    return this.append(taskId, { k: 'answer', requestId, toolCallId, at: this.now(), decision });
  }

  /** Records the review of a pending edit as it is now (each change replaces the last). */
  reviewed(taskId: string, requestId: string, toolCallId: string, review: RecordedReview): Promise<void> {
    return this.append(taskId, { k: 'review', requestId, toolCallId, at: this.now(), review });
  }

  /** What was recorded for a request: its answer and/or its latest review. */
  async recall(taskId: string, requestId: string): Promise<RecordedAnswer | undefined> {
    await this.chains.get(taskId);
    const text = await this.io.read(this.file(taskId)).catch(() => undefined);
    if (!text) return undefined;
    let found: RecordedAnswer | undefined;
    for (const raw of text.split('\n')) {
      const line = parse(raw);
      if (!line || line.requestId !== requestId) continue;
      found ??= { requestId, toolCallId: line.toolCallId, at: line.at };
      found.at = line.at;
      if (line.k === 'answer') found.decision = line.decision;
      else found.review = line.review;
    }
    return found;
  }

  /** Tool call ids the user approved (edits among them count as approved even if their journal line is missing). */
  async approvedCalls(taskId: string): Promise<Set<string>> {
    await this.chains.get(taskId);
    const text = await this.io.read(this.file(taskId)).catch(() => undefined);
    const out = new Set<string>();
    for (const raw of (text ?? '').split('\n')) {
      const line = parse(raw);
      if (line?.k === 'answer' && line.decision.kind === 'approve') out.add(line.toolCallId);
    }
    return out;
  }

  /**
   * Records a checkpoint restore about to move `files`; call the returned function once it is done. With `target`, a
   * restore a crash cuts off can be told file by file (which went back, which did not).
   */
  async restoreBegun(
    taskId: string,
    files: readonly string[],
    rewind: boolean,
    target?: RestoreTarget,
  ): Promise<() => Promise<void>> {
    const id = `${this.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
    const where =
      target && target.paths.length === files.length ? { toSeq: target.toSeq, paths: target.paths.slice(0, 500) } : {};
    await this.append(taskId, { k: 'restore', id, files: files.slice(0, 500), rewind, at: this.now(), ...where });
    return () => this.append(taskId, { k: 'restore_end', id, at: this.now() });
  }

  /** Restores begun and never ended (a crash cut them off); each is reported once, then closed. */
  async cutRestores(taskId: string): Promise<CutRestore[]> {
    await this.chains.get(taskId);
    const text = await this.io.read(this.file(taskId)).catch(() => undefined);
    const open = new Map<string, CutRestore>();
    for (const raw of (text ?? '').split('\n')) {
      const line = parseRestore(raw);
      if (line?.k === 'restore') {
        const cut: CutRestore = { id: line.id, files: line.files, rewind: line.rewind, at: line.at };
        if (Number.isInteger(line.toSeq) && Array.isArray(line.paths) && line.paths.length === line.files.length)
          Object.assign(cut, { toSeq: line.toSeq, paths: line.paths });
        open.set(line.id, cut);
      } else if (line?.k === 'restore_end') open.delete(line.id);
    }
    for (const r of open.values()) await this.append(taskId, { k: 'restore_end', id: r.id, at: this.now() });
    return [...open.values()];
  }

  /** Records a compaction about to start (`id` as its events name it); `compactionEnded` once it is over. */
  compactionBegun(taskId: string, id: string, auto: boolean): Promise<void> {
    return this.append(taskId, { k: 'compact', id, auto, at: this.now() });
  }

  /** The compaction is over (done, nothing to do, failed or stopped) and what it did is saved with the task. */
  compactionEnded(taskId: string, id: string): Promise<void> {
    return this.append(taskId, { k: 'compact_end', id, at: this.now() });
  }

  /** Compactions begun and never ended (a crash cut them off); each is reported once, then closed. */
  async cutCompactions(taskId: string): Promise<CutCompaction[]> {
    await this.chains.get(taskId);
    const text = await this.io.read(this.file(taskId)).catch(() => undefined);
    const open = new Map<string, CutCompaction>();
    for (const raw of (text ?? '').split('\n')) {
      const line = parseCompact(raw);
      if (line?.k === 'compact') open.set(line.id, { id: line.id, auto: line.auto === true, at: line.at });
      else if (line?.k === 'compact_end') open.delete(line.id);
    }
    for (const c of open.values()) await this.append(taskId, { k: 'compact_end', id: c.id, at: this.now() });
    return [...open.values()];
  }

  /** Forgets a task's answers (the task was removed). */
  async remove(taskId: string): Promise<void> {
    await this.io.remove(this.file(taskId)).catch(() => undefined);
  }

  private append(taskId: string, line: AnswerLine | RestoreLine | CompactLine): Promise<void> {
    // A torn line from a crash is ended by the leading newline, so it never merges with this one.
    const run = (this.chains.get(taskId) ?? Promise.resolve())
      .then(() => this.io.append(this.file(taskId), `\n${JSON.stringify(line)}\n`))
      .catch((err) => this.log(`[answers] could not record an answer of ${taskId}: ${errorText(err)}`));
    this.chains.set(taskId, run);
    return run;
  }

  private file(taskId: string): string {
    return `${this.dir}/${safeFileStem(taskId)}.jsonl`;
  }
}

function parse(raw: string): AnswerLine | undefined {
  if (!raw.trim()) return undefined;
  try {
    const line = JSON.parse(raw) as AnswerLine;
    if (typeof line?.requestId !== 'string' || typeof line.toolCallId !== 'string') return undefined;
    if (line.k === 'answer' && line.decision && typeof line.decision.kind === 'string') return line;
    if (line.k === 'review' && line.review && Array.isArray(line.review.hunks)) return line;
    return undefined;
  } catch {
    return undefined;
  }
}

function parseRestore(raw: string): RestoreLine | undefined {
  if (!raw.includes('"restore')) return undefined;
  try {
    const line = JSON.parse(raw) as RestoreLine;
    if (typeof line?.id !== 'string') return undefined;
    if (line.k === 'restore' && Array.isArray(line.files)) return line;
    if (line.k === 'restore_end') return line;
    return undefined;
  } catch {
    return undefined;
  }
}

function parseCompact(raw: string): CompactLine | undefined {
  if (!raw.includes('"compact')) return undefined;
  try {
    const line = JSON.parse(raw) as CompactLine;
    if (typeof line?.id !== 'string') return undefined;
    return line.k === 'compact' || line.k === 'compact_end' ? line : undefined;
  } catch {
    return undefined;
  }
}

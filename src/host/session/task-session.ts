// One task: its Agent, the panel transcript folded from the Agent's events, and its persistence (debounced
// saves while a run streams, an immediate save at run end). Nothing here knows about the webview or commands.
import type { Agent } from '../../core/loop/agent';
import type { AgentEvent, RunReport } from '../../core/loop/events';
import type { AgentSnapshot } from '../../core/tasks/snapshot';
import type { TaskRecord } from '../../core/tasks/task-store';
import type { MentionChip, QueuedMessage, TranscriptItem } from '../../protocol/messages';
import { planView } from '../../panel/planFormat';
import { toolStillOpen } from '../../panel/fold/tool-cards';
import { safeId } from '../../panel/itemFormat';
import { itemsFromHistory } from '../../panel/items-from-history';
import { Transcript, type TranscriptState } from '../../panel/transcript';
import { withoutImageData } from '../../core/model/images';
import type { ImagePart } from '../../core/model/types';
import type { StagedImages } from '../ui/image-intake';
import { reloadNote } from './recovery-notes';
import { ENDED_RUN_NOTE, endedRunReport, endsRun } from '../../core/tasks/ended-run';
import { titleOf } from './session-title';
import type { Logger } from '../logger';
import { errorText } from '../../core/error-text';

export interface SessionDeps {
  /** A fresh Agent, or one restored from a snapshot, wired with the current settings. */
  makeAgent(snapshot?: AgentSnapshot): Agent;
  save(record: TaskRecord): Promise<void>;
  log: Logger;
  /** Every event of this session's runs, after the transcript folded it (status bar, tests). */
  onEvent?(session: TaskSession, event: AgentEvent): void;
  saveDelayMs?: number;
  /** After a failed save, the next attempt (it writes the whole record, so it catches up). Default 10 s. */
  saveRetryMs?: number;
}

export type RunKind = 'send' | 'continue' | 'resume';

const RESUME_HINT = 'Its history is intact: press Continue to resume.';
const INTERRUPTED_NOTE = `Forge was reloaded while this task was running. ${RESUME_HINT}`;

export class TaskSession {
  readonly transcript = new Transcript();
  private agent: Agent;
  private unsubscribe: () => void;
  private title: string;
  private readonly createdAt: number;
  /** Last real change (a run's events, a new message): merely opening or re-saving a task keeps its place. */
  private updatedAt: number;
  private status: string;
  private saveTimer: ReturnType<typeof setTimeout> | undefined;
  private saving: Promise<void> = Promise.resolve();
  private current: Promise<RunReport | undefined> | undefined;
  private disposed = false;
  private continueKind: RunKind = 'send';
  /** A rebuild was asked for while a run was in flight: done before the next run. */
  private rebuildPending = false;
  /** The next sent message's images (stageImages). */
  private staged: StagedImages | undefined;
  /** The queued message the steering queue is sending now (sendFromQueue). */
  private queuedSend: QueuedMessage | undefined;

  private constructor(
    private readonly deps: SessionDeps,
    agent: Agent,
    record?: TaskRecord,
  ) {
    this.agent = agent;
    this.unsubscribe = agent.on((e) => this.onEvent(e));
    this.title = record?.title ?? 'New task';
    this.createdAt = record?.createdAt ?? Date.now();
    this.updatedAt = record?.updatedAt ?? this.createdAt;
    this.status = record?.status ?? 'new';
  }

  static create(deps: SessionDeps): TaskSession {
    return new TaskSession(deps, deps.makeAgent());
  }

  /**
   * Restores a saved task. A run that was in flight when VS Code went away comes back as 'stopped', with one notice:
   * what the restore found (`reloadNotes`, from the journal and the command log) and, unless an approval is asked
   * again, Continue.
   */
  static restore(deps: SessionDeps, record: TaskRecord, reloadNotes: readonly string[] = []): TaskSession {
    const snapshot = record.snapshot as AgentSnapshot;
    const session = new TaskSession(deps, deps.makeAgent(snapshot), record);
    const saved = record.transcript as TranscriptState | undefined;
    // A run whose work was over (only its reflection and its end were left) is finished, not interrupted.
    const ended =
      record.status === 'running' && !snapshot.pending
        ? endedRunReport(snapshot.history, record.id, saved?.progress)
        : undefined;
    const interrupted = record.status === 'running' && !ended;
    if (interrupted) session.status = 'stopped';
    session.transcript.reset(restoreTranscript(saved, snapshot));
    if (ended) {
      session.status = ended.reason;
      session.transcript.apply({ type: 'run_end', runId: ended.runId, report: ended });
      session.transcript.apply({ type: 'warning', runId: ended.runId, kind: 'other', message: ENDED_RUN_NOTE });
      void session.save(); // saved as ended, so the next reload does not find it "running" again
    }
    const found = reloadNotes.length > 0;
    if (interrupted && !snapshot.pending) {
      session.transcript.addError(
        found ? `${reloadNote(reloadNotes)}\n${RESUME_HINT}` : INTERRUPTED_NOTE,
        found ? ['continue', 'show_logs'] : ['continue'],
      );
    } else if (found) session.transcript.addError(reloadNote(reloadNotes, interrupted), ['show_logs']);
    return session;
  }

  get id(): string {
    return this.agent.taskId;
  }

  get running(): boolean {
    return this.agent.running;
  }

  get hasPendingApproval(): boolean {
    return !this.running && !!this.agent.dump().pending;
  }

  /** For tests and the snapshot-based tooling; do not drive runs through it. */
  get agentForTests(): Agent {
    return this.agent;
  }

  /**
   * Starts a run. `signal` (the panel's Stop for this request) stops it. Resolves with the report, or
   * undefined when there was nothing to resume.
   */
  run(
    kind: RunKind,
    text: string,
    signal?: AbortSignal,
    display?: string,
    chips?: MentionChip[],
  ): Promise<RunReport | undefined> {
    if (kind === 'send' && this.title === 'New task') this.title = titleOf(display ?? text);
    if (kind === 'send' && display) this.transcript.displayNextMessageAs(display, chips);
    const fromQueue = this.queuedSend;
    this.queuedSend = undefined;
    if (kind === 'send' && fromQueue && text.startsWith(fromQueue.text))
      this.transcript.sendNextFromQueue(fromQueue.id);
    if (this.rebuildPending) this.rebuildAgent();
    // Set before starting: the Agent emits run_start synchronously.
    this.continueKind = kind;
    const images = kind === 'send' ? this.staged : undefined;
    this.staged = undefined;
    if (images) this.transcript.displayNextImages(images.thumbs);
    let started: Promise<RunReport | undefined>;
    if (kind === 'send') started = this.agent.send(text, images?.parts);
    else if (kind === 'continue') started = this.agent.continueRun();
    else started = this.agent.resumePending();
    const onAbort = () => this.agent.stop();
    signal?.addEventListener('abort', onAbort, { once: true });
    if (signal?.aborted) this.agent.stop();
    const run = started.finally(() => {
      signal?.removeEventListener('abort', onAbort);
      if (this.current === run) this.current = undefined;
    });
    this.current = run;
    return run;
  }

  /**
   * The messages waiting above the composer changed: saved at once, like a message sent (what the user typed is
   * never lost to a crash in the next half second).
   */
  setQueue(queue: readonly QueuedMessage[]): void {
    this.transcript.setQueue(queue);
    this.updatedAt = Date.now();
    if (!this.disposed) void this.save();
  }

  /**
   * The steering queue sends `message` as the next run's message: it stays in the queue until that run's user
   * message joins the conversation, and leaves it in the same change (and the same save).
   */
  sendFromQueue(message: QueuedMessage): void {
    this.queuedSend = message;
  }

  /** Whether `text` is the queued message being sent (a refused start leaves it in the queue, not in the input). */
  isQueuedSend(text: string): boolean {
    return this.queuedSend?.text === text;
  }

  /** Images for the next message sent (replacing any a refused send left behind). */
  stageImages(images: StagedImages | undefined): void {
    this.staged = images;
  }

  /** The run in flight, if any. */
  get currentRun(): Promise<RunReport | undefined> | undefined {
    return this.current;
  }

  stop(): void {
    this.agent.stop();
  }

  setMode(mode: Parameters<Agent['setMode']>[0]): void {
    this.agent.setMode(mode);
  }

  get mode(): Agent['mode'] {
    return this.agent.mode;
  }

  /** /compact: summarises the conversation now (the transcript shows it via the compaction event), then saves. */
  async compact(signal?: AbortSignal): ReturnType<Agent['compact']> {
    const result = await this.agent.compact(signal);
    if (result) await this.save();
    return result;
  }

  /** /context: what fills the model's window now (the next step's request, part by part). */
  contextUsage(): ReturnType<Agent['contextUsage']> {
    return this.agent.contextUsage();
  }

  /** Rebuilds the Agent (new settings) from its own snapshot; while a run is in flight, before the next run. */
  rebuildAgent(): boolean {
    if (this.running) {
      this.rebuildPending = true;
      return false;
    }
    this.rebuildPending = false;
    const snapshot = this.agent.dump();
    this.unsubscribe();
    this.agent = this.deps.makeAgent(snapshot);
    this.unsubscribe = this.agent.on((e) => this.onEvent(e));
    return true;
  }

  /** The conversation as the model sees it (checkpoints map tool calls to steps with it). */
  get history(): Agent['history'] {
    return this.agent.history;
  }

  /** The user edited the live plan (validated; throws a readable error). The event updates the panel and saves. */
  setPlan(plan: unknown): void {
    this.agent.setPlan(plan);
  }

  /** Tells the model, with the next message, of something done outside the conversation (files restored). */
  addNote(text: string): void {
    this.agent.addNote(text);
  }

  /**
   * Rewinds the conversation to the end of the step that made these calls: the model's history and the panel's
   * transcript both end there. Only when idle. Returns the messages dropped, or undefined when the step is no
   * longer in the history (compacted).
   */
  rewindToStep(toolCallIds: readonly string[]): number | undefined {
    if (this.running || !toolCallIds.length) return undefined;
    const dropped = this.agent.rewindToToolCall(toolCallIds[toolCallIds.length - 1]);
    if (dropped === undefined) return undefined;
    this.transcript.truncateAfterTools(toolCallIds);
    this.updatedAt = Date.now();
    void this.save();
    return dropped;
  }

  /** The user's words for the run in flight (steering); its turn id, or undefined when no run is in flight. */
  steer(text: string, images?: ImagePart[]): string | undefined {
    return this.agent.steer(text, images);
  }

  /** Steers the last run ended without delivering: they stay in the queue as plain queued messages. */
  takeUndelivered(): string[] {
    return this.agent.takeUndelivered().map((m) => m.turnId);
  }

  /**
   * Edit and resend: the conversation and the transcript go back to just before the user message `itemId`. Only
   * when idle. Returns the tool calls made from it on (their edits are the files to restore), or undefined when
   * the message cannot be found in the conversation any more (compacted into a summary, or an older task).
   */
  rewindToMessage(itemId: string): { toolCallIds: string[] } | undefined {
    if (this.running) return undefined;
    const item = this.transcript.getItems().find((it) => it.id === itemId);
    if (item?.kind !== 'user' || !item.turnId) return undefined;
    const rewound = this.agent.rewindToTurn(item.turnId);
    if (!rewound) return undefined;
    this.transcript.truncateBefore(itemId);
    this.updatedAt = Date.now();
    void this.save();
    return { toolCallIds: rewound.toolCallIds };
  }

  dump(): AgentSnapshot {
    return this.agent.dump();
  }

  record(): TaskRecord {
    const snapshot = this.agent.dump();
    return {
      id: this.id,
      title: this.title,
      createdAt: this.createdAt,
      updatedAt: this.updatedAt,
      mode: snapshot.mode,
      // Not agent.running: run_end (and its save) fires before the Agent clears its current run.
      status: this.status,
      iterations: snapshot.iterations,
      ...(snapshot.costUsd !== undefined ? { costUsd: snapshot.costUsd } : {}),
      tokens: Math.max(0, Math.round((snapshot.usage?.inputTokens ?? 0) + (snapshot.usage?.outputTokens ?? 0))),
      // Image bytes live in the image store, not in the task file.
      snapshot: { ...snapshot, history: withoutImageData(snapshot.history) },
      transcript: withoutMomentErrors(this.transcript.snapshot()),
    };
  }

  /** The last save failed (read-only or full storage): this conversation exists only in memory. */
  unsaved = false;

  /** Saves now (and waits for it). Never rejects: a failed save is logged. */
  save(): Promise<void> {
    if (this.saveTimer) clearTimeout(this.saveTimer);
    this.saveTimer = undefined;
    // Saves are chained so an older record never lands after a newer one.
    this.saving = this.saving.then(() =>
      this.deps.save(this.record()).then(
        () => void (this.unsaved = false),
        (err) => {
          this.unsaved = true;
          this.deps.log.error(`Forge could not save task ${this.id}: ${errorText(err)}`);
          // Nothing new may come to trigger a save: try again on our own until one succeeds.
          if (!this.disposed && !this.saveTimer)
            this.saveTimer = setTimeout(() => void this.save(), this.deps.saveRetryMs ?? 10_000);
        },
      ),
    );
    return this.saving;
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.unsubscribe();
    if (this.saveTimer) {
      clearTimeout(this.saveTimer);
      this.saveTimer = undefined;
      void this.save();
    }
  }

  private onEvent(e: AgentEvent): void {
    this.updatedAt = Date.now();
    // continue / resume reuse the last user message in run_start; the panel must not show it twice.
    const forTranscript = e.type === 'run_start' && this.continueKind !== 'send' ? { ...e, userMessage: '' } : e;
    try {
      this.transcript.apply(forTranscript);
    } catch (err) {
      this.deps.log.error(`panel transcript failed on ${e.type}: ${errorText(err)}`);
    }
    if (e.type === 'run_start') this.status = 'running';
    if (e.type === 'run_end') {
      this.status = e.report.reason;
      void this.save();
    } else if (
      (e.type === 'run_start' || e.type === 'approval_requested' || (e.type === 'tool_result' && endsRun(e.name))) &&
      !this.disposed
    ) {
      // What the user just typed, and a question that may wait minutes for them, are saved at once: a crash
      // in the next half second must not lose the message or the pending approval. So is the run's answer: its
      // reflection may take seconds before run_end, and a crash then restores the task as finished.
      void this.save();
    } else if (!this.saveTimer && !this.disposed) {
      this.saveTimer = setTimeout(() => void this.save(), this.deps.saveDelayMs ?? 500);
    }
    this.deps.onEvent?.(this, e);
  }
}

/** "No model" and storage errors belong to the moment, not to the task: they are never saved with it. */
function withoutMomentErrors(t: TranscriptState): TranscriptState {
  return { ...t, items: t.items.filter((it) => !(it.kind === 'error' && it.topic)) };
}

/** Characters of a restore's report shown on its tool card (the model gets all of it). */
const RESTORED_RESULT_CHARS = 4000;

/**
 * A saved transcript as the panel should show it after a reload: nothing spins. Tool cards and approvals that
 * were in flight are marked cancelled, except the approval the agent will ask again (resumePending).
 */
export function restoreTranscript(
  saved: TranscriptState | undefined,
  snapshot: AgentSnapshot,
): Partial<TranscriptState> {
  if (!saved || !Array.isArray(saved.items) || !saved.items.length) {
    // The panel's items were lost (a damaged file) but the conversation was not: the view is rebuilt from it.
    const pendingIds = new Set((snapshot.pending?.calls ?? []).map((c) => c.id));
    return {
      taskId: snapshot.taskId,
      items: itemsFromHistory(snapshot.history ?? [], Date.now(), pendingIds),
      status: { state: 'idle' },
      ...(snapshot.plan ? { plan: planView(snapshot.plan) } : {}),
    };
  }
  // The calls of the step the pending approval belongs to run again (resumePending): their cards wait for that run,
  // and its approval card replaces the old one.
  const resumed = new Set((snapshot.pending?.calls ?? []).map((c) => safeId(c.id)));
  // A call the restore settled (a command a crash cut off, an edit found on disk) shows that result, not "cancelled".
  const settled = new Map<string, { content: string; isError?: boolean }>();
  for (const m of snapshot.history ?? []) if (m.role === 'tool') settled.set(safeId(m.toolCallId), m);
  const items = saved.items
    .flatMap((it): TranscriptItem[] => {
      if (it.kind === 'tool' && toolStillOpen(it.status)) {
        if (resumed.has(it.toolCallId)) return [{ ...it, status: 'pending' }];
        const r = settled.get(it.toolCallId);
        if (!r) return [{ ...it, status: 'cancelled' }];
        const text = r.content.length > RESTORED_RESULT_CHARS ? r.content.slice(0, RESTORED_RESULT_CHARS) : r.content;
        return [
          {
            ...it,
            status: r.isError ? 'interrupted' : 'done',
            result: text,
            resultTruncated: text.length < r.content.length,
          },
        ];
      }
      if (it.kind === 'approval' && it.status === 'pending')
        return resumed.has(it.toolCallId) ? [] : [{ ...it, status: 'cancelled' }];
      return [it];
    })
    .map((it): TranscriptItem => {
      if ((it.kind === 'assistant' || it.kind === 'thinking') && it.streaming) return { ...it, streaming: false };
      return it;
    });
  const queue = restoredQueue(saved, snapshot);
  // The plan's truth is the agent's snapshot (the transcript only mirrors it).
  return {
    taskId: snapshot.taskId,
    items,
    status: { state: 'idle' },
    progress: saved.progress,
    ...(snapshot.plan ? { plan: planView(snapshot.plan) } : {}),
    // What the user typed is never lost: steers the reload cut off wait in the queue like any queued message.
    ...(queue.length ? { queue } : {}),
  };
}

/**
 * The saved queue, less anything the conversation already holds (a steer the run delivered: its user turn carries
 * the queue item's id): a message is in the queue or in the conversation, never both.
 */
function restoredQueue(saved: TranscriptState, snapshot: AgentSnapshot): QueuedMessage[] {
  if (!saved.queue?.length) return [];
  const delivered = new Set(
    snapshot.history.flatMap((m) => (m.role === 'user' && m.turnId ? [`${safeId(m.turnId)}\n${m.content}`] : [])),
  );
  return saved.queue.filter((q) => !delivered.has(`${q.id}\n${q.text}`)).map((q) => ({ id: q.id, text: q.text }));
}

// The panel's source of truth: folds AgentEvents into a serializable transcript (items + run status + progress)
// and reports each change as PatchOps. Pure: no vscode, injectable clock. The webview only ever mirrors this.
import type { AgentEvent } from '../core/loop/events';
import {
  LIMITS,
  type Action,
  type ChangedFile,
  type HunkView,
  type ItemOf,
  type MentionChip,
  type PatchOp,
  type PlanView,
  type QueuedMessage,
  type Progress,
  type RunStatus,
  type TranscriptItem,
} from '../protocol/messages';
import { carriedFrom, withCarried, type Carried, type RunFigures } from './fold/carried';
import { foldChanges, foldHunkReview } from './fold/changes';
import { foldCheckpointMark, lastCardOf, markRedone, type CheckpointMark } from './fold/checkpoints';
import { TranscriptItems } from './fold/items';
import { runEndCard } from './fold/run-end';
import { cleanQueue, foldSteer } from './fold/steering';
import { RunNotes } from './fold/run-notes';
import { StreamedText } from './fold/stream';
import { foldSubAgentEvent, type NestedFoldHost } from './fold/sub-agent';
import { ToolCards } from './fold/tool-cards';
import { planView } from './planFormat';
import { cap, safeId } from './itemFormat';
import type { ImageThumb } from '../protocol/images';

interface TranscriptOptions {
  now?: () => number;
  /** Characters of a tool result kept for the card (the full text stays with the loop, see fullOutputRef). */
  resultPreviewChars?: number;
  progressTailChars?: number;
  argsChars?: number;
  diffPreviewChars?: number;
}

export interface TranscriptState {
  taskId?: string;
  items: TranscriptItem[];
  status: RunStatus;
  progress?: Progress;
  /** The task's live plan (update_plan / the user's edits). */
  plan?: PlanView;
  /** Messages waiting above the composer: queued for the run's end, or steering it at its next step. */
  queue?: QueuedMessage[];
}

type TranscriptChange = { kind: 'ops'; ops: PatchOp[] } | { kind: 'reset' };
type TranscriptListener = (change: TranscriptChange) => void;

export class Transcript {
  private readonly items = new TranscriptItems();
  private readonly cards: ToolCards;
  private readonly notes: RunNotes;
  private readonly stream: StreamedText;
  private status: RunStatus = { state: 'idle' };
  private progress: Progress | undefined;
  /** The figures a continued run counts on from (see fold/carried.ts). */
  private carried: Carried | undefined;
  private plan: PlanView | undefined;
  private queue: QueuedMessage[] = [];
  private taskId: string | undefined;
  private pendingRequestId: string | undefined;
  /** What the next run's user message shows as (an editor action's short line instead of its whole prompt). */
  private pendingDisplay: string | undefined;
  private pendingImages: ImageThumb[] | undefined;
  /** The chips (@-mentions) the next run's user message shows. */
  private pendingChips: MentionChip[] | undefined;
  /** The queued message the next run sends: it leaves the queue as it becomes the user's message, in one change. */
  private pendingDequeue: string | undefined;
  private listeners = new Set<TranscriptListener>();
  private readonly now: () => number;
  /** How a sub-agent's events reach the core fold (fold/sub-agent.ts). */
  private readonly nested: NestedFoldHost;

  constructor(opts: TranscriptOptions = {}) {
    this.now = opts.now ?? Date.now;
    this.cards = new ToolCards(this.items, this.now, {
      resultChars: opts.resultPreviewChars ?? 4_000,
      progressChars: opts.progressTailChars ?? 4_000,
      argsChars: opts.argsChars ?? 20_000,
      diffChars: opts.diffPreviewChars ?? 8_000,
    });
    this.notes = new RunNotes(this.items, this.now);
    this.stream = new StreamedText(this.items, this.now);
    this.nested = { items: this.items, cards: this.cards, stream: this.stream, fold: (ops, e) => this.fold(ops, e) };
  }

  subscribe(listener: TranscriptListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The footer's figures (the status bar shows the same). */
  get shownProgress(): Progress | undefined {
    return this.progress && { ...this.progress };
  }

  /** A deep-enough copy to serialize: items are replaced (never mutated) once handed out. */
  snapshot(): TranscriptState {
    return {
      taskId: this.taskId,
      items: this.items.all().slice(),
      status: { ...this.status },
      progress: this.progress && { ...this.progress },
      ...(this.plan ? { plan: this.plan } : {}),
      ...(this.queue.length ? { queue: this.queue.slice() } : {}),
    };
  }

  getItems(): readonly TranscriptItem[] {
    return this.items.all();
  }

  /** Replaces everything (new task, load task from history). Listeners get `reset` and resend a snapshot. */
  reset(state: Partial<TranscriptState> = {}): void {
    this.items.replaceAll((state.items ?? []).slice());
    this.status = state.status ?? { state: 'idle' };
    this.progress = state.progress;
    this.carried = undefined;
    this.plan = state.plan;
    this.queue = cleanQueue(state.queue ?? []);
    this.taskId = state.taskId;
    this.stream.forget();
    this.cards.forgetIds();
    this.notes.forgetKeys();
    for (const l of this.listeners) l({ kind: 'reset' });
  }

  /** The user decided on a hunk of a pending edit (panel or diff editor): its approval card shows the new states. */
  setHunkReview(requestId: string, hunks: HunkView[]): PatchOp[] {
    return this.change((ops) => foldHunkReview(this.items, ops, requestId, hunks));
  }

  /** The files a task changed (completion block): added once per task, then updated in place (undo / keep). */
  setChanges(taskId: string, files: ChangedFile[], more = 0): PatchOp[] {
    return this.change((ops) => foldChanges(this.items, ops, this.now, taskId, files, more));
  }

  /** The panel request (send_message / continue) that is about to start a run: Stop carries it back. */
  beginRequest(requestId: string): void {
    this.pendingRequestId = safeId(requestId);
  }

  /** The next run's user message shows these image thumbnails. */
  displayNextImages(images: readonly ImageThumb[]): void {
    this.pendingImages = images.length ? images.slice(0, 8) : undefined;
  }

  /** The next run's user message is shown as `text` (the model still gets the whole prompt). */
  displayNextMessageAs(text: string, chips?: MentionChip[]): void {
    this.pendingDisplay = text;
    this.pendingChips = chips?.length ? chips.slice(0, 20) : undefined;
  }

  /**
   * The next run's user message is the queued message `id`: it leaves the queue in the same change that shows it
   * in the conversation, so no save (and no crash) ever finds it in both places or in neither.
   */
  sendNextFromQueue(id: string): void {
    this.pendingDequeue = safeId(id);
  }

  /**
   * An error outside a run (no provider, failed to start): stays in the transcript with what to do. Topic 'setup'
   * (no usable model) is dropped again by clearSetupErrors once a model is configured.
   */
  addError(message: string, actions: Action[] = [], topic?: 'setup'): PatchOp[] {
    const error = {
      kind: 'error' as const,
      message: cap(message, LIMITS.preview).text,
      actions,
      ...(topic ? { topic } : {}),
    };
    return this.change((ops) => this.items.append(ops, { id: this.items.nextId(), ts: this.now(), ...error }));
  }

  /**
   * What Forge's storage can write now (never saved with the task). Good news (`ok`) replaces every earlier storage
   * notice and a new failure replaces the earlier good news, so no storage line stays that is no longer true.
   */
  storageNote(message: string, ok: boolean): PatchOp[] {
    const all = this.items.all();
    const kept = all.filter((it) => !(it.kind === 'error' && it.topic === 'storage' && (ok || it.tone === 'ok')));
    if (kept.length !== all.length) {
      this.items.replaceAll(kept);
      for (const l of this.listeners) l({ kind: 'reset' });
    }
    const text = cap(message, LIMITS.preview).text;
    const item = ok
      ? { kind: 'error' as const, message: text, actions: [], topic: 'storage' as const, tone: 'ok' as const }
      : { kind: 'error' as const, message: text, actions: ['show_logs' as const], topic: 'storage' as const };
    return this.change((ops) => this.items.append(ops, { id: this.items.nextId(), ts: this.now(), ...item }));
  }

  /** Removes the "no model" errors (a model is configured now); true when there were any. */
  clearSetupErrors(): boolean {
    const all = this.items.all();
    const kept = all.filter((it) => !(it.kind === 'error' && it.topic === 'setup'));
    if (kept.length === all.length) return false;
    this.items.replaceAll(kept);
    for (const l of this.listeners) l({ kind: 'reset' });
    return true;
  }

  /**
   * Updates the latest tool card of `toolCallId` (the edit journal marks a checkpoint, a command's changed files).
   * Returns false when there is no such card.
   */
  annotateTool(
    toolCallId: string,
    patch: Partial<Pick<ItemOf<'tool'>, 'checkpoint' | 'changedFiles' | 'changedFilesMore' | 'changedFilesUntracked'>>,
  ): boolean {
    const item = this.cards.find(toolCallId);
    if (!item) return false;
    this.change((ops) => this.items.update(ops, { ...item, ...patch }));
    return true;
  }

  /** Appends a checkpoint mark (a restore, an undo or a redo) to the transcript. */
  addCheckpointMark(mark: CheckpointMark): PatchOp[] {
    return this.change((ops) => foldCheckpointMark(this.items, ops, this.now, mark));
  }

  /** The latest restore / undo mark (or every one: nothing is left to put back) no longer offers Redo. */
  markRedone(all = false): PatchOp[] {
    return this.change((ops) => markRedone(this.items, ops, all));
  }

  /**
   * Rewinds the transcript to the end of the step that made `toolCallIds`: everything after the last of their cards
   * (and the approvals that belong to them) goes. Returns false when none of the cards is found. Listeners get a reset.
   */
  truncateAfterTools(toolCallIds: readonly string[]): boolean {
    const last = lastCardOf(this.items.all(), toolCallIds);
    if (last < 0) return false;
    this.reset({
      taskId: this.taskId,
      items: this.items.all().slice(0, last + 1),
      status: this.status,
      progress: this.progress,
      plan: this.plan,
    });
    return true;
  }

  /** The messages waiting above the composer changed (queued, edited, removed, a steer typed or handed back). */
  setQueue(queue: readonly QueuedMessage[]): PatchOp[] {
    this.queue = cleanQueue(queue);
    return this.change((ops) => ops.push({ op: 'queue', queue: this.queue.slice() }));
  }

  get queued(): readonly QueuedMessage[] {
    return this.queue;
  }

  /** Edit and resend: the transcript goes back to just before the item `itemId` (false when there is none). */
  truncateBefore(itemId: string): boolean {
    const at = this.items.all().findIndex((it) => it.id === itemId);
    if (at < 0) return false;
    this.reset({ ...this.snapshot(), items: this.items.all().slice(0, at) });
    return true;
  }

  apply(e: AgentEvent): PatchOp[] {
    return this.change((ops) => this.fold(ops, e));
  }

  private fold(ops: PatchOp[], e: AgentEvent): void {
    switch (e.type) {
      case 'plan_updated':
        this.plan = planView(e.plan);
        ops.push({ op: 'plan', plan: this.plan });
        break;
      case 'sub_agent':
        foldSubAgentEvent(this.nested, ops, e.parentCallId, e.event);
        break;
      case 'mode_context':
        this.stream.close(ops);
        this.notes.context(ops, e);
        break;
      case 'run_start':
        this.startRun(ops, e);
        break;
      case 'user_steer':
        this.stream.close(ops);
        this.queue = foldSteer(this.items, ops, this.now, this.queue, e);
        break;
      case 'step_start':
        this.stream.close(ops);
        this.setProgress(ops, { ...this.baseProgress(), iteration: e.iteration, maxIterations: e.maxIterations });
        break;
      case 'text_delta':
      case 'thinking_delta':
        this.stream.delta(ops, e.type === 'text_delta' ? 'assistant' : 'thinking', e.delta);
        break;
      case 'tool_call_start':
        this.stream.close(ops);
        this.cards.start(ops, e.id, e.name);
        break;
      case 'tool_call_args_delta':
        this.cards.argsDelta(ops, e.id, e.delta);
        break;
      case 'tool_call_end':
        this.stream.close(ops);
        this.cards.end(ops, e);
        break;
      case 'approval_requested':
        this.cards.requestApproval(ops, e.request);
        this.setStatus(ops, { ...this.status, state: 'awaiting_approval' });
        break;
      case 'approval_resolved':
        if (
          this.cards.resolveApproval(ops, e) &&
          this.status.state === 'awaiting_approval' &&
          !this.cards.hasPendingApproval()
        ) {
          this.setStatus(ops, { ...this.status, state: 'running' });
        }
        break;
      case 'tool_progress':
        this.cards.progress(ops, e.id, e.chunk);
        break;
      case 'tool_result':
        this.cards.result(ops, e);
        break;
      case 'iteration': {
        const f = withCarried(this.carried, e);
        this.setProgress(ops, {
          iteration: e.iteration,
          maxIterations: e.maxIterations,
          inputTokens: f.usage.inputTokens,
          outputTokens: f.usage.outputTokens,
          costUsd: f.costUsd,
          elapsedMs: Math.max(0, f.elapsedMs),
          contextTokens: e.contextTokens,
          contextWindow: e.contextWindow,
        });
        break;
      }
      case 'warning':
        this.stream.close(ops);
        this.notes.warning(ops, e);
        break;
      case 'compaction':
        this.stream.close(ops);
        this.notes.compaction(ops, e);
        break;
      case 'memory_recalled':
      case 'memory_learned':
        if (e.memories.length === 0) break;
        this.stream.close(ops);
        this.notes.memory(ops, e);
        break;
      case 'step_end':
        this.stream.close(ops);
        break;
      case 'run_end':
        this.endRun(ops, e.report);
        break;
    }
  }

  // ---------- internals ----------

  /**
   * A new run answers every earlier "Continue" / "Retry" (a restore's notice, a stopped run's end): pressed later,
   * they would start a run nobody asked for.
   */
  private retireResumeActions(ops: PatchOp[]): void {
    for (const item of this.items.all()) {
      if ((item.kind !== 'error' && item.kind !== 'run_end') || !item.actions?.length) continue;
      const actions = item.actions.filter((a) => a !== 'continue' && a !== 'retry');
      if (actions.length !== item.actions.length) this.items.update(ops, { ...item, actions });
    }
  }

  private startRun(ops: PatchOp[], e: Extract<AgentEvent, { type: 'run_start' }>): void {
    this.stream.close(ops);
    this.retireResumeActions(ops);
    this.cards.startRun();
    this.notes.forgetKeys();
    const shown = this.pendingDisplay ?? e.userMessage;
    const images = this.pendingImages;
    this.pendingImages = undefined;
    const chips = this.pendingChips;
    const dequeue = this.pendingDequeue;
    this.pendingDisplay = undefined;
    this.pendingChips = undefined;
    this.pendingDequeue = undefined;
    if (e.userMessage.trim() && shown.trim()) {
      this.items.append(ops, {
        id: this.items.nextId(),
        ts: this.now(),
        kind: 'user',
        text: cap(shown, LIMITS.itemText).text,
        ...(images ? { images } : {}),
        ...(e.turnId ? { turnId: safeId(e.turnId) } : {}),
        ...(chips ? { mentions: chips } : {}),
      });
      if (dequeue && this.queue.some((q) => q.id === dequeue)) {
        this.queue = this.queue.filter((q) => q.id !== dequeue);
        ops.push({ op: 'queue', queue: this.queue.slice() });
      }
    }
    this.setStatus(ops, {
      state: 'running',
      runId: safeId(e.runId),
      requestId: this.pendingRequestId,
      mode: e.mode.slice(0, 100),
    });
    this.pendingRequestId = undefined;
    if (e.taskId) this.taskId = safeId(e.taskId);
    // Continue / resume (no new message) go on counting where the task was: "Iteration 7 / 25", not 0, and the
    // tokens, cost and time already shown (a reload while an approval waited used to blank them).
    const continued = !e.userMessage.trim();
    this.carried = carriedFrom(this.progress, continued);
    const zero: RunFigures = { usage: { inputTokens: 0, outputTokens: 0 }, elapsedMs: 0 };
    const from = withCarried(this.carried, zero);
    this.setProgress(ops, {
      iteration: continued && this.progress ? Math.min(this.progress.iteration, e.maxIterations) : 0,
      maxIterations: e.maxIterations,
      inputTokens: from.usage.inputTokens,
      outputTokens: from.usage.outputTokens,
      ...(from.costUsd !== undefined ? { costUsd: from.costUsd } : {}),
      elapsedMs: from.elapsedMs,
    });
  }

  private endRun(ops: PatchOp[], report: Extract<AgentEvent, { type: 'run_end' }>['report']): void {
    const r = withCarried(this.carried, report);
    this.carried = undefined;
    this.stream.close(ops);
    this.cards.cancelOpen(ops);
    this.items.append(ops, {
      id: this.items.nextId(),
      ts: this.now(),
      ...runEndCard(r, this.items.all(), this.status.mode),
    });
    this.setProgress(ops, {
      ...this.baseProgress(),
      iteration: r.iterations,
      inputTokens: r.usage.inputTokens,
      outputTokens: r.usage.outputTokens,
      costUsd: r.costUsd,
      elapsedMs: Math.max(0, r.elapsedMs),
    });
    this.setStatus(ops, { state: 'idle' });
  }

  private baseProgress(): Progress {
    return this.progress ?? { iteration: 0, maxIterations: 0, inputTokens: 0, outputTokens: 0, elapsedMs: 0 };
  }

  private setProgress(ops: PatchOp[], p: Progress): void {
    this.progress = p;
    ops.push({ op: 'progress', progress: { ...p } });
  }

  private setStatus(ops: PatchOp[], s: RunStatus): void {
    this.status = s;
    ops.push({ op: 'status', status: { ...s } });
  }

  /** Runs one change and tells the listeners its ops (when there are any). */
  private change(fold: (ops: PatchOp[]) => void): PatchOp[] {
    const ops: PatchOp[] = [];
    fold(ops);
    if (ops.length > 0) for (const l of this.listeners) l({ kind: 'ops', ops });
    return ops;
  }
}

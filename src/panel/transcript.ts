// The panel's source of truth: folds AgentEvents into a serializable transcript (items + run status + progress)
// and reports each change as PatchOps. Pure: no vscode, injectable clock. The webview only ever mirrors this.
import type { AgentEvent } from '../core/loop/events';
import {
  LIMITS, type Action, type ChangedFile, type HunkView, type ItemOf, type PatchOp, type PlanView, type Progress, type RunStatus, type TranscriptItem,
} from '../protocol/messages';
import { planView } from './planFormat';
import { approvalSummary, cap, prettyArgs, previewView, runEndActions, safeId, summarizeArgs, tail } from './itemFormat';

export interface TranscriptOptions {
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
}

export type TranscriptChange = { kind: 'ops'; ops: PatchOp[] } | { kind: 'reset' };
export type TranscriptListener = (change: TranscriptChange) => void;

type Streamed = ItemOf<'assistant'> | ItemOf<'thinking'>;

export class Transcript {
  private items: TranscriptItem[] = [];
  private index = new Map<string, number>();
  private status: RunStatus = { state: 'idle' };
  private progress: Progress | undefined;
  private plan: PlanView | undefined;
  private taskId: string | undefined;
  private counter = 0;
  private open: Streamed | undefined;
  /** Per run: model tool call id / approval request id -> item id (tool call ids repeat across runs). */
  private toolItems = new Map<string, string>();
  private approvalItems = new Map<string, string>();
  /** Per run: warning key -> item id (retries of one step update one line). */
  private warningItems = new Map<string, string>();
  private pendingRequestId: string | undefined;
  /** What the next run's user message shows as (an editor action's short line instead of its whole prompt). */
  private pendingDisplay: string | undefined;
  /** Tool item id -> when its approval was answered: the tool's duration counts from there. */
  private approvedAt = new Map<string, number>();
  /** While folding a sub-agent's event: the delegate card its items are nested under. */
  private nestParent: string | undefined;
  private listeners = new Set<TranscriptListener>();
  private readonly now: () => number;
  private readonly resultChars: number;
  private readonly progressChars: number;
  private readonly argsChars: number;
  private readonly diffChars: number;

  constructor(opts: TranscriptOptions = {}) {
    this.now = opts.now ?? Date.now;
    this.resultChars = opts.resultPreviewChars ?? 4_000;
    this.progressChars = opts.progressTailChars ?? 4_000;
    this.argsChars = opts.argsChars ?? 20_000;
    this.diffChars = opts.diffPreviewChars ?? 8_000;
  }

  subscribe(listener: TranscriptListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** A deep-enough copy to serialize: items are replaced (never mutated) once handed out. */
  snapshot(): TranscriptState {
    return { taskId: this.taskId, items: this.items.slice(), status: { ...this.status }, progress: this.progress && { ...this.progress }, ...(this.plan ? { plan: this.plan } : {}) };
  }

  getItems(): readonly TranscriptItem[] {
    return this.items;
  }

  /** Replaces everything (new task, load task from history). Listeners get `reset` and resend a snapshot. */
  reset(state: Partial<TranscriptState> = {}): void {
    this.items = (state.items ?? []).slice();
    this.index = new Map(this.items.map((it, i) => [it.id, i]));
    this.status = state.status ?? { state: 'idle' };
    this.progress = state.progress;
    this.plan = state.plan;
    this.taskId = state.taskId;
    this.open = undefined;
    this.toolItems.clear();
    this.approvalItems.clear();
    this.warningItems.clear();
    for (const it of this.items) {
      const m = /^i(\d+)$/.exec(it.id);
      if (m) this.counter = Math.max(this.counter, Number(m[1]));
    }
    for (const l of this.listeners) l({ kind: 'reset' });
  }

  /** The user decided on a hunk of a pending edit (panel or diff editor): its approval card shows the new states. */
  setHunkReview(requestId: string, hunks: HunkView[]): PatchOp[] {
    const ops: PatchOp[] = [];
    const rid = safeId(requestId);
    const item = this.items.find((it): it is ItemOf<'approval'> => it.kind === 'approval' && it.requestId === rid && it.status === 'pending');
    if (item?.preview?.kind === 'edit' && item.preview.hunks) this.update(ops, { ...item, preview: { ...item.preview, hunks: hunks.slice(0, 200) } });
    return this.emit(ops);
  }

  /** The files a task changed (completion block): added once per task, then updated in place (undo / keep). */
  setChanges(taskId: string, files: ChangedFile[], more = 0): PatchOp[] {
    const ops: PatchOp[] = [];
    const tid = safeId(taskId);
    // The block follows the run that produced it: updated in place until the user sends again, then a new one.
    let existing: ItemOf<'changes'> | undefined;
    for (let i = this.items.length - 1; i >= 0 && !existing; i--) {
      const it = this.items[i]!;
      if (it.kind === 'user') break;
      if (it.kind === 'changes' && it.taskId === tid) existing = it;
    }
    const body = { taskId: tid, files: files.slice(0, 500), ...(more ? { more } : {}) };
    if (existing) {
      this.update(ops, { ...existing, ...body });
    } else if (files.length) {
      this.append(ops, { id: this.nextId(), ts: this.now(), kind: 'changes', ...body });
    }
    return this.emit(ops);
  }

  /** The panel request (send_message / continue) that is about to start a run: Stop carries it back. */
  beginRequest(requestId: string): void {
    this.pendingRequestId = safeId(requestId);
  }

  /** The next run's user message is shown as `text` (the model still gets the whole prompt). */
  displayNextMessageAs(text: string): void {
    this.pendingDisplay = text;
  }

  /**
   * An error outside a run (no provider, failed to start): stays in the transcript with what to do. Topic 'setup'
   * (no usable model) is dropped again by clearSetupErrors once a model is configured.
   */
  addError(message: string, actions: Action[] = [], topic?: 'setup'): PatchOp[] {
    const ops: PatchOp[] = [];
    this.append(ops, { id: this.nextId(), ts: this.now(), kind: 'error', message: cap(message, LIMITS.preview).text, actions, ...(topic ? { topic } : {}) });
    return this.emit(ops);
  }

  /** Removes the "no model" errors (a model is configured now); true when there were any. */
  clearSetupErrors(): boolean {
    const kept = this.items.filter((it) => !(it.kind === 'error' && it.topic === 'setup'));
    if (kept.length === this.items.length) return false;
    this.items = kept;
    this.index = new Map(this.items.map((it, i) => [it.id, i]));
    for (const l of this.listeners) l({ kind: 'reset' });
    return true;
  }

  /**
   * Updates the latest tool card of `toolCallId` (the edit journal marks a checkpoint, a command's changed files).
   * Returns false when there is no such card.
   */
  annotateTool(toolCallId: string, patch: Partial<Pick<ItemOf<'tool'>, 'checkpoint' | 'changedFiles' | 'changedFilesMore'>>): boolean {
    const item = this.findTool(toolCallId);
    if (!item) return false;
    this.emit(this.updateOps({ ...item, ...patch }));
    return true;
  }

  /** Appends a checkpoint mark (a restore or an undo) to the transcript. */
  addCheckpointMark(mark: Omit<ItemOf<'checkpoint'>, 'id' | 'ts' | 'kind'>): PatchOp[] {
    const ops: PatchOp[] = [];
    this.append(ops, { ...mark, id: this.nextId(), ts: this.now(), kind: 'checkpoint' });
    return this.emit(ops);
  }

  /**
   * Rewinds the transcript to the end of the step that made `toolCallIds`: everything after the last of their cards
   * (and the approvals that belong to them) goes. Returns false when none of the cards is found. Listeners get a reset.
   */
  truncateAfterTools(toolCallIds: readonly string[]): boolean {
    const ids = new Set(toolCallIds.map(safeId));
    let last = -1;
    this.items.forEach((it, i) => {
      if ((it.kind === 'tool' || it.kind === 'approval') && ids.has(it.toolCallId)) last = i;
    });
    if (last < 0) return false;
    this.reset({ taskId: this.taskId, items: this.items.slice(0, last + 1), status: this.status, progress: this.progress, plan: this.plan });
    return true;
  }

  apply(e: AgentEvent): PatchOp[] {
    const ops: PatchOp[] = [];
    this.fold(ops, e);
    return this.emit(ops);
  }

  private fold(ops: PatchOp[], e: AgentEvent): void {
    switch (e.type) {
      case 'plan_updated':
        this.plan = planView(e.plan);
        ops.push({ op: 'plan', plan: this.plan });
        break;
      case 'sub_agent':
        this.foldNested(ops, e.parentCallId, e.event);
        break;
      case 'mode_context':
        this.closeStream(ops);
        this.append(ops, {
          id: this.nextId(), ts: this.now(), kind: 'context', mode: e.mode.slice(0, LIMITS.label),
          sources: e.sources.slice(0, 50).map((s) => s.slice(0, LIMITS.label)), tokens: Math.max(0, Math.round(e.tokens)),
        });
        break;
      case 'run_start': {
        this.closeStream(ops);
        this.toolItems.clear();
        this.approvalItems.clear();
        this.warningItems.clear();
        this.approvedAt.clear();
        const shown = this.pendingDisplay ?? e.userMessage;
        this.pendingDisplay = undefined;
        if (e.userMessage.trim() && shown.trim()) {
          this.append(ops, { id: this.nextId(), ts: this.now(), kind: 'user', text: cap(shown, LIMITS.itemText).text });
        }
        this.setStatus(ops, { state: 'running', runId: safeId(e.runId), requestId: this.pendingRequestId, mode: e.mode.slice(0, 100) });
        this.pendingRequestId = undefined;
        if (e.taskId) this.taskId = safeId(e.taskId);
        // Continue / resume (no new message) go on counting where the task was: "Iteration 7 / 25", not 0.
        const carried = !e.userMessage.trim() && this.progress ? Math.min(this.progress.iteration, e.maxIterations) : 0;
        this.setProgress(ops, { iteration: carried, maxIterations: e.maxIterations, inputTokens: 0, outputTokens: 0, elapsedMs: 0 });
        break;
      }
      case 'step_start':
        this.closeStream(ops);
        this.setProgress(ops, { ...this.baseProgress(), iteration: e.iteration, maxIterations: e.maxIterations });
        break;
      case 'text_delta':
        this.streamDelta(ops, 'assistant', e.delta);
        break;
      case 'thinking_delta':
        this.streamDelta(ops, 'thinking', e.delta);
        break;
      case 'tool_call_start': {
        this.closeStream(ops);
        const id = this.nextId();
        this.toolItems.set(e.id, id);
        this.append(ops, {
          id, ts: this.now(), kind: 'tool', toolCallId: safeId(e.id), name: e.name.slice(0, LIMITS.label),
          argsText: '', argsSummary: '', status: 'pending', startedAt: this.now(), resultTruncated: false,
        });
        break;
      }
      case 'tool_call_args_delta': {
        const item = this.tool(e.id);
        if (!item || item.argsText.length >= this.argsChars) break;
        const delta = e.delta.slice(0, this.argsChars - item.argsText.length);
        this.replace({ ...item, argsText: item.argsText + delta });
        ops.push({ op: 'delta', id: item.id, field: 'argsText', delta });
        break;
      }
      case 'tool_call_end': {
        this.closeStream(ops);
        const item = this.tool(e.id) ?? this.startToolLate(ops, e.id, e.name);
        this.update(ops, {
          ...item, argsText: prettyArgs(e.args, this.argsChars), argsSummary: summarizeArgs(e.args),
          status: item.status === 'pending' ? 'running' : item.status,
        });
        break;
      }
      case 'approval_requested': {
        const r = e.request;
        const tool = this.tool(r.toolCallId);
        if (tool) this.update(ops, { ...tool, status: 'awaiting_approval' });
        const id = this.nextId();
        this.approvalItems.set(r.id, id);
        this.append(ops, {
          id, ts: this.now(), kind: 'approval', requestId: safeId(r.id), toolCallId: safeId(r.toolCallId),
          toolName: r.toolName.slice(0, LIMITS.label), risk: r.risk, summary: approvalSummary(r.toolName, r.args, r.preview),
          preview: previewView(r.preview, this.diffChars), status: 'pending',
        });
        this.setStatus(ops, { ...this.status, state: 'awaiting_approval' });
        break;
      }
      case 'approval_resolved': {
        const item = this.approval(e.requestId);
        if (!item) break;
        const d = e.decision;
        const status = d.kind === 'reject' ? 'rejected' : d.scope === 'task' ? 'approved_task' : 'approved';
        const reason = d.kind === 'reject' && d.reason ? d.reason.slice(0, LIMITS.rejectReason) : undefined;
        this.update(ops, { ...item, status, reason });
        const tool = this.toolByCallId(item.toolCallId);
        if (tool && tool.status === 'awaiting_approval') {
          // The time the user took to decide is not the tool's: its clock (and the live ticker) starts now.
          const at = this.now();
          this.approvedAt.set(tool.id, at);
          const p = item.preview;
          const edit = d.kind !== 'reject' && p?.kind === 'edit'
            ? { edit: { path: p.path, ...(p.displayPath ? { displayPath: p.displayPath } : {}), isNewFile: p.isNewFile, added: p.added, removed: p.removed, requestId: item.requestId } }
            : {};
          this.update(ops, { ...tool, status: d.kind === 'reject' ? 'rejected' : 'running', startedAt: at, ...edit });
        }
        if (this.status.state === 'awaiting_approval' && !this.hasPendingApproval()) {
          this.setStatus(ops, { ...this.status, state: 'running' });
        }
        break;
      }
      case 'tool_progress': {
        const item = this.tool(e.id);
        if (item) this.update(ops, { ...item, progress: tail((item.progress ?? '') + e.chunk, this.progressChars) });
        break;
      }
      case 'tool_result': {
        const item = this.tool(e.id) ?? this.startToolLate(ops, e.id, e.name);
        const { text, truncated } = cap(e.content, this.resultChars);
        const keep = item.status === 'rejected' || item.status === 'cancelled';
        const approved = this.approvedAt.get(item.id);
        const durationMs = approved !== undefined ? Math.min(e.latencyMs, this.now() - approved) : e.latencyMs;
        const exit = item.name === 'execute_command' ? /^Exit code: (-?\d+)/m.exec(e.content) : null;
        const killed = item.name === 'execute_command' && /^Killed by signal/m.test(e.content);
        this.update(ops, {
          ...item, status: keep ? item.status : e.isError ? 'error' : 'done', durationMs: Math.max(0, durationMs),
          ...(exit ? { exitCode: Number(exit[1]) } : killed ? { exitCode: null } : {}),
          result: text, resultTruncated: truncated || e.fullOutputRef !== undefined,
          fullOutputRef: e.fullOutputRef === undefined ? undefined : safeId(e.fullOutputRef),
        });
        break;
      }
      case 'iteration':
        this.setProgress(ops, {
          iteration: e.iteration, maxIterations: e.maxIterations, inputTokens: e.usage.inputTokens,
          outputTokens: e.usage.outputTokens, costUsd: e.costUsd, elapsedMs: Math.max(0, e.elapsedMs),
          contextTokens: e.contextTokens, contextWindow: e.contextWindow,
        });
        break;
      case 'warning': {
        this.closeStream(ops);
        const message = cap(e.message, LIMITS.preview).text;
        const existing = e.key === undefined ? undefined : this.get(this.warningItems.get(e.key) ?? '');
        if (existing?.kind === 'warning') {
          this.update(ops, { ...existing, warningKind: e.kind, message });
          break;
        }
        const id = this.nextId();
        if (e.key !== undefined) this.warningItems.set(e.key, id);
        this.append(ops, { id, ts: this.now(), kind: 'warning', warningKind: e.kind, message });
        break;
      }
      case 'compaction':
        this.closeStream(ops);
        this.append(ops, {
          id: this.nextId(), ts: this.now(), kind: 'compaction', beforeTokens: e.beforeTokens,
          afterTokens: e.afterTokens, summary: cap(e.summary, LIMITS.preview).text,
        });
        break;
      case 'memory_recalled':
      case 'memory_learned':
        if (e.memories.length === 0) break;
        this.closeStream(ops);
        this.append(ops, {
          id: this.nextId(), ts: this.now(), kind: 'memory', direction: e.type === 'memory_recalled' ? 'recalled' : 'learned',
          memories: e.memories.slice(0, 100).map((m) => ({
            id: m.id.slice(0, LIMITS.label), content: cap(m.content, LIMITS.preview).text, type: m.type.slice(0, LIMITS.label),
          })),
        });
        break;
      case 'step_end':
        this.closeStream(ops);
        break;
      case 'run_end':
        this.endRun(ops, e.report);
        break;
    }
  }

  /**
   * A sub-agent's event (delegate_task): its items carry the delegate card's id as parentId, its tool call ids are
   * namespaced by the parent call (a child's "call_1" is not the parent's), and its run boundaries and progress
   * do not touch the parent's status: the parent's card shows the child's result when the call returns.
   */
  private foldNested(ops: PatchOp[], parentCallId: string, e: AgentEvent): void {
    const ns = (id: string) => `${parentCallId}>${id}`;
    switch (e.type) {
      case 'run_start':
      case 'iteration':
      case 'step_start':
      case 'sub_agent':
        this.closeStream(ops);
        return;
      case 'run_end': {
        this.closeStream(ops);
        const parent = this.tool(parentCallId)?.id;
        if (parent === undefined) return;
        for (const item of this.items) {
          if (item.kind === 'tool' && item.parentId === parent && (item.status === 'pending' || item.status === 'running' || item.status === 'awaiting_approval')) {
            this.update(ops, { ...item, status: 'cancelled' });
          }
        }
        return;
      }
    }
    let inner: AgentEvent = e;
    if (e.type === 'tool_call_start' || e.type === 'tool_call_args_delta' || e.type === 'tool_call_end' || e.type === 'tool_progress' || e.type === 'tool_result') {
      inner = { ...e, id: ns(e.id) };
    } else if (e.type === 'approval_requested') {
      inner = { ...e, request: { ...e.request, toolCallId: ns(e.request.toolCallId) } };
    } else if (e.type === 'warning' && e.key !== undefined) {
      inner = { ...e, key: ns(e.key) };
    }
    const outer = this.nestParent;
    this.nestParent = this.tool(parentCallId)?.id;
    try {
      this.fold(ops, inner);
    } finally {
      this.nestParent = outer;
    }
  }

  // ---------- internals ----------

  private endRun(ops: PatchOp[], r: Extract<AgentEvent, { type: 'run_end' }>['report']): void {
    this.closeStream(ops);
    for (const item of this.items) {
      if (item.kind === 'tool' && (item.status === 'pending' || item.status === 'running' || item.status === 'awaiting_approval')) {
        this.update(ops, { ...item, status: 'cancelled' });
      } else if (item.kind === 'approval' && item.status === 'pending') {
        this.update(ops, { ...item, status: 'cancelled' });
      }
    }
    // A plain answer was streamed above already: the run end does not repeat it.
    const last = [...this.items].reverse().find((it) => it.kind !== 'tool' && it.kind !== 'warning');
    const repeated = (r.reason === 'converse' || r.reason === 'done') && last?.kind === 'assistant' && last.text.trim() === r.detail.trim();
    this.append(ops, {
      id: this.nextId(), ts: this.now(), kind: 'run_end', reason: r.reason, detail: repeated ? '' : cap(r.detail, LIMITS.itemText).text,
      iterations: r.iterations, inputTokens: r.usage.inputTokens, outputTokens: r.usage.outputTokens,
      costUsd: r.costUsd, elapsedMs: Math.max(0, r.elapsedMs), actions: this.runEndActions(r),
      ...spendView(r),
    });
    this.setProgress(ops, {
      ...this.baseProgress(), iteration: r.iterations, inputTokens: r.usage.inputTokens,
      outputTokens: r.usage.outputTokens, costUsd: r.costUsd, elapsedMs: Math.max(0, r.elapsedMs),
    });
    this.setStatus(ops, { state: 'idle' });
  }

  /** A finished plan-mode run offers to hand its plan to implement mode. */
  private runEndActions(r: Extract<AgentEvent, { type: 'run_end' }>['report']): Action[] {
    const actions = runEndActions(r.reason, r.detail);
    return r.reason === 'done' && this.status.mode === 'plan' && r.detail.trim() ? ['implement_plan', ...actions] : actions;
  }

  private streamDelta(ops: PatchOp[], kind: Streamed['kind'], delta: string): void {
    if (!delta) return;
    const open = this.open;
    if (open && open.kind === kind) {
      if (open.text.length >= LIMITS.itemText) return;
      const d = delta.slice(0, LIMITS.itemText - open.text.length);
      const next = { ...open, text: open.text + d };
      this.replace(next);
      this.open = next;
      ops.push({ op: 'delta', id: open.id, field: 'text', delta: d });
      return;
    }
    this.closeStream(ops);
    const item: Streamed = { id: this.nextId(), ts: this.now(), kind, text: delta.slice(0, LIMITS.itemText), streaming: true };
    this.append(ops, item);
    this.open = item;
  }

  private closeStream(ops: PatchOp[]): void {
    const open = this.open;
    if (!open) return;
    this.open = undefined;
    this.replace({ ...(this.get(open.id) as Streamed), streaming: false });
    ops.push({ op: 'end_stream', id: open.id });
  }

  /** A result or end for a call whose start we never saw (e.g. restored mid-run): make a card for it. */
  private startToolLate(ops: PatchOp[], callId: string, name: string): ItemOf<'tool'> {
    const id = this.nextId();
    this.toolItems.set(callId, id);
    const item: ItemOf<'tool'> = {
      id, ts: this.now(), kind: 'tool', toolCallId: safeId(callId), name: name.slice(0, LIMITS.label),
      argsText: '', argsSummary: '', status: 'running', resultTruncated: false,
    };
    this.append(ops, item);
    return item;
  }

  private findTool(callId: string): ItemOf<'tool'> | undefined {
    const own = this.tool(callId);
    if (own) return own;
    const safe = safeId(callId);
    for (let i = this.items.length - 1; i >= 0; i--) {
      const it = this.items[i];
      if (it.kind === 'tool' && it.toolCallId === safe) return it;
    }
    return undefined;
  }

  private updateOps(item: TranscriptItem): PatchOp[] {
    const ops: PatchOp[] = [];
    this.update(ops, item);
    return ops;
  }

  private tool(callId: string): ItemOf<'tool'> | undefined {
    const id = this.toolItems.get(callId);
    const item = id === undefined ? undefined : this.get(id);
    return item?.kind === 'tool' ? item : undefined;
  }

  private toolByCallId(safeCallId: string): ItemOf<'tool'> | undefined {
    for (const [callId, id] of this.toolItems) {
      if (safeId(callId) === safeCallId) {
        const item = this.get(id);
        if (item?.kind === 'tool') return item;
      }
    }
    return undefined;
  }

  private approval(requestId: string): ItemOf<'approval'> | undefined {
    const id = this.approvalItems.get(requestId);
    const item = id === undefined ? undefined : this.get(id);
    return item?.kind === 'approval' ? item : undefined;
  }

  private hasPendingApproval(): boolean {
    for (const id of this.approvalItems.values()) {
      const it = this.get(id);
      if (it?.kind === 'approval' && it.status === 'pending') return true;
    }
    return false;
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

  private nextId(): string {
    return `i${++this.counter}`;
  }

  private get(id: string): TranscriptItem | undefined {
    const i = this.index.get(id);
    return i === undefined ? undefined : this.items[i];
  }

  private append(ops: PatchOp[], next: TranscriptItem): void {
    const item = this.nestParent !== undefined ? { ...next, parentId: this.nestParent } : next;
    this.index.set(item.id, this.items.length);
    this.items.push(item);
    ops.push({ op: 'append', item });
  }

  private replace(item: TranscriptItem): void {
    const i = this.index.get(item.id);
    if (i !== undefined) this.items[i] = item;
  }

  private update(ops: PatchOp[], item: TranscriptItem): void {
    this.replace(item);
    ops.push({ op: 'update', item });
  }

  private emit(ops: PatchOp[]): PatchOp[] {
    if (ops.length > 0) for (const l of this.listeners) l({ kind: 'ops', ops });
    return ops;
  }
}

const SPEND_ORDER = ['steps', 'compaction', 'reflection', 'sub_agents'] as const;

/** The run report's breakdown for the run-end card: only when more than the model steps spent something. */
function spendView(r: Extract<AgentEvent, { type: 'run_end' }>['report']): Pick<ItemOf<'run_end'>, 'spend' | 'fallbackModel'> {
  const out: Pick<ItemOf<'run_end'>, 'spend' | 'fallbackModel'> = {};
  const lines = SPEND_ORDER.flatMap((source) => {
    const line = r.spend?.[source];
    if (!line) return [];
    const tokens = Math.max(0, Math.round(line.usage.inputTokens + line.usage.outputTokens));
    return [{ source, tokens, ...(line.costUsd !== undefined && line.costUsd >= 0 ? { costUsd: line.costUsd } : {}) }];
  });
  if (lines.some((l) => l.source !== 'steps')) out.spend = lines;
  if (r.fallback) out.fallbackModel = r.fallback.to.slice(0, LIMITS.label);
  return out;
}

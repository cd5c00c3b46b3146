// Tool cards and approval cards: a tool call's card from its first streamed byte to its result, and the
// approval asked for it. Call and request ids are per run (a model's "call_1" repeats across runs).
import type { AgentEvent } from '../../core/loop/events';
import { LIMITS, type HunkView, type ItemOf, type PatchOp } from '../../protocol/messages';
import { approvalSummary, cap, prettyArgs, previewView, safeId, summarizeArgs, tail } from '../itemFormat';
import type { TranscriptItems } from './items';

type EventOf<T extends AgentEvent['type']> = Extract<AgentEvent, { type: T }>;

/** Characters each part of a card keeps (the full text stays with the loop). */
interface ToolCardLimits {
  resultChars: number;
  progressChars: number;
  argsChars: number;
  diffChars: number;
}

/** A tool card state that is not an outcome yet. */
export function toolStillOpen(status: string): boolean {
  return status === 'pending' || status === 'running' || status === 'awaiting_approval';
}

export class ToolCards {
  /** Per run: model tool call id / approval request id -> item id. */
  private toolItems = new Map<string, string>();
  private approvalItems = new Map<string, string>();
  /** Tool item id -> when its approval was answered: the tool's duration counts from there. */
  private approvedAt = new Map<string, number>();

  constructor(
    private readonly items: TranscriptItems,
    private readonly now: () => number,
    private readonly limits: ToolCardLimits,
  ) {}

  /** The transcript was replaced: the ids of the run it showed point nowhere. */
  forgetIds(): void {
    this.toolItems.clear();
    this.approvalItems.clear();
  }

  /** A new run: its call ids start over. */
  startRun(): void {
    this.forgetIds();
    this.approvedAt.clear();
  }

  start(ops: PatchOp[], callId: string, name: string): void {
    const id = this.items.nextId();
    this.toolItems.set(callId, id);
    this.items.append(ops, {
      id,
      ts: this.now(),
      kind: 'tool',
      toolCallId: safeId(callId),
      name: name.slice(0, LIMITS.label),
      argsText: '',
      argsSummary: '',
      status: 'pending',
      startedAt: this.now(),
      resultTruncated: false,
    });
  }

  argsDelta(ops: PatchOp[], callId: string, delta: string): void {
    const item = this.tool(callId);
    const max = this.limits.argsChars;
    if (!item || item.argsText.length >= max) return;
    const d = delta.slice(0, max - item.argsText.length);
    this.items.replace({ ...item, argsText: item.argsText + d });
    ops.push({ op: 'delta', id: item.id, field: 'argsText', delta: d });
  }

  end(ops: PatchOp[], e: EventOf<'tool_call_end'>): void {
    const item = this.tool(e.id) ?? this.startLate(ops, e.id, e.name);
    this.items.update(ops, {
      ...item,
      argsText: prettyArgs(e.args, this.limits.argsChars),
      argsSummary: summarizeArgs(e.args),
      status: item.status === 'pending' ? 'running' : item.status,
    });
  }

  requestApproval(ops: PatchOp[], r: EventOf<'approval_requested'>['request']): void {
    const tool = this.tool(r.toolCallId);
    if (tool) this.items.update(ops, { ...tool, status: 'awaiting_approval' });
    const id = this.items.nextId();
    this.approvalItems.set(r.id, id);
    this.items.append(ops, {
      id,
      ts: this.now(),
      kind: 'approval',
      requestId: safeId(r.id),
      toolCallId: safeId(r.toolCallId),
      toolName: r.toolName.slice(0, LIMITS.label),
      risk: r.risk,
      summary: approvalSummary(r.toolName, r.args, r.preview),
      preview: previewView(r.preview, this.limits.diffChars),
      status: 'pending',
      ...(r.sensitive
        ? {
            sensitive: {
              path: r.sensitive.path.slice(0, LIMITS.path),
              notice: r.sensitive.notice.slice(0, LIMITS.label),
            },
          }
        : {}),
    });
  }

  /** False when the approval is not on this run's cards. */
  resolveApproval(ops: PatchOp[], e: EventOf<'approval_resolved'>): boolean {
    const item = this.approval(e.requestId);
    if (!item) return false;
    const d = e.decision;
    const status = d.kind === 'reject' ? 'rejected' : d.scope === 'task' ? 'approved_task' : 'approved';
    const reason = d.kind === 'reject' && d.reason ? d.reason.slice(0, LIMITS.rejectReason) : undefined;
    this.items.update(ops, { ...item, status, reason });
    const tool = this.toolByCallId(item.toolCallId);
    if (tool && tool.status === 'awaiting_approval') {
      // The time the user took to decide is not the tool's: its clock (and the live ticker) starts now.
      const at = this.now();
      this.approvedAt.set(tool.id, at);
      const p = item.preview;
      const edit =
        d.kind !== 'reject' && p?.kind === 'edit'
          ? {
              edit: {
                path: p.path,
                ...(p.displayPath ? { displayPath: p.displayPath } : {}),
                isNewFile: p.isNewFile,
                added: p.added,
                removed: p.removed,
                requestId: item.requestId,
                ...rejectedHunks(p.hunks),
              },
            }
          : {};
      this.items.update(ops, { ...tool, status: d.kind === 'reject' ? 'rejected' : 'running', startedAt: at, ...edit });
    }
    return true;
  }

  progress(ops: PatchOp[], callId: string, chunk: string): void {
    const item = this.tool(callId);
    if (item)
      this.items.update(ops, { ...item, progress: tail((item.progress ?? '') + chunk, this.limits.progressChars) });
  }

  result(ops: PatchOp[], e: EventOf<'tool_result'>): void {
    const item = this.tool(e.id) ?? this.startLate(ops, e.id, e.name);
    const { text, truncated } = cap(e.content, this.limits.resultChars);
    const keep = item.status === 'rejected' || item.status === 'cancelled';
    const approved = this.approvedAt.get(item.id);
    // A command's row shows the runner's own measure (the figure the Forge terminal prints), else the call's time.
    const measured = item.name === 'execute_command' ? commandElapsed(e.data) : undefined;
    const durationMs =
      measured ?? (approved !== undefined ? Math.min(e.latencyMs, this.now() - approved) : e.latencyMs);
    const exit = item.name === 'execute_command' ? /^Exit code: (-?\d+)/m.exec(e.content) : null;
    const killed = item.name === 'execute_command' && /^Killed by signal/m.test(e.content);
    // The row counts what was written (the tool's own figures: a per-hunk review writes less than the proposal).
    const written = item.edit && !e.isError ? writtenCounts(e.data) : undefined;
    this.items.update(ops, {
      ...item,
      ...(written && item.edit ? { edit: { ...item.edit, ...written } } : {}),
      status: keep ? item.status : e.isError ? 'error' : 'done',
      durationMs: Math.max(0, durationMs),
      ...(exit ? { exitCode: Number(exit[1]) } : killed ? { exitCode: null } : {}),
      result: text,
      resultTruncated: truncated || e.fullOutputRef !== undefined,
      fullOutputRef: e.fullOutputRef === undefined ? undefined : safeId(e.fullOutputRef),
    });
  }

  /** The run ended: whatever still waited or ran never will (approvals included). */
  cancelOpen(ops: PatchOp[]): void {
    for (const item of this.items.all()) {
      if (item.kind === 'tool' && toolStillOpen(item.status)) {
        this.items.update(ops, { ...item, status: 'cancelled' });
      } else if (item.kind === 'approval' && item.status === 'pending') {
        this.items.update(ops, { ...item, status: 'cancelled' });
      }
    }
  }

  /**
   * This run's card for a call; or, for a call this run picks up (the approval a restore asks again), the card the
   * earlier run left waiting, so its result lands on it instead of on a second, bare card.
   */
  tool(callId: string): ItemOf<'tool'> | undefined {
    const id = this.toolItems.get(callId);
    if (id !== undefined) {
      const item = this.items.get(id);
      return item?.kind === 'tool' ? item : undefined;
    }
    const waiting = this.latest(callId, true);
    if (waiting) this.toolItems.set(callId, waiting.id);
    return waiting;
  }

  /** This run's card for a call, else the latest card of that call id in the whole transcript (a restored task). */
  find(callId: string): ItemOf<'tool'> | undefined {
    return this.tool(callId) ?? this.latest(callId, false);
  }

  /** The latest card of a call id in the whole transcript (`open`: only one still waiting or running). */
  private latest(callId: string, open: boolean): ItemOf<'tool'> | undefined {
    const safe = safeId(callId);
    const all = this.items.all();
    for (let i = all.length - 1; i >= 0; i--) {
      const it = all[i]!;
      if (it.kind === 'tool' && it.toolCallId === safe && (!open || toolStillOpen(it.status))) return it;
    }
    return undefined;
  }

  hasPendingApproval(): boolean {
    for (const id of this.approvalItems.values()) {
      const it = this.items.get(id);
      if (it?.kind === 'approval' && it.status === 'pending') return true;
    }
    return false;
  }

  /** A result or end for a call whose start we never saw (e.g. restored mid-run): make a card for it. */
  private startLate(ops: PatchOp[], callId: string, name: string): ItemOf<'tool'> {
    const id = this.items.nextId();
    this.toolItems.set(callId, id);
    const item: ItemOf<'tool'> = {
      id,
      ts: this.now(),
      kind: 'tool',
      toolCallId: safeId(callId),
      name: name.slice(0, LIMITS.label),
      argsText: '',
      argsSummary: '',
      status: 'running',
      resultTruncated: false,
    };
    this.items.append(ops, item);
    return item;
  }

  private toolByCallId(safeCallId: string): ItemOf<'tool'> | undefined {
    for (const [callId, id] of this.toolItems) {
      if (safeId(callId) === safeCallId) {
        const item = this.items.get(id);
        if (item?.kind === 'tool') return item;
      }
    }
    return undefined;
  }

  private approval(requestId: string): ItemOf<'approval'> | undefined {
    const id = this.approvalItems.get(requestId);
    const item = id === undefined ? undefined : this.items.get(id);
    return item?.kind === 'approval' ? item : undefined;
  }
}

/** The hunks a per-hunk review rejected, numbered as the card showed them, with the user's reasons. */
function rejectedHunks(hunks: HunkView[] | undefined): { rejectedHunks?: { n: number; reason?: string }[] } {
  const rejected = (hunks ?? []).filter((h) => h.state === 'rejected');
  if (!rejected.length) return {};
  return { rejectedHunks: rejected.map((h) => ({ n: h.index + 1, ...(h.reason ? { reason: h.reason } : {}) })) };
}

/** How long a command ran as its runner measured it (`data.elapsedMs`, execute_command), when reported. */
function commandElapsed(data: unknown): number | undefined {
  const ms = (data as { elapsedMs?: unknown } | undefined)?.elapsedMs;
  return typeof ms === 'number' && Number.isFinite(ms) && ms >= 0 ? ms : undefined;
}

/** The line counts an edit tool reports for what it wrote (`data.added` / `data.removed`), when it reports them. */
function writtenCounts(data: unknown): { added: number; removed: number } | undefined {
  const d = data as { added?: unknown; removed?: unknown } | undefined;
  return typeof d?.added === 'number' && typeof d.removed === 'number'
    ? { added: d.added, removed: d.removed }
    : undefined;
}

// The host's Approver: one place where pending approvals live, answered by whichever surface is first
// (panel button, diff editor title, keybinding, palette). It only routes questions to people: whether a call needs
// one (settings, task grants, the control plane) is decided by core's Policy, for the extension and the CLI alike. Edit previews open a diff; the user's edits on the
// proposed side come back as `editedContent`. No runtime 'vscode' import, so it is unit-testable in Node.
import type { ApprovalDecision } from '../../core/tools/types';
import type { ApprovalRequest, Approver } from '../../core/safety/approval';
import type { RecordedAnswer, RecordedReview } from '../../core/tasks/answer-log';
import type { Proposal, ProposalOutcome } from '../edits/diff-approval';

/** What the center needs from the diff editor surface (DiffApproval implements it). */
export interface EditProposalSurface {
  /** `open: false`: keep the proposal (and its per-hunk review) without opening a diff editor. */
  propose(
    proposal: Proposal,
    signal?: AbortSignal,
    opts?: { open?: boolean; review?: RecordedReview },
  ): Promise<ProposalOutcome>;
  accept(id: string): Promise<boolean>;
  reject(id: string, reason?: string): Promise<boolean>;
}

interface ApprovalCenterOptions {
  /** The diff surface for edit previews (and their per-hunk review); without it edits are approved whole from the panel. */
  diff?: EditProposalSurface;
  /** Whether to open a diff for edit previews (forge.showDiffOnProposal). */
  showDiff?: () => boolean;
  /**
   * The file's text now (open editor first, then disk; undefined when missing). With it, an approved edit whose
   * file changed while the proposal waited is refused instead of written over the user's changes.
   */
  readCurrent?: (path: string) => Promise<string | undefined>;
  /** The user's answers kept across a crash: recorded as given, recalled when a restored run asks again. */
  answers?: ApprovalAnswers;
}

/** Where answers are kept (the answer log, per task). */
export interface ApprovalAnswers {
  recall(req: ApprovalRequest): Promise<RecordedAnswer | undefined>;
  /** Called with the user's answer as given, before anything acts on it. */
  answered(req: ApprovalRequest, decision: ApprovalDecision): void;
}

type ApprovalListener = (
  event:
    | { type: 'requested'; request: ApprovalRequest }
    | { type: 'resolved'; request: ApprovalRequest; decision: ApprovalDecision; auto: boolean },
) => void;

interface Entry {
  request: ApprovalRequest;
  settle: (d: ApprovalDecision) => void;
  viaDiff: boolean;
  /** scope chosen on the panel for an approve that is routed through the diff */
  scope?: 'once' | 'task';
  /** The same request asked again while pending: answered with the same decision. */
  waiters: ((d: ApprovalDecision) => void)[];
}

export class ApprovalCenter implements Approver {
  private readonly entries = new Map<string, Entry>();
  private readonly listeners = new Set<ApprovalListener>();

  constructor(private readonly options: ApprovalCenterOptions = {}) {}

  onDidChange(listener: ApprovalListener): { dispose(): void } {
    this.listeners.add(listener);
    return { dispose: () => this.listeners.delete(listener) };
  }

  /** Pending requests, oldest first (the panel renders them; survives a panel reload). */
  pending(): ApprovalRequest[] {
    return [...this.entries.values()].map((e) => e.request);
  }

  request(req: ApprovalRequest, signal: AbortSignal): Promise<ApprovalDecision> {
    if (signal.aborted) return Promise.reject(abortError(signal));
    // Only questions for a person reach here: settings, flags and task grants are decided by core's Policy.
    const existing = this.entries.get(req.id);
    if (existing) return new Promise((resolve) => existing.waiters.push(resolve));
    const answers = this.options.answers;
    if (!answers) return this.ask(req, signal);
    // A restored run asks its pending approval again: an answer the user gave before the crash is taken, not asked.
    return answers
      .recall(req)
      .catch(() => undefined)
      .then((recalled) => {
        if (signal.aborted) throw abortError(signal);
        const again = this.entries.get(req.id);
        if (again) return new Promise<ApprovalDecision>((resolve) => again.waiters.push(resolve));
        if (recalled?.decision) return this.replay(req, recalled.decision);
        return this.ask(req, signal, recalled?.review);
      });
  }

  /** The user's recorded answer, as if given now (an approved edit whose file changed since is still refused). */
  private async replay(req: ApprovalRequest, recorded: ApprovalDecision): Promise<ApprovalDecision> {
    const checked = await this.checkStale(req, recorded);
    const decision: ApprovalDecision =
      req.sensitive && checked.kind === 'approve' && checked.scope === 'task' ? { ...checked, scope: 'once' } : checked;
    this.emit({ type: 'resolved', request: req, decision, auto: false });
    return decision;
  }

  private ask(req: ApprovalRequest, signal: AbortSignal, review?: RecordedReview): Promise<ApprovalDecision> {
    return new Promise<ApprovalDecision>((resolve, reject) => {
      const preview = req.preview;
      // Edits always go through the diff surface, which keeps the per-hunk review; the editor opens only when wanted.
      const useDiff = preview?.kind === 'edit' && !!this.options.diff;
      const entry: Entry = {
        request: req,
        viaDiff: useDiff,
        waiters: [],
        // Recorded as given (a crash right after must not ask it again), then checked before it counts: the file may
        // have changed while the proposal waited.
        settle: (answer) => {
          if (this.entries.get(req.id) === entry) this.options.answers?.answered(req, answer);
          void this.checkStale(req, answer).then((d) => finish(d));
        },
      };
      const finish = (answer: ApprovalDecision) => {
        if (!this.entries.has(req.id)) return;
        // "Always for this task" is not offered for a control-plane edit; an answer that says so approves this one.
        const decision: ApprovalDecision =
          req.sensitive && answer.kind === 'approve' && answer.scope === 'task' ? { ...answer, scope: 'once' } : answer;
        this.entries.delete(req.id);
        signal.removeEventListener('abort', onAbort);
        this.emit({ type: 'resolved', request: req, decision, auto: false });
        resolve(decision);
        for (const w of entry.waiters) w(decision);
      };
      const onAbort = () => {
        if (!this.entries.delete(req.id)) return;
        if (useDiff) void this.options.diff!.reject(req.id, 'cancelled');
        this.emit({ type: 'resolved', request: req, decision: { kind: 'reject', reason: 'cancelled' }, auto: false });
        reject(abortError(signal));
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.entries.set(req.id, entry);
      this.emit({ type: 'requested', request: req });

      if (useDiff && preview?.kind === 'edit') {
        const proposal = {
          id: req.id,
          path: preview.path,
          original: preview.original,
          proposed: preview.proposed,
          isNewFile: preview.isNewFile,
        };
        this.options.diff!.propose(proposal, undefined, { open: this.options.showDiff?.() ?? true, review }).then(
          (outcome) => {
            if (outcome.kind === 'accept') {
              // The previewed edit goes to the tool as it is, so nothing is read or computed again before the write.
              entry.settle({
                kind: 'approve',
                scope: entry.scope ?? 'once',
                ...(outcome.content !== preview.proposed ? { editedContent: outcome.content } : {}),
                edit: {
                  path: preview.path,
                  original: preview.original,
                  content: outcome.content,
                  isNewFile: preview.isNewFile,
                },
                ...(outcome.review ? { reviewNote: outcome.review.note } : {}),
              });
            } else if (outcome.reason !== 'cancelled' || !signal.aborted) {
              entry.settle({ kind: 'reject', ...(outcome.reason ? { reason: outcome.reason } : {}) });
            }
          },
          () => entry.settle({ kind: 'reject', reason: 'the diff editor failed' }),
        );
      }
    });
  }

  /**
   * Answers a pending request from any surface (panel). Edits shown in a diff are routed through it, so the
   * proposed side's current text (with the user's edits) is what gets approved. False when not pending.
   */
  async resolve(requestId: string, decision: ApprovalDecision): Promise<boolean> {
    const entry = this.entries.get(requestId);
    if (!entry) return false;
    if (entry.viaDiff && this.options.diff) {
      if (decision.kind === 'approve' && decision.editedContent === undefined) {
        entry.scope = decision.scope;
        return this.options.diff.accept(requestId);
      }
      // A rejection, or an approve with explicit content: settle now, then close the diff.
      entry.settle(decision);
      void this.options.diff.reject(requestId, decision.kind === 'reject' ? decision.reason : 'resolved elsewhere');
      return true;
    }
    entry.settle(decision);
    return true;
  }

  /** An approved edit whose file changed since the preview was taken becomes a rejection with the reason. */
  private async checkStale(req: ApprovalRequest, decision: ApprovalDecision): Promise<ApprovalDecision> {
    const preview = req.preview;
    if (decision.kind !== 'approve' || preview?.kind !== 'edit' || !this.options.readCurrent) return decision;
    let now: string | undefined;
    try {
      now = await this.options.readCurrent(preview.path);
    } catch {
      return decision; // the applier checks again before writing
    }
    const unchanged = preview.isNewFile ? now === undefined : now !== undefined && sameText(now, preview.original);
    if (unchanged) return decision;
    const name = preview.displayPath ?? preview.path;
    return {
      kind: 'reject',
      reason: `${name} ${preview.isNewFile ? 'was created' : 'changed'} while this proposal waited for approval, so it was not written (the user's changes are kept). Re-read the file and propose the edit again.`,
    };
  }

  private emit(event: Parameters<ApprovalListener>[0]): void {
    for (const l of this.listeners) {
      try {
        l(event);
      } catch {
        /* a broken listener must not block approvals */
      }
    }
  }
}

/** Line endings may be normalised by the editor (CRLF vs LF); that is not a change. */
function sameText(a: string, b: string): boolean {
  return a === b || a.replace(/\r\n/g, '\n') === b.replace(/\r\n/g, '\n');
}

function abortError(signal: AbortSignal): Error {
  const reason = signal.reason;
  if (reason instanceof Error) return reason;
  const e = new Error('Approval cancelled');
  e.name = 'AbortError';
  return e;
}

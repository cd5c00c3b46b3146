// Proposed edits shown as diffs before anything is written. Left: the original snapshot (read-only
// `forge-original:` content provider). Right: the proposal in an in-memory, writable `forge-proposed:` file
// system, so the user can edit it — including per-hunk "Revert Block" arrows of the diff editor — before
// accepting. Accept/Reject come from the editor title, keybindings, the panel, or the palette; each hunk can be
// accepted or rejected on its own (CodeLens on the proposed side, the panel's card), and only the accepted
// hunks are written. The diff opens beside the user's editor without taking focus, so typing goes on.
import * as path from 'node:path';
import * as vscode from 'vscode';
import {
  applyHunks,
  carryDecisions,
  describeReview,
  splitHunks,
  summarizeReview,
  type Hunk,
  type HunkDecision,
  type HunkState,
} from '../../core/review/hunks';
import { whenEditSettled } from './edit-applier';
import { key, ProposedFs } from './proposed-fs';
import type { RecordedReview } from '../../core/tasks/answer-log';

const ORIGINAL_SCHEME = 'forge-original';
export const PROPOSED_SCHEME = 'forge-proposed';
/** Context keys used by package.json menus/keybindings. */
const CTX_PROPOSAL_ACTIVE = 'forge.proposalActive';
const CTX_HAS_PENDING = 'forge.hasPendingProposals';

export interface Proposal {
  id: string;
  /** Absolute path of the real file. */
  path: string;
  original: string;
  proposed: string;
  isNewFile: boolean;
}

export type ProposalOutcome =
  | {
      kind: 'accept';
      /** What to write: the original with the accepted hunks of the proposed side (the user may have edited it). */
      content: string;
      /** The user typed into the proposed side. */
      edited: boolean;
      /** Some hunks were rejected: what the model must be told. */
      review?: { note: string; rejected: number; total: number };
    }
  | { kind: 'reject'; reason?: string };

/** A proposal's hunks and the user's decision on each, as the panel and the CodeLens show them. */
export interface HunkReview {
  id: string;
  original: string;
  hunks: readonly Hunk[];
  decisions: ReadonlyMap<number, HunkDecision>;
}

interface Pending {
  proposal: Proposal;
  proposedUri: vscode.Uri;
  originalUri: vscode.Uri;
  resolve: (o: ProposalOutcome) => void;
  outcome: Promise<ProposalOutcome>;
  /** Hunks of original -> the proposed side as it is now, and the user's decisions (kept while the proposal is open). */
  hunks: Hunk[];
  decisions: Map<number, HunkDecision>;
  /** The proposed side's text the hunks were computed from. */
  hunksOf: string;
  /** The diff editor being opened (settle waits for it before closing the tab). */
  opening?: Promise<unknown>;
}

/** How long a proposal answered while its diff was opening watches for the tab to close it. */
const LATE_TAB_MS = 5000;

/**
 * The longest an accepted proposal's tab waits for its edit to be written before it closes anyway (an edit that is
 * never applied: refused as stale, or the run stopped). Closing the diff while the workbench applies and saves the
 * edit slows both down and can make the save fail, so the wait is generous: the tab is cosmetic, the write is not.
 */
const ACCEPT_CLOSE_DELAY_MS = 10_000;

interface DiffApprovalOptions {
  /** Relative label for a path in the diff title (default: workspace-relative). */
  label?: (absPath: string) => string;
}

interface ProposeOptions {
  /** Open the diff editor (forge.showDiffOnProposal); otherwise the proposal is answered from the panel only. */
  open?: boolean;
  /** The user's review of this proposal before a reload (answer log): hunk decisions and their edits, kept. */
  review?: RecordedReview;
}

export class DiffApproval implements vscode.Disposable {
  private readonly pending = new Map<string, Pending>();
  private serial = 0;
  private readonly originals = new Map<string, string>();
  private readonly fsProvider = new ProposedFs();
  private readonly changeEmitter = new vscode.EventEmitter<void>();
  private readonly hunkEmitter = new vscode.EventEmitter<HunkReview>();
  private readonly disposables: vscode.Disposable[] = [];
  private readonly rehunkTimers = new Map<string, ReturnType<typeof setTimeout>>();
  /** Fires when a proposal is added or resolved. */
  readonly onDidChange = this.changeEmitter.event;
  /** Fires when a pending proposal's hunks or the user's decisions on them change. */
  readonly onDidChangeHunks = this.hunkEmitter.event;

  constructor(private readonly options: DiffApprovalOptions = {}) {
    const originals = this.originals;
    this.disposables.push(
      vscode.workspace.registerFileSystemProvider(PROPOSED_SCHEME, this.fsProvider, { isCaseSensitive: true }),
      vscode.workspace.registerTextDocumentContentProvider(ORIGINAL_SCHEME, {
        provideTextDocumentContent: (uri) => originals.get(key(uri)) ?? '',
      }),
      vscode.window.tabGroups.onDidChangeTabs(() => this.updateContext()),
      vscode.window.tabGroups.onDidChangeTabGroups(() => this.updateContext()),
      vscode.window.onDidChangeActiveTextEditor(() => this.updateContext()),
      // The user edits the proposed side: its hunks are recomputed (decisions carried over where the hunk is the same).
      vscode.workspace.onDidChangeTextDocument((e) => {
        if (e.document.uri.scheme === PROPOSED_SCHEME) this.scheduleRehunk(e.document.uri);
      }),
      this.changeEmitter,
      this.hunkEmitter,
    );
    this.updateContext();
  }

  /**
   * Shows the diff (beside the user's editor, without taking focus) and resolves when the proposal is accepted or
   * rejected from any surface. Aborting the signal closes the diff and resolves as rejected ("cancelled").
   */
  propose(proposal: Proposal, signal?: AbortSignal, opts: ProposeOptions = {}): Promise<ProposalOutcome> {
    const existing = this.pending.get(proposal.id);
    if (existing) return existing.outcome;
    const rel = this.label(proposal.path).replace(/^\/+/, '');
    // The path is the file's workspace path only (it is what the breadcrumb shows); a serial in the query keeps the
    // URIs unique: an id asked again (resumed after a reload) must not share them with the cancelled proposal whose
    // tab and in-memory file are still being cleaned up.
    const query = `p=${++this.serial}`;
    const proposedUri = vscode.Uri.from({ scheme: PROPOSED_SCHEME, path: `/${rel}`, query });
    const originalUri = vscode.Uri.from({ scheme: ORIGINAL_SCHEME, path: `/${rel}`, query });
    const original = proposal.isNewFile ? '' : proposal.original;
    this.originals.set(key(originalUri), original);
    // A review the user began before a reload comes back as they left it: their edits, then their decisions.
    const proposed = opts.review?.proposed ?? proposal.proposed;
    this.fsProvider.set(proposedUri, proposed);
    // The file's own document is loaded while the user reads the diff: an approved edit of a file no editor shows is
    // written straight to disk (VscodeEditApplier), and the workbench's reload of a loaded document is an undoable
    // edit, so Ctrl+Z in the editor still reverts it.
    if (!proposal.isNewFile)
      void vscode.workspace.openTextDocument(vscode.Uri.file(proposal.path)).then(undefined, () => undefined);
    let resolve!: (o: ProposalOutcome) => void;
    const outcome = new Promise<ProposalOutcome>((r) => (resolve = r));
    const entry: Pending = {
      proposal,
      proposedUri,
      originalUri,
      resolve,
      outcome,
      hunks: splitHunks(original, proposed),
      decisions: new Map(),
      hunksOf: proposed,
    };
    for (const h of opts.review?.hunks ?? [])
      if (entry.hunks.some((x) => x.index === h.index))
        entry.decisions.set(h.index, { state: h.state, ...(h.reason ? { reason: h.reason } : {}) });
    this.pending.set(proposal.id, entry);
    if (entry.decisions.size)
      this.hunkEmitter.fire({ id: proposal.id, original, hunks: entry.hunks, decisions: entry.decisions });
    if (signal) {
      const onAbort = () => void this.settle(proposal.id, { kind: 'reject', reason: 'cancelled' });
      if (signal.aborted) onAbort();
      else signal.addEventListener('abort', onAbort, { once: true });
      void outcome.then(() => signal.removeEventListener('abort', onAbort));
    }
    this.changeEmitter.fire();
    this.updateContext();
    if (!signal?.aborted && opts.open !== false) void this.show(proposal.id);
    return outcome;
  }

  /**
   * Opens (or reveals) the diff of a pending proposal. By default it never takes the user's editor or focus: beside
   * the active editor, focus kept where it was. `preserveFocus: false` (the user asked from the panel) opens it
   * in the active group and focuses it.
   */
  async show(id: string, options: { preserveFocus?: boolean } = {}): Promise<void> {
    const p = this.pending.get(id);
    if (!p) return;
    const title = `${path.basename(p.proposal.path)} (${p.proposal.isNewFile ? 'new file' : 'proposed'}) — Forge`;
    const preserveFocus = options.preserveFocus ?? true;
    const existing = vscode.window.tabGroups.all.find((g) => g.tabs.some((t) => isTabFor(t, p.proposedUri)));
    // Where the user is typing: an editor of the active group that is not one of ours.
    const active = vscode.window.tabGroups.activeTabGroup;
    const userEditor = active.activeTab && !isOurTab(active.activeTab) ? active : undefined;
    let viewColumn: vscode.ViewColumn | undefined = existing?.viewColumn;
    if (viewColumn === undefined && preserveFocus && userEditor) {
      // Another group already showing a proposal is reused; else the group beside the user's.
      viewColumn =
        vscode.window.tabGroups.all.find((g) => g !== userEditor && g.tabs.some(isOurTab))?.viewColumn ??
        vscode.ViewColumn.Beside;
    }
    const showOptions: vscode.TextDocumentShowOptions = {
      preview: true,
      preserveFocus,
      ...(viewColumn !== undefined ? { viewColumn } : {}),
    };
    const opening = Promise.resolve(
      vscode.commands.executeCommand('vscode.diff', p.originalUri, p.proposedUri, title, showOptions),
    );
    p.opening = opening.catch(() => undefined);
    try {
      await opening;
    } finally {
      // Answered (or cancelled) while the tab was opening: close it now.
      if (this.pending.get(id) !== p) await this.closeDiff(p).catch(() => undefined);
      this.updateContext();
    }
  }

  /** Ids of pending proposals, oldest first. */
  pendingIds(): string[] {
    return [...this.pending.keys()];
  }

  get(id: string): Proposal | undefined {
    return this.pending.get(id)?.proposal;
  }

  /** The proposed side as it is now, including unsaved edits by the user. */
  async currentContent(id: string): Promise<string | undefined> {
    const p = this.pending.get(id);
    return p ? this.proposedText(p) : undefined;
  }

  /** A pending proposal's hunks and decisions (brought up to date with the proposed side first). */
  hunkReview(id: string): HunkReview | undefined {
    const p = this.pending.get(id);
    if (!p) return undefined;
    this.rehunk(p, false);
    return { id, original: this.originalOf(p), hunks: p.hunks, decisions: p.decisions };
  }

  /** The proposed side of a pending proposal as it is now (with the user's edits); undefined when not pending. */
  currentProposal(id: string): string | undefined {
    return this.pending.get(id)?.hunksOf;
  }

  /**
   * Records the user's decision on one hunk (`state` 'pending' clears it). `target` as for accept(); false when
   * no such proposal or hunk.
   */
  setHunk(target: string | vscode.Uri | undefined, index: number, state: HunkState, reason?: string): boolean {
    const id = this.resolveTarget(target);
    const p = id === undefined ? undefined : this.pending.get(id);
    if (!p) return false;
    this.rehunk(p, false);
    if (!p.hunks.some((h) => h.index === index)) return false;
    if (state === 'pending') p.decisions.delete(index);
    else
      p.decisions.set(index, {
        state,
        ...(state === 'rejected' && reason?.trim() ? { reason: reason.trim().slice(0, 2000) } : {}),
      });
    this.hunkEmitter.fire({ id: id!, original: this.originalOf(p), hunks: p.hunks, decisions: p.decisions });
    return true;
  }

  /** Which pending proposal (and hunk) a URI and a line of its proposed side refer to. */
  hunkAt(uri: vscode.Uri, line: number): { id: string; index: number } | undefined {
    const id = this.resolveTarget(uri);
    const p = id === undefined ? undefined : this.pending.get(id);
    if (!p) return undefined;
    this.rehunk(p, false);
    // 0-based `line` on the proposed side; a deletion (no new lines) sits on the line where it happened.
    const h =
      p.hunks.find((x) => line >= x.newStart - 1 && line < x.newStart - 1 + Math.max(1, x.newLines)) ??
      p.hunks.find((x) => x.newLines === 0 && line === Math.max(0, x.newStart - 2));
    return h ? { id: id!, index: h.index } : undefined;
  }

  /**
   * Accepts a proposal: `target` is an id, a forge-proposed/forge-original URI (editor title menu), or
   * undefined (the proposal in the active editor, else the oldest pending). Only the hunks the user did not reject
   * are kept; when every hunk is rejected the proposal is rejected. Returns false when none matched.
   */
  async accept(target?: string | vscode.Uri): Promise<boolean> {
    const id = this.resolveTarget(target);
    if (!id) return false;
    return this.settle(id, this.acceptOutcome(this.pending.get(id)!));
  }

  async reject(target?: string | vscode.Uri, reason?: string): Promise<boolean> {
    const id = this.resolveTarget(target);
    if (!id) return false;
    return this.settle(id, { kind: 'reject', reason });
  }

  /** Which pending proposal a command refers to. */
  resolveTarget(target?: string | vscode.Uri): string | undefined {
    if (typeof target === 'string') return this.pending.has(target) ? target : undefined;
    const uri = target instanceof vscode.Uri ? target : this.activeProposalUri();
    if (uri) {
      const k = key(uri);
      for (const [id, p] of this.pending) {
        if (key(p.proposedUri) === k || key(p.originalUri) === k) return id;
      }
    }
    return target === undefined ? this.pendingIds()[0] : undefined;
  }

  private acceptOutcome(p: Pending): ProposalOutcome {
    const text = this.proposedText(p);
    this.rehunk(p, false);
    const edited = text !== p.proposal.proposed;
    const original = this.originalOf(p);
    const rejected = p.hunks.filter((h) => p.decisions.get(h.index)?.state === 'rejected');
    if (!rejected.length) return { kind: 'accept', content: text, edited };
    const note = describeReview(this.label(p.proposal.path), summarizeReview(original, p.hunks, p.decisions));
    if (rejected.length === p.hunks.length) return { kind: 'reject', reason: note };
    const content = applyHunks(original, p.hunks, (i) => p.decisions.get(i)?.state !== 'rejected');
    return { kind: 'accept', content, edited, review: { note, rejected: rejected.length, total: p.hunks.length } };
  }

  private originalOf(p: Pending): string {
    return p.proposal.isNewFile ? '' : p.proposal.original;
  }

  private proposedText(p: Pending): string {
    const open = vscode.workspace.textDocuments.find((d) => d.uri.toString() === p.proposedUri.toString());
    if (open) return open.getText();
    return new TextDecoder().decode(this.fsProvider.readFile(p.proposedUri));
  }

  /** Recomputes the hunks when the proposed side changed; decisions follow their hunks. */
  private rehunk(p: Pending, notify: boolean): void {
    const text = this.proposedText(p);
    if (text === p.hunksOf) return;
    const next = splitHunks(this.originalOf(p), text);
    p.decisions = carryDecisions(p.hunks, p.decisions, next);
    p.hunks = next;
    p.hunksOf = text;
    if (notify)
      this.hunkEmitter.fire({
        id: p.proposal.id,
        original: this.originalOf(p),
        hunks: p.hunks,
        decisions: p.decisions,
      });
  }

  private scheduleRehunk(uri: vscode.Uri): void {
    const id = this.resolveTarget(uri);
    if (!id) return;
    clearTimeout(this.rehunkTimers.get(id));
    this.rehunkTimers.set(
      id,
      setTimeout(() => {
        this.rehunkTimers.delete(id);
        const p = this.pending.get(id);
        if (p) this.rehunk(p, true);
      }, 150),
    );
  }

  private async settle(id: string, outcome: ProposalOutcome): Promise<boolean> {
    const p = this.pending.get(id);
    if (!p) return false;
    this.pending.delete(id);
    clearTimeout(this.rehunkTimers.get(id));
    this.rehunkTimers.delete(id);
    p.resolve(outcome);
    this.changeEmitter.fire();
    // The decision is out; the tab closes in the background. An accepted edit is written first: the workbench
    // handles the write and the tab closing in one queue, and the write must not wait behind the teardown.
    void (async () => {
      if (outcome.kind === 'accept') await whenEditSettled(p.proposal.path, ACCEPT_CLOSE_DELAY_MS);
      await p.opening;
      await this.closeDiff(p).catch(() => undefined);
      this.fsProvider.delete(p.proposedUri);
      this.originals.delete(key(p.originalUri));
      this.updateContext();
    })();
    return true;
  }

  private async closeDiff(p: Pending): Promise<void> {
    const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === p.proposedUri.toString());
    // Save into the in-memory FS first so closing does not ask "save changes?".
    if (doc?.isDirty) await doc.save();
    const tabs = vscode.window.tabGroups.all.flatMap((g) => g.tabs).filter((t) => isTabFor(t, p.proposedUri));
    if (tabs.length) {
      await vscode.window.tabGroups.close(tabs, true);
      return;
    }
    if (!p.opening) return;
    // Opened but not yet known here (tab events lag behind vscode.diff on a busy host): close it when it shows up.
    await new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        sub.dispose();
        resolve();
      };
      const sub = vscode.window.tabGroups.onDidChangeTabs((e) => {
        const late = e.opened.filter((t) => isTabFor(t, p.proposedUri));
        if (late.length) void Promise.resolve(vscode.window.tabGroups.close(late, true)).then(done, done);
      });
      const timer = setTimeout(done, LATE_TAB_MS);
    });
  }

  private activeProposalUri(): vscode.Uri | undefined {
    const tab = vscode.window.tabGroups.activeTabGroup.activeTab;
    const input = tab?.input;
    if (input instanceof vscode.TabInputTextDiff && input.modified.scheme === PROPOSED_SCHEME) return input.modified;
    const editorUri = vscode.window.activeTextEditor?.document.uri;
    return editorUri?.scheme === PROPOSED_SCHEME || editorUri?.scheme === ORIGINAL_SCHEME ? editorUri : undefined;
  }

  private updateContext(): void {
    const active = this.activeProposalUri();
    const isPending = !!active && [...this.pending.values()].some((p) => key(p.proposedUri) === key(active));
    void vscode.commands.executeCommand('setContext', CTX_PROPOSAL_ACTIVE, isPending);
    void vscode.commands.executeCommand('setContext', CTX_HAS_PENDING, this.pending.size > 0);
  }

  private label(absPath: string): string {
    if (this.options.label) return this.options.label(absPath);
    return vscode.workspace.asRelativePath(absPath, false);
  }

  dispose(): void {
    for (const id of this.pendingIds()) void this.settle(id, { kind: 'reject', reason: 'Forge was deactivated' });
    for (const t of this.rehunkTimers.values()) clearTimeout(t);
    for (const d of this.disposables) d.dispose();
  }
}

function isTabFor(tab: vscode.Tab, uri: vscode.Uri): boolean {
  const input = tab.input;
  if (input instanceof vscode.TabInputTextDiff) return input.modified.toString() === uri.toString();
  if (input instanceof vscode.TabInputText) return input.uri.toString() === uri.toString();
  return false;
}

/** A tab showing one of Forge's proposals. */
function isOurTab(tab: vscode.Tab): boolean {
  const input = tab.input;
  if (input instanceof vscode.TabInputTextDiff) return input.modified.scheme === PROPOSED_SCHEME;
  return (
    input instanceof vscode.TabInputText &&
    (input.uri.scheme === PROPOSED_SCHEME || input.uri.scheme === ORIGINAL_SCHEME)
  );
}

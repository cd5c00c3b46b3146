// Proposed edits shown as diffs before anything is written. Left: the original snapshot (read-only
// `forge-original:` content provider). Right: the proposal in an in-memory, writable `forge-proposed:` file
// system, so the user can edit it — including per-hunk "Revert Block" arrows of the diff editor — before
// accepting. Accept/Reject come from the editor title, keybindings, the panel, or the palette.
import * as path from 'node:path';
import * as vscode from 'vscode';
import { whenEditSettled } from './edit-applier';

export const ORIGINAL_SCHEME = 'forge-original';
export const PROPOSED_SCHEME = 'forge-proposed';
/** Context keys used by package.json menus/keybindings. */
export const CTX_PROPOSAL_ACTIVE = 'forge.proposalActive';
export const CTX_HAS_PENDING = 'forge.hasPendingProposals';

export interface Proposal {
  id: string;
  /** Absolute path of the real file. */
  path: string;
  original: string;
  proposed: string;
  isNewFile: boolean;
}

export type ProposalOutcome =
  | { kind: 'accept'; /** final text of the proposed side (the user may have edited it) */ content: string; edited: boolean }
  | { kind: 'reject'; reason?: string };

interface Pending {
  proposal: Proposal;
  proposedUri: vscode.Uri;
  originalUri: vscode.Uri;
  resolve: (o: ProposalOutcome) => void;
  outcome: Promise<ProposalOutcome>;
}

/** A minimal writable in-memory file system holding the proposed sides. */
class ProposedFs implements vscode.FileSystemProvider {
  private readonly files = new Map<string, { data: Uint8Array; mtime: number }>();
  private readonly emitter = new vscode.EventEmitter<vscode.FileChangeEvent[]>();
  readonly onDidChangeFile = this.emitter.event;

  set(uri: vscode.Uri, text: string): void {
    this.files.set(uri.path, { data: new TextEncoder().encode(text), mtime: Date.now() });
    this.emitter.fire([{ type: vscode.FileChangeType.Changed, uri }]);
  }
  delete(uri: vscode.Uri): void {
    this.files.delete(uri.path);
  }
  watch(): vscode.Disposable {
    return new vscode.Disposable(() => {});
  }
  stat(uri: vscode.Uri): vscode.FileStat {
    const f = this.files.get(uri.path);
    if (f) return { type: vscode.FileType.File, ctime: f.mtime, mtime: f.mtime, size: f.data.byteLength };
    const prefix = uri.path.endsWith('/') ? uri.path : uri.path + '/';
    if ([...this.files.keys()].some((k) => k.startsWith(prefix)) || uri.path === '/') {
      return { type: vscode.FileType.Directory, ctime: 0, mtime: 0, size: 0 };
    }
    throw vscode.FileSystemError.FileNotFound(uri);
  }
  readDirectory(): [string, vscode.FileType][] {
    return [];
  }
  createDirectory(): void {}
  readFile(uri: vscode.Uri): Uint8Array {
    const f = this.files.get(uri.path);
    if (!f) throw vscode.FileSystemError.FileNotFound(uri);
    return f.data;
  }
  writeFile(uri: vscode.Uri, content: Uint8Array): void {
    // Saving the proposed side only updates the proposal; nothing reaches disk until Accept.
    this.files.set(uri.path, { data: content, mtime: Date.now() });
  }
  rename(): void {
    throw vscode.FileSystemError.NoPermissions('proposals cannot be renamed');
  }
}

/** The longest an accepted proposal's tab waits for its edit to be written before it closes anyway. */
const ACCEPT_CLOSE_DELAY_MS = 1500;

export interface DiffApprovalOptions {
  /** Relative label for a path in the diff title (default: workspace-relative). */
  label?: (absPath: string) => string;
}

export class DiffApproval implements vscode.Disposable {
  private readonly pending = new Map<string, Pending>();
  private serial = 0;
  private readonly originals = new Map<string, string>();
  private readonly fsProvider = new ProposedFs();
  private readonly changeEmitter = new vscode.EventEmitter<void>();
  private readonly disposables: vscode.Disposable[] = [];
  /** Fires when a proposal is added or resolved. */
  readonly onDidChange = this.changeEmitter.event;

  constructor(private readonly options: DiffApprovalOptions = {}) {
    const originals = this.originals;
    this.disposables.push(
      vscode.workspace.registerFileSystemProvider(PROPOSED_SCHEME, this.fsProvider, { isCaseSensitive: true }),
      vscode.workspace.registerTextDocumentContentProvider(ORIGINAL_SCHEME, {
        provideTextDocumentContent: (uri) => originals.get(uri.path) ?? '',
      }),
      vscode.window.tabGroups.onDidChangeTabs(() => this.updateContext()),
      vscode.window.tabGroups.onDidChangeTabGroups(() => this.updateContext()),
      vscode.window.onDidChangeActiveTextEditor(() => this.updateContext()),
      this.changeEmitter,
    );
    this.updateContext();
  }

  /**
   * Shows the diff (without taking focus) and resolves when the proposal is accepted or rejected from any
   * surface. Aborting the signal closes the diff and resolves as rejected ("cancelled").
   */
  propose(proposal: Proposal, signal?: AbortSignal): Promise<ProposalOutcome> {
    const existing = this.pending.get(proposal.id);
    if (existing) return existing.outcome;
    const rel = this.label(proposal.path);
    // A serial per proposal keeps the URIs unique: an id asked again (resumed after a reload) must not share
    // them with the cancelled proposal whose tab and in-memory file are still being cleaned up.
    const base = `/${encodeURIComponent(proposal.id)}.${++this.serial}/${rel.replace(/^\/+/, '')}`;
    const proposedUri = vscode.Uri.from({ scheme: PROPOSED_SCHEME, path: base });
    const originalUri = vscode.Uri.from({ scheme: ORIGINAL_SCHEME, path: base });
    this.originals.set(originalUri.path, proposal.isNewFile ? '' : proposal.original);
    this.fsProvider.set(proposedUri, proposal.proposed);
    let resolve!: (o: ProposalOutcome) => void;
    const outcome = new Promise<ProposalOutcome>((r) => (resolve = r));
    const entry: Pending = { proposal, proposedUri, originalUri, resolve, outcome };
    this.pending.set(proposal.id, entry);
    if (signal) {
      const onAbort = () => void this.settle(proposal.id, { kind: 'reject', reason: 'cancelled' });
      if (signal.aborted) onAbort();
      else signal.addEventListener('abort', onAbort, { once: true });
      void outcome.then(() => signal.removeEventListener('abort', onAbort));
    }
    this.changeEmitter.fire();
    this.updateContext();
    if (!signal?.aborted) void this.show(proposal.id);
    return outcome;
  }

  /** Opens (or reveals) the diff of a pending proposal without stealing focus. */
  async show(id: string, options: { preserveFocus?: boolean } = {}): Promise<void> {
    const p = this.pending.get(id);
    if (!p) return;
    const title = `${path.basename(p.proposal.path)} (${p.proposal.isNewFile ? 'new file' : 'proposed'}) — Forge`;
    await vscode.commands.executeCommand('vscode.diff', p.originalUri, p.proposedUri, title, {
      preview: true,
      preserveFocus: options.preserveFocus ?? true,
    } satisfies vscode.TextDocumentShowOptions);
    // Answered (or cancelled) while the tab was opening: settle() found no tab to close, so close it now.
    if (this.pending.get(id) !== p) await this.closeDiff(p);
    this.updateContext();
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
    if (!p) return undefined;
    const open = vscode.workspace.textDocuments.find((d) => d.uri.toString() === p.proposedUri.toString());
    if (open) return open.getText();
    return new TextDecoder().decode(this.fsProvider.readFile(p.proposedUri));
  }

  /**
   * Accepts a proposal: `target` is an id, a forge-proposed/forge-original URI (editor title menu), or
   * undefined (the proposal in the active editor, else the oldest pending). Returns false when none matched.
   */
  async accept(target?: string | vscode.Uri): Promise<boolean> {
    const id = this.resolveTarget(target);
    if (!id) return false;
    const p = this.pending.get(id)!;
    const content = (await this.currentContent(id)) ?? p.proposal.proposed;
    return this.settle(id, { kind: 'accept', content, edited: content !== p.proposal.proposed });
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
      for (const [id, p] of this.pending) {
        if (p.proposedUri.path === uri.path || p.originalUri.path === uri.path) return id;
      }
    }
    return target === undefined ? this.pendingIds()[0] : undefined;
  }

  private async settle(id: string, outcome: ProposalOutcome): Promise<boolean> {
    const p = this.pending.get(id);
    if (!p) return false;
    this.pending.delete(id);
    p.resolve(outcome);
    this.changeEmitter.fire();
    // An accepted edit is written first: the workbench handles the write and the tab closing in one queue, and
    // the next model request waits for the write, not for the diff editor to be torn down.
    if (outcome.kind === 'accept') await whenEditSettled(p.proposal.path, ACCEPT_CLOSE_DELAY_MS);
    await this.closeDiff(p);
    this.fsProvider.delete(p.proposedUri);
    this.originals.delete(p.originalUri.path);
    this.updateContext();
    return true;
  }

  private async closeDiff(p: Pending): Promise<void> {
    const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === p.proposedUri.toString());
    // Save into the in-memory FS first so closing does not ask "save changes?".
    if (doc?.isDirty) await doc.save();
    const tabs = vscode.window.tabGroups.all.flatMap((g) => g.tabs).filter((t) => isTabFor(t, p.proposedUri));
    if (tabs.length) await vscode.window.tabGroups.close(tabs, true);
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
    const isPending = !!active && [...this.pending.values()].some((p) => p.proposedUri.path === active.path);
    void vscode.commands.executeCommand('setContext', CTX_PROPOSAL_ACTIVE, isPending);
    void vscode.commands.executeCommand('setContext', CTX_HAS_PENDING, this.pending.size > 0);
  }

  private label(absPath: string): string {
    if (this.options.label) return this.options.label(absPath);
    return vscode.workspace.asRelativePath(absPath, false);
  }

  dispose(): void {
    for (const id of this.pendingIds()) void this.settle(id, { kind: 'reject', reason: 'Forge was deactivated' });
    for (const d of this.disposables) d.dispose();
  }
}

function isTabFor(tab: vscode.Tab, uri: vscode.Uri): boolean {
  const input = tab.input;
  if (input instanceof vscode.TabInputTextDiff) return input.modified.toString() === uri.toString();
  if (input instanceof vscode.TabInputText) return input.uri.toString() === uri.toString();
  return false;
}

// Knowing when Forge needs you: when a run waits for an approval or a question, or ends, and the user is not looking
// at the panel (hidden, or the window not focused), a notification with a button that brings the panel (and an
// edit's diff) to the front, a badge on Forge's view and the status-bar item. Quiet while the panel is in view;
// forge.notifications.enabled: false turns the notifications off (the badge and status bar stay).
import * as vscode from 'vscode';
import type { AgentEvent } from '../../core/loop/events';
import type { ForgePanelProvider } from '../../panel/provider';
import type { Logger } from '../logger';
import { attentionFor, type AttentionNotice } from './attention-text';
import type { ForgeStatusBar } from './status-bar';
import { errorText } from '../../core/error-text';

interface AttentionDeps {
  panel: ForgePanelProvider;
  statusBar: ForgeStatusBar;
  /** Brings a pending edit's diff editor to the front. */
  showDiff(requestId: string): void;
  log: Logger;
  /** Whether the user is looking at the panel (tests replace it). */
  looking?(): boolean;
  /** Shows a notification; resolves with the button picked (tests replace it). */
  notify?(notice: AttentionNotice, buttons: string[]): Thenable<string | undefined>;
}

const SHOW = 'Show Forge';
const REVIEW = 'Review Edit';

export class Attention implements vscode.Disposable {
  /** Notices since the user last looked: the badge's number. */
  private unseen = 0;
  /** The status bar says a run ended (put back to idle once seen). */
  private endedShown = false;
  private readonly subs: vscode.Disposable[];
  /** The notifications shown, newest last (the integration tests read them). */
  readonly shown: AttentionNotice[] = [];

  constructor(private readonly deps: AttentionDeps) {
    this.subs = [
      vscode.window.onDidChangeWindowState(() => this.seenIfLooking()),
      deps.panel.onDidChangeVisible(() => this.seenIfLooking()),
    ];
  }

  /** Every event of the tasks' runs (after the status bar took it). */
  onEvent(e: AgentEvent): void {
    // Answered (in the panel or the diff editor) or a new run: what the badge counted has been seen.
    if (e.type === 'approval_resolved' || e.type === 'run_start') this.seen();
    const notice = attentionFor(e);
    if (!notice || this.looking()) return;
    this.unseen++;
    this.deps.panel.setBadge(this.unseen, `Forge needs you: ${notice.message}`);
    this.deps.statusBar.waiting(notice.message);
    this.endedShown = notice.kind !== 'approval';
    if (!vscode.workspace.getConfiguration('forge').get<boolean>('notifications.enabled', true)) return;
    this.shown.push(notice);
    const buttons = notice.diffRequestId ? [REVIEW, SHOW] : [SHOW];
    void (this.deps.notify ?? defaultNotify)(notice, buttons).then(
      (pick) => {
        if (pick === REVIEW && notice.diffRequestId) this.deps.showDiff(notice.diffRequestId);
        if (pick) void this.deps.panel.reveal();
      },
      (err) => this.deps.log.warn(`notification failed: ${errorText(err)}`),
    );
  }

  get badge(): number {
    return this.unseen;
  }

  private looking(): boolean {
    return this.deps.looking ? this.deps.looking() : vscode.window.state.focused && this.deps.panel.visible;
  }

  /** The user looks at the panel again: the badge goes, and a finished run's status-bar notice too. */
  private seenIfLooking(): void {
    if (this.unseen && this.looking()) this.seen();
  }

  private seen(): void {
    if (!this.unseen) return;
    this.unseen = 0;
    this.deps.panel.setBadge(0, '');
    if (this.endedShown) this.deps.statusBar.idle();
    this.endedShown = false;
  }

  dispose(): void {
    vscode.Disposable.from(...this.subs).dispose();
  }
}

function defaultNotify(notice: AttentionNotice, buttons: string[]): Thenable<string | undefined> {
  return notice.problem
    ? vscode.window.showWarningMessage(notice.message, ...buttons)
    : vscode.window.showInformationMessage(notice.message, ...buttons);
}

// Stands in for the Controller while activation's disk work (task store, edit journal, memory, restore) runs in
// the background: commands and panel messages that arrive before it is done wait for it instead of failing or
// being dropped. Once the Controller exists, calls go straight through (same timing as without the gate).
import type * as vscode from 'vscode';
import type { ChangesAction, PanelController } from '../../panel/bridge';
import type { HunkState, PanelApprovalDecision } from '../../protocol/messages';
import type { FixProblemArgs } from '../code-actions';
import type { ForgeController, SelectionContext } from '../commands';
import type { Logger } from '../logger';
import type { Controller } from './forge-controller';

/** What works without the Controller: showing the panel and the logs (to see why initialisation failed). */
export interface EarlyActions {
  openPanel(): unknown;
  openPanelInEditor(): unknown;
  showLogs(): void;
}

export class DeferredController implements ForgeController, PanelController {
  private controller: Controller | undefined;
  private readonly ready: Promise<Controller>;

  constructor(
    ready: Promise<Controller>,
    private readonly early: EarlyActions,
    private readonly log: Logger,
  ) {
    this.ready = ready.then((c) => (this.controller = c));
    // Failures are reported by whoever created `ready`; callers still see the rejection.
    this.ready.catch(() => undefined);
  }

  /** Runs `fn` on the Controller now if it exists, else once initialisation is done (rejects if it failed). */
  private call<R>(fn: (c: Controller) => R): R | Promise<Awaited<R>> {
    const c = this.controller;
    if (c) return fn(c);
    return this.ready.then((ready) => fn(ready) as Awaited<R>);
  }

  /** For panel messages the bridge does not await: a late failure is logged, never left unhandled. */
  private fire(what: string, fn: (c: Controller) => unknown): void {
    const c = this.controller;
    if (c) {
      fn(c);
      return;
    }
    this.ready.then(fn).then(undefined, (err: unknown) => this.log.error(`panel: ${what} failed: ${err instanceof Error ? err.message : String(err)}`));
  }

  // ---------- ForgeController (palette) ----------

  newTask(prompt?: string) { return this.call((c) => c.newTask(prompt)); }
  openPanel() { return this.controller ? this.controller.openPanel() : this.early.openPanel(); }
  openPanelInEditor() { return this.controller ? this.controller.openPanelInEditor() : this.early.openPanelInEditor(); }
  stop() { return this.call((c) => c.stop()); }
  continueTask() { return this.call((c) => c.continueTask()); }
  explainSelection(sel: SelectionContext) { return this.call((c) => c.explainSelection(sel)); }
  fixSelection(sel: SelectionContext) { return this.call((c) => c.fixSelection(sel)); }
  refactorSelection(sel: SelectionContext, instruction: string) { return this.call((c) => c.refactorSelection(sel, instruction)); }
  addSelectionToChat(sel: SelectionContext) { return this.call((c) => c.addSelectionToChat(sel)); }
  fixProblem(args: FixProblemArgs) { return this.call((c) => c.fixProblem(args)); }
  acceptEdit(target?: string | vscode.Uri) { return this.call((c) => c.acceptEdit(target)); }
  rejectEdit(target?: string | vscode.Uri, reason?: string) { return this.call((c) => c.rejectEdit(target, reason)); }
  undoTaskChanges(taskId?: string) { return this.call((c) => c.undoTaskChanges(taskId)); }
  reviewTaskChanges(taskId?: string) { return this.call((c) => c.reviewTaskChanges(taskId)); }
  setApiKey() { return this.call((c) => c.setApiKey()); }
  selectModel() { return this.call((c) => c.selectModel()); }
  showTaskHistory() { return this.call((c) => c.showTaskHistory()); }
  showLogs() { this.early.showLogs(); }
  showMemory() { return this.call((c) => c.showMemory()); }
  forget(learningId?: string) { return this.call((c) => c.forget(learningId)); }

  // ---------- PanelController (webview) ----------

  /** Awaited by the bridge: a message sent before initialisation is done waits for it (a failure shows in the panel). */
  async onSendMessage(text: string, requestId: string, signal: AbortSignal): Promise<void> {
    await this.call((c) => c.onSendMessage(text, requestId, signal));
  }

  async onContinue(requestId: string, signal: AbortSignal): Promise<void> {
    await this.call((c) => c.onContinue(requestId, signal));
  }

  async onImplementPlan(requestId: string, signal: AbortSignal): Promise<void> {
    await this.call((c) => c.onImplementPlan(requestId, signal));
  }

  onStop(): void { this.fire('stop', (c) => c.onStop()); }
  onApproval(requestId: string, decision: PanelApprovalDecision): void { this.fire('approval', (c) => c.onApproval(requestId, decision)); }
  onNewTask(): void { this.fire('new task', (c) => c.onNewTask()); }
  onLoadTask(taskId: string): void { this.fire('load task', (c) => c.onLoadTask(taskId)); }
  onOpenFile(file: string, line?: number): void { this.fire('open file', (c) => c.onOpenFile(file, line)); }
  onOpenDiff(requestId: string): void { this.fire('open diff', (c) => c.onOpenDiff(requestId)); }
  onOpenToolOutput(ref: string): void { this.fire('open tool output', (c) => c.onOpenToolOutput(ref)); }
  onSelectModel(modelId?: string): void { this.fire('select model', (c) => c.onSelectModel(modelId)); }
  onOpenSettings(): void { this.fire('open settings', (c) => c.onOpenSettings()); }
  onSetApiKey(provider?: string): void { this.fire('set API key', (c) => c.onSetApiKey(provider)); }
  onShowLogs(): void { this.early.showLogs(); }
  onDeleteTask(taskId: string): void { this.fire('delete task', (c) => c.onDeleteTask(taskId)); }
  onSetMode(mode: string): void { this.fire('set mode', (c) => c.onSetMode(mode)); }
  onCheckProvider(req: Parameters<Controller['onCheckProvider']>[0]): void { this.fire('check provider', (c) => c.onCheckProvider(req)); }
  onSaveProvider(req: Parameters<Controller['onSaveProvider']>[0]): void { this.fire('save provider', (c) => c.onSaveProvider(req)); }
  onEditPlan(taskId: string | undefined, plan: unknown): void { this.fire('plan edit', (c) => c.onEditPlan(taskId, plan)); }
  onRestoreCheckpoint(taskId: string | undefined, toolCallId: string): void { this.fire('restore checkpoint', (c) => c.onRestoreCheckpoint(taskId, toolCallId)); }
  onRedoCheckpoint(taskId: string | undefined): void { this.fire('redo checkpoint', (c) => c.onRedoCheckpoint(taskId)); }
  onHunkDecision(requestId: string, index: number, state: HunkState, reason?: string): void { this.fire('hunk decision', (c) => c.onHunkDecision(requestId, index, state, reason)); }
  onChangesAction(taskId: string, action: ChangesAction, path?: string): void { this.fire('changes action', (c) => c.onChangesAction(taskId, action, path)); }
}

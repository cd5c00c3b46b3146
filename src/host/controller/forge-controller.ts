// Routes the palette commands (ForgeController) and the panel's messages (PanelController) to the classes that
// handle each surface: runs, history, review, recovery, model settings, memory, the panel's setup and links.
// Every run goes through RunControl.start, so the panel, commands and tests share one path.
import type * as vscode from 'vscode';
import type { OutputStore } from '../../core/context/output-store';
import type { AgentEvent, RunReport } from '../../core/loop/events';
import { MODES } from '../../core/modes';
import type { EditJournal } from '../../core/tasks/journal';
import type { ChangesAction, PanelController } from '../../panel/bridge';
import type { ForgePanelProvider } from '../../panel/provider';
import type { HunkState, PanelApprovalDecision } from '../../protocol/messages';
import type { FixProblemArgs } from '../code-actions';
import type { ForgeController, SelectionContext } from '../commands';
import type { ApiKeyStore } from '../secrets';
import type { ProviderId } from '../settings';
import type { ForgeStatusBar } from '../status-bar';
import type { AgentExtras } from './agent-extras';
import type { MemoryService } from './agent-factory';
import { explainPrompt, fixProblemPrompt, fixPrompt, quoteSelection, refactorPrompt, selectionLabel } from './editor-actions';
import { MemoryActions } from './memory-actions';
import type { ModelFactory, SwitchableModel } from './model-factory';
import { ModelSettings } from './model-settings';
import { PanelLinks } from './panel-links';
import { PanelSetup } from './panel-setup';
import type { Recovery } from './recovery';
import { ReviewActions } from './review-actions';
import { RunControl } from './run-control';
import { reportRunEvent } from './run-status';
import type { RunKind, TaskSession } from './session';
import type { SessionManager } from './session-manager';
import { hostSlashActions } from './slash-host-actions';
import { runSlashCommand } from './slash-commands';
import { TaskHistory } from './task-history';
import { undoTaskChanges } from './task-undo';
import type { Toolkit } from './tool-factory';

const MODE_IDS = Object.keys(MODES) as (keyof typeof MODES)[];

export interface ControllerDeps {
  manager: SessionManager;
  toolkit: Toolkit;
  model: SwitchableModel;
  models: ModelFactory;
  keys: ApiKeyStore;
  memory: MemoryService;
  journal: EditJournal;
  /** Full tool outputs the loop shortened (shared by every task's Agent). */
  outputs: OutputStore;
  statusBar: ForgeStatusBar;
  log: vscode.LogOutputChannel;
  /** Re-resolves the model from settings + secrets and updates the panel's provider status. */
  refreshModel(): Promise<void>;
  /** Checkpoints, plan edits, the audit trail's host facts. */
  recovery?: Recovery;
  /** Slash commands and the last test run (agent-extras.ts); absent in tests that do not need them. */
  extras?: Pick<AgentExtras, 'slash' | 'testRuns'> & Partial<Pick<AgentExtras, 'refresh'>>;
  /** A sent message as the model gets it (MCP resources the user attached are appended). */
  beforeSend?(text: string): string;
}

export class Controller implements ForgeController, PanelController {
  private panel: ForgePanelProvider | undefined;
  /** Per-hunk review and the task's changes (completion block, multi-file diff). */
  private readonly review: ReviewActions;
  private readonly runs: RunControl;
  private readonly history: TaskHistory;
  private readonly modelSettings: ModelSettings;
  private readonly memory: MemoryActions;
  private readonly links: PanelLinks;
  /** The panel's own model setup form, and the change an answered edit approval made. */
  private readonly setup: PanelSetup;

  constructor(private readonly deps: ControllerDeps) {
    // The handlers read the deps and the panel when called: replaceManager and setPanel change them later.
    const current = () => this.deps;
    const panel = () => this.panel;
    this.review = new ReviewActions(current);
    this.runs = new RunControl(current, panel, this.review);
    this.history = new TaskHistory(current, panel, () => this.resumeIfPending());
    this.modelSettings = new ModelSettings(current, panel);
    this.memory = new MemoryActions(() => this.deps.memory);
    this.links = new PanelLinks(current, panel);
    this.setup = new PanelSetup({ keys: () => this.deps.keys, panel, refreshModel: () => this.deps.refreshModel(), log: () => this.deps.log });
  }

  setPanel(panel: ForgePanelProvider): void {
    this.panel = panel;
  }

  get manager(): SessionManager {
    return this.deps.manager;
  }

  /** Swaps the session manager (tests simulate a reload with it). */
  replaceManager(manager: SessionManager): void {
    this.deps.manager = manager;
    this.history.follow(manager);
    if (this.panel) manager.attach(this.panel);
  }

  // ---------- runs ----------

  /** Starts a run in the current task. Resolves when it ends (undefined when it could not start). */
  startRun(kind: RunKind, text: string, signal?: AbortSignal, display?: string): Promise<RunReport | undefined> {
    return this.runs.start(kind, text, signal, display);
  }

  /** A task saved while it waited for an approval asks again (when the user opens it, or at activation). */
  resumeIfPending(): Promise<RunReport | undefined> | undefined {
    return this.runs.resumeIfPending();
  }

  /** Status bar and logs follow the same events the panel does. */
  onAgentEvent(session: TaskSession, e: AgentEvent): void {
    reportRunEvent({ statusBar: this.deps.statusBar, log: this.deps.log, testRuns: this.deps.extras?.testRuns }, session, e);
  }

  loadTask(id: string): Promise<TaskSession | undefined> {
    return this.history.load(id);
  }

  // ---------- ForgeController (palette) ----------

  newTask(prompt?: string): Promise<RunReport | undefined> | undefined {
    this.deps.manager.newTask();
    void this.panel?.reveal();
    return prompt?.trim() ? this.startRun('send', prompt) : undefined;
  }

  openPanel(): Promise<void> | undefined {
    return this.panel?.reveal();
  }

  openPanelInEditor(): unknown {
    return this.panel?.openInEditor();
  }

  stop(): void {
    this.deps.manager.current.stop();
    this.panel?.bridge.abort();
  }

  continueTask(): Promise<RunReport | undefined> {
    void this.panel?.reveal();
    return this.startRun('continue', '');
  }

  explainSelection(sel: SelectionContext) { return this.runs.sendPrompt(explainPrompt(sel), `Explain selection in ${selectionLabel(sel)}`); }
  fixSelection(sel: SelectionContext) { return this.runs.sendPrompt(fixPrompt(sel), `Fix selection in ${selectionLabel(sel)}`); }
  refactorSelection(sel: SelectionContext, instruction: string) { return this.runs.sendPrompt(refactorPrompt(sel, instruction), `Refactor ${selectionLabel(sel)}: ${instruction}`); }
  async fixProblem(args: FixProblemArgs) { return this.runs.sendPrompt(await fixProblemPrompt(args)); }
  async addSelectionToChat(sel: SelectionContext): Promise<void> { await this.panel?.prefill(`${quoteSelection(sel)}\n\n`); }

  /** Editor title / keybinding: the proposal in the active diff, else the oldest pending approval. */
  async acceptEdit(target?: string | vscode.Uri): Promise<boolean> {
    const { diffApproval, approvals } = this.deps.toolkit;
    if (await diffApproval.accept(target)) return true;
    const id = typeof target === 'string' ? target : target === undefined ? approvals.pending()[0]?.id : undefined;
    return id ? approvals.resolve(id, { kind: 'approve', scope: 'once' }) : false;
  }

  async rejectEdit(target?: string | vscode.Uri, reason?: string): Promise<boolean> {
    const { diffApproval, approvals } = this.deps.toolkit;
    if (await diffApproval.reject(target, reason)) return true;
    const id = typeof target === 'string' ? target : target === undefined ? approvals.pending()[0]?.id : undefined;
    return id ? approvals.resolve(id, { kind: 'reject', ...(reason ? { reason } : {}) }) : false;
  }

  /** Restores the files a task edited (asks first unless `confirm` is false). */
  undoTaskChanges(taskId?: string, confirm = true) { return undoTaskChanges(this.deps, taskId ?? this.deps.manager.current.id, confirm); }
  reviewTaskChanges(taskId?: string): Promise<boolean> { return this.review.reviewTaskChanges(taskId); }
  /** The task's changes block, computed again (after a restore, an undo or a redo moved its files). */
  refreshChanges(taskId: string): Promise<void> { return this.review.showChanges(taskId); }
  setApiKey(provider?: ProviderId): Promise<void> { return this.modelSettings.setApiKey(provider); }
  selectModel(): Promise<void> { return this.modelSettings.selectModel(); }
  showTaskHistory(): Promise<void> { return this.history.show(); }
  showLogs(): void { this.deps.log.show(); }
  showMemory(): Promise<void> { return this.memory.show(); }
  forget(learningId?: string): Promise<boolean> { return this.memory.forget(learningId); }

  // ---------- PanelController (webview) ----------

  async onSendMessage(text: string, _requestId: string, signal: AbortSignal): Promise<void> {
    const slash = this.deps.extras?.slash;
    if (slash && (await runSlashCommand(text, this.slashActions(slash), signal))) {
      this.deps.extras?.refresh?.();
      return;
    }
    await this.startRun('send', text, signal);
  }

  /** What the panel's slash commands do in this host. */
  private slashActions(registry: NonNullable<ControllerDeps['extras']>['slash']) {
    return hostSlashActions(registry, {
      session: () => this.deps.manager.current,
      panel: () => this.panel,
      stop: () => this.stop(),
      newTask: () => this.onNewTask(),
      selectModel: () => this.selectModel(),
      undo: () => this.undoTaskChanges(),
      send: (prompt, signal) => this.startRun('send', prompt, signal),
    });
  }

  onImplementPlan(_requestId: string, signal: AbortSignal): Promise<void> { return this.runs.implementPlan(signal); }
  async onContinue(_requestId: string, signal: AbortSignal): Promise<void> { await this.startRun('continue', '', signal); }
  onStop(): void { this.deps.manager.current.stop(); }

  onApproval(requestId: string, decision: PanelApprovalDecision): void {
    void this.deps.toolkit.approvals.resolve(requestId, decision).then((found) => {
      if (!found) this.deps.log.warn(`approval ${requestId} was answered but is no longer pending`);
    });
  }

  onOpenDiff(requestId: string): void {
    // A pending proposal opens its diff editor; an answered one shows the change it made (from the transcript).
    if (this.deps.toolkit.diffApproval.pendingIds().includes(requestId)) {
      void this.deps.toolkit.diffApproval.show(requestId, { preserveFocus: false });
      return;
    }
    void this.setup.showPastChange(this.deps.manager.current.transcript, requestId);
  }

  onNewTask(): void { this.deps.manager.newTask(); }
  onLoadTask(taskId: string): void { void this.loadTask(taskId).catch((err) => this.panel?.showError(err instanceof Error ? err.message : String(err))); }
  onDeleteTask(taskId: string): void {
    void this.history.remove(taskId).catch((err) => this.panel?.showError(`Forge could not delete that task: ${err instanceof Error ? err.message : String(err)}`));
  }

  onSetMode(mode: string): void {
    const known = MODE_IDS as readonly string[];
    if (!known.includes(mode)) return;
    this.deps.manager.current.setMode(mode as (typeof MODE_IDS)[number]);
    this.panel?.bridge.setMode(mode);
  }

  onOpenFile(file: string, line?: number): void { void this.links.openFile(file, line); }
  onOpenToolOutput(ref: string): void { void this.links.openToolOutput(ref); }
  onHunkDecision(requestId: string, index: number, state: HunkState, reason?: string): void { this.review.onHunkDecision(requestId, index, state, reason); }
  onChangesAction(taskId: string, action: ChangesAction, path?: string): void { this.review.onChangesAction(taskId, action, path); }
  onEditPlan(taskId: string | undefined, plan: unknown): void { this.deps.recovery?.editPlan(taskId, plan); }
  onRestoreCheckpoint(taskId: string | undefined, toolCallId: string): Promise<void> | undefined { return this.deps.recovery?.restoreFromPanel(taskId, toolCallId); }
  onRedoCheckpoint(taskId: string | undefined): Promise<void> | undefined { return this.deps.recovery?.redoFromPanel(taskId); }
  onCheckProvider(req: Parameters<PanelSetup['check']>[0]): void { void this.setup.check(req); }
  onSaveProvider(req: Parameters<PanelSetup['save']>[0]): void { void this.setup.save(req); }
  onSelectModel(modelId?: string): void { this.modelSettings.selectFromPanel(modelId); }
  onSetApiKey(provider?: string): void { this.modelSettings.setApiKeyFromPanel(provider); }
  onOpenSettings(): void { this.modelSettings.openSettings(); }
  onShowLogs(): void { this.showLogs(); }
}

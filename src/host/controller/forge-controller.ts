// Routes the palette commands (ForgeController) and the panel's messages (PanelController) to the task
// sessions, approvals, models and memory. Every run goes through startRun, so the panel, commands and tests
// share one path.
import { formatCost } from '../../protocol/format';
import * as vscode from 'vscode';
import type { OutputStore } from '../../core/context/output-store';
import { WorkspaceSandbox } from '../../core/safety/paths';
import type { AgentEvent, RunReport } from '../../core/loop/events';
import type { EditJournal } from '../../core/tasks/journal';
import { settleEdits } from '../../core/tasks/recovery';
import type { ChangesAction, PanelController } from '../../panel/bridge';
import type { ForgePanelProvider } from '../../panel/provider';
import type { HunkState, PanelApprovalDecision } from '../../protocol/messages';
import type { FixProblemArgs } from '../code-actions';
import type { ForgeController, SelectionContext } from '../commands';
import type { ApiKeyStore } from '../secrets';
import { readSettings, type ProviderId } from '../settings';
import type { ForgeStatusBar } from '../status-bar';
import type { MemoryService } from './agent-factory';
import { VscodeWorkspaceProbe } from './durable-effects';
import { explainPrompt, fixProblemPrompt, fixPrompt, quoteSelection, refactorPrompt, selectionLabel } from './editor-actions';
import { PanelSetup } from './panel-setup';
import { MODES } from '../../core/modes';

import { saveModelChoice, type ModelFactory, type SwitchableModel } from './model-factory';
import { pickMemoryToForget, pickModel, pickTask, undoWithReport } from './pickers';
import { ReviewActions } from './review-actions';
import type { TaskSession, RunKind } from './session';
import type { SessionManager } from './session-manager';
import type { Recovery } from './recovery';
import type { Toolkit } from './tool-factory';
import type { AgentExtras } from './agent-extras';
import { runSlashCommand, type SlashActions } from './slash-commands';
import { MODE_NAMES, getMode, type ModeName } from '../../core/modes';

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
  private removals: { dispose(): void };
  /** Per-hunk review and the task's changes (completion block, multi-file diff). */
  private readonly review: ReviewActions;

  constructor(private readonly deps: ControllerDeps) {
    this.review = new ReviewActions(() => this.deps);
    this.removals = deps.manager.onTasksRemoved((ids) => this.forgetEdits(ids));
    // Blobs of tasks that left the history while Forge was not running: reclaim them in the background.
    deps.journal.collectGarbageSoon();
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
    this.removals.dispose();
    this.removals = manager.onTasksRemoved((ids) => this.forgetEdits(ids));
    if (this.panel) manager.attach(this.panel);
  }

  /** Tasks pruned or removed from the history take their edit journal along (their blobs go with the next GC). */
  private forgetEdits(ids: string[]): void {
    // The open task may have been pruned before its next save brings it back: keep its undo.
    const gone = ids.filter((id) => id !== this.deps.manager.current.id);
    if (!gone.length) return;
    this.deps.recovery?.forgetTasks(gone);
    void Promise.all(gone.map((id) => this.deps.journal.removeTask(id))).then(
      () => this.deps.journal.collectGarbageSoon(),
      (err) => this.deps.log.warn(`edit journal: could not remove pruned tasks: ${err instanceof Error ? err.message : String(err)}`),
    );
  }

  // ---------- runs ----------

  /** Starts a run in the current task. Resolves when it ends (undefined when it could not start). */
  async startRun(kind: RunKind, text: string, signal?: AbortSignal, display?: string): Promise<RunReport | undefined> {
    const asked = this.deps.manager.current;
    if (!this.deps.model.configured) await this.deps.refreshModel();
    // Checked after the wait: the user may have switched tasks or sent again meanwhile.
    const session = this.deps.manager.current;
    if (session !== asked) {
      if (kind === 'send') {
        void this.panel?.prefill(text);
        session.transcript.addError('The task changed before your message was sent; it is back in the input box.');
      }
      return undefined;
    }
    if (session.running) {
      if (kind === 'send') void this.panel?.prefill(text);
      session.transcript.addError(`Forge is still working on this task. Stop it first, or wait for it to finish${kind === 'send' ? '; your message is back in the input box' : ''}.`);
      return undefined;
    }
    if (!this.deps.model.configured) {
      const status = this.panel?.bridge.snapshot().provider;
      session.transcript.addError(status?.problem ?? 'No model is configured yet. Set one up to start.', ['setup_model', 'select_model'], 'setup');
      if (kind === 'send') void this.panel?.prefill(text);
      return undefined;
    }
    if (kind === 'send' && session.hasPendingApproval) {
      // A restored task still waits for an approval: ask it again first; the message must not get lost.
      void this.panel?.prefill(text);
      session.transcript.addError('This task is waiting for your answer to an approval (asked again now). Your message is back in the input box.');
      return this.startRun('resume', '', signal);
    }
    // Trust and command rules as they are now (a settings event may not have arrived yet).
    if (this.deps.toolkit.refresh()) session.rebuildAgent();
    this.deps.log.info(`task ${session.id}: ${kind}${kind === 'send' ? ` (${text.length} chars)` : ''}`);
    this.prewarmCommands();
    const message = kind === 'send' && this.deps.beforeSend ? this.deps.beforeSend(text) : text;
    this.review.onRunStart(session.id);
    const report = await session.run(kind, message, signal, display);
    if (report) void this.review.showChanges(session.id);
    if (report) this.deps.log.info(`task ${session.id}: run ended ${report.reason} after ${report.iterations} iteration(s), ${report.elapsedMs} ms`);
    return report;
  }

  /**
   * A run that may run commands: the Forge terminal starts (hidden) and the shell parser loads while the model
   * thinks, so the first command neither waits for a shell nor blocks the host loading the parser.
   */
  private prewarmCommands(): void {
    // Only an optimisation: nothing here may keep a run from starting.
    try {
      const { toolkit } = this.deps;
      const root = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
      if (!root || !toolkit.sandbox?.trusted || !toolkit.tools?.some((t) => t.name === 'execute_command')) return;
      toolkit.runner.prewarm(root);
    } catch (err) {
      this.deps.log.warn(`could not prepare the terminal: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  /** Status bar and logs follow the same events the panel does. */
  onAgentEvent(session: TaskSession, e: AgentEvent): void {
    this.deps.extras?.testRuns.observe(e);
    const bar = this.deps.statusBar;
    const log = this.deps.log;
    switch (e.type) {
      case 'run_start':
        bar.running({ iteration: 0, maxIterations: e.maxIterations });
        break;
      case 'iteration': {
        const tokens = e.usage.inputTokens + e.usage.outputTokens;
        const cost = e.costUsd !== undefined ? ` · ${formatCost(e.costUsd)}` : '';
        bar.running({ iteration: e.iteration, maxIterations: e.maxIterations, detail: `${(tokens / 1000).toFixed(1)}k tokens${cost}` });
        break;
      }
      case 'approval_requested':
        bar.waiting(`Forge is waiting for your approval (${e.request.toolName}).`);
        break;
      case 'approval_resolved':
        bar.running({ iteration: session.dump().iterations, maxIterations: session.dump().maxIterations });
        break;
      case 'tool_result':
        if (e.isError) log.info(`task ${session.id}: ${e.name} returned an error: ${e.content.slice(0, 300)}`);
        break;
      case 'warning':
        log.warn(`task ${session.id}: ${e.kind}: ${e.message}`);
        break;
      case 'run_end':
        bar.idle();
        if (e.report.reason === 'error') log.error(`task ${session.id}: ${e.report.detail}`);
        break;
    }
  }

  /** Sends a prompt from an editor action: into the current task when it is empty, else into a new one. */
  private async sendPrompt(text: string, display?: string): Promise<RunReport | undefined> {
    await this.panel?.reveal();
    const current = this.deps.manager.current;
    if (current.running) {
      await this.panel?.prefill(text);
      void vscode.window.showInformationMessage('Forge is busy with a task; your request is in the chat box. Send it when the task ends.');
      return undefined;
    }
    // The task in the panel is not replaced: it is saved and stays in the history; the action starts a new one.
    if (current.dump().history.length > 0) this.deps.manager.newTask();
    return this.startRun('send', text, undefined, display);
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

  explainSelection(sel: SelectionContext) {
    return this.sendPrompt(explainPrompt(sel), `Explain selection in ${selectionLabel(sel)}`);
  }

  fixSelection(sel: SelectionContext) {
    return this.sendPrompt(fixPrompt(sel), `Fix selection in ${selectionLabel(sel)}`);
  }

  refactorSelection(sel: SelectionContext, instruction: string) {
    return this.sendPrompt(refactorPrompt(sel, instruction), `Refactor ${selectionLabel(sel)}: ${instruction}`);
  }

  async fixProblem(args: FixProblemArgs) {
    return this.sendPrompt(await fixProblemPrompt(args));
  }

  async addSelectionToChat(sel: SelectionContext): Promise<void> {
    await this.panel?.prefill(`${quoteSelection(sel)}\n\n`);
  }

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
  async undoTaskChanges(taskId?: string, confirm = true) {
    const id = taskId ?? this.deps.manager.current.id;
    const fs = this.deps.toolkit.fs;
    const decode = (b: Uint8Array) => new TextDecoder().decode(b);
    const journalFs = {
      read: async (p: string) => ((await fs.stat(p)) ? decode(await fs.readFile(p)) : null),
      write: (p: string, content: string) => fs.writeFile(p, new TextEncoder().encode(content)),
      remove: (p: string) => Promise.resolve(vscode.workspace.fs.delete(vscode.Uri.file(p), { useTrash: false })),
    };
    // Edits a crash cut off are settled against the disk first, so Undo sees one that was written (durability).
    // (Not an edit being applied right now: not while this task runs here, and only intents older than a minute.)
    const live = this.deps.manager.current.id === id && this.deps.manager.current.running;
    if (!live) await settleEdits(this.deps.journal, id, new VscodeWorkspaceProbe(), (m) => this.deps.log.debug(m), { minAgeMs: 60_000 }).catch(() => undefined);
    const result = await undoWithReport(this.deps.journal, id, journalFs, confirm);
    this.deps.recovery?.markUndo(id, result);
    return result;
  }

  onEditPlan(taskId: string | undefined, plan: unknown): void {
    this.deps.recovery?.editPlan(taskId, plan);
  }

  onRestoreCheckpoint(taskId: string | undefined, toolCallId: string): Promise<void> | undefined {
    return this.deps.recovery?.restoreFromPanel(taskId, toolCallId);
  }

  async setApiKey(provider?: ProviderId): Promise<void> {
    const changed = await this.deps.keys.prompt(provider ?? readSettings().provider);
    if (changed) await this.deps.refreshModel();
  }

  async selectModel(): Promise<void> {
    if (await pickModel(this.deps.models, this.deps.keys)) await this.deps.refreshModel();
  }

  async showTaskHistory(): Promise<void> {
    // The panel has its own searchable history: open it there; the quick pick serves when there is no panel.
    if (this.panel) {
      await this.panel.reveal();
      this.panel.post({ type: 'show', view: 'history' });
      return;
    }
    const id = await pickTask(await this.deps.manager.history());
    if (id) await this.loadTask(id);
  }

  showLogs(): void {
    this.deps.log.show();
  }

  async showMemory(): Promise<void> {
    const file = this.deps.memory.workspaceFile;
    if (!file) {
      void vscode.window.showInformationMessage('Forge keeps learnings per workspace: open a folder first.');
      return;
    }
    try {
      await vscode.window.showTextDocument(vscode.Uri.file(file));
    } catch {
      void vscode.window.showInformationMessage(`Forge has not learned anything in this workspace yet (${vscode.workspace.asRelativePath(file, false)} does not exist).`);
    }
  }

  async forget(learningId?: string): Promise<boolean> {
    const id = learningId ?? (await pickMemoryToForget(this.deps.memory));
    if (!id) return false;
    const ok = await this.deps.memory.forget(id);
    void vscode.window.showInformationMessage(ok ? 'Forge forgot that learning.' : 'Forge: that learning no longer exists.');
    return ok;
  }

  async loadTask(id: string): Promise<TaskSession | undefined> {
    const session = await this.deps.manager.load(id);
    if (!session) {
      void vscode.window.showWarningMessage('Forge: that task is no longer in the history.');
      await this.deps.manager.publishHistory();
      return undefined;
    }
    await this.panel?.reveal();
    void this.resumeIfPending();
    return session;
  }

  /** A task saved while it waited for an approval asks again (when the user opens it, or at activation). */
  resumeIfPending(): Promise<RunReport | undefined> | undefined {
    const session = this.deps.manager.current;
    if (!session.hasPendingApproval || !this.deps.model.configured) return undefined;
    return this.startRun('resume', '');
  }

  // ---------- PanelController (webview) ----------

  async onSendMessage(text: string, _requestId: string, signal: AbortSignal): Promise<void> {
    const slash = this.deps.extras?.slash;
    if (slash && (await runSlashCommand(text, this.slashActions(slash), signal))) {
      this.deps.extras?.refresh?.();
      return;
    }
    await this.startRun('send', text, signal);
  }

  /** "Implement this plan": the last plan-mode result becomes implement mode's task, in the same conversation. */
  async onImplementPlan(_requestId: string, signal: AbortSignal): Promise<void> {
    const session = this.deps.manager.current;
    const items = session.transcript.getItems();
    const plan = [...items].reverse().find((it) => it.kind === 'run_end' && it.actions.includes('implement_plan'));
    if (!plan || plan.kind !== 'run_end') {
      session.transcript.addError('There is no plan to implement in this task: run a task in plan mode first (/mode plan).');
      return;
    }
    if (session.running) {
      session.transcript.addError('Forge is still working on this task. Stop it first, or wait for it to finish.');
      return;
    }
    session.setMode('implement');
    await this.startRun('send', `Implement this plan (approved by the user):\n\n${plan.detail}`, signal);
  }

  /** What the panel's slash commands do in this host. */
  private slashActions(registry: NonNullable<ControllerDeps['extras']>['slash']): SlashActions {
    const session = () => this.deps.manager.current;
    return {
      registry,
      notice: (text, level) => this.panel?.post({ type: 'command_notice', text: text.slice(0, 50_000), level }),
      running: () => session().running,
      stop: () => this.stop(),
      newTask: () => this.onNewTask(),
      mode: () => session().mode,
      setMode: (mode) => {
        session().setMode(mode);
        void session().save();
      },
      pickMode: async (current) => {
        const items = MODE_NAMES.map((name) => ({ label: getMode(name).label, description: name === current ? 'current' : '', detail: getMode(name).prompt, name }));
        const pick = await vscode.window.showQuickPick(items, { title: 'Forge: mode for this task', placeHolder: `Current: ${getMode(current).label}` });
        return pick?.name as ModeName | undefined;
      },
      selectModel: () => this.selectModel(),
      compact: (signal) => session().compact(signal),
      undo: () => this.undoTaskChanges(),
      send: (prompt, signal) => this.startRun('send', prompt, signal),
    };
  }

  async onContinue(_requestId: string, signal: AbortSignal): Promise<void> {
    await this.startRun('continue', '', signal);
  }

  onStop(): void {
    this.deps.manager.current.stop();
  }

  onApproval(requestId: string, decision: PanelApprovalDecision): void {
    void this.deps.toolkit.approvals.resolve(requestId, decision).then((found) => {
      if (!found) this.deps.log.warn(`approval ${requestId} was answered but is no longer pending`);
    });
  }

  onNewTask(): void {
    this.deps.manager.newTask();
  }

  onLoadTask(taskId: string): void {
    void this.loadTask(taskId).catch((err) => this.panel?.showError(err instanceof Error ? err.message : String(err)));
  }

  onOpenFile(file: string, line?: number): void {
    void this.openFile(file, line);
  }

  /** Links in the panel come from model text: they open only files the sandbox would let Forge read. */
  private async openFile(file: string, line?: number): Promise<void> {
    const { fs, sandbox } = this.deps.toolkit;
    const resolved = await new WorkspaceSandbox(fs, sandbox).resolve(file, 'read');
    if (!resolved.ok) {
      this.panel?.showError(`Forge will not open ${file}: ${resolved.reason}`);
      return;
    }
    const pos = new vscode.Position(Math.max(0, (line ?? 1) - 1), 0);
    await vscode.window.showTextDocument(vscode.Uri.file(resolved.abs), { selection: new vscode.Range(pos, pos), preview: true }).then(undefined, () =>
      this.panel?.showError(`Forge could not open ${file}.`),
    );
  }

  reviewTaskChanges(taskId?: string): Promise<boolean> {
    return this.review.reviewTaskChanges(taskId);
  }

  onHunkDecision(requestId: string, index: number, state: HunkState, reason?: string): void {
    this.review.onHunkDecision(requestId, index, state, reason);
  }

  onChangesAction(taskId: string, action: ChangesAction, path?: string): void {
    this.review.onChangesAction(taskId, action, path);
  }

  onOpenDiff(requestId: string): void {
    // A pending proposal opens its diff editor; an answered one shows the change it made (from the transcript).
    if (this.deps.toolkit.diffApproval.pendingIds().includes(requestId)) {
      void this.deps.toolkit.diffApproval.show(requestId, { preserveFocus: false });
      return;
    }
    void this.setup.showPastChange(this.deps.manager.current.transcript, requestId);
  }

  // ---------- the panel's own setup, history and mode switch (panel-setup.ts) ----------

  private readonly setup = new PanelSetup({
    keys: () => this.deps.keys,
    panel: () => this.panel,
    refreshModel: () => this.deps.refreshModel(),
    log: () => this.deps.log,
  });

  onCheckProvider(req: Parameters<PanelSetup['check']>[0]): void {
    void this.setup.check(req);
  }

  onSaveProvider(req: Parameters<PanelSetup['save']>[0]): void {
    void this.setup.save(req);
  }

  onDeleteTask(taskId: string): void {
    void this.deleteTask(taskId).catch((err) => this.panel?.showError(`Forge could not delete that task: ${err instanceof Error ? err.message : String(err)}`));
  }

  private async deleteTask(taskId: string): Promise<void> {
    const manager = this.deps.manager;
    if (taskId === manager.current.id) {
      if (manager.current.running) throw new Error('stop it first');
      manager.newTask();
    }
    await manager.remove(taskId);
  }

  onSetMode(mode: string): void {
    const known = MODE_IDS as readonly string[];
    if (!known.includes(mode)) return;
    const session = this.deps.manager.current;
    session.setMode(mode as (typeof MODE_IDS)[number]);
    this.panel?.bridge.setMode(mode);
  }

  onOpenToolOutput(ref: string): void {
    void this.openToolOutput(ref);
  }

  onSelectModel(modelId?: string): void {
    const m = modelId ? /^(vscode-lm|openai|anthropic|openai-compatible):(.+)$/.exec(modelId) : null;
    const done = m ? saveModelChoice(m[1] as ProviderId, m[2]).then(() => this.deps.refreshModel()) : this.selectModel();
    void done.catch((err) => this.panel?.showError(`Forge could not switch the model: ${err instanceof Error ? err.message : String(err)}`));
  }

  onOpenSettings(): void {
    void vscode.commands.executeCommand('workbench.action.openSettings', '@ext:forge-dev.forge-agent');
  }

  onSetApiKey(provider?: string): void {
    const known: ProviderId[] = ['openai', 'anthropic', 'openai-compatible'];
    void this.setApiKey(known.includes(provider as ProviderId) ? (provider as ProviderId) : undefined);
  }

  onShowLogs(): void {
    this.showLogs();
  }

  private async openToolOutput(ref: string): Promise<void> {
    const text = await this.deps.outputs.get(ref);
    if (text === undefined) {
      this.panel?.showError('That output is no longer available (full outputs are kept in memory for the session only).');
      return;
    }
    const doc = await vscode.workspace.openTextDocument({ content: text, language: 'log' });
    await vscode.window.showTextDocument(doc, { preview: true });
  }
}

// Routes the palette commands (ForgeController) and the panel's messages (PanelController) to the task
// sessions, approvals, models and memory. Every run goes through startRun, so the panel, commands and tests
// share one path.
import { formatCost } from '../../protocol/format';
import * as vscode from 'vscode';
import type { OutputStore } from '../../core/context/output-store';
import { WorkspaceSandbox } from '../../core/safety/paths';
import type { AgentEvent, RunReport } from '../../core/loop/events';
import type { EditJournal } from '../../core/tasks/journal';
import type { PanelController } from '../../panel/bridge';
import type { ForgePanelProvider } from '../../panel/provider';
import type { PanelApprovalDecision } from '../../protocol/messages';
import type { FixProblemArgs } from '../code-actions';
import type { ForgeController, SelectionContext } from '../commands';
import type { ApiKeyStore } from '../secrets';
import { readSettings, type ProviderId } from '../settings';
import type { ForgeStatusBar } from '../status-bar';
import type { MemoryService } from './agent-factory';
import { explainPrompt, fixProblemPrompt, fixPrompt, quoteSelection, refactorPrompt } from './editor-actions';
import { saveModelChoice, type ModelFactory, type SwitchableModel } from './model-factory';
import { pickMemoryToForget, pickModel, pickTask, undoWithReport } from './pickers';
import type { TaskSession, RunKind } from './session';
import type { SessionManager } from './session-manager';
import type { Toolkit } from './tool-factory';

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
  /** A sent message as the model gets it (MCP resources the user attached are appended). */
  beforeSend?(text: string): string;
}

export class Controller implements ForgeController, PanelController {
  private panel: ForgePanelProvider | undefined;
  private removals: { dispose(): void };

  constructor(private readonly deps: ControllerDeps) {
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
    void Promise.all(gone.map((id) => this.deps.journal.removeTask(id))).then(
      () => this.deps.journal.collectGarbageSoon(),
      (err) => this.deps.log.warn(`edit journal: could not remove pruned tasks: ${err instanceof Error ? err.message : String(err)}`),
    );
  }

  // ---------- runs ----------

  /** Starts a run in the current task. Resolves when it ends (undefined when it could not start). */
  async startRun(kind: RunKind, text: string, signal?: AbortSignal): Promise<RunReport | undefined> {
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
      session.transcript.addError(status?.problem ?? 'No model is configured. Pick one with "Forge: Select Model".', ['select_model', 'set_api_key', 'open_settings']);
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
    const report = await session.run(kind, message, signal);
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
  private async sendPrompt(text: string): Promise<RunReport | undefined> {
    await this.panel?.reveal();
    const current = this.deps.manager.current;
    if (current.running) {
      await this.panel?.prefill(text);
      void vscode.window.showInformationMessage('Forge is busy with a task; your request is in the chat box. Send it when the task ends.');
      return undefined;
    }
    if (current.dump().history.length > 0) this.deps.manager.newTask();
    return this.startRun('send', text);
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
    return this.sendPrompt(explainPrompt(sel));
  }

  fixSelection(sel: SelectionContext) {
    return this.sendPrompt(fixPrompt(sel));
  }

  refactorSelection(sel: SelectionContext, instruction: string) {
    return this.sendPrompt(refactorPrompt(sel, instruction));
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
    return undoWithReport(this.deps.journal, id, journalFs, confirm);
  }

  async setApiKey(provider?: ProviderId): Promise<void> {
    const changed = await this.deps.keys.prompt(provider ?? readSettings().provider);
    if (changed) await this.deps.refreshModel();
  }

  async selectModel(): Promise<void> {
    if (await pickModel(this.deps.models, this.deps.keys)) await this.deps.refreshModel();
  }

  async showTaskHistory(): Promise<void> {
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
    await this.startRun('send', text, signal);
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

  onOpenDiff(requestId: string): void {
    void this.deps.toolkit.diffApproval.show(requestId, { preserveFocus: false });
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

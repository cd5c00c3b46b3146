// The session behind the panel and the palette: the session manager of the open task, the features that act on
// it (runs, history, review, approvals, recovery, model settings, memory, the panel's setup and links), and the
// handler table each surface gets, made of the slices those features export. Every run goes through
// RunControl.start, so the panel, commands and tests share one path.
import type * as vscode from 'vscode';
import type { OutputStore } from '../../core/context/output-store';
import type { AgentEvent, RunReport } from '../../core/loop/events';
import type { EditJournal } from '../../core/tasks/journal';
import type { ForgePanelProvider } from '../../panel/provider';
import type { WebviewHandlers } from '../../panel/webview-handlers';
import type { CommandId } from '../../protocol/commands';
import type { CommandHandlers } from './commands';
import type { ApiKeyStore } from '../api-key-store';
import type { ForgeStatusBar } from './status-bar';
import type { AgentExtras } from '../wiring/agent-extras';
import type { MemoryService } from '../wiring/memory-service';
import { approvalCommands, approvalMessages } from './approval-actions';
import { editorCommands } from './editor-actions';
import { MemoryActions, memoryCommands } from './memory-actions';
import type { ModelFactory, SwitchableModel } from '../wiring/model-factory';
import { modelCommands, modelMessages, ModelSettings } from './model-settings';
import { linkMessages, PanelLinks } from './panel-links';
import { PanelSetup, setupMessages } from './panel-setup';
import type { Recovery } from '../session/recovery';
import { recoveryCommands, recoveryMessages } from './recovery-handlers';
import { reviewCommands, reviewMessages, ReviewActions } from './review-actions';
import { RunControl } from '../session/run-control';
import { reportRunEvent } from '../session/run-status';
import type { RunKind, TaskSession } from '../session/task-session';
import type { SessionManager } from '../session/session-manager';
import { hostSlashActions } from './slash-host-actions';
import { runSlashCommand } from './slash-commands';
import { historyCommands, historyMessages, TaskHistory } from '../session/task-history';
import { undoTaskChanges } from '../edits/task-undo';
import { stageImages } from './image-intake';
import { toImagePart, type ImageStore } from '../../node/image-store';
import type { ImageAttachment } from '../../protocol/images';
import { SteeringActions, steeringMessages } from './steering-actions';
import type { Toolkit } from '../wiring/toolkit';
import type { Mention } from '../../core/mentions/mention';
import type { ModeDefinition } from '../../core/modes';
import { createMentionService, mentionMessages, toMention } from '../mentions/mention-handlers';
import type { MentionService } from '../mentions/mention-service';

/** Panel messages that need no session and never wait: the wiring answers them at once. */
export type ImmediateMessage = 'show_logs' | 'ecosystem_action';
type SessionWebviewHandlers = Omit<WebviewHandlers, ImmediateMessage>;
/** Palette commands that need no session and never wait: the wiring registers them with the pieces they act on. */
export type ImmediateCommand =
  | 'forge.openPanel'
  | 'forge.openPanelInEditor'
  | 'forge.showLogs'
  | 'forge.acceptHunk'
  | 'forge.rejectHunk'
  | 'forge.resetHunk'
  | Extract<CommandId, `forge.parallel.${string}`>
  | 'forge.showMcpServers'
  | 'forge.attachMcpResource'
  | 'forge.editProjectRules'
  | 'forge.reviewWorkspaceSettings'
  | 'forge.managePermissions'
  | 'forge.manageHooks'
  | 'forge.setWebSearchKey';
type SessionCommandHandlers = Omit<CommandHandlers, ImmediateCommand>;

export interface ControllerDeps {
  manager: SessionManager;
  /** The team's custom agents (modes beside the built-ins, for /mode). */
  customModes?: () => readonly ModeDefinition[];
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
  /** Where the images sent with messages are kept (beside the task history). */
  images?: Pick<ImageStore, 'put'> & Partial<Pick<ImageStore, 'collectGarbageSoon' | 'get'>>;
  /** @-mentions (made from the toolkit, the model and the session when absent). */
  mentions?: MentionService;
}

export class Controller {
  private panel: ForgePanelProvider | undefined;
  /** The panel's messages that need the session, one handler each. */
  readonly webview: SessionWebviewHandlers;
  /** The palette's commands that need the session, one handler each. */
  readonly commands: SessionCommandHandlers;
  /** Per-hunk review and the task's changes (completion block, multi-file diff). */
  private readonly review: ReviewActions;
  private readonly runs: RunControl;
  private readonly history: TaskHistory;
  private readonly modelSettings: ModelSettings;

  constructor(private readonly deps: ControllerDeps) {
    // The handlers read the deps and the panel when called: replaceManager and setPanel change them later.
    const current = () => this.deps;
    const panel = () => this.panel;
    const manager = () => this.deps.manager;
    const recovery = () => this.deps.recovery;
    this.deps.mentions ??= createMentionService({
      toolkit: deps.toolkit,
      contextWindow: () => deps.model.info.contextWindow,
      history: () => this.deps.manager.current.history,
      lastTestRun: () => this.deps.extras?.testRuns.last(),
      log: (m) => this.deps.log.info(m),
    });
    const mentions = this.deps.mentions;
    this.review = new ReviewActions(current);
    this.runs = new RunControl(current, panel, this.review);
    const steering = new SteeringActions({
      manager,
      recovery,
      panel,
      start: (k, t, s, d, m) => this.runs.start(k, t, s, d, m),
      // A steered or queued message keeps the composer's images and chips (steer-attachments.ts).
      attachments: {
        model: () => this.deps.model.info,
        images: () => this.deps.images ?? { put: toImagePart },
        mentions: () => this.deps.mentions,
      },
    });
    this.runs.onRunEnd = (session, report) => steering.afterRun(session, report);
    this.history = new TaskHistory(current, panel, () => this.resumeIfPending());
    this.modelSettings = new ModelSettings(current, panel);
    const memory = new MemoryActions(() => this.deps.memory);
    const links = new PanelLinks(current, panel);
    const setup = new PanelSetup({
      keys: () => this.deps.keys,
      panel,
      refreshModel: () => this.deps.refreshModel(),
      log: () => this.deps.log,
    });
    this.webview = {
      ...this.taskMessages(),
      ...approvalMessages(current),
      ...reviewMessages(this.review),
      ...historyMessages(this.history, manager, panel),
      ...modelMessages(this.modelSettings),
      ...linkMessages(links),
      ...setupMessages(setup),
      ...recoveryMessages(recovery),
      ...mentionMessages(() => mentions, panel),
      ...steeringMessages(steering),
    };
    this.commands = {
      ...this.taskCommands(),
      ...editorCommands({
        sendPrompt: (prompt, display, chips) => this.runs.sendPrompt(prompt, display, chips),
        prefill: (text, chips) =>
          this.panel?.prefill(
            text,
            chips?.map((m) => mentions.chip(m)),
          ),
      }),
      ...approvalCommands(current),
      ...reviewCommands(this.review),
      ...historyCommands(this.history),
      ...modelCommands(this.modelSettings),
      ...memoryCommands(memory),
      ...recoveryCommands(recovery),
    };
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

  /** Starts a run in the current task. Resolves when it ends (undefined when it could not start). */
  startRun(
    kind: RunKind,
    text: string,
    signal?: AbortSignal,
    display?: string,
    mentions?: readonly Mention[],
  ): Promise<RunReport | undefined> {
    return this.runs.start(kind, text, signal, display, mentions);
  }

  /** A task saved while it waited for an approval asks again (when the user opens it, or at activation). */
  resumeIfPending(): Promise<RunReport | undefined> | undefined {
    return this.runs.resumeIfPending();
  }

  /** Status bar and logs follow the same events the panel does. */
  onAgentEvent(session: TaskSession, e: AgentEvent): void {
    reportRunEvent(
      { statusBar: this.deps.statusBar, log: this.deps.log, testRuns: this.deps.extras?.testRuns },
      session,
      e,
    );
  }

  /** A new task (the one open stays in the history), started with `prompt` when there is one. */
  newTask(prompt?: string): Promise<RunReport | undefined> | undefined {
    this.deps.manager.newTask();
    void this.panel?.reveal();
    return prompt?.trim() ? this.startRun('send', prompt) : undefined;
  }

  /** Stops the open task's run, and every run the panel started. */
  stop(): void {
    this.deps.manager.current.stop();
    this.panel?.bridge.abort();
  }

  continueTask(): Promise<RunReport | undefined> {
    void this.panel?.reveal();
    return this.startRun('continue', '');
  }

  /** Restores the files a task edited (asks first unless `confirm` is false). */
  undoTaskChanges(taskId?: string, confirm = true) {
    return undoTaskChanges(this.deps, taskId ?? this.deps.manager.current.id, confirm);
  }
  /** The task's changes block, computed again (after a restore, an undo or a redo moved its files). */
  refreshChanges(taskId: string): Promise<void> {
    return this.review.showChanges(taskId);
  }

  /** The images of the message about to be sent; false (and the panel told why) when they cannot go. */
  private async stageImages(images: readonly ImageAttachment[] | undefined, text: string): Promise<boolean> {
    const session = this.deps.manager.current;
    if (!images?.length) {
      session.stageImages(undefined);
      return true;
    }
    const staged = await stageImages(images, this.deps.model.info, this.deps.images ?? { put: toImagePart });
    if ('error' in staged) {
      void this.panel?.prefill(text);
      session.transcript.addError(staged.error);
      return false;
    }
    session.stageImages(staged);
    return true;
  }

  /** The open task's own messages: a message from the input box (or a slash command), Continue, Stop, the mode. */
  private taskMessages() {
    return {
      send_message: async (m, signal) => {
        const slash = this.deps.extras?.slash;
        if (slash && (await runSlashCommand(m.text, this.slashActions(slash), signal))) {
          this.deps.extras?.refresh?.();
          return;
        }
        if (!(await this.stageImages(m.images, m.text))) return;
        await this.startRun('send', m.text, signal, undefined, m.mentions?.map(toMention));
      },
      continue: async (_m, signal) => {
        await this.startRun('continue', '', signal);
      },
      implement_plan: (_m, signal) => this.runs.implementPlan(signal),
      stop: () => {
        this.deps.manager.current.stop();
      },
      set_mode: (m) => {
        // A built-in mode or one of the team's custom agents: the agent refuses any other name.
        try {
          this.deps.manager.current.setMode(m.mode);
        } catch {
          return;
        }
        this.panel?.bridge.setMode(m.mode);
      },
    } satisfies Partial<WebviewHandlers>;
  }

  private taskCommands() {
    const text = (x: unknown) => (typeof x === 'string' ? x : undefined);
    return {
      'forge.newTask': (prompt?: unknown) => this.newTask(text(prompt)),
      'forge.stop': () => this.stop(),
      'forge.continue': () => this.continueTask(),
      'forge.undoTaskChanges': (taskId?: unknown) => this.undoTaskChanges(text(taskId)),
    } satisfies Partial<CommandHandlers>;
  }

  /** What the panel's slash commands do in this host. */
  private slashActions(registry: NonNullable<ControllerDeps['extras']>['slash']) {
    return hostSlashActions(registry, {
      session: () => this.deps.manager.current,
      panel: () => this.panel,
      stop: () => this.stop(),
      newTask: () => this.deps.manager.newTask(),
      selectModel: () => this.modelSettings.selectModel(),
      undo: () => this.undoTaskChanges(),
      send: (prompt, signal) => this.startRun('send', prompt, signal),
      customModes: () => this.deps.customModes?.() ?? [],
    });
  }
}

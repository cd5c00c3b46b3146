// Starting runs: every run (the panel, the palette, editor actions, slash commands, tests) goes through start(),
// which checks that the task can run now and brings the model, the tools and the terminal up to date first.
import * as vscode from 'vscode';
import type { RunReport } from '../../core/loop/events';
import type { ForgePanelProvider } from '../../panel/provider';
import type { Logger } from '../logger';
import type { ReviewActions } from '../ui/review-actions';
import type { RunKind, TaskSession } from './task-session';
import type { SessionManager } from './session-manager';
import type { Toolkit } from '../wiring/toolkit';
import type { Mention } from '../../core/mentions/mention';
import { messageWithContext } from '../../core/mentions/resolve';
import type { MentionService } from '../mentions/mention-service';
import { errorText } from '../../core/error-text';
import { plural } from '../../core/plural';

interface RunDeps {
  manager: SessionManager;
  model: { readonly configured: boolean };
  toolkit: Toolkit;
  log: Logger;
  refreshModel(): Promise<void>;
  /** A sent message as the model gets it (MCP resources the user attached are appended). */
  beforeSend?(text: string): string;
  /** @-mentions: their chips and their content. */
  mentions?: Pick<MentionService, 'chip' | 'resolve'>;
}

export class RunControl {
  /** A run this started has ended (the steering queue sends what waits). */
  onRunEnd?: (session: TaskSession, report: RunReport) => void;

  constructor(
    private readonly deps: () => RunDeps,
    private readonly panel: () => ForgePanelProvider | undefined,
    private readonly review: Pick<ReviewActions, 'onRunStart' | 'showChanges'>,
  ) {}

  /**
   * Starts a run in the current task. Resolves when it ends (undefined when it could not start). `mentions` (chips)
   * are resolved into labelled context for the model; the transcript shows the text and the chips.
   */
  async start(
    kind: RunKind,
    text: string,
    signal?: AbortSignal,
    display?: string,
    mentions?: readonly Mention[],
  ): Promise<RunReport | undefined> {
    const deps = this.deps();
    const chips = mentions?.length && deps.mentions ? mentions.map((m) => deps.mentions!.chip(m)) : undefined;
    const asked = deps.manager.current;
    // A message the steering queue sends stays in the queue when it cannot go now; any other goes back to the input.
    const queued = kind === 'send' && asked.isQueuedSend(text);
    const back = queued ? 'it waits in the queue above the input' : 'your message is back in the input box';
    const giveBack = () => {
      if (kind === 'send' && !queued) void this.panel()?.prefill(text, chips);
    };
    if (!deps.model.configured) await deps.refreshModel();
    // Checked after the wait: the user may have switched tasks or sent again meanwhile.
    const session = deps.manager.current;
    if (session !== asked) {
      if (kind === 'send') {
        giveBack();
        session.transcript.addError(`The task changed before your message was sent; ${back}.`);
      }
      return undefined;
    }
    if (session.running) {
      giveBack();
      session.transcript.addError(
        `Forge is still working on this task. Stop it first, or wait for it to finish${kind === 'send' ? `; ${back}` : ''}.`,
      );
      return undefined;
    }
    if (!deps.model.configured) {
      // The panel shows the setup form, with the reason, whenever no model is usable: point there, not at the
      // palette, and do not say the reason a second time.
      session.transcript.addError(
        `No model is set up yet: connect one in the form above; ${back}.`,
        ['setup_model', 'select_model'],
        'setup',
      );
      giveBack();
      return undefined;
    }
    if (kind === 'send' && session.hasPendingApproval) {
      // A restored task still waits for an approval: ask it again first; the message must not get lost.
      giveBack();
      session.transcript.addError(
        `This task is waiting for your answer to an approval (asked again now). ${back[0].toUpperCase()}${back.slice(1)}.`,
      );
      return this.start('resume', '', signal);
    }
    // Trust and command rules as they are now (a settings event may not have arrived yet).
    if (deps.toolkit.refresh()) session.rebuildAgent();
    deps.log.info(`task ${session.id}: ${kind}${kind === 'send' ? ` (${text.length} chars)` : ''}`);
    this.prewarmCommands();
    let message = kind === 'send' && deps.beforeSend ? deps.beforeSend(text) : text;
    if (kind === 'send' && chips && deps.mentions) {
      const resolved = await deps.mentions.resolve(mentions!);
      if (!resolved.ok) {
        giveBack();
        session.transcript.addError(
          `Your message was not sent: ${resolved.errors.join(' ')} Remove that chip and send again; your message is back in the input box.`,
        );
        return undefined;
      }
      message = messageWithContext(message, resolved.text);
      display ??= text;
    }
    this.review.onRunStart(session.id);
    const report = await session.run(kind, message, signal, display, chips);
    if (report) void this.review.showChanges(session.id);
    if (report) this.onRunEnd?.(session, report);
    if (report)
      deps.log.info(
        `task ${session.id}: run ended ${report.reason} after ${plural(report.iterations, 'iteration')}, ${report.elapsedMs} ms`,
      );
    return report;
  }

  /** A task saved while it waited for an approval asks again (when the user opens it, or at activation). */
  resumeIfPending(): Promise<RunReport | undefined> | undefined {
    const { manager, model } = this.deps();
    if (!manager.current.hasPendingApproval || !model.configured) return undefined;
    return this.start('resume', '');
  }

  /** Sends a prompt from an editor action: into the current task when it is empty, else into a new one. */
  async sendPrompt(text: string, display?: string, mentions?: readonly Mention[]): Promise<RunReport | undefined> {
    await this.panel()?.reveal();
    const { manager, mentions: service } = this.deps();
    const current = manager.current;
    if (current.running) {
      // The short line and the chips, never the internal prompt.
      const chips = service && mentions?.map((m) => service.chip(m));
      await this.panel()?.prefill(display ?? text, chips);
      void vscode.window.showInformationMessage(
        'Forge is busy with a task; your request is in the chat box. Send it when the task ends.',
      );
      return undefined;
    }
    // The task in the panel is not replaced: it is saved and stays in the history; the action starts a new one.
    if (current.dump().history.length > 0) manager.newTask();
    return this.start('send', text, undefined, display, mentions);
  }

  /** "Implement this plan": the last plan-mode result becomes implement mode's task, in the same conversation. */
  async implementPlan(signal: AbortSignal): Promise<void> {
    const session = this.deps().manager.current;
    const items = session.transcript.getItems();
    const plan = [...items].reverse().find((it) => it.kind === 'run_end' && it.actions.includes('implement_plan'));
    if (!plan || plan.kind !== 'run_end') {
      session.transcript.addError(
        'There is no plan to implement in this task: run a task in plan mode first (/mode plan).',
      );
      return;
    }
    if (session.running) {
      session.transcript.addError('Forge is still working on this task. Stop it first, or wait for it to finish.');
      return;
    }
    session.setMode('implement');
    await this.start('send', `Implement this plan (approved by the user):\n\n${plan.detail}`, signal);
  }

  /**
   * A run that may run commands: the Forge terminal starts (hidden) and the shell parser loads while the model
   * thinks, so the first command neither waits for a shell nor blocks the host loading the parser.
   */
  private prewarmCommands(): void {
    // Only an optimisation: nothing here may keep a run from starting.
    try {
      const { toolkit } = this.deps();
      const root = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
      if (!root || !toolkit.sandbox?.trusted || !toolkit.tools?.some((t) => t.name === 'execute_command')) return;
      toolkit.runner.prewarm(root);
    } catch (err) {
      this.deps().log.warn(`could not prepare the terminal: ${errorText(err)}`);
    }
  }
}

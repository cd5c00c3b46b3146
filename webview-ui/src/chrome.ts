// Everything around the conversation: header (mode switch, model, setup and settings), the setup form, error
// banner, history, the welcome state, progress with Stop, and the input box.
import type {
  Action,
  ModeChoiceView,
  Progress,
  ProviderStatus,
  RunStatus,
  TaskSummary,
} from '../../src/protocol/messages';
import { actionButtons } from './actions';
import { button, formatCost, formatDuration, formatTokens, h } from './dom';
import { HistoryView } from './historyView';
import { icon, iconButton } from './icons';
import { modeNote, renderModeNote, renderModeOptions } from './modeSwitch';
import { SetupForm } from './setup';
import { renderRecent, renderWelcome } from './welcome';

export class Chrome {
  readonly root: HTMLElement;
  readonly scroller: HTMLElement;
  readonly input: HTMLTextAreaElement;
  readonly setup = new SetupForm();
  readonly historyView = new HistoryView();
  private readonly model: HTMLElement;
  private readonly modeSelect: HTMLSelectElement;
  private readonly banner: HTMLElement;
  private readonly welcome: HTMLElement;
  /** The empty panel's line on what the current mode does. */
  private readonly modeNote: HTMLElement;
  private readonly progress: HTMLElement;
  private readonly progressText: HTMLElement;
  private readonly progressFill: HTMLElement;
  /**
   * The working indicator: a codicon turned by a CSS transform, which the compositor animates without repainting the
   * panel. The toolkit's progress ring redrew its SVG every frame (measured while a command ran in code-server:
   * Chromium's renderer at 28-36% of a core with it, 8% with this).
   */
  private readonly spinner: HTMLElement;
  /** Shown instead of the spinner while the run waits for the user: nothing is working, and nothing animates. */
  private readonly waitIcon: HTMLElement;
  private readonly sendBtn: HTMLElement;
  private readonly stopBtn: HTMLElement;
  private readonly hint: HTMLElement;
  private modelKey = '';
  private modesKey = '';
  private configured = true;

  constructor(mount: HTMLElement) {
    this.model = h('div', { class: 'model' });
    this.modeSelect = h('select', {
      class: 'mode-select',
      'aria-label': 'Mode',
      title: 'Mode: what Forge may do in this task',
    }) as HTMLSelectElement;
    this.modeSelect.hidden = true;
    this.modeSelect.addEventListener('change', () =>
      this.root.dispatchEvent(new CustomEvent('forge-set-mode', { detail: this.modeSelect.value })),
    );
    const header = h(
      'header',
      { class: 'header' },
      this.modeSelect,
      this.model,
      h(
        'div',
        { class: 'header-actions' },
        iconButton('plug', 'Connect a model', { 'data-act': 'open_setup' }),
        iconButton('settings-gear', 'Forge settings', { 'data-act': 'action', 'data-action': 'open_settings' }),
      ),
    );
    this.banner = h('div', { class: 'banner', role: 'alert', hidden: true });
    this.scroller = h('main', { class: 'transcript', tabindex: '0', 'aria-label': 'Conversation' });
    this.welcome = renderWelcome();
    this.welcome.hidden = true;
    this.modeNote = modeNote();
    this.welcome.querySelector('.welcome-title + p')?.after(this.modeNote);
    this.scroller.append(this.welcome);
    this.progressFill = h('div', { class: 'progress-fill' });
    this.progressText = h('span', { class: 'progress-text' });
    this.spinner = icon('loading', 'Working', 'spinner codicon-modifier-spin');
    this.spinner.hidden = true;
    this.waitIcon = icon('shield', 'Waiting for your approval', 'wait-icon');
    this.waitIcon.hidden = true;
    this.progress = h(
      'div',
      { class: 'progress', hidden: true, role: 'status', 'aria-live': 'off' },
      h('div', { class: 'progress-row' }, this.spinner, this.waitIcon, this.progressText),
      h('div', { class: 'progress-bar', 'aria-hidden': 'true' }, this.progressFill),
    );
    this.input = h('textarea', {
      class: 'input',
      rows: '1',
      // Short enough for one line beside the attach and Send buttons in a 300 px side bar (a wrapped placeholder is
      // clipped: the box grows with its text, not with the placeholder).
      placeholder: 'Describe a task…',
      title: 'Enter sends · Shift+Enter adds a line',
      'aria-label': 'Message Forge',
      maxlength: '100000',
    }) as HTMLTextAreaElement;
    this.sendBtn = button('Send', { 'data-act': 'send', title: 'Send (Enter)' }, 'primary');
    this.stopBtn = button('Stop', { 'data-act': 'stop', title: 'Stop the running task' }, 'secondary');
    this.stopBtn.hidden = true;
    this.hint = h('div', { class: 'composer-hint muted' });
    const composer = h(
      'footer',
      { class: 'composer' },
      this.progress,
      h(
        'div',
        { class: 'composer-row' },
        this.input,
        h('div', { class: 'composer-buttons' }, this.sendBtn, this.stopBtn),
      ),
      this.hint,
    );
    this.root = h(
      'div',
      { class: 'app' },
      header,
      this.banner,
      this.setup.el,
      this.historyView.el,
      this.scroller,
      composer,
    );
    mount.replaceChildren(this.root);
    this.input.addEventListener('input', () => this.autosize());
  }

  /** Grows with its text up to 240 px; a scroll bar only once it is that tall (no arrows on one line). */
  autosize(): void {
    this.input.style.height = 'auto';
    const full = this.input.scrollHeight + 2;
    this.input.style.height = `${Math.min(full, 240)}px`;
    this.input.style.overflowY = full > 240 ? 'auto' : 'hidden';
  }

  /** The empty panel greets; any item (or the setup form) replaces the greeting. */
  renderWelcome(itemCount: number): void {
    this.welcome.hidden = itemCount > 0 || !this.configured;
  }

  renderModes(modes: readonly ModeChoiceView[] | undefined, current: string | undefined, running: boolean): void {
    const key = JSON.stringify([modes, current, running, this.configured]);
    if (key === this.modesKey) return;
    this.modesKey = key;
    this.modeSelect.hidden = !modes || modes.length === 0 || !this.configured;
    if (!modes) return;
    renderModeOptions(this.modeSelect, modes, current, running);
    renderModeNote(this.modeNote, modes, this.modeSelect.value);
  }

  renderProvider(p: ProviderStatus): void {
    const key = JSON.stringify(p);
    if (key === this.modelKey) return;
    this.modelKey = key;
    if (modelPending(p)) {
      // The host is still resolving the model (its first snapshot after a start or reload): nothing to set up.
      this.configured = true;
      this.model.replaceChildren(
        h(
          'span',
          { class: 'model-link model-pending' },
          icon('loading', undefined, 'codicon-modifier-spin'),
          h('span', {}, 'Loading the model…'),
        ),
      );
      if (!this.setupByUser) this.setup.hide();
      return;
    }
    this.configured = p.configured;
    if (!p.configured) {
      // Never name a model that cannot be used: say what to do instead.
      this.model.replaceChildren(
        h(
          'a',
          {
            class: 'model-link needs-setup',
            'data-act': 'open_setup',
            role: 'button',
            tabindex: '0',
            title: p.problem ?? 'Set up a model',
          },
          icon('warning'),
          h('span', {}, 'Set up a model'),
        ),
      );
      this.setup.show(p, this.setupByUser);
      this.welcome.hidden = true;
      return;
    }
    if (p.models && p.models.length > 0) {
      const dd = h('vscode-dropdown', { 'aria-label': 'Model', class: 'model-dropdown', title: 'Model' });
      for (const m of p.models)
        dd.append(h('vscode-option', { value: m.id, selected: m.id === (p.modelId ?? p.model) }, m.label));
      dd.addEventListener('change', () => {
        const v = (dd as unknown as { value?: string }).value;
        if (v) this.root.dispatchEvent(new CustomEvent('forge-select-model', { detail: v }));
      });
      this.model.replaceChildren(dd);
    } else {
      const label = p.model ? `${p.model}${p.provider ? ` · ${p.provider}` : ''}` : 'Choose model';
      this.model.replaceChildren(
        h(
          'a',
          {
            class: 'model-link',
            'data-act': 'action',
            'data-action': 'select_model',
            role: 'button',
            tabindex: '0',
            title: 'Choose model',
          },
          icon('hubot'),
          h('span', {}, label),
        ),
      );
    }
    this.model.title = [
      p.toolFormat &&
        `Tool calls: ${p.toolFormat === 'xml' ? 'XML text format' : 'native'}${p.toolFormatReason ? ` (${p.toolFormatReason})` : ''}`,
      p.contextWindow && `Context window: ${p.contextWindow} tokens (${p.contextWindowSource ?? 'unknown'})`,
      p.warning,
    ]
      .filter(Boolean)
      .join('\n');
    if (p.warning) this.model.append(icon('warning', p.warning, 'model-warning'));
    else if (p.toolFormat === 'xml')
      this.model.append(h('span', { class: 'muted small', title: this.model.title }, ' XML tools'));
    // Configured now: the form that asked for it goes (unless the user opened it to change things).
    if (!this.setupByUser) this.setup.hide();
  }

  /** The user opened the setup form (it stays until closed); else it shows only while no model is usable. */
  private setupByUser = false;

  openSetup(p: ProviderStatus): void {
    this.setupByUser = true;
    this.historyView.toggle(false);
    this.setup.show(p, p.configured);
    this.setup.focus();
  }

  closeSetup(): void {
    this.setupByUser = false;
    if (this.configured) this.setup.hide();
  }

  renderHistory(tasks: readonly TaskSummary[], currentTaskId: string | undefined): void {
    this.historyView.render(tasks, currentTaskId);
    renderRecent(this.welcome, tasks);
  }

  toggleHistory(force?: boolean): void {
    this.historyView.toggle(force);
  }

  showBanner(message: string, actions: readonly Action[] = []): void {
    this.banner.replaceChildren(
      icon('error', undefined, 'banner-icon'),
      h('span', { class: 'pre-wrap' }, message),
      actionButtons(actions) ?? '',
      iconButton('close', 'Dismiss', { 'data-act': 'dismiss_banner' }),
    );
    this.banner.hidden = false;
  }

  hideBanner(): void {
    this.banner.hidden = true;
  }

  renderStatus(status: RunStatus, progress: Progress | undefined, elapsedExtraMs: number): void {
    const running = status.state !== 'idle';
    // While a run works the input steers or queues, and Steer and Stop share its line: a shorter word.
    this.input.placeholder = running ? 'Message…' : 'Describe a task…';
    this.stopBtn.hidden = !running;
    this.sendBtn.hidden = running;
    const awaiting = status.state === 'awaiting_approval';
    this.spinner.hidden = !running || awaiting;
    this.waitIcon.hidden = !awaiting;
    this.hint.textContent = awaiting ? 'Waiting for your approval (Ctrl+Enter approves, Ctrl+Backspace rejects).' : '';
    if (!progress || (progress.maxIterations === 0 && !running)) {
      this.progress.hidden = true;
      return;
    }
    this.progress.hidden = false;
    const parts = [`Iteration ${progress.iteration} / ${progress.maxIterations}`];
    // Numbers only once there are some: no "0 in · 0 out" while the first reply streams, no "$0.00" for nothing.
    if (progress.inputTokens + progress.outputTokens > 0) {
      parts.push(`${formatTokens(progress.inputTokens)} in · ${formatTokens(progress.outputTokens)} out`);
      if (progress.costUsd !== undefined) parts.push(formatCost(progress.costUsd));
    }
    const elapsed = progress.elapsedMs + (running ? elapsedExtraMs : 0);
    if (elapsed > 0) parts.push(formatDuration(elapsed));
    if (progress.contextTokens && progress.contextWindow && progress.contextTokens / progress.contextWindow >= 0.01) {
      parts.push(`context ${Math.round((100 * progress.contextTokens) / progress.contextWindow)}%`);
    }
    this.progressText.textContent = parts.join(' · ');
    const pct = progress.maxIterations > 0 ? Math.min(100, (100 * progress.iteration) / progress.maxIterations) : 0;
    this.progressFill.style.width = `${pct}%`;
    this.progressFill.classList.toggle('near-limit', pct >= 80);
    this.progress.classList.toggle('idle', !running);
  }
}

/**
 * The status the host's bridge holds before the model is resolved: not configured, naming neither a provider nor a
 * problem (every status the host resolves names at least one of them).
 */
function modelPending(p: ProviderStatus): boolean {
  return !p.configured && !p.provider && !p.problem;
}

// Everything around the conversation: header (model, history, new task), setup card, error banner,
// progress bar with Stop, task history, and the input box.
import type { Action, Progress, ProviderStatus, RunStatus, TaskSummary } from '../../src/protocol/messages';
import { button, formatCost, formatDuration, formatTokens, h } from './dom';
import { actionButtons } from './items';

export class Chrome {
  readonly root: HTMLElement;
  readonly scroller: HTMLElement;
  readonly input: HTMLTextAreaElement;
  private readonly model: HTMLElement;
  private readonly banner: HTMLElement;
  private readonly setup: HTMLElement;
  private readonly history: HTMLElement;
  private readonly progress: HTMLElement;
  private readonly progressText: HTMLElement;
  private readonly progressFill: HTMLElement;
  private readonly ring: HTMLElement;
  private readonly sendBtn: HTMLElement;
  private readonly stopBtn: HTMLElement;
  private readonly hint: HTMLElement;
  private historyKey = '';
  private modelKey = '';

  constructor(mount: HTMLElement) {
    this.model = h('div', { class: 'model' });
    const header = h('header', { class: 'header' },
      this.model,
      h('div', { class: 'header-actions' },
        button('History', { 'data-act': 'toggle_history', title: 'Task history', 'aria-label': 'Task history' }, 'icon'),
        button('New', { 'data-act': 'action', 'data-action': 'new_task', title: 'New task', 'aria-label': 'New task' }, 'icon'),
        button('Settings', { 'data-act': 'action', 'data-action': 'open_settings', title: 'Settings', 'aria-label': 'Settings' }, 'icon')));
    this.banner = h('div', { class: 'banner', role: 'alert', hidden: true });
    this.setup = h('section', { class: 'setup-card', hidden: true, 'aria-label': 'Set up a model' });
    this.history = h('section', { class: 'history', hidden: true, 'aria-label': 'Task history' });
    this.scroller = h('main', { class: 'transcript', tabindex: '0' });
    this.progressFill = h('div', { class: 'progress-fill' });
    this.progressText = h('span', { class: 'progress-text' });
    this.ring = h('vscode-progress-ring', { class: 'ring', hidden: true });
    this.progress = h('div', { class: 'progress', hidden: true, role: 'status', 'aria-live': 'off' },
      h('div', { class: 'progress-row' }, this.ring, this.progressText),
      h('div', { class: 'progress-bar', 'aria-hidden': 'true' }, this.progressFill));
    this.input = h('textarea', {
      class: 'input', rows: '1', placeholder: 'Describe a task for Forge…',
      title: 'Enter sends · Shift+Enter adds a line',
      'aria-label': 'Message Forge', maxlength: '100000',
    }) as HTMLTextAreaElement;
    this.sendBtn = button('Send', { 'data-act': 'send', title: 'Send (Enter)' }, 'primary');
    this.stopBtn = button('Stop', { 'data-act': 'stop', title: 'Stop the running task', hidden: true }, 'secondary');
    this.hint = h('div', { class: 'composer-hint muted' });
    const composer = h('footer', { class: 'composer' },
      this.progress,
      h('div', { class: 'composer-row' }, this.input, h('div', { class: 'composer-buttons' }, this.sendBtn, this.stopBtn)),
      this.hint);
    this.root = h('div', { class: 'app' }, header, this.banner, this.setup, this.history, this.scroller, composer);
    mount.replaceChildren(this.root);
    this.input.addEventListener('input', () => this.autosize());
  }

  autosize(): void {
    this.input.style.height = 'auto';
    this.input.style.height = `${Math.min(this.input.scrollHeight, 240)}px`;
  }

  renderProvider(p: ProviderStatus): void {
    const key = JSON.stringify(p);
    if (key === this.modelKey) return;
    this.modelKey = key;
    const label = p.model ? `${p.provider ? p.provider + ' · ' : ''}${p.model}` : p.configured ? 'Model' : 'No model';
    if (p.models && p.models.length > 0) {
      const dd = h('vscode-dropdown', { 'aria-label': 'Model', class: 'model-dropdown' });
      for (const m of p.models) dd.append(h('vscode-option', { value: m.id, selected: m.id === (p.modelId ?? p.model) }, m.label));
      dd.addEventListener('change', () => {
        const v = (dd as unknown as { value?: string }).value;
        if (v) this.root.dispatchEvent(new CustomEvent('forge-select-model', { detail: v }));
      });
      this.model.replaceChildren(dd);
    } else {
      this.model.replaceChildren(h('a', { class: 'model-link', 'data-act': 'action', 'data-action': 'select_model', role: 'button', tabindex: '0', title: 'Choose model' }, label));
    }
    this.setup.hidden = p.configured;
    this.model.title = [p.toolFormat && `Tool calls: ${p.toolFormat === 'xml' ? 'XML text format' : 'native'}${p.toolFormatReason ? ` (${p.toolFormatReason})` : ''}`, p.contextWindow && `Context window: ${p.contextWindow} tokens (${p.contextWindowSource ?? 'unknown'})`, p.warning].filter(Boolean).join('\n');
    if (p.toolFormat === 'xml' || p.warning) this.model.append(h('span', { class: 'muted', title: this.model.title }, p.warning ? ' ⚠' : ' · XML tools'));
    if (!p.configured) {
      this.setup.replaceChildren(
        h('h2', {}, 'Connect a model to start'),
        h('p', {}, p.problem ?? 'Forge needs a language model. Use a chat model already available in VS Code, or add an API key for OpenAI, Anthropic or an OpenAI-compatible server (Ollama, LM Studio, vLLM, OpenRouter).'),
        h('div', { class: 'actions' },
          button('Set API key', { 'data-act': 'action', 'data-action': 'set_api_key' }, 'primary'),
          button('Choose model', { 'data-act': 'action', 'data-action': 'select_model' }),
          button('Open settings', { 'data-act': 'action', 'data-action': 'open_settings' })));
    }
  }

  renderHistory(tasks: readonly TaskSummary[], currentTaskId: string | undefined): void {
    const key = JSON.stringify([tasks, currentTaskId]);
    if (key === this.historyKey) return;
    this.historyKey = key;
    const list = tasks.length === 0
      ? h('p', { class: 'muted' }, 'No tasks yet. Your tasks appear here and can be reopened and continued.')
      : h('ul', { class: 'history-list' }, ...tasks.map((t) => h('li', {},
        h('a', { 'data-act': 'load_task', 'data-task-id': t.id, role: 'button', tabindex: '0', class: t.id === currentTaskId ? 'current' : undefined },
          h('span', { class: 'history-title' }, t.title || 'Untitled task'),
          h('span', { class: 'muted history-meta' }, [t.status, new Date(t.updatedAt).toLocaleString()].filter(Boolean).join(' · '))))));
    this.history.replaceChildren(h('h2', {}, 'Task history'), list);
  }

  toggleHistory(force?: boolean): void {
    this.history.hidden = force === undefined ? !this.history.hidden : !force;
  }

  showBanner(message: string, actions: readonly Action[] = []): void {
    this.banner.replaceChildren(
      h('span', { class: 'pre-wrap' }, message),
      actionButtons(actions) ?? '',
      button('Dismiss', { 'data-act': 'dismiss_banner', 'aria-label': 'Dismiss' }, 'icon'));
    this.banner.hidden = false;
  }

  hideBanner(): void {
    this.banner.hidden = true;
  }

  renderStatus(status: RunStatus, progress: Progress | undefined, elapsedExtraMs: number): void {
    const running = status.state !== 'idle';
    this.stopBtn.hidden = !running;
    this.sendBtn.hidden = running;
    this.ring.hidden = !running;
    this.hint.textContent = status.state === 'awaiting_approval'
      ? 'Waiting for your approval (Ctrl+Enter approves, Ctrl+Backspace rejects).'
      : running ? 'Forge is working. Stop ends the run; you can continue it later.' : '';
    if (!progress || (progress.maxIterations === 0 && !running)) {
      this.progress.hidden = true;
      return;
    }
    this.progress.hidden = false;
    const parts = [`Iteration ${progress.iteration} / ${progress.maxIterations}`];
    parts.push(`${formatTokens(progress.inputTokens)} in · ${formatTokens(progress.outputTokens)} out`);
    if (progress.costUsd !== undefined) parts.push(formatCost(progress.costUsd));
    parts.push(formatDuration(progress.elapsedMs + (running ? elapsedExtraMs : 0)));
    if (progress.contextTokens && progress.contextWindow) {
      parts.push(`context ${Math.round((100 * progress.contextTokens) / progress.contextWindow)}%`);
    }
    this.progressText.textContent = parts.join(' · ');
    const pct = progress.maxIterations > 0 ? Math.min(100, (100 * progress.iteration) / progress.maxIterations) : 0;
    this.progressFill.style.width = `${pct}%`;
    this.progressFill.classList.toggle('near-limit', pct >= 80);
    this.progress.classList.toggle('idle', !running);
  }
}

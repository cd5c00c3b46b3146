// Task history inside the panel: a searchable list (title, when, tokens, cost, how it ended) that opens a task
// with Enter or a click and deletes one with its trash button.
import type { TaskSummary } from '../../src/protocol/messages';
import { formatCost, formatTokens, h } from './dom';
import { icon, iconButton } from './icons';

const STATUS_ICONS: Record<string, string> = {
  done: 'pass',
  converse: 'comment',
  asked: 'question',
  stopped: 'debug-pause',
  error: 'error',
  running: 'loading',
};

export function relativeDate(ts: number, now = Date.now()): string {
  const s = Math.max(0, (now - ts) / 1000);
  if (s < 60) return 'just now';
  if (s < 3600) return `${Math.floor(s / 60)} min ago`;
  if (s < 86_400) return `${Math.floor(s / 3600)} h ago`;
  if (s < 7 * 86_400) return `${Math.floor(s / 86_400)} d ago`;
  return new Date(ts).toLocaleDateString();
}

export class HistoryView {
  readonly el: HTMLElement;
  private readonly search: HTMLInputElement;
  private readonly list: HTMLElement;
  private tasks: readonly TaskSummary[] = [];
  private current: string | undefined;
  private key = '';

  constructor() {
    this.search = h('input', {
      type: 'search',
      class: 'field-input history-search',
      placeholder: 'Search tasks',
      'aria-label': 'Search tasks',
    }) as HTMLInputElement;
    this.search.addEventListener('input', () => this.renderList());
    this.list = h('ul', { class: 'history-list', role: 'list' });
    this.el = h(
      'section',
      { class: 'history', hidden: true, 'aria-label': 'Task history' },
      h(
        'div',
        { class: 'history-head' },
        h('h2', {}, 'History'),
        iconButton('close', 'Close history', { 'data-act': 'toggle_history' }),
      ),
      this.search,
      this.list,
    );
  }

  get open(): boolean {
    return !this.el.hidden;
  }

  toggle(force?: boolean): void {
    this.el.hidden = force === undefined ? !this.el.hidden : !force;
    if (!this.el.hidden) this.search.focus();
  }

  render(tasks: readonly TaskSummary[], current: string | undefined): void {
    const key = JSON.stringify([tasks, current]);
    if (key === this.key) return;
    this.key = key;
    this.tasks = tasks;
    this.current = current;
    this.renderList();
  }

  private renderList(): void {
    const q = this.search.value.trim().toLowerCase();
    const shown = q ? this.tasks.filter((t) => t.title.toLowerCase().includes(q)) : this.tasks;
    if (shown.length === 0) {
      this.list.replaceChildren(
        h(
          'li',
          { class: 'muted empty' },
          this.tasks.length
            ? 'No task matches.'
            : 'No tasks yet. Your tasks appear here and can be reopened and continued.',
        ),
      );
      return;
    }
    this.list.replaceChildren(
      ...shown.slice(0, 200).map((t) => {
        const meta = [relativeDate(t.updatedAt)];
        if (t.tokens) meta.push(`${formatTokens(t.tokens)} tokens`);
        if (t.tokens && t.costUsd !== undefined) meta.push(formatCost(t.costUsd));
        return h(
          'li',
          { class: `history-item${t.id === this.current ? ' current' : ''}` },
          h(
            'a',
            {
              'data-act': 'load_task',
              'data-task-id': t.id,
              role: 'button',
              tabindex: '0',
              title: t.title,
              'aria-current': t.id === this.current ? 'true' : undefined,
            },
            icon(STATUS_ICONS[t.status ?? ''] ?? 'circle-outline', undefined, 'history-status'),
            h(
              'span',
              { class: 'history-text' },
              h('span', { class: 'history-title' }, t.title),
              h('span', { class: 'history-meta muted' }, meta.join(' · ')),
            ),
          ),
          iconButton('trash', `Delete "${t.title}"`, { 'data-act': 'delete_task', 'data-task-id': t.id }),
        );
      }),
    );
  }
}

// The empty panel: what Forge does and a few example tasks that fill the input box (never sent unasked).
import type { TaskSummary } from '../../src/protocol/messages';
import { h } from './dom';
import { relativeDate } from './historyView';
import { icon } from './icons';

const EXAMPLES: [icon: string, text: string][] = [
  ['search', 'Explain how this project is structured and where the entry point is'],
  ['beaker', 'Run the tests and fix what fails'],
  ['bug', 'Find why the build prints warnings and fix them'],
  ['edit', 'Add input validation to the settings form, with tests'],
];

export function renderWelcome(): HTMLElement {
  return h(
    'section',
    { class: 'welcome', 'aria-label': 'Welcome to Forge' },
    h('div', { class: 'welcome-title' }, icon('sparkle'), h('h2', {}, 'What should Forge do?')),
    h(
      'p',
      { class: 'muted' },
      'Forge reads your code, edits files and runs commands to finish a task. Every edit and command asks first; you see each step and can stop at any time.',
    ),
    h(
      'ul',
      { class: 'examples', 'aria-label': 'Example tasks' },
      ...EXAMPLES.map(([glyph, text]) =>
        h(
          'li',
          {},
          h(
            'button',
            {
              type: 'button',
              class: 'example',
              'data-act': 'example',
              'data-text': text,
              title: 'Put this task in the input box',
            },
            icon(glyph),
            h('span', {}, text),
          ),
        ),
      ),
    ),
    h('div', { class: 'recent' }),
    h(
      'p',
      { class: 'muted small' },
      'Tip: select code in an editor and right-click › Forge to explain, fix or refactor it.',
    ),
  );
}

/** The three latest tasks under the examples, and the way to the full history. */
export function renderRecent(welcome: HTMLElement, tasks: readonly TaskSummary[]): void {
  const box = welcome.querySelector('.recent');
  if (!box) return;
  if (tasks.length === 0) {
    box.replaceChildren();
    return;
  }
  box.replaceChildren(
    h(
      'div',
      { class: 'recent-head' },
      h('h3', {}, 'Recent tasks'),
      h('a', { 'data-act': 'toggle_history', role: 'button', tabindex: '0' }, `View all (${tasks.length})`),
    ),
    h(
      'ul',
      { class: 'recent-list' },
      ...tasks
        .slice(0, 3)
        .map((t) =>
          h(
            'li',
            {},
            h(
              'a',
              { 'data-act': 'load_task', 'data-task-id': t.id, role: 'button', tabindex: '0', title: t.title },
              h('span', { class: 'history-title' }, t.title),
              h('span', { class: 'muted small' }, relativeDate(t.updatedAt)),
            ),
          ),
        ),
    ),
  );
}

// The completion block: the files a task changed against its start (+/− lines each), View changes (VS Code's
// multi-file diff), one file's diff, Undo or Keep per file, and New task. The host keeps the list and the
// per-file state; buttons post changes_action and the block is re-rendered from the host's update.
import type { ChangedFile, ItemOf, WebviewMessage } from '../../src/protocol/messages';
import { h } from './dom';
import './review.css';

const STATE_NOTE: Record<ChangedFile['state'], string> = {
  changed: '',
  kept: 'kept',
  undone: 'undone',
  conflict: 'not undone',
};

function fileRow(item: ItemOf<'changes'>, f: ChangedFile): HTMLElement {
  const act = (action: string, label: string, title: string) =>
    h(
      'button',
      {
        type: 'button',
        class: 'changes-btn',
        'data-act': 'changes',
        'data-action': action,
        'data-task-id': item.taskId,
        'data-path': f.path,
        title,
      },
      label,
    );
  const live = f.state === 'changed' || f.state === 'conflict';
  return h(
    'li',
    { class: `changed-file state-${f.state}` },
    h(
      'a',
      {
        class: 'changed-path',
        role: 'link',
        tabindex: '0',
        'data-act': 'changes',
        'data-action': 'open',
        'data-task-id': item.taskId,
        'data-path': f.path,
        title: `Diff of ${f.displayPath} since the task started`,
      },
      f.displayPath,
    ),
    f.kind !== 'modified' ? h('span', { class: 'badge' }, f.kind === 'created' ? 'new' : 'deleted') : null,
    f.state !== 'undone' ? h('span', { class: 'added' }, `+${f.added}`) : null,
    f.state !== 'undone' ? h('span', { class: 'removed' }, `−${f.removed}`) : null,
    STATE_NOTE[f.state]
      ? h('span', { class: 'muted changed-state' }, STATE_NOTE[f.state] + (f.note ? `: ${f.note}` : ''))
      : null,
    live
      ? h(
          'span',
          { class: 'changed-actions' },
          act('undo', 'Undo', `Restore ${f.displayPath} to how it was before the task`),
          f.state === 'changed' ? act('keep', 'Keep', `Keep the task's change to ${f.displayPath}`) : null,
        )
      : null,
  );
}

export function renderChanges(item: ItemOf<'changes'>): HTMLElement {
  const files = item.files.filter((f) => f.state !== 'undone');
  const added = files.reduce((s, f) => s + f.added, 0);
  const removed = files.reduce((s, f) => s + f.removed, 0);
  const title = files.length
    ? `${files.length} file${files.length === 1 ? '' : 's'} changed`
    : 'All changes of this task were undone';
  return h(
    'section',
    { class: 'changes-block', 'aria-label': 'Files this task changed' },
    h(
      'div',
      { class: 'changes-title' },
      h('strong', {}, title),
      files.length ? h('span', { class: 'added' }, `+${added}`) : null,
      files.length ? h('span', { class: 'removed' }, `−${removed}`) : null,
    ),
    h('ul', { class: 'changed-files' }, ...item.files.map((f) => fileRow(item, f))),
    item.more ? h('div', { class: 'muted' }, `… and ${item.more} more (View changes shows all)`) : null,
    h(
      'div',
      { class: 'actions' },
      files.length
        ? h(
            'button',
            {
              type: 'button',
              class: 'changes-btn primary',
              'data-act': 'changes',
              'data-action': 'view',
              'data-task-id': item.taskId,
            },
            'View changes',
          )
        : null,
      h(
        'button',
        { type: 'button', class: 'changes-btn', 'data-act': 'action', 'data-action': 'new_task' },
        'New task',
      ),
    ),
  );
}

export function changesAction(target: HTMLElement, post: (m: WebviewMessage) => void): void {
  const d = target.dataset;
  const action = d.action;
  if (!d.taskId || (action !== 'view' && action !== 'open' && action !== 'undo' && action !== 'keep')) return;
  if (action !== 'view' && !d.path) return;
  post({ type: 'changes_action', taskId: d.taskId, action, ...(action !== 'view' && d.path ? { path: d.path } : {}) });
}

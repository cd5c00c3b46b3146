// Edit and resend: a message the user sent earlier can be edited in place; Resend takes the conversation back to
// just before it (and, when the box is ticked, the files the run changed from there on) and sends the new text.
// Only while no run works. The click is handled here (a delegated listener), items.ts only adds the button.
import type { ItemOf, TranscriptItem, WebviewMessage } from '../../src/protocol/messages';
import { newRequestId } from './api';
import { button, h } from './dom';
import { iconButton } from './icons';
import './steering.css';

/** A user message: "steered" when it reached a running task, and the pencil when it can be rewound to. */
export function decorateUserMessage(el: HTMLElement, item: ItemOf<'user'>): void {
  if (item.steered) el.prepend(h('div', { class: 'user-steered' }, 'Sent while Forge worked'));
  if (item.turnId)
    el.append(
      iconButton('edit', 'Edit and resend this message', { class: 'icon-btn edit-message', 'data-edit-message': '' }),
    );
}

interface EditDeps {
  post(m: WebviewMessage): void;
  item(id: string): TranscriptItem | undefined;
  /** No run works (a message can only be resent then). */
  idle(): boolean;
}

export function installEditMessage(root: HTMLElement, deps: EditDeps): void {
  root.addEventListener('click', (e) => {
    const t = e.target as HTMLElement;
    const itemEl = t.closest<HTMLElement>('.item-user[data-id]');
    if (!itemEl || !root.contains(itemEl)) return;
    const id = itemEl.dataset.id!;
    if (t.closest('[data-edit-message]')) return open(itemEl, id, deps);
    const act = t.closest<HTMLElement>('[data-edit-act]')?.dataset.editAct;
    if (act === 'resend') resend(itemEl, id, deps);
    else if (act === 'cancel') close(itemEl);
  });
  root.addEventListener('keydown', (e) => {
    const area = e.target as HTMLElement;
    if (!(area instanceof HTMLTextAreaElement) || !area.classList.contains('edit-message-input')) return;
    const itemEl = area.closest<HTMLElement>('.item-user[data-id]');
    if (!itemEl) return;
    if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) {
      e.preventDefault();
      e.stopPropagation();
      resend(itemEl, itemEl.dataset.id!, deps);
    } else if (e.key === 'Escape') {
      e.preventDefault();
      e.stopPropagation();
      close(itemEl);
    }
  });
}

function open(itemEl: HTMLElement, id: string, deps: EditDeps): void {
  const item = deps.item(id);
  if (item?.kind !== 'user' || itemEl.querySelector('.edit-message-form')) return;
  const area = h('textarea', {
    class: 'input edit-message-input',
    rows: '3',
    'aria-label': 'Edit your message',
    maxlength: '100000',
  }) as HTMLTextAreaElement;
  area.value = item.text;
  const idle = deps.idle();
  const form = h(
    'div',
    { class: 'edit-message-form' },
    area,
    h(
      'label',
      { class: 'edit-message-restore' },
      h('input', { type: 'checkbox', class: 'edit-message-files' }),
      ' Also restore files to before this message',
    ),
    h(
      'div',
      { class: 'edit-message-buttons' },
      button(
        'Resend',
        {
          'data-edit-act': 'resend',
          disabled: !idle,
          title: idle ? 'Go back to this message and send the new text (Enter)' : 'Stop the running task first',
        },
        'primary',
      ),
      button('Cancel', { 'data-edit-act': 'cancel', title: 'Keep the conversation as it is (Escape)' }),
    ),
    h('div', { class: 'edit-message-note muted' }, 'The replies after this message are removed from the conversation.'),
  );
  itemEl.classList.add('editing');
  itemEl.append(form);
  area.focus();
  area.setSelectionRange(area.value.length, area.value.length);
}

function close(itemEl: HTMLElement): void {
  itemEl.querySelector('.edit-message-form')?.remove();
  itemEl.classList.remove('editing');
}

function resend(itemEl: HTMLElement, id: string, deps: EditDeps): void {
  if (!deps.idle()) return;
  const text = itemEl.querySelector<HTMLTextAreaElement>('.edit-message-input')?.value.trim().slice(0, 100_000);
  if (!text) return;
  const restoreFiles = !!itemEl.querySelector<HTMLInputElement>('.edit-message-files')?.checked;
  deps.post({ type: 'edit_resend', requestId: newRequestId(), itemId: id, text, restoreFiles });
  close(itemEl);
}

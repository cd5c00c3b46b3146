// Messages typed while a run works. Enter either steers the run (the words reach the model at its next step,
// without stopping it) or queues them (sent when the run ends, or as the answer when it asks); a two-way switch
// above the input says which, Alt+Enter does the other. What waits is listed above the input: a queued message can
// be edited or removed; a steer shows until the run takes it. The host keeps the list (saved with the task).
import type { ImageAttachment } from '../../src/protocol/images';
import type { MentionView } from '../../src/protocol/mentions';
import type { PatchOp, QueuedMessage, WebviewMessage } from '../../src/protocol/messages';
import { renderChipList } from './composerChips';
import { button, h } from './dom';
import { icon, iconButton } from './icons';
import { messageImages } from './messageImages';
import './steering.css';

/** What the composer holds besides the text: its images (scaled when ready) and its @-chips. */
export interface ComposerParts {
  readonly count: number;
  images(): Promise<ImageAttachment[]>;
  mentions(): MentionView[];
}

export type Delivery = 'steer' | 'queue';

const LABEL: Record<Delivery, { name: string; title: string }> = {
  steer: { name: 'Steer', title: 'Deliver at Forge’s next step, without stopping it (Enter)' },
  queue: { name: 'Queue', title: 'Send when this run ends, or as the answer when it asks (Enter)' },
};

export class MessageQueue {
  /** The waiting messages and the steer / queue switch; placed above the input row. */
  readonly el: HTMLElement;
  /** Steer or Queue: the composer's primary button while a run works. */
  readonly submitBtn: HTMLElement;
  private readonly list: HTMLElement;
  private readonly switcher: HTMLElement;
  private delivery: Delivery = 'steer';
  private queue: QueuedMessage[] = [];
  private running = false;
  /** The queued message being edited (kept open when the list changes under it). */
  private editingId: string | undefined;

  constructor(
    private readonly post: (m: WebviewMessage) => void,
    /** The composer's send (reads and clears the input). */
    send: () => void,
  ) {
    this.list = h('div', { class: 'queue-list', role: 'list', 'aria-label': 'Messages waiting' });
    this.switcher = h(
      'div',
      { class: 'delivery', role: 'radiogroup', 'aria-label': 'While Forge works, Enter' },
      h('span', { class: 'delivery-label muted' }, 'While it works, Enter:'),
      ...(['steer', 'queue'] as const).map((d) =>
        h(
          'button',
          { type: 'button', class: 'delivery-opt', role: 'radio', 'data-delivery': d, title: LABEL[d].title },
          LABEL[d].name,
        ),
      ),
    );
    this.el = h('div', { class: 'steering', hidden: true }, this.list, this.switcher);
    this.submitBtn = button('Steer', { class: 'submit-steer', title: LABEL.steer.title }, 'primary');
    this.submitBtn.hidden = true;
    this.submitBtn.addEventListener('click', () => send());
    this.switcher.addEventListener('click', (e) => {
      const d = (e.target as HTMLElement).closest<HTMLElement>('[data-delivery]')?.dataset.delivery;
      if (d === 'steer' || d === 'queue') this.setDelivery(d);
    });
    this.list.addEventListener('click', (e) => this.onListClick(e));
    this.list.addEventListener('keydown', (e) => this.onEditKey(e));
    this.setDelivery('steer');
  }

  /** The input row's parent and its buttons: the list goes above the row, the Steer/Queue button before Stop. */
  mount(composer: HTMLElement): void {
    composer.insertBefore(this.el, composer.querySelector('.composer-row'));
    const buttons = composer.querySelector('.composer-buttons');
    buttons?.insertBefore(this.submitBtn, buttons.lastElementChild);
  }

  get mode(): Delivery {
    return this.delivery;
  }

  setDelivery(d: Delivery): void {
    this.delivery = d;
    for (const opt of Array.from(this.switcher.querySelectorAll<HTMLElement>('[data-delivery]'))) {
      const on = opt.dataset.delivery === d;
      opt.setAttribute('aria-checked', String(on));
      opt.classList.toggle('on', on);
    }
    this.submitBtn.textContent = LABEL[d].name;
    this.submitBtn.title = LABEL[d].title;
  }

  setRunning(running: boolean): void {
    this.running = running;
    this.submitBtn.hidden = !running;
    this.show();
  }

  /** The text typed while a run works: steered or queued (`other`: Alt+Enter, the choice not selected). */
  submit(text: string, other = false, extras: { images?: ImageAttachment[]; mentions?: MentionView[] } = {}): void {
    const d = other ? (this.delivery === 'steer' ? 'queue' : 'steer') : this.delivery;
    const parts = {
      ...(extras.images?.length ? { images: extras.images } : {}),
      ...(extras.mentions?.length ? { mentions: extras.mentions } : {}),
    };
    this.post(d === 'steer' ? { type: 'steer_message', text, ...parts } : { type: 'queue_add', text, ...parts });
  }

  /**
   * The composer's text with its images and chips, steered or queued: they go with this message, not the next
   * one. The chips leave the composer at once; the images once scaled.
   */
  async submitWith(text: string, other: boolean, parts: ComposerParts): Promise<void> {
    const mentions = parts.mentions();
    const images = parts.count ? await parts.images() : [];
    const body = text || (images.length ? `See the attached image${images.length > 1 ? 's' : ''}.` : '');
    if (!body) return;
    this.submit(body.slice(0, 100_000), other, { images, mentions });
  }

  render(queue: readonly QueuedMessage[] | undefined): void {
    this.queue = (queue ?? []).slice();
    const draft = this.list.querySelector<HTMLTextAreaElement>('.queued-input')?.value;
    this.list.replaceChildren(...this.queue.map((q) => this.row(q)));
    const editing = this.editingId;
    if (editing && this.queue.some((q) => q.id === editing && !q.steer)) this.startEdit(editing, draft);
    else this.editingId = undefined;
    this.show();
  }

  applyOps(ops: readonly PatchOp[]): void {
    for (const op of ops) if (op.op === 'queue') this.render(op.queue);
  }

  private show(): void {
    this.el.hidden = !this.running && this.queue.length === 0;
    this.switcher.hidden = !this.running;
  }

  private row(q: QueuedMessage): HTMLElement {
    const kind = q.steer
      ? h('span', { class: 'queued-kind' }, icon('debug-step-over', undefined), 'Steering · next step')
      : h('span', { class: 'queued-kind' }, icon('clock', undefined), 'Queued');
    const actions = q.steer
      ? null
      : h(
          'span',
          { class: 'queued-actions' },
          iconButton('edit', 'Edit this message', { 'data-queue-act': 'edit' }),
          iconButton('close', 'Remove this message', { 'data-queue-act': 'remove' }),
        );
    return h(
      'div',
      { class: `queued${q.steer ? ' steer' : ''}`, role: 'listitem', 'data-queue-id': q.id },
      h('div', { class: 'queued-head' }, kind, actions),
      ...messageImages(q.images),
      ...renderChipList(q.mentions),
      h('div', { class: 'queued-text' }, q.text),
    );
  }

  private onListClick(e: Event): void {
    const target = (e.target as HTMLElement).closest<HTMLElement>('[data-queue-act]');
    const id = target?.closest<HTMLElement>('[data-queue-id]')?.dataset.queueId;
    if (!target || !id) return;
    const act = target.dataset.queueAct;
    if (act === 'remove') this.post({ type: 'queue_remove', id });
    else if (act === 'edit') this.startEdit(id);
    else if (act === 'save') this.saveEdit(id);
    else if (act === 'cancel') this.cancelEdit();
  }

  private startEdit(id: string, draft?: string): void {
    const rowEl = this.list.querySelector<HTMLElement>(`[data-queue-id="${CSS.escape(id)}"]`);
    const q = this.queue.find((x) => x.id === id);
    if (!rowEl || !q) return;
    this.editingId = id;
    rowEl.classList.add('editing');
    const area = h('textarea', {
      class: 'input queued-input',
      rows: '2',
      'aria-label': 'Edit the queued message',
      maxlength: '100000',
    }) as HTMLTextAreaElement;
    area.value = draft ?? q.text;
    rowEl
      .querySelector('.queued-text')
      ?.replaceWith(
        h(
          'div',
          { class: 'queued-edit' },
          area,
          h(
            'div',
            { class: 'queued-edit-buttons' },
            button('Save', { 'data-queue-act': 'save' }, 'primary'),
            button('Cancel', { 'data-queue-act': 'cancel' }),
          ),
        ),
      );
    area.focus();
  }

  private saveEdit(id: string): void {
    const area = this.list.querySelector<HTMLTextAreaElement>(`[data-queue-id="${CSS.escape(id)}"] textarea`);
    const text = area?.value.trim().slice(0, 100_000);
    this.editingId = undefined;
    if (!text) return this.post({ type: 'queue_remove', id });
    this.post({ type: 'queue_update', id, text });
  }

  private cancelEdit(): void {
    this.editingId = undefined;
    this.render(this.queue);
  }

  /** In a queued message's editor: Enter saves, Shift+Enter adds a line, Escape cancels. */
  private onEditKey(e: KeyboardEvent): void {
    const area = e.target as HTMLElement;
    const id = area.closest<HTMLElement>('[data-queue-id]')?.dataset.queueId;
    if (!(area instanceof HTMLTextAreaElement) || !id) return;
    if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) {
      e.preventDefault();
      e.stopPropagation();
      this.saveEdit(id);
    } else if (e.key === 'Escape') {
      e.preventDefault();
      e.stopPropagation();
      this.cancelEdit();
    }
  }
}

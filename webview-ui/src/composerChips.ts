// @-mention chips: above the chat input while a message is written (removable with their × or Backspace at the
// start of the input), and in a sent message in the transcript. The host made each chip's label; the webview only
// shows it and sends the mentions back with the message.
import type { MentionChip, MentionView, WebviewMessage } from '../../src/protocol/messages';
import { h } from './dom';
import { icon } from './icons';
import './composerChips.css';

const MAX_CHIPS = 20;

const ICONS: Record<MentionView['kind'], string> = {
  file: 'file',
  folder: 'folder',
  selection: 'list-selection',
  problems: 'warning',
  terminal: 'terminal',
  git: 'git-compare',
};

/** What a chip's tooltip says: the path and lines, or what it attaches. */
function chipTitle(m: MentionView): string {
  switch (m.kind) {
    case 'file':
    case 'folder':
      return m.path;
    case 'selection':
      return `${m.path}, lines ${m.startLine}-${m.endLine}`;
    case 'problems':
      return m.path ? `Problems in ${m.path}` : 'Problems in the workspace';
    case 'terminal':
      return "Forge's recent command output";
    case 'git':
      return 'Uncommitted changes (git diff)';
  }
}

function chipKey(m: MentionView): string {
  return JSON.stringify(m);
}

/** One chip; with `onRemove` it has a remove button. */
export function renderChip(chip: MentionChip, onRemove?: () => void): HTMLElement {
  const el = h(
    'span',
    { class: `mention-chip kind-${chip.mention.kind}`, title: chipTitle(chip.mention) },
    icon(ICONS[chip.mention.kind]),
    h('span', { class: 'mention-chip-label' }, chip.label),
  );
  if (onRemove) {
    const remove = h(
      'button',
      { type: 'button', class: 'mention-chip-remove', 'aria-label': `Remove ${chip.label}`, title: 'Remove' },
      icon('close'),
    );
    remove.addEventListener('click', onRemove);
    el.append(remove);
  }
  return el;
}

/** The chips of a sent message (transcript). */
export function renderChipList(chips: readonly MentionChip[] | undefined): HTMLElement[] {
  if (!chips?.length) return [];
  return [h('div', { class: 'mention-chips sent', 'aria-label': 'Attached' }, ...chips.map((c) => renderChip(c)))];
}

export class ComposerChips {
  readonly el: HTMLElement;
  private chips: MentionChip[] = [];

  constructor(
    composer: HTMLElement,
    private readonly input: HTMLTextAreaElement,
  ) {
    this.el = h('div', {
      class: 'mention-chips composer-chips',
      role: 'list',
      'aria-label': 'Attached context',
      hidden: true,
    });
    const row = composer.querySelector('.composer-row');
    if (row) row.before(this.el);
    else composer.prepend(this.el);
    // Backspace at the very start of the input removes the last chip, as in other chat inputs.
    input.addEventListener('keydown', (e) => {
      if (e.key !== 'Backspace' || e.isComposing || !this.chips.length) return;
      if (input.selectionStart !== 0 || input.selectionEnd !== 0) return;
      e.preventDefault();
      this.remove(this.chips.length - 1);
    });
  }

  get count(): number {
    return this.chips.length;
  }

  /** Adds chips (a chip already there is not added twice). */
  add(chips: readonly MentionChip[]): void {
    for (const c of chips) {
      if (this.chips.length >= MAX_CHIPS) break;
      if (!this.chips.some((x) => chipKey(x.mention) === chipKey(c.mention))) this.chips.push(c);
    }
    this.render();
  }

  /** A send_message takes the chips along (and the composer is emptied of them); other messages pass as they are. */
  withChips(m: WebviewMessage): WebviewMessage {
    return m.type === 'send_message' && this.chips.length ? { ...m, mentions: this.take() } : m;
  }

  /** The mentions to send, and the composer emptied of them. */
  take(): MentionView[] {
    const out = this.chips.map((c) => c.mention);
    this.chips = [];
    this.render();
    return out;
  }

  private remove(i: number): void {
    this.chips.splice(i, 1);
    this.render();
    this.input.focus();
  }

  private render(): void {
    this.el.replaceChildren(
      ...this.chips.map((c, i) => {
        const chip = renderChip(c, () => this.remove(i));
        chip.setAttribute('role', 'listitem');
        return chip;
      }),
    );
    this.el.hidden = this.chips.length === 0;
  }
}

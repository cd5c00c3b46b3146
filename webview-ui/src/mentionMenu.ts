// The @ picker in the chat input: typing "@" (at the start or after a space) and a partial name lists files and
// folders (fuzzy, from the host's index) and the special entries (the selection, problems, terminal output, git
// changes). Up/Down move, Enter or Tab picks, Escape closes; mouse too. A pick turns "@query" into a short
// reference ("@greet.js") and adds a chip (composerChips.ts), which is what attaches the content. Accessibility as the slash menu: the input is a combobox controlling a listbox.
import type { MentionChip, MentionOption, WebviewMessage } from '../../src/protocol/messages';
import { h } from './dom';
import { icon } from './icons';

const MENU_ID = 'forge-mention-menu';
/** "@query" right before the caret: at the start or after whitespace, no space inside. */
const TOKEN = /(^|\s)@([^\s@]{0,200})$/;
/** Waits this long after a keystroke before asking (one query per burst of typing). */
const QUERY_DELAY_MS = 25;

const ICONS: Record<MentionOption['mention']['kind'], string> = {
  file: 'file',
  folder: 'folder',
  selection: 'list-selection',
  problems: 'warning',
  terminal: 'terminal',
  git: 'git-compare',
};

/** The reference left in the text: the file's name, or the entry's kind ("@git", "@terminal", "@problems"). */
function inlineName(o: MentionOption): string {
  const k = o.mention.kind;
  return k === 'file' || k === 'folder' || k === 'selection' ? o.label : k;
}

interface MentionMenuHooks {
  post(msg: WebviewMessage): void;
  /** The user picked an entry: becomes a chip. */
  pick(chip: MentionChip): void;
}

export class MentionMenu {
  readonly menu: HTMLElement;
  private options: MentionOption[] = [];
  private active = 0;
  private seq = 0;
  /** Where the "@" of the token being completed is. */
  private tokenStart = -1;
  private timer: ReturnType<typeof setTimeout> | undefined;
  /** Enter was pressed before the answer came: the first entry is picked when it does. */
  private pickOnAnswer = false;
  /** The input value Escape closed the list on: it stays closed until the text changes. */
  private dismissed: string | undefined;

  constructor(
    private readonly input: HTMLTextAreaElement,
    private readonly hooks: MentionMenuHooks,
  ) {
    this.menu = h('div', {
      id: MENU_ID,
      class: 'slash-menu mention-menu',
      role: 'listbox',
      'aria-label': 'Attach context',
      hidden: true,
    });
    const anchor = input.closest('.composer-row') ?? input;
    anchor.before(this.menu);
    input.addEventListener('input', () => this.onInput());
    input.addEventListener('click', () => this.onInput());
    input.addEventListener('blur', () =>
      setTimeout(() => {
        if (document.activeElement !== input) this.close();
      }, 150),
    );
    input.addEventListener('keydown', (e) => this.onKey(e));
    this.menu.addEventListener('mousedown', (e) => e.preventDefault());
    this.menu.addEventListener('click', (e) => {
      const opt = (e.target as HTMLElement).closest<HTMLElement>('[role="option"]');
      if (opt) this.accept(Number(opt.dataset.index));
    });
  }

  get open(): boolean {
    return !this.menu.hidden;
  }

  /** The host's answer; only the latest query's counts. */
  setResults(msg: { seq: number; options: MentionOption[] }): void {
    if (msg.seq !== this.seq || this.tokenStart < 0) return;
    const keep = this.options[this.active];
    this.options = msg.options;
    const i = keep ? this.options.findIndex((o) => JSON.stringify(o.mention) === JSON.stringify(keep.mention)) : -1;
    this.active = i >= 0 ? i : 0;
    this.render();
    if (this.pickOnAnswer) {
      this.pickOnAnswer = false;
      this.accept(0);
    }
  }

  close(): void {
    clearTimeout(this.timer);
    this.pickOnAnswer = false;
    this.tokenStart = -1;
    if (this.menu.hidden) return;
    this.menu.hidden = true;
    this.menu.replaceChildren();
    this.options = [];
    this.input.setAttribute('aria-expanded', 'false');
    this.input.removeAttribute('aria-activedescendant');
  }

  private onInput(): void {
    const value = this.input.value;
    if (value !== this.dismissed) this.dismissed = undefined;
    const caret = this.input.selectionStart ?? value.length;
    const m =
      this.dismissed === undefined && this.input.selectionEnd === caret ? TOKEN.exec(value.slice(0, caret)) : null;
    if (!m) return this.close();
    this.tokenStart = caret - m[2].length - 1;
    const query = m[2];
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.hooks.post({ type: 'mention_query', seq: ++this.seq, query }), QUERY_DELAY_MS);
  }

  private render(): void {
    if (this.options.length === 0) {
      this.menu.replaceChildren(h('div', { class: 'mention-empty' }, 'No matching files.'));
      this.input.removeAttribute('aria-activedescendant');
    } else {
      this.menu.replaceChildren(
        ...this.options.map((o, i) =>
          h(
            'div',
            {
              id: `${MENU_ID}-${i}`,
              class: `slash-option${i === this.active ? ' active' : ''}`,
              role: 'option',
              'aria-selected': String(i === this.active),
              'data-index': String(i),
              title: o.detail ? `${o.detail}` : undefined,
            },
            icon(ICONS[o.mention.kind]),
            h('span', { class: 'slash-name' }, o.label),
            o.detail ? h('span', { class: 'mention-detail' }, o.detail) : null,
          ),
        ),
      );
      this.input.setAttribute('aria-activedescendant', `${MENU_ID}-${this.active}`);
    }
    this.menu.hidden = false;
    this.input.setAttribute('aria-controls', MENU_ID);
    this.input.setAttribute('aria-expanded', 'true');
    this.menu.querySelector('.active')?.scrollIntoView?.({ block: 'nearest' });
  }

  private move(by: number): void {
    const n = this.options.length;
    if (!n) return;
    this.active = (this.active + by + n) % n;
    this.render();
  }

  /** Removes "@query" from the input and hands the entry over as a chip. */
  private accept(index: number): void {
    const o = this.options[index];
    if (!o || this.tokenStart < 0) return;
    const value = this.input.value;
    const caret = this.input.selectionStart ?? value.length;
    // The sentence keeps a short reference ("what does @greet.js return?"); the chip carries the content.
    const ref = `@${inlineName(o)} `;
    const before = value.slice(0, this.tokenStart) + ref;
    const after = value[caret] === ' ' ? value.slice(caret + 1) : value.slice(caret);
    this.input.value = before + after;
    this.input.setSelectionRange(before.length, before.length);
    this.close();
    this.hooks.pick({ mention: o.mention, label: o.label });
    this.input.focus();
    this.input.dispatchEvent(new Event('input'));
  }

  private onKey(e: KeyboardEvent): void {
    if (e.isComposing) return;
    const handled = () => {
      e.preventDefault();
      e.stopImmediatePropagation();
    };
    if (!this.open) {
      // "@gre" + a quick Enter: the host has not answered yet; the message must not go out with "@gre" in it.
      if (this.tokenStart >= 0 && (e.key === 'Enter' || e.key === 'Tab') && !e.shiftKey) {
        handled();
        this.pickOnAnswer = true;
      }
      return;
    }
    switch (e.key) {
      case 'ArrowDown':
        handled();
        return this.move(1);
      case 'ArrowUp':
        handled();
        return this.move(-1);
      case 'Tab':
      case 'Enter':
        if (e.shiftKey || !this.options.length) return;
        handled();
        return this.accept(this.active);
      case 'Escape':
        handled();
        this.dismissed = this.input.value;
        return this.close();
    }
  }
}

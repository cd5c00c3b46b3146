// Slash commands in the chat input: a completion list while the input holds "/name" (Up/Down move, Tab
// completes, Enter completes and sends a command that takes no arguments, Escape closes; mouse too), Escape in
// the input stops a running task, and the host's answers to commands (/help, /mode, unknown commands) shown
// above the input. The list comes from the host (slash_commands); the host parses and runs every command.
// Accessibility: the input is a combobox controlling a listbox; the highlighted option is aria-activedescendant.
import type { SlashCommandInfoView } from '../../src/protocol/messages';
import { h } from './dom';
import { renderMarkdown } from './markdown';
import './slashMenu.css';

interface SlashMenuHooks {
  isRunning(): boolean;
  stop(): void;
  /** Sends the input as it is now (after a completion of a command without arguments). */
  send(): void;
  /** Posts a slash command while a run is going (the normal send path waits for idle). */
  sendNow(text: string): void;
}

const MENU_ID = 'forge-slash-menu';
const MAX_SHOWN = 50;
/** What the input must look like for the list to show: a slash and a partial name, nothing else yet. */
const TYPING = /^\/([A-Za-z][\w.:-]*)?$/;
/** "/name partial": the argument of a command that lists its choices (e.g. /mode). */
const ARG = /^\/([A-Za-z][\w.:-]*)\s+(\S*)$/;

interface Entry {
  label: string;
  hint?: string;
  description: string;
  source?: string;
  /** The input's text when this entry is accepted. */
  insert: string;
  /** Nothing more to type: Enter sends it. */
  complete: boolean;
}
const IS_COMMAND = /^\s*\/[A-Za-z][\w.:-]*(\s|$)/;

export class SlashMenu {
  readonly menu: HTMLElement;
  readonly notice: HTMLElement;
  private commands: SlashCommandInfoView[] = [];
  private shown: Entry[] = [];
  private active = 0;
  /** The input value the user closed the list on (Escape): it stays closed until the text changes. */
  private dismissed: string | undefined;

  constructor(
    private readonly input: HTMLTextAreaElement,
    private readonly hooks: SlashMenuHooks,
  ) {
    this.menu = h('div', { id: MENU_ID, class: 'slash-menu', role: 'listbox', 'aria-label': 'Commands', hidden: true });
    this.notice = h('div', { class: 'slash-notice', role: 'status', 'aria-live': 'polite', hidden: true });
    const anchor = input.closest('.composer-row') ?? input;
    anchor.before(this.notice, this.menu);
    input.setAttribute('role', 'combobox');
    input.setAttribute('aria-autocomplete', 'list');
    input.setAttribute('aria-controls', MENU_ID);
    input.setAttribute('aria-expanded', 'false');
    input.addEventListener('input', () => this.refresh());
    input.addEventListener('blur', () =>
      setTimeout(() => {
        if (document.activeElement !== input) this.close();
      }, 150),
    );
    // Runs before the page's keydown handler (document level), so Enter here never also sends the raw text.
    input.addEventListener('keydown', (e) => this.onKey(e));
    this.menu.addEventListener('mousedown', (e) => e.preventDefault()); // keep the focus in the input
    this.menu.addEventListener('click', (e) => {
      const opt = (e.target as HTMLElement).closest<HTMLElement>('[role="option"]');
      if (opt) this.accept(Number(opt.dataset.index), false);
    });
    this.notice.addEventListener('click', (e) => {
      if ((e.target as HTMLElement).closest('[data-dismiss]')) this.hideNotice();
    });
  }

  get open(): boolean {
    return !this.menu.hidden;
  }

  setCommands(commands: readonly SlashCommandInfoView[]): void {
    this.commands = commands.slice();
    if (this.open) this.refresh();
  }

  /** The host's answer to a command. */
  showNotice(text: string, level: 'info' | 'error'): void {
    const body = h('div', { class: 'slash-notice-text md' });
    body.append(renderMarkdown(text));
    this.notice.className = `slash-notice ${level}`;
    this.notice.setAttribute('role', level === 'error' ? 'alert' : 'status');
    this.notice.replaceChildren(
      body,
      h(
        'button',
        { type: 'button', class: 'slash-notice-close', 'data-dismiss': '', 'aria-label': 'Dismiss', title: 'Dismiss' },
        '×',
      ),
    );
    this.notice.hidden = false;
  }

  hideNotice(): void {
    this.notice.hidden = true;
    this.notice.replaceChildren();
  }

  /**
   * Called by the page's send path first: true when the text was handled here (/stop, or any command while a
   * run is going, which the normal path would hold back).
   */
  intercept(text: string): boolean {
    // Whatever is sent next, the previous command's answer has been read.
    this.hideNotice();
    if (!IS_COMMAND.test(text)) return false;
    this.close();
    if (/^\s*\/stop\s*$/i.test(text)) {
      if (this.hooks.isRunning()) this.hooks.stop();
      else this.showNotice('Nothing is running.', 'info');
      return true;
    }
    if (this.hooks.isRunning()) {
      this.hooks.sendNow(text.trim());
      return true;
    }
    return false;
  }

  private refresh(): void {
    const value = this.input.value;
    if (value !== this.dismissed) this.dismissed = undefined;
    if (this.dismissed !== undefined || this.commands.length === 0) return this.close();
    const next = this.entries(value);
    if (next.length === 0) return this.close();
    const keep = this.shown[this.active]?.insert;
    this.shown = next;
    const i = keep ? next.findIndex((c) => c.insert === keep) : -1;
    this.active = i >= 0 ? i : 0;
    this.render();
  }

  /** Commands matching "/partial" (prefix matches first), or the choices matching "/name partial". */
  private entries(value: string): Entry[] {
    const rank = <T>(items: readonly T[], key: (t: T) => string, q: string) => {
      const prefix = items.filter((t) => key(t).toLowerCase().startsWith(q));
      const inner = q
        ? items.filter((t) => !key(t).toLowerCase().startsWith(q) && key(t).toLowerCase().includes(q))
        : [];
      return [...prefix, ...inner].slice(0, MAX_SHOWN);
    };
    const m = TYPING.exec(value);
    if (m) {
      return rank(this.commands, (c) => c.name, (m[1] ?? '').toLowerCase()).map((c) => ({
        label: `/${c.name}`,
        hint: c.argumentHint,
        description: c.description,
        source: c.source,
        insert: `/${c.name}${c.argumentHint ? ' ' : ''}`,
        complete: !c.argumentHint,
      }));
    }
    const a = ARG.exec(value);
    const cmd = a && this.commands.find((c) => c.name.toLowerCase() === a[1].toLowerCase());
    if (!a || !cmd?.choices?.length) return [];
    const q = a[2].toLowerCase();
    if (cmd.choices.some((c) => c.toLowerCase() === q)) return [];
    return rank(cmd.choices, (c) => c, q).map((c) => ({
      label: `/${cmd.name} ${c}`,
      description: cmd.choiceDescriptions?.[c] ?? '',
      insert: `/${cmd.name} ${c}`,
      complete: true,
    }));
  }

  private render(): void {
    this.menu.replaceChildren(
      ...this.shown.map((c, i) => {
        const opt = h(
          'div',
          {
            id: `${MENU_ID}-${i}`,
            class: `slash-option${i === this.active ? ' active' : ''}`,
            role: 'option',
            'aria-selected': String(i === this.active),
            'data-index': String(i),
          },
          h('span', { class: 'slash-name' }, c.label),
          c.hint ? h('span', { class: 'slash-hint' }, ` ${c.hint}`) : null,
          h('span', { class: 'slash-desc' }, c.description),
          c.source && c.source !== 'builtin' ? h('span', { class: 'slash-source' }, c.source) : null,
        );
        return opt;
      }),
    );
    this.menu.hidden = false;
    this.input.setAttribute('aria-expanded', 'true');
    this.input.setAttribute('aria-activedescendant', `${MENU_ID}-${this.active}`);
    this.menu.querySelector('.active')?.scrollIntoView?.({ block: 'nearest' });
  }

  close(): void {
    if (this.menu.hidden) return;
    this.menu.hidden = true;
    this.menu.replaceChildren();
    this.shown = [];
    this.input.setAttribute('aria-expanded', 'false');
    this.input.removeAttribute('aria-activedescendant');
  }

  private move(by: number): void {
    const n = this.shown.length;
    this.active = (this.active + by + n) % n;
    this.render();
  }

  /**
   * Puts the entry in the input ("/name " for a command that takes arguments); with `sendIfComplete`, an entry
   * with nothing left to type is sent at once (Enter), otherwise (Tab, click) it waits for more.
   */
  private accept(index: number, sendIfComplete: boolean): void {
    const c = this.shown[index];
    if (!c) return;
    this.input.value = c.complete && !sendIfComplete ? `${c.insert} ` : c.insert;
    this.close();
    this.input.focus();
    this.input.dispatchEvent(new Event('input'));
    if (sendIfComplete && c.complete) this.hooks.send();
  }

  private onKey(e: KeyboardEvent): void {
    if (e.isComposing) return;
    if (!this.open) {
      if (e.key === 'Escape' && this.hooks.isRunning()) {
        e.preventDefault();
        this.hooks.stop();
      }
      return;
    }
    const handled = () => {
      e.preventDefault();
      e.stopImmediatePropagation();
    };
    switch (e.key) {
      case 'ArrowDown':
        handled();
        return this.move(1);
      case 'ArrowUp':
        handled();
        return this.move(-1);
      case 'Tab':
        handled();
        return this.accept(this.active, false);
      case 'Enter':
        if (e.shiftKey) return;
        handled();
        return this.accept(this.active, true);
      case 'Escape':
        handled();
        this.dismissed = this.input.value;
        return this.close();
    }
  }
}

// The conversation list. Stays fast with thousands of items by (1) never re-rendering the list: each op touches
// one element; (2) content-visibility:auto on items so off-screen ones skip layout and paint; (3) lazy markdown:
// bodies are plain text until they come within a screen of the viewport; (4) streamed markdown is incremental
// (completed blocks are kept, only the last one is re-rendered, adaptively throttled); (5) no geometry reads
// right after DOM writes: following the bottom happens in a ResizeObserver callback (layout already done) and
// "at the bottom" is cached from scroll events.
import type { TranscriptItem } from '../../src/protocol/messages';
import { hydrate, refreshStream, renderItem } from './items';
import { StreamingMarkdown } from './streamMarkdown';

interface ScrollState {
  scrollTop: number;
  stick: boolean;
  /** First item visible at the top and how far into it we were: survives height changes from lazy rendering. */
  anchorId?: string;
  anchorOffset?: number;
}

export class TranscriptView {
  readonly list: HTMLElement;
  private readonly els = new Map<string, HTMLElement>();
  private readonly items = new Map<string, TranscriptItem>();
  private readonly dirty = new Map<string, 'text' | 'argsText'>();
  /** Incremental renderers of assistant messages that are streaming. */
  private readonly streams = new Map<string, StreamingMarkdown>();
  private reportedStick: boolean | undefined;
  private frame = 0;
  private stick = true;
  private pin: { id: string; offset: number } | undefined;
  private readonly observer: IntersectionObserver;
  private readonly jump: HTMLButtonElement;

  constructor(
    readonly scroller: HTMLElement,
    private readonly onScroll: (s: ScrollState) => void,
  ) {
    this.list = document.createElement('div');
    this.list.className = 'items';
    this.list.setAttribute('role', 'log');
    this.list.setAttribute('aria-live', 'polite');
    // Scrolled up while the answer streams on: one click back to the newest (shown only off the bottom).
    this.jump = document.createElement('button');
    this.jump.type = 'button';
    this.jump.className = 'jump-latest';
    this.jump.textContent = '↓ Jump to latest';
    this.jump.hidden = true;
    this.jump.addEventListener('click', () => this.scrollToBottom());
    scroller.append(this.list, this.jump);
    this.observer = new IntersectionObserver((entries) => this.onVisible(entries), {
      root: scroller,
      rootMargin: '1200px 0px',
    });
    // Growth (appended items, items measured for real, markdown hydrated, a stream growing) and a shrinking
    // viewport: follow it while the user is at the bottom. ResizeObserver runs after layout, so this reads no
    // stale geometry and forces no extra layout.
    const follow = new ResizeObserver(() => {
      if (this.stick) this.scroller.scrollTop = this.scroller.scrollHeight;
      else if (this.pin) this.applyPin();
      // Items above the viewport grew or shrank (markdown rendered, a row collapsed): the saved anchor is re-read
      // so a hide/show lands on what the user sees now, not on what was there before the content settled.
      else this.scheduleReport();
    });
    follow.observe(this.list);
    follow.observe(this.scroller);
    // A restored position stays pinned to its item while lazy rendering settles, until the user scrolls.
    for (const ev of ['wheel', 'touchstart', 'pointerdown', 'keydown']) {
      scroller.addEventListener(ev, () => (this.pin = undefined), { passive: true });
    }
    let lastTop = scroller.scrollTop;
    scroller.addEventListener(
      'scroll',
      () => {
        // Scroll events run before this frame's DOM writes, so these reads find layout clean. Content that grew
        // below (a stream, before the follow lands) is not the user leaving the bottom: only a move up is.
        const top = this.scroller.scrollTop;
        if (this.atBottom()) this.stick = true;
        else if (top < lastTop - 1 || !this.stick) this.stick = false;
        lastTop = top;
        this.jump.hidden = this.stick;
        if (this.stick && this.reportedStick === true) return;
        this.scheduleReport();
      },
      { passive: true },
    );
  }

  get count(): number {
    return this.els.size;
  }

  reset(items: readonly TranscriptItem[], restore?: ScrollState): void {
    this.observer.disconnect();
    this.els.clear();
    this.items.clear();
    this.dirty.clear();
    this.streams.clear();
    const frag = document.createDocumentFragment();
    for (const item of items) frag.append(this.create(item));
    this.list.replaceChildren(frag);
    if (restore && !restore.stick) {
      this.stick = false;
      this.pin =
        restore.anchorId && this.els.has(restore.anchorId)
          ? { id: restore.anchorId, offset: restore.anchorOffset ?? 0 }
          : undefined;
      if (this.pin) this.applyPin();
      else this.scroller.scrollTop = restore.scrollTop;
    } else {
      this.stick = true;
      this.scrollToBottom();
    }
  }

  append(item: TranscriptItem): void {
    this.pin = undefined;
    // No scroll here: the ResizeObserver follows the growth after layout when stuck to the bottom.
    this.list.append(this.create(item));
  }

  update(item: TranscriptItem): void {
    const old = this.els.get(item.id);
    if (!old) return this.append(item);
    // Keep what the user expanded or collapsed, and anything typed into a reject reason.
    const open = new Map<string, boolean>();
    for (const d of Array.from(old.querySelectorAll<HTMLDetailsElement>('details[data-key][data-user-toggled]'))) {
      open.set(d.dataset.key!, d.open);
    }
    const el = this.create(item);
    for (const d of Array.from(el.querySelectorAll<HTMLDetailsElement>('details[data-key]'))) {
      const o = open.get(d.dataset.key!);
      if (o !== undefined) {
        d.open = o;
        d.setAttribute('data-user-toggled', '');
      }
    }
    old.replaceWith(el);
    this.observer.unobserve(old);
  }

  delta(item: TranscriptItem, field: 'text' | 'argsText'): void {
    this.items.set(item.id, item);
    this.dirty.set(item.id, field);
    this.schedule();
  }

  endStream(item: TranscriptItem): void {
    this.dirty.delete(item.id);
    const stream = this.streams.get(item.id);
    if (item.kind === 'assistant' && stream && this.els.has(item.id)) {
      // Finish in place: completed blocks stay, only the tail is rendered once more.
      this.items.set(item.id, item);
      this.streams.delete(item.id);
      stream.finish(item.text);
      return;
    }
    this.update(item);
  }

  element(id: string): HTMLElement | undefined {
    return this.els.get(id);
  }

  scrollToBottom(): void {
    this.stick = true;
    this.jump.hidden = true;
    // After layout: content-visibility estimates settle as items render.
    requestAnimationFrame(() => {
      this.scroller.scrollTop = this.scroller.scrollHeight;
    });
    this.scroller.scrollTop = this.scroller.scrollHeight;
  }

  private applyPin(): void {
    const el = this.pin && this.els.get(this.pin.id);
    if (el && this.pin) this.scroller.scrollTop = el.offsetTop + this.pin.offset;
  }

  /** Binary search for the first item whose bottom is below the top of the viewport. */
  private anchor(): { anchorId?: string; anchorOffset?: number } {
    const kids = this.list.children;
    const top = this.scroller.scrollTop;
    let lo = 0;
    let hi = kids.length - 1;
    if (hi < 0) return {};
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      const el = kids[mid] as HTMLElement;
      if (el.offsetTop + el.offsetHeight <= top) lo = mid + 1;
      else hi = mid;
    }
    const el = kids[lo] as HTMLElement;
    return { anchorId: el.dataset.id, anchorOffset: Math.round(top - el.offsetTop) };
  }

  private reportPending = false;

  /** One report per frame at most, however many scroll and resize events come. */
  private scheduleReport(): void {
    if (this.reportPending) return;
    this.reportPending = true;
    requestAnimationFrame(() => {
      this.reportPending = false;
      this.report();
    });
  }

  /** Saves the scroll state; while stuck to the bottom only the change to "stuck" matters (no reads). */
  private report(): void {
    this.reportedStick = this.stick;
    if (this.stick) this.onScroll({ scrollTop: 0, stick: true });
    else this.onScroll({ scrollTop: this.scroller.scrollTop, stick: false, ...this.anchor() });
  }

  private atBottom(): boolean {
    const s = this.scroller;
    return s.scrollHeight - s.scrollTop - s.clientHeight < 40;
  }

  private create(item: TranscriptItem): HTMLElement {
    const el = renderItem(item);
    this.els.set(item.id, el);
    this.items.set(item.id, item);
    this.streams.delete(item.id);
    if (el.querySelector('.md[data-pending]')) {
      if (item.kind === 'assistant' && item.streaming) this.stream(el, item)?.render(item.text);
      else this.observer.observe(el);
    }
    return el;
  }

  /** The incremental renderer of an assistant message, created on its first streamed text. */
  private stream(el: HTMLElement, item: TranscriptItem): StreamingMarkdown | undefined {
    if (item.kind !== 'assistant') return undefined;
    let s = this.streams.get(item.id);
    const body = el.querySelector<HTMLElement>('.md');
    if (!s && body) {
      this.observer.unobserve(el);
      body.classList.add('streaming');
      s = new StreamingMarkdown(body);
      this.streams.set(item.id, s);
    }
    return s;
  }

  private onVisible(entries: IntersectionObserverEntry[]): void {
    for (const e of entries) {
      if (!e.isIntersecting) continue;
      const el = e.target as HTMLElement;
      this.observer.unobserve(el);
      const item = this.items.get(el.dataset.id ?? '');
      if (item) hydrate(el, item);
    }
  }

  private schedule(): void {
    if (this.frame) return;
    this.frame = requestAnimationFrame((now) => {
      this.frame = 0;
      let later = false;
      for (const [id, field] of this.dirty) {
        const el = this.els.get(id);
        const item = this.items.get(id);
        const stream = el && item ? this.stream(el, item) : undefined;
        if (stream && now < stream.nextAt) {
          later = true; // throttled: a big unfinished block re-renders less often
          continue;
        }
        this.dirty.delete(id);
        if (stream) stream.render((item as { text: string }).text);
        else if (el && item) refreshStream(el, item, field);
      }
      // Scrolling to follow happens in the ResizeObserver, after layout: no geometry read here.
      if (later) this.schedule();
    });
  }
}

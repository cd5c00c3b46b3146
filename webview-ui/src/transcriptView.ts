// The conversation list. Stays fast with thousands of items by (1) never re-rendering the list: each op touches
// one element; (2) content-visibility:auto on items so off-screen ones skip layout and paint; (3) lazy markdown:
// bodies are plain text until they come within a screen of the viewport; (4) streamed items re-render at most
// once per animation frame.
import type { TranscriptItem } from '../../src/protocol/messages';
import { hydrate, refreshStream, renderItem } from './items';

export interface ScrollState {
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
  private frame = 0;
  private stick = true;
  private pin: { id: string; offset: number } | undefined;
  private readonly observer: IntersectionObserver;

  constructor(readonly scroller: HTMLElement, private readonly onScroll: (s: ScrollState) => void) {
    this.list = document.createElement('div');
    this.list.className = 'items';
    this.list.setAttribute('role', 'log');
    this.list.setAttribute('aria-live', 'polite');
    scroller.append(this.list);
    this.observer = new IntersectionObserver((entries) => this.onVisible(entries), { root: scroller, rootMargin: '1200px 0px' });
    // Growth we did not scroll for (items measured for real, markdown hydrated, a stream growing): follow it
    // while the user is at the bottom.
    new ResizeObserver(() => {
      if (this.stick) this.scroller.scrollTop = this.scroller.scrollHeight;
      else if (this.pin) this.applyPin();
    }).observe(this.list);
    // A restored position stays pinned to its item while lazy rendering settles, until the user scrolls.
    for (const ev of ['wheel', 'touchstart', 'pointerdown', 'keydown']) {
      scroller.addEventListener(ev, () => (this.pin = undefined), { passive: true });
    }
    let pending = false;
    scroller.addEventListener('scroll', () => {
      this.stick = this.atBottom();
      if (pending) return;
      pending = true;
      requestAnimationFrame(() => {
        pending = false;
        this.onScroll({ scrollTop: this.scroller.scrollTop, stick: this.stick, ...this.anchor() });
      });
    }, { passive: true });
  }

  get count(): number {
    return this.els.size;
  }

  reset(items: readonly TranscriptItem[], restore?: ScrollState): void {
    this.observer.disconnect();
    this.els.clear();
    this.items.clear();
    this.dirty.clear();
    const frag = document.createDocumentFragment();
    for (const item of items) frag.append(this.create(item));
    this.list.replaceChildren(frag);
    if (restore && !restore.stick) {
      this.stick = false;
      this.pin = restore.anchorId && this.els.has(restore.anchorId) ? { id: restore.anchorId, offset: restore.anchorOffset ?? 0 } : undefined;
      if (this.pin) this.applyPin();
      else this.scroller.scrollTop = restore.scrollTop;
    } else {
      this.stick = true;
      this.scrollToBottom();
    }
  }

  append(item: TranscriptItem): void {
    this.pin = undefined;
    const follow = this.stick;
    this.list.append(this.create(item));
    if (follow) this.scrollToBottom();
  }

  update(item: TranscriptItem): void {
    const old = this.els.get(item.id);
    if (!old) return this.append(item);
    const follow = this.stick;
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
    if (follow) this.scrollToBottom();
  }

  delta(item: TranscriptItem, field: 'text' | 'argsText'): void {
    this.items.set(item.id, item);
    this.dirty.set(item.id, field);
    this.schedule();
  }

  endStream(item: TranscriptItem): void {
    this.dirty.delete(item.id);
    this.update(item);
  }

  element(id: string): HTMLElement | undefined {
    return this.els.get(id);
  }

  scrollToBottom(): void {
    this.stick = true;
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

  private atBottom(): boolean {
    const s = this.scroller;
    return s.scrollHeight - s.scrollTop - s.clientHeight < 40;
  }

  private create(item: TranscriptItem): HTMLElement {
    const el = renderItem(item);
    this.els.set(item.id, el);
    this.items.set(item.id, item);
    if (el.querySelector('.md[data-pending]')) {
      if (item.kind === 'assistant' && item.streaming) hydrate(el, item);
      else this.observer.observe(el);
    }
    return el;
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
    this.frame = requestAnimationFrame(() => {
      this.frame = 0;
      const follow = this.stick;
      for (const [id, field] of this.dirty) {
        const el = this.els.get(id);
        const item = this.items.get(id);
        if (el && item) refreshStream(el, item, field);
      }
      this.dirty.clear();
      if (follow) this.scroller.scrollTop = this.scroller.scrollHeight;
    });
  }
}

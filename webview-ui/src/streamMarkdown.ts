// Incremental markdown for a message that is still streaming. Completed top-level blocks are rendered and
// sanitized once and appended; only the unfinished last block is re-rendered, so the cost of an update follows
// the size of that block, not of the message. Every HTML fragment still goes through DOMPurify (renderTokens).
// Completed blocks are grouped into `.md-chunk` boxes with content-visibility:auto, so a very long message
// does not cost layout, pre-paint and paint for its off-screen parts on every frame.
// Bounded whatever the model writes: the tail re-parsed per delta is at most TAIL_CHARS (CODE_TAIL_CHARS for one
// open code block); a block that never ends, like a 200 KB list or a 1 MB line, is committed in pieces cut at line
// ends. One render commits at most PIECES_PER_RENDER pieces (a huge delta continues on the next frames), and
// nesting depth, inline runs and table width are capped in markedSetup.ts.
import { collectLinks, lexBlocks, renderTokens, type LinkDefs } from './markdown';
import { tailLimit, takePiece } from './mdBounds';
import type { Token } from 'marked';
import { NormalizedFeed, splitCompleted } from './streamBlocks';

/** Renders of the tail may use at most ~1/RATIO of the main thread; cheap tails still update every frame. */
const RATIO = 8;
const MAX_INTERVAL_MS = 100;
/** A chunk is closed (and can be skipped while off-screen) after this much source. */
const CHUNK_CHARS = 3000;
/** Forced commits per render; more source than this waits for the next frame. */
const PIECES_PER_RENDER = 1;

interface Batch {
  src: string;
  nodes: Node[];
  /** Reference definitions known when this batch was rendered (a later one may resolve its [links]). */
  linkCount: number;
}

export class StreamingMarkdown {
  private feed = new NormalizedFeed();
  /** Source not yet in a completed block (the tail being written). */
  private pending = '';
  private links: LinkDefs = Object.create(null);
  private linkCount = 0;
  private tail: Node[] = [];
  private batches: Batch[] = [];
  private chunk: HTMLElement | undefined;
  private chunkChars = 0;
  /** performance.now() before which the tail should not be re-rendered (adaptive throttle). */
  nextAt = 0;

  constructor(readonly body: HTMLElement) {
    body.removeAttribute('data-pending');
    body.replaceChildren();
  }

  /** Brings the body up to date with `full` (the whole message so far). */
  render(full: string, final = false): void {
    const t0 = performance.now();
    let added = this.feed.next(full, final);
    if (added === undefined) {
      this.restart();
      added = this.feed.next(full, final) ?? '';
    }
    this.pending += added;
    this.latest = full;
    this.final ||= final;
    this.removeTail();
    // A tail too long to re-parse per delta: commit its front in pieces, whatever block it is in.
    for (
      let n = 0, limit = tailLimit(this.pending);
      this.pending.length > limit;
      n++, limit = tailLimit(this.pending)
    ) {
      if (n === PIECES_PER_RENDER) {
        this.continueLater();
        this.nextAt = performance.now();
        return;
      }
      const { piece, rest } = takePiece(this.pending, limit);
      this.commit(lexBlocks(piece, this.links), piece);
      this.pending = rest;
    }
    const src = this.pending;
    const split = splitCompleted(lexBlocks(src, this.links), src, this.final);
    if (split.blocks.length) {
      const done = src.slice(0, split.length);
      this.commit(split.blocks, done);
      this.pending = src.slice(split.length);
    }
    if (split.tail.length) {
      const frag = renderTokens(split.tail, this.pending);
      this.tail = Array.from(frag.childNodes);
      this.body.append(frag);
    }
    const cost = performance.now() - t0;
    this.nextAt = t0 + Math.min(MAX_INTERVAL_MS, cost * RATIO);
  }

  /** True while source is waiting for a later frame (a huge delta being rendered in pieces). */
  get behind(): boolean {
    return this.later !== 0;
  }

  private later = 0;
  /** The newest text given to render() and whether it was final (a continuation renders that, never older). */
  private latest = '';
  private final = false;

  /** Renders the rest on the next frame (the text already fed is kept in `pending`). */
  private continueLater(): void {
    if (this.later) return;
    this.later = requestAnimationFrame(() => {
      this.later = 0;
      const final = this.final;
      this.render(this.latest, final);
      if (final && !this.later) this.afterFinal();
    });
  }

  private commit(blocks: Token[], done: string): void {
    collectLinks(blocks, this.links);
    this.linkCount = Object.keys(this.links).length;
    const frag = renderTokens(blocks, done);
    this.batches.push({ src: done, nodes: Array.from(frag.childNodes), linkCount: this.linkCount });
    this.openChunk().append(frag);
    this.chunkChars += done.length;
    if (this.chunkChars >= CHUNK_CHARS) this.chunk = undefined;
  }

  /** Final render; batches rendered before a reference definition arrived are redone when the page is idle. */
  finish(full: string): void {
    this.render(full, true);
    if (!this.later) this.afterFinal();
  }

  private afterFinal(): void {
    this.body.classList.remove('streaming');
    const stale = this.batches.filter((b) => b.linkCount < this.linkCount && b.src.includes('['));
    this.batches = [];
    if (stale.length) this.rerenderWhenIdle(stale);
  }

  private openChunk(): HTMLElement {
    if (!this.chunk) {
      this.chunk = document.createElement('div');
      this.chunk.className = 'md-chunk';
      this.chunkChars = 0;
      this.body.append(this.chunk);
    }
    return this.chunk;
  }

  private rerenderWhenIdle(stale: Batch[]): void {
    const links = this.links;
    const step = (deadline?: IdleDeadline) => {
      // At least one batch per callback (an idle callback forced by its timeout has no time left).
      do {
        const b = stale.shift()!;
        const first = b.nodes[0];
        const parent = first?.parentNode;
        if (!first || !parent || !this.body.contains(parent)) continue;
        parent.insertBefore(renderTokens(lexBlocks(b.src, { ...links }), b.src), first);
        for (const n of b.nodes) n.parentNode?.removeChild(n);
      } while (stale.length && deadline && deadline.timeRemaining() > 4);
      if (stale.length) schedule();
    };
    const schedule = () =>
      typeof requestIdleCallback === 'function' ? requestIdleCallback(step, { timeout: 1000 }) : setTimeout(step, 16);
    schedule();
  }

  private removeTail(): void {
    for (const n of this.tail) n.parentNode?.removeChild(n);
    this.tail = [];
  }

  /** The text was replaced rather than extended: start over. */
  private restart(): void {
    if (this.later) cancelAnimationFrame(this.later);
    this.later = 0;
    this.feed = new NormalizedFeed();
    this.final = false;
    this.pending = '';
    this.links = Object.create(null);
    this.tail = [];
    this.batches = [];
    this.chunk = undefined;
    this.body.replaceChildren();
  }
}

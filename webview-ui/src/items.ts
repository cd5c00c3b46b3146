// One renderer per transcript item kind. Renders are cheap: markdown bodies start as plain text and are
// upgraded by the transcript view when they scroll near the viewport (see hydrate()).
import type { ItemOf, TranscriptItem } from '../../src/protocol/messages';
import { actionButtons } from './actions';
import { approvalShown, renderApproval } from './approvalCard';
import { formatTokens, h } from './dom';
import { icon } from './icons';
import { renderChanges } from './changesBlock';
import { renderMarkdown } from './markdown';
import { renderRunEnd } from './runEnd';
import { renderTool, toolRowHidden } from './toolRow';
import { renderCheckpointMark, toolExtras } from './checkpointView';
import { decorateNested, renderContextItem } from './nested';
import { renderChipList } from './composerChips';
import { decorateUserMessage } from './editMessage';
import { messageImages } from './messageImages';

export { actionButtons } from './actions';

function mdBody(source: string, streaming = false): HTMLElement {
  // Plain text placeholder with roughly the right height; hydrate() swaps in the markdown.
  return h('div', { class: `md${streaming ? ' streaming' : ''}`, 'data-pending': '' }, source);
}

export function renderItem(item: TranscriptItem): HTMLElement {
  const el = h('div', { class: `item item-${item.kind}`, 'data-id': item.id });
  // task_completion / converse / ask_question: the run-end block shows them once, rendered.
  // (While one streams its text, its row says so — "Finishing…" — and goes when the run end shows the text.)
  if ((item.kind === 'tool' && toolRowHidden(item)) || (item.kind === 'approval' && !approvalShown(item))) {
    el.hidden = true;
    return el;
  }
  el.append(...renderBody(item));
  if (item.kind === 'user') decorateUserMessage(el, item);
  decorateNested(el, item);
  return el;
}

function renderBody(item: TranscriptItem): Node[] {
  switch (item.kind) {
    case 'user':
      return [
        ...messageImages(item.images),
        ...renderChipList(item.mentions),
        h('div', { class: 'user-bubble' }, item.text),
      ];
    case 'assistant':
      return [mdBody(item.text, item.streaming)];
    case 'thinking':
      return [renderThinking(item)];
    case 'tool':
      return [renderTool(item), ...toolExtras(item)];
    case 'approval':
      return [renderApproval(item)];
    case 'warning':
      return [
        h(
          'div',
          { class: `notice warning kind-${item.warningKind}`, role: 'status' },
          icon(item.warningKind === 'retry' ? 'sync' : 'warning', undefined, 'icon'),
          h('span', {}, item.message),
        ),
      ];
    case 'compaction':
      return [
        h(
          'details',
          { class: 'notice compaction' },
          h(
            'summary',
            {},
            `Context compacted: ${formatTokens(item.beforeTokens)} → ${formatTokens(item.afterTokens)} tokens`,
          ),
          h('div', { class: 'pre-wrap' }, item.summary),
        ),
      ];
    case 'memory':
      return [
        h(
          'details',
          { class: 'notice memory' },
          h(
            'summary',
            {},
            `${item.direction === 'recalled' ? 'Used' : 'Learned'} ${item.memories.length} ${item.memories.length === 1 ? 'memory' : 'memories'}`,
          ),
          h('ul', {}, ...item.memories.map((m) => h('li', {}, h('span', { class: 'badge' }, m.type), ' ', m.content))),
        ),
      ];
    case 'run_end':
      return [renderRunEnd(item, (src) => mdBody(src))];
    case 'checkpoint':
      return [renderCheckpointMark(item)];
    case 'changes':
      return [renderChanges(item)];
    case 'error':
      return [
        h(
          'div',
          item.tone === 'ok' ? { class: 'notice ok', role: 'status' } : { class: 'notice error', role: 'alert' },
          h(
            'div',
            { class: 'notice-row' },
            icon(item.tone === 'ok' ? 'pass' : 'error', undefined, 'icon'),
            h('span', { class: 'pre-wrap' }, item.message),
          ),
          actionButtons(item.actions),
        ),
      ];
    case 'context':
      return [renderContextItem(item)];
  }
}

function renderThinking(item: ItemOf<'thinking'>): HTMLElement {
  // What it thought about, not how long it was: the first line, cut to the row.
  const first = item.text.trim().split('\n')[0] ?? '';
  const label = item.streaming ? 'Thinking…' : `Thought: ${first.length > 120 ? `${first.slice(0, 120)}…` : first}`;
  return h(
    'details',
    { class: 'thinking', open: item.streaming, 'data-key': 'thinking' },
    h('summary', {}, label),
    h('div', { class: 'thinking-text pre-wrap' }, item.text),
  );
}

/** Renders pending markdown bodies of an item element. */
export function hydrate(el: HTMLElement, item: TranscriptItem): void {
  const body = el.querySelector<HTMLElement>('.md[data-pending]');
  if (!body) return;
  const src = item.kind === 'assistant' ? item.text : item.kind === 'run_end' ? item.detail : undefined;
  if (src === undefined) return;
  body.removeAttribute('data-pending');
  body.replaceChildren(renderMarkdown(src));
}

/** Length of the text already shown in a streamed plain-text element: deltas only append (the store's contract;
 * a replaced item gets a new element), so a refresh appends the new part instead of resetting the whole text. */
const shownLength = new WeakMap<HTMLElement, number>();

function appendText(body: HTMLElement, text: string): void {
  const have = shownLength.get(body) ?? body.textContent?.length ?? 0;
  if (text.length > have) body.append(text.slice(have));
  else if (text.length < have) body.textContent = text;
  shownLength.set(body, text.length);
}

/**
 * Cheap in-place refresh of a streamed plain-text field (thinking, tool arguments). Streamed assistant markdown
 * is rendered incrementally by StreamingMarkdown (see TranscriptView); this is only its fallback.
 */
export function refreshStream(el: HTMLElement, item: TranscriptItem, field: 'text' | 'argsText'): void {
  if (item.kind === 'assistant') {
    const body = el.querySelector<HTMLElement>('.md');
    if (body) {
      body.classList.toggle('streaming', item.streaming);
      body.replaceChildren(renderMarkdown(item.text));
      body.removeAttribute('data-pending');
    }
  } else if (item.kind === 'thinking') {
    const body = el.querySelector<HTMLElement>('.thinking-text');
    if (body) appendText(body, item.text);
  } else if (item.kind === 'tool' && field === 'argsText') {
    let pre = el.querySelector<HTMLElement>('pre.args');
    if (!pre) {
      const fresh = renderItem(item);
      el.replaceChildren(...Array.from(fresh.childNodes));
      pre = el.querySelector<HTMLElement>('pre.args');
    }
    if (pre) pre.textContent = item.argsText;
  }
}

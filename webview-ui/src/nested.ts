// Sub-agent steps (items with a parentId: the delegate_task call they belong to) shown indented under that call,
// collapsible from the call's card; and the card for the context a mode gathered before its first step.
// Self-contained: items.ts calls decorateNested() on every rendered item, main.ts calls installNested() once.
import type { ItemOf, TranscriptItem } from '../../src/protocol/messages';
import { formatTokens, h } from './dom';
import './nested.css';

/** delegate_task items whose sub-steps are hidden. Kept across re-renders of the card and of the steps. */
const collapsed = new Set<string>();

export function decorateNested(el: HTMLElement, item: TranscriptItem): void {
  if (item.parentId) {
    el.classList.add('sub-item');
    el.dataset.parent = item.parentId;
    if (collapsed.has(item.parentId)) el.hidden = true;
    const parent = item.parentId;
    // The element is placed after this returns: count once it is in the document.
    queueMicrotask(() => updateToggle(el.ownerDocument, parent));
  }
  if (item.kind === 'tool' && item.name === 'delegate_task') {
    el.classList.add('delegate-item');
    const open = !collapsed.has(item.id);
    const toggle = h(
      'button',
      {
        type: 'button',
        class: 'sub-toggle',
        'data-sub-toggle': item.id,
        'aria-expanded': String(open),
        title: open ? 'Hide the helper’s steps' : 'Show the helper’s steps',
      },
      toggleLabel(el.ownerDocument, item.id, open),
    );
    el.append(toggle);
    queueMicrotask(() => updateToggle(el.ownerDocument, item.id));
  }
}

function subItems(doc: Document, id: string): HTMLElement[] {
  return Array.from(doc.querySelectorAll<HTMLElement>('.sub-item')).filter((e) => e.dataset.parent === id);
}

function toggleLabel(doc: Document, id: string, open: boolean): string {
  const n = subItems(doc, id).length;
  return `${open ? '▾ Hide' : '▸ Show'} helper steps${n ? ` (${n})` : ''}`;
}

function updateToggle(doc: Document, id: string): void {
  const t = Array.from(doc.querySelectorAll<HTMLElement>('[data-sub-toggle]')).find((b) => b.dataset.subToggle === id);
  if (t) t.textContent = toggleLabel(doc, id, !collapsed.has(id));
}

/** One listener on the transcript for the toggles. */
export function installNested(root: HTMLElement): void {
  root.addEventListener('click', (e) => {
    const t = (e.target as HTMLElement).closest<HTMLElement>('[data-sub-toggle]');
    if (!t || !root.contains(t)) return;
    const id = t.dataset.subToggle ?? '';
    const open = collapsed.has(id);
    if (open) collapsed.delete(id);
    else collapsed.add(id);
    for (const child of subItems(root.ownerDocument, id)) child.hidden = !open;
    t.setAttribute('aria-expanded', String(open));
    t.title = open ? 'Hide the helper’s steps' : 'Show the helper’s steps';
    t.textContent = toggleLabel(root.ownerDocument, id, open);
  });
}

const MODE_LABEL: Record<string, string> = { plan: 'Plan', review: 'Review', test: 'Test' };

export function renderContextItem(item: ItemOf<'context'>): HTMLElement {
  const mode = MODE_LABEL[item.mode] ?? item.mode;
  return h(
    'div',
    { class: 'notice mode-context', role: 'status' },
    h('span', { class: 'icon' }, '◎'),
    h('span', {}, `${mode} mode context: ${item.sources.join(', ')} (~${formatTokens(item.tokens)} tokens)`),
  );
}

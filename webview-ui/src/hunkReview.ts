// The approval card's per-hunk review: each hunk of a pending edit with its diff and Accept / Reject toggles
// (real buttons, so Tab, Enter and Space work), a reason field for a rejected hunk, and a summary line. The
// host holds the state (it is shared with the diff editor); every toggle is a hunk_decision message and the
// card is re-rendered from the host's update.
import type { HunkState, HunkView, ItemOf, WebviewMessage } from '../../src/protocol/messages';
import { h } from './dom';
import './review.css';

const STATE_LABEL: Record<HunkState, string> = { pending: 'not reviewed', accepted: 'kept', rejected: 'dropped' };
/** A hunk's toggles say Keep / Drop: "Reject" is the whole card's word, so no card shows it more than once. */
const TOGGLE_LABEL: Record<'accepted' | 'rejected', [off: string, on: string]> = {
  accepted: ['Keep', '✓ Kept'],
  rejected: ['Drop', '✗ Dropped'],
};

/** Where a hunk is, for people: "line 25", "lines 25–27" of the new file, or "removes lines 9–10". */
export function hunkPlace(h: Pick<HunkView, 'oldStart' | 'oldLines' | 'newStart' | 'newLines'>): string {
  const range = (start: number, n: number) => (n <= 1 ? `line ${start}` : `lines ${start}–${start + n - 1}`);
  return h.newLines === 0 ? `removes ${range(h.oldStart, h.oldLines)}` : range(h.newStart, h.newLines);
}

function diffBody(body: string): HTMLElement {
  const pre = h('pre', { class: 'diff hunk-diff' });
  for (const line of body.split('\n')) {
    const cls = line.startsWith('+') ? 'add' : line.startsWith('-') ? 'del' : line.startsWith('\\') ? 'muted' : '';
    pre.append(h('span', { class: cls }, line), '\n');
  }
  return pre;
}

function toggle(a: ItemOf<'approval'>, hunk: HunkView, state: 'accepted' | 'rejected'): HTMLElement {
  const on = hunk.state === state;
  const [label, pressed] = TOGGLE_LABEL[state];
  return h(
    'button',
    {
      type: 'button',
      class: `hunk-toggle hunk-${state}${on ? ' on' : ''}`,
      'aria-pressed': on ? 'true' : 'false',
      'data-act': 'hunk',
      'data-request-id': a.requestId,
      'data-index': String(hunk.index),
      // Pressing a toggle that is on clears it (back to not reviewed).
      'data-state': on ? 'pending' : state,
      title: `${label} hunk ${hunk.index + 1}${on ? ' (press again to clear)' : ''}`,
    },
    on ? pressed : label,
  );
}

/** The hunk list of a pending edit's approval card. */
export function renderHunkList(a: ItemOf<'approval'>, hunks: readonly HunkView[]): HTMLElement {
  const rejected = hunks.filter((x) => x.state === 'rejected').length;
  const reviewed = hunks.filter((x) => x.state !== 'pending').length;
  const summary =
    rejected === hunks.length
      ? `All ${hunks.length} hunks dropped: nothing will be written; the model gets your reasons.`
      : `${hunks.length} hunks · ${reviewed} reviewed · ${rejected ? `${rejected} dropped (will not be written)` : 'all are written unless dropped'}`;
  const list = h('ol', { class: 'hunk-list', 'aria-label': `Hunks of ${a.summary}` });
  for (const hunk of hunks) {
    const name = `Hunk ${hunk.index + 1} of ${hunks.length}`;
    list.append(
      h(
        'li',
        { class: `hunk hunk-state-${hunk.state}`, 'data-index': String(hunk.index) },
        h(
          'div',
          { class: 'hunk-head' },
          h('span', { class: 'hunk-name' }, name),
          h('span', { class: 'hunk-header muted', title: hunk.header }, hunkPlace(hunk)),
          h('span', { class: `hunk-state state-${hunk.state}`, role: 'status' }, STATE_LABEL[hunk.state]),
          h(
            'span',
            { class: 'hunk-actions', role: 'group', 'aria-label': name },
            toggle(a, hunk, 'accepted'),
            toggle(a, hunk, 'rejected'),
          ),
        ),
        diffBody(hunk.body),
        hunk.state === 'rejected'
          ? h('input', {
              class: 'hunk-reason',
              type: 'text',
              value: hunk.reason ?? '',
              maxlength: '2000',
              placeholder: 'Why? (optional, told to the model; Enter saves)',
              'aria-label': `Reason for dropping ${name.toLowerCase()}`,
              'data-request-id': a.requestId,
              'data-index': String(hunk.index),
            })
          : null,
      ),
    );
  }
  return h('div', { class: 'hunk-review' }, h('div', { class: 'hunk-summary', 'aria-live': 'polite' }, summary), list);
}

/** A toggle was pressed (delegated click / key handler): tell the host. */
export function hunkAction(target: HTMLElement, post: (m: WebviewMessage) => void): void {
  const d = target.dataset;
  const index = Number(d.index);
  const state = d.state as HunkState | undefined;
  if (
    !d.requestId ||
    !Number.isInteger(index) ||
    index < 0 ||
    (state !== 'pending' && state !== 'accepted' && state !== 'rejected')
  )
    return;
  const reason = state === 'rejected' ? reasonOf(target, d.requestId, index) : undefined;
  post({ type: 'hunk_decision', requestId: d.requestId, index, state, ...(reason ? { reason } : {}) });
}

function reasonOf(from: HTMLElement, requestId: string, index: number): string | undefined {
  const input = Array.from(
    from.closest('.hunk-review')?.querySelectorAll<HTMLInputElement>('input.hunk-reason') ?? [],
  ).find((i) => i.dataset.requestId === requestId && Number(i.dataset.index) === index);
  return input?.value.trim().slice(0, 2000) || undefined;
}

/** A rejected hunk's reason is saved when the field changes (Enter or leaving it). */
export function installHunkReview(root: HTMLElement, post: (m: WebviewMessage) => void): void {
  const save = (input: HTMLInputElement) => {
    const index = Number(input.dataset.index);
    if (!input.dataset.requestId || !Number.isInteger(index)) return;
    const reason = input.value.trim().slice(0, 2000);
    post({
      type: 'hunk_decision',
      requestId: input.dataset.requestId,
      index,
      state: 'rejected',
      ...(reason ? { reason } : {}),
    });
  };
  root.addEventListener('change', (e) => {
    if (e.target instanceof HTMLInputElement && e.target.classList.contains('hunk-reason')) save(e.target);
  });
  root.addEventListener('keydown', (e) => {
    if (
      e.key === 'Enter' &&
      !e.ctrlKey &&
      !e.metaKey &&
      e.target instanceof HTMLInputElement &&
      e.target.classList.contains('hunk-reason')
    ) {
      e.preventDefault();
      e.target.blur(); // fires change
    }
  });
}

// Approvals: one card that is enough to decide — what runs (printed once) or what changes (a capped diff), how
// it runs, and the buttons. Once answered the card goes: the tool's row says what happened ("Edited src/x.ts
// +4 −1" reopens the change; "rejected" is the user's choice, not an error).
import type { ItemOf } from '../../src/protocol/messages';
import { button, h } from './dom';
import { hunkPlace, renderHunkList } from './hunkReview';
import { icon } from './icons';

type Approval = ItemOf<'approval'>;

/** Only a pending approval is rendered (see approvalShown). */
export function renderApproval(a: Approval): HTMLElement {
  return pendingCard(a);
}

/** Once answered, the tool's own row tells the story ("edited src/x.ts +4 −1", "rejected"): the card goes. */
export function approvalShown(a: Approval): boolean {
  return a.status === 'pending';
}

function pendingCard(a: Approval): HTMLElement {
  const p = a.preview;
  const card = h('div', {
    class: `approval-card pending risk-${a.risk}`,
    role: 'group',
    'aria-label': `Approval needed: ${a.summary}`,
  });
  const title = h('div', { class: 'approval-title' }, icon('shield'), h('span', { class: 'badge risk' }, a.risk));
  // A control-plane edit says what trusts the file and that nothing approves it but this card.
  const sensitive = a.sensitive
    ? h(
        'div',
        { class: 'containment uncontained control-plane', role: 'note' },
        icon('warning'),
        ' ',
        a.sensitive.notice.replace(/^control plane/, 'Control plane'),
      )
    : null;
  if (p?.kind === 'edit') {
    title.append(
      h('strong', {}, p.isNewFile ? 'Create ' : 'Edit '),
      h(
        'a',
        { 'data-act': 'open_file', 'data-path': p.path, role: 'link', tabindex: '0', title: p.path, class: 'path' },
        p.displayPath ?? p.path,
      ),
      h('span', { class: 'added' }, `+${p.added}`),
      h('span', { class: 'removed' }, `−${p.removed}`),
      h(
        'a',
        { 'data-act': 'open_diff', 'data-request-id': a.requestId, role: 'link', tabindex: '0', class: 'open-diff' },
        icon('diff'),
        ' Open diff',
      ),
    );
    card.append(title);
    if (sensitive) card.append(sensitive);
    if (p.hunks?.length) card.append(renderHunkList(a, p.hunks));
    else if (p.diff) card.append(renderDiff(p.diff, p.diffTruncated));
  } else if (p?.kind === 'command') {
    title.append(h('strong', {}, 'Run this command?'));
    card.append(title, h('pre', { class: 'command' }, p.command));
    if (p.cwd) card.append(h('div', { class: 'muted small' }, `in ${p.cwd}`));
    if (p.containment) {
      const bare = p.containment.startsWith('Runs WITHOUT');
      card.append(
        h(
          'div',
          { class: `containment ${bare ? 'uncontained' : 'contained'}` },
          icon(bare ? 'warning' : 'lock'),
          ' ',
          p.containment,
        ),
      );
    }
  } else {
    title.append(h('strong', {}, a.summary));
    card.append(title);
    if (sensitive) card.append(sensitive);
    if (p?.kind === 'generic' && p.summary !== a.summary) card.append(h('div', { class: 'pre-wrap' }, p.summary));
  }
  card.append(
    h('input', {
      class: 'reject-reason',
      type: 'text',
      placeholder: 'Reason for rejecting (optional, Enter rejects)',
      maxlength: '2000',
      'aria-label': 'Reason for rejecting',
      'data-request-id': a.requestId,
    }),
    h(
      'div',
      { class: 'actions' },
      button(
        approveLabel(p),
        { 'data-act': 'approve', 'data-request-id': a.requestId, title: 'Approve once (Ctrl+Enter)' },
        'primary',
      ),
      alwaysButton(a),
      button(p?.kind === 'edit' && p.hunks?.length ? 'Reject all' : 'Reject', {
        'data-act': 'reject',
        'data-request-id': a.requestId,
        title: 'Reject (Ctrl+Backspace)',
      }),
    ),
    h(
      'div',
      { class: 'hint' },
      a.sensitive
        ? 'Ctrl+Enter approve · Ctrl+Backspace reject'
        : 'Ctrl+Enter approve · Ctrl+Shift+Enter always · Ctrl+Backspace reject',
    ),
  );
  return card;
}

/** With hunks, the primary button says what it writes: "Write 2 of 3 hunks", or that it sends the reasons. */
function approveLabel(p: Approval['preview']): string {
  const hunks = p?.kind === 'edit' ? (p.hunks ?? []) : [];
  const dropped = hunks.filter((x) => x.state === 'rejected').length;
  if (!dropped) return 'Approve';
  if (dropped === hunks.length) return 'Send reasons';
  return `Write ${hunks.length - dropped} of ${hunks.length} hunks`;
}

/** "Always for this task" says what it grants: a command's program and subcommand, or nothing beyond this call. */
function alwaysButton(a: Approval): HTMLElement | null {
  if (a.sensitive) return null; // each control-plane edit is asked
  const p = a.preview;
  if (p?.kind === 'command') {
    if (!p.grant) return null;
    return button(`Always allow ${p.grant}`, {
      'data-act': 'approve_task',
      'data-request-id': a.requestId,
      title: `Run ${p.grant} without asking for the rest of this task; other commands still ask (Ctrl+Shift+Enter)`,
    });
  }
  return button('Always for this task', {
    'data-act': 'approve_task',
    'data-request-id': a.requestId,
    title: 'Approve this kind of call for the rest of the task (Ctrl+Shift+Enter)',
  });
}

function renderDiff(diff: string, truncated: boolean): HTMLElement {
  const pre = h('pre', { class: 'diff' });
  const lines = diff.split('\n');
  for (const line of lines.slice(0, 400)) {
    // "@@ -25 +26,2 @@" is for patch tools: people get where the change is.
    const at = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/.exec(line);
    if (at) {
      const n = (x: string | undefined) => (x === undefined ? 1 : Number(x));
      const place = hunkPlace({
        oldStart: Number(at[1]),
        oldLines: n(at[2]),
        newStart: Number(at[3]),
        newLines: n(at[4]),
      });
      pre.append(h('span', { class: 'hunk', title: line }, `⋯ ${place}`), '\n');
      continue;
    }
    const cls = line.startsWith('+') ? 'add' : line.startsWith('-') ? 'del' : '';
    pre.append(h('span', { class: cls }, line), '\n');
  }
  if (truncated || lines.length > 400) pre.append(h('span', { class: 'muted' }, '… (open the diff to see everything)'));
  return pre;
}

// Checkpoints in the transcript: "Restore to here" under a tool card whose step changed files, the files a
// command changed (which no undo can restore), and the mark a restore or undo leaves. The click is handled here
// (a delegated listener on the panel root), so main.ts and items.ts only hook in.
import type { ItemOf, WebviewMessage } from '../../src/protocol/messages';
import { countOf } from '../../src/protocol/format';
import { h } from './dom';

function base(path: string): string {
  const parts = path.split(/[\\/]/);
  return parts.slice(-2).join('/');
}

function files(n: number): string {
  return n === 1 ? '1 file' : `${n} files`;
}

/** `untracked` is set when the changes are in the task's checkpoints (then only those files cannot be put back). */
function commandChangesText(total: number, untracked: number | undefined): string {
  if (untracked === undefined)
    return `This command changed ${files(total)}. Undo and restore cannot bring back what it did.`;
  if (untracked === 0) return `This command changed ${files(total)}. Restore to here and Undo put them back.`;
  return `This command changed ${files(total)}. Restore and Undo put back all but ${untracked === total ? 'them' : files(untracked)} (binary, large or links).`;
}

/** What goes under a tool card: the restore action and/or a command's changed files. */
export function toolExtras(t: ItemOf<'tool'>): HTMLElement[] {
  const out: HTMLElement[] = [];
  if (t.changedFiles?.length) {
    const more = t.changedFilesMore ? ` and ${t.changedFilesMore} more` : '';
    out.push(
      h(
        'details',
        { class: 'notice command-changes' },
        h(
          'summary',
          {},
          commandChangesText(t.changedFiles.length + (t.changedFilesMore ?? 0), t.changedFilesUntracked),
        ),
        h(
          'ul',
          {},
          ...t.changedFiles.map((f) =>
            h(
              'li',
              {},
              h('a', { 'data-act': 'open_file', 'data-path': f, role: 'link', tabindex: '0', title: f }, base(f)),
            ),
          ),
        ),
        more ? h('div', { class: 'muted' }, more.trim()) : null,
      ),
    );
  }
  if (t.checkpoint && (t.status === 'done' || t.status === 'error')) {
    out.push(
      h(
        'div',
        { class: 'checkpoint-row' },
        h(
          'a',
          {
            class: 'checkpoint-restore',
            'data-act': 'restore_checkpoint',
            'data-tool-call-id': t.toolCallId,
            role: 'button',
            tabindex: '0',
            title:
              'Put the files this task changed back the way they were at the end of this step (you can also rewind the conversation)',
          },
          '↺ Restore to here',
        ),
      ),
    );
  }
  return out;
}

export function renderCheckpointMark(c: ItemOf<'checkpoint'>): HTMLElement {
  const files = c.restored.length + c.deleted.length;
  // Only the conversation went back (no file had changed since that step): say that, not "Restored 0 files".
  const onlyRewound =
    c.action === 'restore' &&
    files === 0 &&
    !c.skipped.length &&
    !c.conflicts.length &&
    c.rewoundMessages !== undefined;
  const title =
    c.action === 'undo'
      ? `Undid this task's changes: ${countOf(files, 'file')}`
      : c.action === 'redo'
        ? `Redid: the task's edits are back in ${countOf(files, 'file')}`
        : onlyRewound
          ? 'Rewound the conversation to this step'
          : files === 0
            ? 'No file restored'
            : `Restored ${countOf(files, 'file')} to how they were after an earlier step`;
  const lines: HTMLElement[] = [];
  const list = (label: string, paths: readonly string[]) =>
    paths.length
      ? lines.push(
          h(
            'div',
            {},
            `${label}: `,
            ...paths.flatMap((p, i) => [
              i ? ', ' : '',
              h('a', { 'data-act': 'open_file', 'data-path': p, role: 'link', tabindex: '0', title: p }, base(p)),
            ]),
          ),
        )
      : 0;
  list(c.action === 'redo' ? 'Back' : 'Restored', c.restored);
  list(c.action === 'redo' ? 'Deleted again (the task deleted it)' : 'Deleted (created by the task)', c.deleted);
  list('Kept your changes', c.skipped);
  for (const k of c.conflicts)
    lines.push(h('div', { class: 'conflict' }, `Not restored: ${base(k.path)} (${k.reason})`));
  if (onlyRewound)
    lines.push(h('div', {}, `No file had changed since; ${countOf(c.rewoundMessages ?? 0, 'message')} removed.`));
  else if (c.rewoundMessages !== undefined)
    lines.push(
      h('div', {}, `The conversation was rewound to this point (${countOf(c.rewoundMessages, 'message')} removed).`),
    );
  if (c.action !== 'redo' && !c.redone && files > 0) {
    lines.push(
      h(
        'div',
        {},
        h(
          'a',
          {
            class: 'checkpoint-redo',
            'data-act': 'redo_checkpoint',
            role: 'button',
            tabindex: '0',
            title: "Put back the task's edits this took back (files only; a rewound conversation stays rewound)",
          },
          '↻ Redo',
        ),
      ),
    );
  }
  return h(
    'details',
    { class: 'notice checkpoint-mark', open: true },
    h('summary', {}, `${c.action === 'redo' ? '↻' : '↺'} ${title}`),
    ...lines,
  );
}

/** Delegated click/keyboard handling for "Restore to here" and "Redo". */
export function installCheckpointActions(
  root: HTMLElement,
  taskId: () => string | undefined,
  post: (m: WebviewMessage) => void,
): void {
  const ACTS = '[data-act="restore_checkpoint"], [data-act="redo_checkpoint"]';
  const fire = (el: HTMLElement) => {
    const id = taskId();
    if (el.dataset.act === 'redo_checkpoint') return post({ type: 'redo_checkpoint', ...(id ? { taskId: id } : {}) });
    const callId = el.dataset.toolCallId;
    if (callId) post({ type: 'restore_checkpoint', ...(id ? { taskId: id } : {}), toolCallId: callId });
  };
  root.addEventListener('click', (e) => {
    const el = (e.target as HTMLElement).closest<HTMLElement>(ACTS);
    if (el && root.contains(el)) fire(el);
  });
  root.addEventListener('keydown', (e) => {
    const el = e.target as HTMLElement;
    if ((e.key === 'Enter' || e.key === ' ') && el.matches?.(ACTS)) {
      e.preventDefault();
      fire(el);
    }
  });
}

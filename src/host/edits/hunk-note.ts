// The words of a hunk's note in the diff editor, without vscode: a short note after the hunk's first line (a long
// sentence ran off the editor's edge as ghost text) and the hover that carries its state and the Keep / Drop actions,
// the words the panel's card uses (issue 26, item 8).
import type { HunkDecision } from '../../core/review/hunks';

export const HUNK_COMMANDS = {
  accept: 'forge.acceptHunk',
  reject: 'forge.rejectHunk',
  reset: 'forge.resetHunk',
} as const;

/** "◀ Forge hunk 2/3: hover to keep or drop", "✓ hunk 2/3 kept", "✗ hunk 2/3 dropped". */
export function hunkNote(index: number, total: number, d: HunkDecision | undefined): string {
  const which = `hunk ${index + 1}/${total}`;
  if (d?.state === 'accepted') return `✓ ${which} kept`;
  if (d?.state === 'rejected') return `✗ ${which} dropped`;
  return `◀ Forge ${which}: hover to keep or drop`;
}

/** The hover's Markdown: the state, then the actions as command links on (proposal id, hunk index). */
export function hunkHoverMarkdown(id: string, index: number, total: number, d: HunkDecision | undefined): string {
  const link = (label: string, command: string) =>
    `[${label}](command:${command}?${encodeURIComponent(JSON.stringify([id, index]))})`;
  const state =
    d?.state === 'accepted'
      ? 'kept: it will be written'
      : d?.state === 'rejected'
        ? `dropped${d.reason ? ` (“${d.reason}”)` : ''}: it will not be written`
        : 'not reviewed';
  const actions = [
    d?.state !== 'accepted' ? link('$(check) Keep', HUNK_COMMANDS.accept) : '',
    d?.state !== 'rejected' ? link('$(close) Drop…', HUNK_COMMANDS.reject) : '',
    d?.state ? link('Clear', HUNK_COMMANDS.reset) : '',
  ].filter(Boolean);
  return `**Forge hunk ${index + 1} of ${total}**: ${state}\n\n${actions.join(' · ')}`;
}

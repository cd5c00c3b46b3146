// A tool call as one line — icon, verb, short target, status, exit code, duration — that expands to its
// arguments and one output section (live output while it runs, the result once done; never both).
import type { ItemOf } from '../../src/protocol/messages';
import { formatDuration, h } from './dom';
import { icon } from './icons';

type Tool = ItemOf<'tool'>;

const VERBS: Record<string, [label: string, icon: string]> = {
  read_file: ['Read', 'file'],
  write_file: ['Write', 'new-file'],
  apply_diff: ['Edit', 'edit'],
  execute_command: ['Run', 'terminal'],
  read_command_output: ['Output', 'output'],
  list_files: ['List', 'list-tree'],
  search_files: ['Search', 'search'],
  delegate_task: ['Delegate', 'organization'],
  ask_question: ['Asking', 'question'],
  task_completion: ['Finishing', 'pass'],
  converse: ['Replying', 'comment'],
  update_plan: ['Plan', 'checklist'],
  web_fetch: ['Fetch', 'globe'],
};

/** Loop-control calls end the run: the run-end block shows their text, so no row of their own. */
const HIDDEN_TOOLS = new Set(['task_completion', 'converse', 'ask_question']);
/** Shown elsewhere once they worked: the plan panel is the plan (a failed update keeps its row, with the error). */
const SHOWN_ELSEWHERE = new Set(['update_plan']);

/** Whether a tool call has no row of its own in the transcript. */
export function toolRowHidden(t: Tool): boolean {
  const live = t.status === 'running' || t.status === 'pending';
  return (HIDDEN_TOOLS.has(t.name) && !live) || (SHOWN_ELSEWHERE.has(t.name) && t.status === 'done');
}

const STATUS: Record<Tool['status'], [icon: string, text: string]> = {
  pending: ['loading', 'preparing'],
  running: ['loading', 'running'],
  awaiting_approval: ['shield', 'needs approval'],
  done: ['check', 'done'],
  error: ['error', 'failed'],
  rejected: ['circle-slash', 'rejected'],
  cancelled: ['circle-slash', 'cancelled'],
  /** Cut off by a crash or reload; the restore's report is its result. */
  interrupted: ['debug-disconnect', 'interrupted'],
};

function toolVerb(name: string): [string, string] {
  return VERBS[name] ?? [name.replace(/^mcp__?/, '').replace(/_/g, ' '), 'tools'];
}

/** The command's own lines ("$ cmd", "Exit code: 0 (1.2 s)") are on the row already: the output starts after. */
function commandOutput(result: string): string {
  return (
    result
      .replace(/^\$ [^\n]*\n/, '')
      .replace(/^(Exit code: -?\d+ \([\d.]+ s\)|Killed by signal [^\n]*)\n/, '')
      // Notes for the model: the containment is the row's lock, changed files are listed under the row.
      .replace(/^\[(Ran contained: [^\n]*|Ran without a sandbox\.|Files the command changed: [^\n]*)\]\n?/gm, '')
      .replace(/\n+$/, '')
  );
}

/** "[Ran contained: no network, writes only in the workspace.]" -> its summary, for the row's lock. */
function containmentOf(result: string | undefined): string | undefined {
  return result ? /^\[Ran contained: ([^\n]*?)\.?\]$/m.exec(result)?.[1] : undefined;
}

/** The last line a finished command printed, shown on its collapsed row. */
function lastLine(output: string): string {
  const lines = output.split('\n').filter((l) => l.trim() && l.trim() !== '(no output)');
  return (lines.at(-1) ?? '').slice(0, 200);
}

function commandLine(t: Tool): HTMLElement | null {
  let command = t.argsSummary;
  try {
    const args = JSON.parse(t.argsText) as { command?: unknown };
    if (typeof args.command === 'string') command = args.command;
  } catch {
    /* partial JSON while streaming: the summary will do */
  }
  return command ? h('pre', { class: 'command-line' }, `$ ${command}`) : null;
}

/** What a per-hunk review left out of the file, on the row itself: "Hunk 2 not written (rejected: too broad)". */
function rejectedNote(hunks: NonNullable<NonNullable<Tool['edit']>['rejectedHunks']>): HTMLElement {
  const one = (x: { n: number; reason?: string }) => `hunk ${x.n}${x.reason ? ` (“${x.reason}”)` : ''}`;
  const text = `Not written: ${hunks.map(one).join(', ')}, rejected in review`;
  return h('span', { class: 'tool-note' }, icon('circle-slash'), h('span', {}, text));
}

export function renderTool(t: Tool): HTMLElement {
  const live = t.status === 'running' || t.status === 'pending';
  const [verb, glyph] = toolVerb(t.name);
  const [statusIcon, statusText] = STATUS[t.status];
  const isCommand = t.name === 'execute_command';
  const failedExit = t.exitCode !== undefined && t.exitCode !== null && t.exitCode !== 0;
  const meta: (HTMLElement | null)[] = [
    t.exitCode !== undefined
      ? h(
          'span',
          { class: `tool-exit${failedExit ? ' bad' : ''}`, title: 'Exit code' },
          t.exitCode === null ? 'killed' : `exit ${t.exitCode}`,
        )
      : null,
    h(
      'span',
      { class: 'tool-duration', 'data-started': live && t.startedAt !== undefined ? String(t.startedAt) : undefined },
      t.durationMs !== undefined ? formatDuration(t.durationMs) : '',
    ),
  ];
  const quiet = t.status === 'done' || live;
  const e = t.edit;
  const target = e
    ? h(
        'span',
        { class: 'tool-args tool-edit' },
        h(
          'a',
          {
            'data-act': 'open_diff',
            'data-request-id': e.requestId,
            role: 'link',
            tabindex: '0',
            title: `Show the change to ${e.path}`,
          },
          e.displayPath ?? e.path,
        ),
        h('span', { class: 'added' }, `+${e.added}`),
        h('span', { class: 'removed' }, `−${e.removed}`),
      )
    : h('span', { class: 'tool-args' }, t.argsSummary);
  const output = t.result !== undefined ? (isCommand ? commandOutput(t.result) : t.result) : t.progress;
  const preview = isCommand && !live && output ? lastLine(output) : '';
  const note = e?.rejectedHunks?.length
    ? rejectedNote(e.rejectedHunks)
    : preview
      ? h('span', { class: 'tool-note tool-preview' }, preview)
      : null;
  const contained = isCommand ? containmentOf(t.result) : undefined;
  const summary = h(
    'summary',
    { class: `tool-head${note ? ' has-note' : ''}`, title: `${t.name}${t.argsSummary ? `: ${t.argsSummary}` : ''}` },
    icon('chevron-right', undefined, 'chev'),
    icon(glyph, undefined, 'tool-icon'),
    h('span', { class: 'tool-name' }, e ? (e.isNewFile ? 'Created' : 'Edited') : verb),
    target,
    contained ? icon('lock', `Ran contained: ${contained}`, 'tool-contained') : null,
    ...meta,
    h('span', { class: `tool-status status-${t.status}${quiet ? ' sr-only' : ''}` }, statusText),
    icon(statusIcon, undefined, `tool-status-icon status-${t.status}${live ? ' codicon-modifier-spin' : ''}`),
    note,
  );
  const body = h(
    'div',
    { class: 'tool-body' },
    isCommand
      ? commandLine(t)
      : t.argsText
        ? h(
            'div',
            { class: 'section' },
            h('div', { class: 'section-title' }, 'Arguments'),
            h('pre', { class: 'args' }, t.argsText),
          )
        : null,
    output !== undefined && output !== ''
      ? h(
          'div',
          { class: 'section' },
          h('div', { class: 'section-title' }, t.status === 'error' ? 'Error' : live ? 'Output (running)' : 'Output'),
          h(
            'pre',
            {
              class: `${t.result !== undefined ? 'result' : 'progress-out'}${t.status === 'error' ? ' is-error' : ''}`,
              'aria-live': live ? 'polite' : undefined,
            },
            output,
          ),
          t.resultTruncated
            ? h(
                'div',
                { class: 'truncated' },
                'Output shortened. ',
                t.fullOutputRef
                  ? h(
                      'a',
                      { 'data-act': 'open_output', 'data-ref': t.fullOutputRef, role: 'link', tabindex: '0' },
                      'Open full output',
                    )
                  : null,
              )
            : null,
        )
      : null,
  );
  // A running command shows its output inline (open); finished rows start collapsed.
  return h(
    'details',
    { class: `tool-card status-${t.status}`, 'data-key': 'tool', open: live && !!t.progress },
    summary,
    body,
  );
}

// One renderer per transcript item kind. Renders are cheap: markdown bodies start as plain text and are
// upgraded by the transcript view when they scroll near the viewport (see hydrate()).
import type { Action, ItemOf, TranscriptItem } from '../../src/protocol/messages';
import { button, formatCost, formatDuration, formatTokens, h } from './dom';
import { renderMarkdown } from './markdown';
import { decorateNested, renderContextItem } from './nested';

const ACTION_LABELS: Record<Action, string> = {
  continue: 'Continue',
  new_task: 'New task',
  set_api_key: 'Set API key',
  select_model: 'Choose model',
  open_settings: 'Open settings',
  show_logs: 'Show logs',
  implement_plan: 'Implement this plan',
};

const RUN_END_TITLES: Record<ItemOf<'run_end'>['reason'], string> = {
  done: 'Task complete',
  asked: 'Forge has a question',
  converse: 'Reply',
  stopped: 'Stopped',
  max_iterations: 'Iteration limit reached',
  breaker: 'Stopped by a safety limit',
  stagnation: 'Stopped: no progress',
  guardrail: 'Blocked by a guardrail',
  error: 'Run failed',
};

const TOOL_STATUS_LABELS: Record<ItemOf<'tool'>['status'], string> = {
  pending: 'preparing',
  running: 'running',
  awaiting_approval: 'needs approval',
  done: 'done',
  error: 'error',
  rejected: 'rejected',
  cancelled: 'cancelled',
};

export function actionButtons(actions: readonly Action[]): HTMLElement | null {
  if (actions.length === 0) return null;
  return h('div', { class: 'actions' },
    ...actions.map((a, i) => button(ACTION_LABELS[a], { 'data-act': 'action', 'data-action': a }, i === 0 ? 'primary' : 'secondary')));
}

function mdBody(source: string, streaming = false): HTMLElement {
  // Plain text placeholder with roughly the right height; hydrate() swaps in the markdown.
  return h('div', { class: `md${streaming ? ' streaming' : ''}`, 'data-pending': '' }, source);
}

export function renderItem(item: TranscriptItem): HTMLElement {
  const el = h('div', { class: `item item-${item.kind}`, 'data-id': item.id });
  el.append(...renderBody(item));
  decorateNested(el, item);
  return el;
}

function renderBody(item: TranscriptItem): Node[] {
  switch (item.kind) {
    case 'user':
      return [h('div', { class: 'user-bubble' }, item.text)];
    case 'assistant':
      return [mdBody(item.text, item.streaming)];
    case 'thinking':
      return [renderThinking(item)];
    case 'tool':
      return [renderTool(item)];
    case 'approval':
      return [renderApproval(item)];
    case 'warning':
      return [h('div', { class: 'notice warning', role: 'status' }, h('span', { class: 'icon' }, '⚠'), h('span', {}, item.message))];
    case 'compaction':
      return [h('details', { class: 'notice compaction' },
        h('summary', {}, `Context compacted: ${formatTokens(item.beforeTokens)} → ${formatTokens(item.afterTokens)} tokens`),
        h('div', { class: 'pre-wrap' }, item.summary))];
    case 'memory':
      return [h('details', { class: 'notice memory' },
        h('summary', {}, `${item.direction === 'recalled' ? 'Used' : 'Learned'} ${item.memories.length} ${item.memories.length === 1 ? 'memory' : 'memories'}`),
        h('ul', {}, ...item.memories.map((m) => h('li', {}, h('span', { class: 'badge' }, m.type), ' ', m.content))))];
    case 'run_end':
      return [renderRunEnd(item)];
    case 'error':
      return [h('div', { class: 'notice error', role: 'alert' },
        h('div', {}, h('span', { class: 'icon' }, '⛔'), h('span', { class: 'pre-wrap' }, item.message)),
        actionButtons(item.actions))];
    case 'context':
      return [renderContextItem(item)];
  }
}

function renderThinking(item: ItemOf<'thinking'>): HTMLElement {
  const label = item.streaming ? 'Thinking…' : `Thought (${formatTokens(item.text.length)} chars)`;
  return h('details', { class: 'thinking', open: item.streaming, 'data-key': 'thinking' },
    h('summary', {}, label),
    h('div', { class: 'thinking-text pre-wrap' }, item.text));
}

function renderTool(t: ItemOf<'tool'>): HTMLElement {
  const live = t.status === 'running' || t.status === 'pending';
  const duration = t.durationMs !== undefined ? formatDuration(t.durationMs) : '';
  const summary = h('summary', { class: 'tool-head' },
    h('span', { class: `status-dot status-${t.status}`, 'aria-hidden': 'true' }),
    h('span', { class: 'tool-name' }, t.name),
    h('span', { class: 'tool-args', title: t.argsSummary }, t.argsSummary),
    h('span', { class: `tool-status status-${t.status}` }, TOOL_STATUS_LABELS[t.status]),
    h('span', { class: 'tool-duration', 'data-started': live && t.startedAt !== undefined ? String(t.startedAt) : undefined }, duration));
  const body = h('div', { class: 'tool-body' },
    t.argsText ? h('div', { class: 'section' }, h('div', { class: 'section-title' }, 'Arguments'), h('pre', { class: 'args' }, t.argsText)) : null,
    t.progress ? h('div', { class: 'section' }, h('div', { class: 'section-title' }, 'Output (live)'), h('pre', { class: 'progress-out' }, t.progress)) : null,
    t.result !== undefined
      ? h('div', { class: 'section' },
        h('div', { class: 'section-title' }, t.status === 'error' ? 'Error' : 'Result'),
        h('pre', { class: `result${t.status === 'error' ? ' is-error' : ''}` }, t.result),
        t.resultTruncated
          ? h('div', { class: 'truncated' }, 'Output truncated. ',
            t.fullOutputRef ? h('a', { 'data-act': 'open_output', 'data-ref': t.fullOutputRef, role: 'link', tabindex: '0' }, 'Open full output') : null)
          : null)
      : null);
  return h('details', { class: `tool-card status-${t.status}`, 'data-key': 'tool' }, summary, body);
}

function renderApproval(a: ItemOf<'approval'>): HTMLElement {
  const pending = a.status === 'pending';
  const card = h('div', { class: `approval-card ${pending ? 'pending' : 'resolved'} risk-${a.risk}`, role: pending ? 'group' : undefined, 'aria-label': pending ? `Approval needed: ${a.summary}` : undefined });
  card.append(h('div', { class: 'approval-title' },
    h('span', { class: 'badge risk' }, a.risk),
    h('span', {}, pending ? 'Approval needed: ' : ''),
    h('strong', {}, a.summary)));
  const p = a.preview;
  if (p?.kind === 'edit') {
    card.append(h('div', { class: 'edit-meta' },
      h('a', { 'data-act': 'open_file', 'data-path': p.path, role: 'link', tabindex: '0', title: p.path }, p.displayPath ?? p.path),
      p.isNewFile ? h('span', { class: 'badge' }, 'new file') : null,
      h('span', { class: 'added' }, `+${p.added}`), h('span', { class: 'removed' }, `−${p.removed}`),
      pending ? h('a', { 'data-act': 'open_diff', 'data-request-id': a.requestId, role: 'link', tabindex: '0' }, 'Open diff') : null));
    if (p.diff) card.append(renderDiff(p.diff, p.diffTruncated));
  } else if (p?.kind === 'command') {
    card.append(h('pre', { class: 'command' }, p.command));
    if (p.cwd) card.append(h('div', { class: 'muted' }, `in ${p.cwd}`));
    if (p.containment) {
      const bare = p.containment.startsWith('Runs WITHOUT');
      card.append(h('div', { class: `containment ${bare ? 'uncontained' : 'contained'}` }, p.containment));
    }
  } else if (p?.kind === 'generic') {
    card.append(h('div', { class: 'pre-wrap' }, p.summary));
  }
  if (pending) {
    card.append(
      h('input', { class: 'reject-reason', type: 'text', placeholder: 'Reason for rejecting (optional, Enter rejects)', maxlength: '2000', 'aria-label': 'Reason for rejecting', 'data-request-id': a.requestId }),
      h('div', { class: 'actions' },
        button('Approve', { 'data-act': 'approve', 'data-request-id': a.requestId, title: 'Approve once (Ctrl+Enter)' }, 'primary'),
        alwaysButton(a),
        button('Reject', { 'data-act': 'reject', 'data-request-id': a.requestId, title: 'Reject (Ctrl+Backspace)' })),
      h('div', { class: 'hint' }, 'Ctrl+Enter approve · Ctrl+Shift+Enter always for this task · Ctrl+Backspace reject'));
  } else {
    const text = { approved: 'Approved', approved_task: 'Approved for this task', rejected: 'Rejected', cancelled: 'Cancelled', pending: '' }[a.status];
    card.append(h('div', { class: `approval-outcome outcome-${a.status}` }, text, a.reason ? `: ${a.reason}` : ''));
  }
  return card;
}

/** "Always for this task" says what it grants: a command's program and subcommand, or nothing beyond this call. */
function alwaysButton(a: ItemOf<'approval'>): HTMLElement | null {
  const p = a.preview;
  if (p?.kind === 'command') {
    if (!p.grant) return null;
    return button(`Always allow ${p.grant}`, { 'data-act': 'approve_task', 'data-request-id': a.requestId, title: `Run ${p.grant} without asking for the rest of this task; other commands still ask (Ctrl+Shift+Enter)` });
  }
  return button('Always for this task', { 'data-act': 'approve_task', 'data-request-id': a.requestId, title: 'Approve this kind of call for the rest of the task (Ctrl+Shift+Enter)' });
}

function renderDiff(diff: string, truncated: boolean): HTMLElement {
  const pre = h('pre', { class: 'diff' });
  const lines = diff.split('\n');
  for (const line of lines.slice(0, 400)) {
    const cls = line.startsWith('+') ? 'add' : line.startsWith('-') ? 'del' : line.startsWith('@@') ? 'hunk' : '';
    pre.append(h('span', { class: cls }, line), '\n');
  }
  if (truncated || lines.length > 400) pre.append(h('span', { class: 'muted' }, '… (open the diff to see everything)'));
  return pre;
}

function renderRunEnd(r: ItemOf<'run_end'>): HTMLElement {
  const stats: string[] = [`${r.iterations} ${r.iterations === 1 ? 'iteration' : 'iterations'}`,
    `${formatTokens(r.inputTokens + r.outputTokens)} tokens`];
  if (r.costUsd !== undefined) stats.push(formatCost(r.costUsd));
  stats.push(formatDuration(r.elapsedMs));
  return h('div', { class: `run-end reason-${r.reason}` },
    h('div', { class: 'run-end-title' }, RUN_END_TITLES[r.reason]),
    r.detail ? mdBody(r.detail) : null,
    h('div', { class: 'muted stats' }, stats.join(' · ')),
    spendBreakdown(r),
    actionButtons(r.actions));
}

const SPEND_LABELS: Record<NonNullable<ItemOf<'run_end'>['spend']>[number]['source'], string> = {
  steps: 'steps', compaction: 'compaction', reflection: 'reflection', sub_agents: 'sub-agents',
};

/** "incl. reflection 1.2k tokens · sub-agents 3.4k tokens · $0.02" and the fallback model, when there is any. */
function spendBreakdown(r: ItemOf<'run_end'>): HTMLElement | null {
  const parts = (r.spend ?? []).filter((l) => l.source !== 'steps' && l.tokens > 0)
    .map((l) => `${SPEND_LABELS[l.source]} ${formatTokens(l.tokens)} tokens${l.costUsd !== undefined ? ` (${formatCost(l.costUsd)})` : ''}`);
  const lines: string[] = [];
  if (parts.length) lines.push(`incl. ${parts.join(' · ')}`);
  if (r.fallbackModel) lines.push(`switched to the fallback model ${r.fallbackModel}`);
  return lines.length ? h('div', { class: 'muted stats spend' }, lines.join(' · ')) : null;
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

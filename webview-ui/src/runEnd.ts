// How a run ended: a plain answer gets only a quiet stats line (the answer is already above); a completion, a
// question or a stop gets a titled block; a failure says what went wrong with Retry / Open settings.
import type { ItemOf } from '../../src/protocol/messages';
import { formatCost, formatDuration, formatTokens, h } from './dom';
import { icon } from './icons';
import { actionButtons } from './actions';

type RunEnd = ItemOf<'run_end'>;

const TITLES: Record<RunEnd['reason'], [icon: string, title: string]> = {
  done: ['pass', 'Task complete'],
  asked: ['question', 'Forge has a question'],
  converse: ['comment', ''],
  stopped: ['debug-pause', 'Stopped'],
  max_iterations: ['warning', 'Iteration limit reached'],
  breaker: ['warning', 'Stopped by a safety limit'],
  stagnation: ['warning', 'Stopped: no progress'],
  guardrail: ['shield', 'Blocked by a guardrail'],
  error: ['error', 'Run failed'],
};

/** "3 iterations · 12k tokens · $0.04 · 9.1 s"; nothing spent, nothing said (no "0 tokens", no "$0.0000"). */
function runStats(r: RunEnd): string {
  const tokens = r.inputTokens + r.outputTokens;
  const parts: string[] = [];
  if (r.iterations > 0) parts.push(`${r.iterations} ${r.iterations === 1 ? 'iteration' : 'iterations'}`);
  if (tokens > 0) {
    parts.push(`${formatTokens(tokens)} tokens`);
    if (r.costUsd !== undefined) parts.push(formatCost(r.costUsd));
  }
  if (r.elapsedMs > 0) parts.push(formatDuration(r.elapsedMs));
  return parts.join(' · ');
}

export function renderRunEnd(r: RunEnd, body: (src: string) => HTMLElement): HTMLElement {
  // Done, but every edit was rejected: said plainly, not as a green success.
  const [glyph, title] = r.nothingWritten ? ['circle-slash', 'Finished: nothing was written'] : TITLES[r.reason];
  const stats = runStats(r);
  if (r.reason === 'converse' && !r.detail) {
    return h(
      'div',
      { class: 'run-end quiet reason-converse' },
      stats ? h('div', { class: 'muted stats' }, stats) : null,
    );
  }
  return h(
    'div',
    {
      class: `run-end reason-${r.reason}${r.nothingWritten ? ' nothing-written' : ''}`,
      role: r.reason === 'error' ? 'alert' : undefined,
    },
    title ? h('div', { class: 'run-end-title' }, icon(glyph), h('span', {}, title)) : null,
    r.detail ? body(r.detail) : null,
    stats ? h('div', { class: 'muted stats' }, stats) : null,
    spendBreakdown(r),
    actionButtons(r.actions),
  );
}

const SPEND_LABELS: Record<NonNullable<RunEnd['spend']>[number]['source'], string> = {
  steps: 'steps',
  compaction: 'compaction',
  reflection: 'reflection',
  sub_agents: 'sub-agents',
};

/** "incl. reflection 1.2k tokens · sub-agents 3.4k tokens · $0.02" and the fallback model, when there is any. */
function spendBreakdown(r: RunEnd): HTMLElement | null {
  const parts = (r.spend ?? [])
    .filter((l) => l.source !== 'steps' && l.tokens > 0)
    .map(
      (l) =>
        `${SPEND_LABELS[l.source]} ${formatTokens(l.tokens)} tokens${l.costUsd !== undefined ? ` (${formatCost(l.costUsd)})` : ''}`,
    );
  const lines: string[] = [];
  if (parts.length) lines.push(`incl. ${parts.join(' · ')}`);
  if (r.fallbackModel) lines.push(`switched to the fallback model ${r.fallbackModel}`);
  return lines.length ? h('div', { class: 'muted stats spend' }, lines.join(' · ')) : null;
}

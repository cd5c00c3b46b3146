// The run-end card: the result (unless the streamed answer already showed it), the totals, what the spend
// was made of, and the buttons the run's end offers.
import type { AgentEvent } from '../../core/loop/events';
import { LIMITS, type Action, type ItemOf, type TranscriptItem } from '../../protocol/messages';
import { cap, runEndActions } from '../itemFormat';

type RunReport = Extract<AgentEvent, { type: 'run_end' }>['report'];

/** `items`: the transcript as the run leaves it; `mode`: the run's mode. */
export function runEndCard(
  r: RunReport,
  items: readonly TranscriptItem[],
  mode: string | undefined,
): Omit<ItemOf<'run_end'>, 'id' | 'ts'> {
  // A plain answer was streamed above already: the run end does not repeat it.
  const last = [...items].reverse().find((it) => it.kind !== 'tool' && it.kind !== 'warning');
  const repeated =
    (r.reason === 'converse' || r.reason === 'done') &&
    last?.kind === 'assistant' &&
    last.text.trim() === r.detail.trim();
  return {
    kind: 'run_end',
    reason: r.reason,
    detail: repeated ? '' : cap(r.detail, LIMITS.itemText).text,
    iterations: r.iterations,
    inputTokens: r.usage.inputTokens,
    outputTokens: r.usage.outputTokens,
    costUsd: r.costUsd,
    elapsedMs: Math.max(0, r.elapsedMs),
    actions: actionsFor(r, mode),
    ...(r.reason === 'done' && everyEditRejected(items) ? { nothingWritten: true } : {}),
    ...spendView(r),
  };
}

const EDIT_TOOLS = new Set(['write_file', 'apply_diff']);

/** Since the user's last message, the run proposed edits and the user rejected each of them. */
function everyEditRejected(items: readonly TranscriptItem[]): boolean {
  const from = items.map((it) => it.kind).lastIndexOf('user');
  const edits = items.slice(from + 1).filter((it) => it.kind === 'tool' && EDIT_TOOLS.has(it.name));
  return edits.length > 0 && edits.every((it) => it.kind === 'tool' && it.status === 'rejected');
}

/** A finished plan-mode run offers to hand its plan to implement mode. */
function actionsFor(r: RunReport, mode: string | undefined): Action[] {
  const actions = runEndActions(r.reason, r.detail);
  return r.reason === 'done' && mode === 'plan' && r.detail.trim() ? ['implement_plan', ...actions] : actions;
}

const SPEND_ORDER = ['steps', 'compaction', 'reflection', 'sub_agents'] as const;

/** The run report's breakdown for the run-end card: only when more than the model steps spent something. */
function spendView(r: RunReport): Pick<ItemOf<'run_end'>, 'spend' | 'fallbackModel'> {
  const out: Pick<ItemOf<'run_end'>, 'spend' | 'fallbackModel'> = {};
  const lines = SPEND_ORDER.flatMap((source) => {
    const line = r.spend?.[source];
    if (!line) return [];
    const tokens = Math.max(0, Math.round(line.usage.inputTokens + line.usage.outputTokens));
    return [{ source, tokens, ...(line.costUsd !== undefined && line.costUsd >= 0 ? { costUsd: line.costUsd } : {}) }];
  });
  if (lines.some((l) => l.source !== 'steps')) out.spend = lines;
  if (r.fallback) out.fallbackModel = r.fallback.to.slice(0, LIMITS.label);
  return out;
}

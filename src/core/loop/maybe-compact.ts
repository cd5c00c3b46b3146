// Compaction inside a run: when the history nears the window, the middle is summarised by the run's metered
// summarizer, grounded on the facts the run gathered (files read and edited, commands, the plan). A PreCompact
// hook may block it; a failure is a warning.
import { compactHistory } from '../context/compaction';
import type { buildSystemLayers } from '../context/prompt';
import { contextTokens } from '../context/tokens';
import { errorText } from '../error-text';
import { preCompactBlocked } from '../hooks/run-hooks';
import type { Model, ToolSpec } from '../model/types';
import { planText } from '../tools/builtin/update-plan';
import { isAbort } from './abort';
import type { AgentConfig } from './config';
import type { RunDeadline } from './deadline';
import type { AgentEvent } from './events';
import type { AgentState } from './state';

/** What compaction reads and writes of its run. */
export interface CompactionScope {
  readonly state: AgentState;
  readonly config: AgentConfig;
  readonly runId: string;
  readonly deadline: RunDeadline;
  /** The run's metered summarizer: its usage is booked on the run. */
  readonly summarizer: Model;
  readonly contextWindow: number;
  emit(event: AgentEvent): void;
  /** A warning of kind 'other' in the run's transcript. */
  warn(message: string): void;
}

/** Compacts the history when the next request would pass the compaction threshold of the window. */
export async function maybeCompact(
  run: CompactionScope,
  system: ReturnType<typeof buildSystemLayers>,
  tools: ToolSpec[],
): Promise<void> {
  const window = run.contextWindow;
  const before = contextTokens(run.state.anchor, run.state.history, { system, tools });
  if (before < window * run.config.compactAt) return;
  if (await preCompactBlocked(run.config.hooks, run.state.taskId, run.deadline.signal, (m) => run.warn(`Hook: ${m}`)))
    return;
  const facts = run.state.facts;
  const factText = [
    facts.read.size ? `Files read: ${[...facts.read].join(', ')}` : '',
    facts.edited.size ? `Files edited: ${[...facts.edited].join(', ')}` : '',
    facts.commands.length ? `Commands run: ${facts.commands.slice(-20).join(' ; ')}` : '',
    // The plan lives in the task's state (it survives compaction as is); the summary is grounded on it too.
    run.state.plan ? planText(run.state.plan) : '',
  ]
    .filter(Boolean)
    .join('\n');
  run.emit({ type: 'compacting', runId: run.runId, phase: 'begin', auto: true });
  try {
    const result = await run.deadline.during('compaction', 'compacting the context', () =>
      compactHistory(run.state.history, {
        model: run.summarizer,
        signal: run.deadline.signal,
        keepRecentTurns: run.config.keepRecentTurns,
        facts: factText,
      }),
    );
    if (!result) return;
    run.state.history.splice(0, run.state.history.length, ...result.history);
    run.state.anchor = undefined;
    // Its usage was booked by the metered summarizer (also when the summary failed half-way).
    const after = contextTokens(undefined, run.state.history, { system, tools });
    run.emit({
      type: 'compaction',
      runId: run.runId,
      beforeTokens: before,
      afterTokens: after,
      summary: result.summary,
    });
  } catch (err) {
    if (isAbort(err, run.deadline.signal)) throw err;
    run.warn(`Context compaction failed: ${errorText(err)}`);
  } finally {
    run.emit({ type: 'compacting', runId: run.runId, phase: 'end', auto: true });
  }
}

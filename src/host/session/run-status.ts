// The status bar and the logs follow a task's events the way the panel does.
import type { AgentEvent } from '../../core/loop/events';
import type { TestRunTracker } from '../../core/modes/test-runs';
import { formatCost } from '../../protocol/format';
import type { Logger } from '../logger';
import type { ForgeStatusBar } from '../ui/status-bar';
import type { TaskSession } from './task-session';
import { attentionFor } from '../ui/attention-text';

type Shown = Parameters<ForgeStatusBar['running']>[0];
/** What the status bar last showed per task: an answered approval puts back the same numbers. */
const shown = new WeakMap<TaskSession, Shown>();
function remember(session: TaskSession, p: Shown): Shown {
  shown.set(session, p);
  return p;
}

interface RunStatusDeps {
  statusBar: ForgeStatusBar;
  log: Logger;
  /** Test mode's "last test run" (absent in tests that do not need it). */
  testRuns?: Pick<TestRunTracker, 'observe'>;
}

/** What the panel's footer shows for this task. */
function footer(session: TaskSession) {
  return session.transcript.shownProgress;
}

export function reportRunEvent(
  { statusBar: bar, log, testRuns }: RunStatusDeps,
  session: TaskSession,
  e: AgentEvent,
): void {
  testRuns?.observe(e);
  switch (e.type) {
    case 'run_start':
      shown.delete(session);
      // A resumed run goes on from the footer's count (the transcript folded this event first).
      bar.running(remember(session, { iteration: footer(session)?.iteration ?? 0, maxIterations: e.maxIterations }));
      break;
    case 'step_start':
      // The step in progress, as the panel's footer counts it ("Iteration 1 / 25"): one number for both.
      bar.running(remember(session, { ...shown.get(session), iteration: e.iteration, maxIterations: e.maxIterations }));
      break;
    case 'iteration': {
      // The footer's tokens: a resumed run's own account starts from zero, the footer counts on.
      const f = footer(session);
      const tokens = f ? f.inputTokens + f.outputTokens : e.usage.inputTokens + e.usage.outputTokens;
      const costUsd = f ? f.costUsd : e.costUsd;
      const cost = costUsd !== undefined ? ` · ${formatCost(costUsd)}` : '';
      bar.running(
        remember(session, {
          iteration: e.iteration,
          maxIterations: e.maxIterations,
          detail: `${(tokens / 1000).toFixed(1)}k tokens${cost}`,
        }),
      );
      break;
    }
    case 'approval_requested':
      // In words ("Forge wants to edit src/greet.js."), never the tool's internal name.
      bar.waiting(attentionFor(e)?.message ?? 'Forge is waiting for your approval.');
      break;
    case 'approval_resolved':
      bar.running(
        shown.get(session) ?? { iteration: session.dump().iterations, maxIterations: session.dump().maxIterations },
      );
      break;
    case 'tool_result':
      if (e.isError) log.info(`task ${session.id}: ${e.name} returned an error: ${e.content.slice(0, 300)}`);
      break;
    case 'warning':
      log.warn(`task ${session.id}: ${e.kind}: ${e.message}`);
      break;
    case 'run_end':
      bar.idle();
      if (e.report.reason === 'error') log.error(`task ${session.id}: ${e.report.detail}`);
      break;
  }
}

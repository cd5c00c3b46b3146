// Issue 26, item 9: the status bar and the panel's footer count the same step ("Forge 1/25" with "Iteration 1 / 25"),
// and an answered approval puts back what was shown, not the count of finished steps.
import { strict as assert } from 'node:assert';
import type { AgentEvent } from '../../../../src/core/loop/events';
import { reportRunEvent } from '../../../../src/host/session/run-status';
import type { TaskSession } from '../../../../src/host/session/task-session';
import type { ForgeStatusBar } from '../../../../src/host/ui/status-bar';
import { Transcript } from '../../../../src/panel/transcript';

describe('host/session run-status: the status bar counts as the panel does', () => {
  it('shows the step in progress from its start, and the same after an approval', () => {
    const shown: string[] = [];
    const bar = {
      running: (p: { iteration: number; maxIterations: number }) => shown.push(`${p.iteration}/${p.maxIterations}`),
      waiting: () => shown.push('waiting'),
      idle: () => shown.push('idle'),
    } as unknown as ForgeStatusBar;
    const session = { id: 't1', dump: () => ({ iterations: 0, maxIterations: 25 }) } as unknown as TaskSession;
    const log = { info() {}, warn() {}, error() {} } as never;
    const panel = new Transcript();
    const R = 'r1';
    const events: AgentEvent[] = [
      { type: 'run_start', runId: R, taskId: 't1', mode: 'agent', maxIterations: 25, userMessage: 'go' },
      { type: 'step_start', runId: R, iteration: 1, maxIterations: 25 },
      {
        type: 'approval_requested',
        runId: R,
        request: { id: 'a1', taskId: 't1', toolCallId: 'c1', toolName: 'write_file', risk: 'write', args: {} },
      },
      { type: 'approval_resolved', runId: R, requestId: 'a1', decision: { kind: 'approve' } },
    ];
    for (const e of events) {
      panel.apply(e);
      reportRunEvent({ statusBar: bar, log }, session, e);
    }
    const footer = panel.snapshot().progress!;
    assert.equal(`${footer.iteration}/${footer.maxIterations}`, '1/25', 'the footer: Iteration 1 / 25');
    assert.deepEqual(shown, ['0/25', '1/25', 'waiting', '1/25'], 'the status bar says the same');
  });
});

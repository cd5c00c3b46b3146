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
    const panel = new Transcript();
    const session = {
      id: 't1',
      transcript: panel,
      dump: () => ({ iterations: 0, maxIterations: 25 }),
    } as unknown as TaskSession;
    const log = { info() {}, warn() {}, error() {} } as never;
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

  it('a run resumed after a reload counts on from the footer: the same step and tokens', () => {
    const shown: string[] = [];
    const bar = {
      running: (p: { iteration: number; maxIterations: number; detail?: string }) =>
        shown.push(`${p.iteration}/${p.maxIterations}${p.detail ? ` ${p.detail}` : ''}`),
      waiting: () => shown.push('waiting'),
      idle: () => shown.push('idle'),
    } as unknown as ForgeStatusBar;
    const panel = new Transcript();
    // As the reload left it: step 2 waited for its approval, 270 in / 50 out spent.
    panel.reset({ progress: { iteration: 2, maxIterations: 25, inputTokens: 270, outputTokens: 50, elapsedMs: 900 } });
    const session = { id: 't1', transcript: panel, dump: () => ({ iterations: 2, maxIterations: 25 }) };
    const log = { info() {}, warn() {}, error() {} } as never;
    const R = 'r2';
    const events: AgentEvent[] = [
      { type: 'run_start', runId: R, taskId: 't1', mode: 'agent', maxIterations: 25, userMessage: '' },
      {
        type: 'iteration',
        runId: R,
        iteration: 3,
        maxIterations: 25,
        usage: { inputTokens: 200, outputTokens: 10 },
        elapsedMs: 100,
        contextTokens: 0,
        contextWindow: 1000,
      },
    ];
    for (const e of events) {
      panel.apply(e);
      reportRunEvent({ statusBar: bar, log }, session as unknown as TaskSession, e);
    }
    const footer = panel.snapshot().progress!;
    assert.equal(`${footer.iteration} ${footer.inputTokens}/${footer.outputTokens}`, '3 470/60', 'the footer');
    assert.deepEqual(shown, ['2/25', '3/25 0.5k tokens'], 'the status bar: step 2 at the resume, then 530 tokens');
  });
});

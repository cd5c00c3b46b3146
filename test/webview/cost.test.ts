// Unknown price = tokens only, in every state: the real host-side Transcript folds a stopped run of a model with
// no price into a snapshot, and the built webview (Chromium, real CSP) shows no dollar amount anywhere.
import { strict as assert } from 'node:assert';
import type { AgentEvent, RunReport } from '../../src/core/loop/events';
import { Transcript } from '../../src/panel/transcript';
import type { HostMessage } from '../../src/protocol/messages';
import { usePanel, type PanelPage } from './harness';

function report(over: Partial<RunReport>): RunReport {
  return {
    runId: 'r1',
    taskId: 't1',
    reason: 'stopped',
    detail: 'Stopped by the user. Continue to resume the task.',
    iterations: 2,
    steps: [],
    usage: { inputTokens: 3400, outputTokens: 120 },
    elapsedMs: 4200,
    ...over,
  };
}

/** Drives the real Transcript with a run and returns the snapshot the host would send. */
function runSnapshot(end: RunReport, iterationCost?: number): HostMessage {
  const t = new Transcript({ now: () => 1 });
  const events: AgentEvent[] = [
    { type: 'run_start', runId: 'r1', taskId: 't1', mode: 'agent', maxIterations: 25, userMessage: 'fix the bug' },
    { type: 'step_start', runId: 'r1', iteration: 1, maxIterations: 25 },
    { type: 'text_delta', runId: 'r1', delta: 'Looking at the code' },
    {
      type: 'iteration',
      runId: 'r1',
      iteration: 1,
      maxIterations: 25,
      usage: { inputTokens: 1700, outputTokens: 60 },
      costUsd: iterationCost,
      elapsedMs: 2000,
      contextTokens: 1800,
      contextWindow: 128000,
    },
    {
      type: 'warning',
      runId: 'r1',
      kind: 'retry',
      key: 'model-retry-2',
      message: 'Model stream stalled; retry 1/3 in 1 s',
    },
    {
      type: 'warning',
      runId: 'r1',
      kind: 'retry',
      key: 'model-retry-2',
      message: 'Model stream stalled; retry 2/3 in 2 s',
    },
    { type: 'run_end', runId: 'r1', report: end },
  ];
  for (const e of events) t.apply(e);
  const s = t.snapshot();
  return {
    type: 'state',
    snapshot: {
      seq: 1,
      taskId: s.taskId,
      items: s.items,
      status: s.status,
      progress: s.progress,
      provider: { configured: true, provider: 'openai-compatible', model: 'llama3' },
      history: [],
    },
  };
}

describe('webview cost display (Chromium)', function () {
  let p: PanelPage;
  usePanel((page) => (p = page));

  it('a stopped run of a model with no price shows tokens only (no "$0.0000", no "$" at all)', async () => {
    await p.host(runSnapshot(report({ costUsd: undefined })));
    await p.page.locator('.run-end').waitFor();
    const card = await p.page.locator('.run-end').innerText();
    assert.match(card, /Stopped/i);
    assert.match(card, /2 iterations · 3\.5k tokens · 4\.2 s/);
    const progress = await p.page.locator('.progress-text').innerText();
    assert.match(progress, /3\.4k in · 120 out/);
    const all = await p.page.locator('body').innerText();
    assert.doesNotMatch(all, /\$/, 'no dollar amount anywhere in the panel');
    // The retries of one step are one warning line, showing the latest state.
    const warnings = await p.page.locator('.notice.warning').allInnerTexts();
    assert.equal(warnings.length, 1);
    assert.match(warnings[0], /retry 2\/3 in 2 s/);
  });

  it('a free model (known price 0) shows $0.00; sub-agent and reflection spend appear on the card', async () => {
    await p.host(
      runSnapshot(
        report({
          reason: 'done',
          detail: 'Fixed.',
          costUsd: 0,
          spend: {
            steps: { usage: { inputTokens: 3000, outputTokens: 100 }, costUsd: 0, calls: 2 },
            reflection: { usage: { inputTokens: 300, outputTokens: 10 }, costUsd: 0, calls: 1 },
            sub_agents: { usage: { inputTokens: 100, outputTokens: 10 }, costUsd: 0, calls: 1 },
          },
        }),
        0,
      ),
    );
    await p.page.locator('.run-end').waitFor();
    const card = await p.page.locator('.run-end').innerText();
    assert.match(card, /\$0\.00(?!0)/);
    assert.doesNotMatch(card, /\$0\.0000/);
    assert.match(card, /incl\. reflection 310 tokens \(\$0\.00\) · sub-agents 110 tokens \(\$0\.00\)/);
  });
});

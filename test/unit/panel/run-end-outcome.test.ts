// Issue 26, item 12: a run that ends "done" after the user rejected its only edit is not a green "Task complete".
import { strict as assert } from 'node:assert';
import type { AgentEvent } from '../../../src/core/loop/events';
import type { ItemOf } from '../../../src/protocol/messages';
import { Transcript } from '../../../src/panel/transcript';

const R = 'run-1';
function run(decision: 'approve' | 'reject'): ItemOf<'run_end'> {
  const t = new Transcript();
  const events: AgentEvent[] = [
    { type: 'run_start', runId: R, taskId: 't1', mode: 'agent', maxIterations: 25, userMessage: 'edit a.ts' },
    { type: 'step_start', runId: R, iteration: 1, maxIterations: 25 },
    { type: 'tool_call_start', runId: R, id: 'c1', name: 'write_file' },
    { type: 'tool_call_end', runId: R, id: 'c1', name: 'write_file', args: { path: 'a.ts', content: 'x' } },
    {
      type: 'approval_requested',
      runId: R,
      request: { id: 'ap', taskId: 't1', toolCallId: 'c1', toolName: 'write_file', risk: 'write', args: {} },
    },
    {
      type: 'approval_resolved',
      runId: R,
      requestId: 'ap',
      decision: decision === 'approve' ? { kind: 'approve' } : { kind: 'reject', reason: 'no' },
    },
    {
      type: 'tool_result',
      runId: R,
      id: 'c1',
      name: 'write_file',
      content: decision === 'approve' ? 'Wrote a.ts' : 'User rejected: no',
      isError: decision !== 'approve',
      latencyMs: 1,
    },
    {
      type: 'run_end',
      runId: R,
      report: {
        runId: R,
        taskId: 't1',
        reason: 'done',
        detail: 'Done.',
        iterations: 2,
        steps: [],
        usage: { inputTokens: 1, outputTokens: 1 },
        elapsedMs: 10,
      },
    },
  ];
  for (const e of events) t.apply(e);
  return t.getItems().find((i): i is ItemOf<'run_end'> => i.kind === 'run_end')!;
}

describe('panel: the run end when every edit was rejected', () => {
  it('says nothing was written', () => {
    assert.equal(run('reject').nothingWritten, true);
  });
  it('an approved edit is a plain completion', () => {
    assert.equal(run('approve').nothingWritten, undefined);
  });
});

// Issue 26, item 2: after a per-hunk review the tool's row counts what was written (the tool's figures, not the
// proposal's) and names the rejected hunks with their reasons.
import { strict as assert } from 'node:assert';
import { hunkViews, splitHunks } from '../../../src/core/review/hunks';
import type { ItemOf } from '../../../src/protocol/messages';
import { parseHostMessage } from '../../../src/protocol/messages';
import { Transcript } from '../../../src/panel/transcript';

const R = 'run-1';
const original = 'a\nb\nc\nd\ne\nf\ng\n';
const proposed = 'A\nb\nc\nd\nE\nE2\nf\ng\n';

function reviewed(): Transcript {
  const t = new Transcript();
  t.apply({ type: 'run_start', runId: R, taskId: 't1', mode: 'implement', maxIterations: 25, userMessage: 'go' });
  t.apply({ type: 'step_start', runId: R, iteration: 1, maxIterations: 25 });
  t.apply({ type: 'tool_call_start', runId: R, id: 'c1', name: 'write_file' });
  t.apply({ type: 'tool_call_end', runId: R, id: 'c1', name: 'write_file', args: { path: 'a.ts' } });
  t.apply({
    type: 'approval_requested',
    runId: R,
    request: {
      id: 'ap-1',
      taskId: 't1',
      toolCallId: 'c1',
      toolName: 'write_file',
      risk: 'write',
      args: { path: 'a.ts' },
      preview: { kind: 'edit', path: 'a.ts', original, proposed, isNewFile: false },
    },
  });
  t.setHunkReview(
    'ap-1',
    hunkViews(original, splitHunks(original, proposed), new Map([[1, { state: 'rejected', reason: 'keep e' }]])),
  );
  t.apply({ type: 'approval_resolved', runId: R, requestId: 'ap-1', decision: { kind: 'approve', reviewNote: 'x' } });
  return t;
}
const row = (t: Transcript) => t.getItems().find((i): i is ItemOf<'tool'> => i.kind === 'tool')!;

describe('panel: the edit row after a per-hunk review', () => {
  it('counts the lines written, from the tool result, not the whole proposal', () => {
    const t = reviewed();
    assert.deepEqual([row(t).edit?.added, row(t).edit?.removed], [3, 2], 'before the result: the proposal');
    const ops = t.apply({
      type: 'tool_result',
      runId: R,
      id: 'c1',
      name: 'write_file',
      content: 'Wrote a.ts',
      isError: false,
      latencyMs: 5,
      data: { path: 'a.ts', added: 1, removed: 1 },
    });
    assert.ok(parseHostMessage({ type: 'patch', seq: 1, ops }).ok, 'a valid protocol message');
    assert.deepEqual([row(t).edit?.added, row(t).edit?.removed], [1, 1], 'only the accepted hunk was written');
  });

  it('names the rejected hunk and its reason on the row', () => {
    const t = reviewed();
    assert.deepEqual(row(t).edit?.rejectedHunks, [{ n: 2, reason: 'keep e' }]);
  });
});

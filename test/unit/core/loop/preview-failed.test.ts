// Issue 26, item 1: an edit whose search text no longer matches is not a question for the user. The failed preview
// is the tool's result for the model; no approval card (no approval_requested), no approver call.
import { strict as assert } from 'node:assert';
import { createWorkspaceTools } from '../../../../src/core/tools/builtin';
import type { Tool } from '../../../../src/core/tools/types';
import { FakeCommandRunner, FsEditApplier, MemoryFs } from '../../../../src/core/workspace/memory-fs';
import { callsTurn, doneTurn } from '../../../support/scripted-model';
import { harness, ScriptedApprover } from '../../../support/loop-harness';

function tools(files: Record<string, string>): Tool[] {
  const fs = new MemoryFs(['/ws'], files);
  return createWorkspaceTools({
    fs,
    runner: new FakeCommandRunner(),
    applier: new FsEditApplier(fs),
    sandbox: { trusted: true, platform: 'posix' },
  }).filter((t) => t.name === 'apply_diff' || t.name === 'write_file');
}

describe('core/loop: a preview that fails is a tool result, not an approval', () => {
  it('apply_diff with a search that no longer matches: the model gets the mismatch report, nobody is asked', async () => {
    const approver = new ScriptedApprover();
    const h = harness(
      [
        callsTurn(['apply_diff', { path: 'a.ts', blocks: [{ search: 'let gone = 1;', replace: 'let gone = 2;' }] }]),
        doneTurn(),
      ],
      { tools: tools({ 'a.ts': 'let a = 1;\n' }) },
      approver,
    );
    const report = await h.agent.send('edit a.ts');
    assert.equal(report.reason, 'done');
    assert.equal(approver.requests.length, 0, 'no question for the user');
    assert.equal(h.ofType('approval_requested').length, 0, 'no approval card');
    const result = h.model.requests[1]!.messages.at(-1)!;
    assert.equal(result.role, 'tool');
    assert.match(String(result.content), /No changes were made/);
    const r = h.ofType('tool_result')[0]!;
    assert.equal(r.isError, true);
  });

  it('an edit that can be shown is still asked', async () => {
    const approver = new ScriptedApprover([{ kind: 'reject', reason: 'not now' }]);
    const h = harness(
      [
        callsTurn(['apply_diff', { path: 'a.ts', blocks: [{ search: 'let a = 1;', replace: 'let a = 2;' }] }]),
        doneTurn(),
      ],
      { tools: tools({ 'a.ts': 'let a = 1;\n' }) },
      approver,
    );
    await h.agent.send('edit a.ts');
    assert.equal(approver.requests.length, 1);
    assert.equal(approver.requests[0]!.preview?.kind, 'edit');
  });
});

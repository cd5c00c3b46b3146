import { strict as assert } from 'node:assert';
import { createWorkspaceTools } from '../../../../../src/core/tools/builtin';
import type { ApprovalDecision, Tool } from '../../../../../src/core/tools/types';
import { FakeCommandRunner, FsEditApplier, MemoryFs } from '../../../../../src/core/workspace/memory-fs';
import { callsTurn, doneTurn } from '../../../../support/scripted-model';
import { fakeWriteTool, harness, ScriptedApprover } from '../../../../support/loop-harness';
import { byName, call, ctx, previewOf } from '../../../../support/tool-context';

/** A workspace whose reads are counted: an approved edit must not read the file again. */
function setup(files: Record<string, string>) {
  const fs = new MemoryFs(['/ws'], files);
  let reads = 0;
  const read = fs.readFile.bind(fs);
  fs.readFile = async (p: string) => {
    reads++;
    return read(p);
  };
  const applier = new FsEditApplier(fs);
  const tools = createWorkspaceTools({
    fs,
    runner: new FakeCommandRunner(),
    applier,
    sandbox: { trusted: true, platform: 'posix' },
  });
  return { fs, applier, t: (n: string): Tool => byName(tools, n), reads: () => reads };
}

describe('tools: an approved edit is written as previewed (no second read or diff)', () => {
  it('apply_diff writes the approved content without reading the file again and still reports its blocks', async () => {
    const { fs, t, reads } = setup({ 'a.ts': 'let a = 1;\nlet b = 2;\n' });
    const tool = t('apply_diff');
    const args = { path: 'a.ts', blocks: [{ search: 'let b = 2;', replace: 'let b = 3;' }] };
    const p = await previewOf(tool, tool.input.parse(args), ctx());
    assert.ok(p.kind === 'edit');
    const before = reads();
    const approval: ApprovalDecision = {
      kind: 'approve',
      edit: { path: p.path, original: p.original, content: p.proposed, isNewFile: false },
    };
    const r = await call(tool, args, ctx({ approval }));
    assert.equal(reads(), before, 'no read at execute time');
    assert.equal(fs.get('a.ts'), 'let a = 1;\nlet b = 3;\n');
    assert.match(r.content, /Applied 1 block to a\.ts \(\+1 -1 lines\)/);
    assert.doesNotMatch(r.content, /user edited/);
  });

  it('write_file writes only the accepted hunks it was given', async () => {
    const { fs, t, reads } = setup({ 'w.txt': 'a\nb\nc\n' });
    const tool = t('write_file');
    const p = await previewOf(tool, tool.input.parse({ path: 'w.txt', content: 'A\nb\nC\n' }), ctx());
    assert.ok(p.kind === 'edit');
    const before = reads();
    const approval: ApprovalDecision = {
      kind: 'approve',
      editedContent: 'A\nb\nc\n',
      reviewNote: 'hunk #2 rejected',
      edit: { path: p.path, original: p.original, content: 'A\nb\nc\n', isNewFile: false },
    };
    const r = await call(tool, { path: 'w.txt', content: 'A\nb\nC\n' }, ctx({ approval }));
    assert.equal(reads(), before);
    assert.equal(fs.get('w.txt'), 'A\nb\nc\n');
    assert.match(r.content, /Wrote w\.txt \(\+1 -1 lines\)/);
    assert.doesNotMatch(r.content, /user edited/, 'rejected hunks are explained by the review note, not as an edit');
  });

  it('the loop appends the review note (rejected hunks) to the tool result the model sees', async () => {
    const writes: Parameters<typeof fakeWriteTool>[0] = [];
    const approver = new ScriptedApprover([
      { kind: 'approve', reviewNote: 'Hunk #2 (original line 3; proposed line 3), reason: keep c' },
    ]);
    const h = harness(
      [callsTurn(['write_file', { path: 'a.ts', content: 'A' }]), doneTurn()],
      { tools: [fakeWriteTool(writes)] },
      approver,
    );
    await h.agent.send('t');
    const result = h.model.requests[1]!.messages.at(-1)!;
    assert.equal(result.role, 'tool');
    assert.match(result.content, /\n\nHunk #2 \(original line 3; proposed line 3\), reason: keep c$/);
  });
});

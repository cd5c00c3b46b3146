import { strict as assert } from 'node:assert';
import { taskFileChanges } from '../../../../src/core/review/changes';
import { hunkViews, splitHunks } from '../../../../src/core/review/hunks';
import type { JournalEntry } from '../../../../src/core/tasks/journal';
import { parseHostMessage, type ItemOf } from '../../../../src/protocol/messages';
import { Transcript } from '../../../../src/panel/transcript';

const entry = (
  seq: number,
  path: string,
  before: string | null,
  after: string | null,
  undone = false,
): JournalEntry => ({ taskId: 't1', seq, path, before, after, at: seq, ...(undone ? { undone } : {}) });

describe("a task's changes at a glance (core/review/changes)", () => {
  it('diffs each file from its first "before" to its last "after", skipping undone edits and files back at the start', () => {
    const changes = taskFileChanges([
      entry(1, '/w/a.ts', 'a\nb\n', 'a\nB\n'),
      entry(2, '/w/new.ts', null, 'x\ny\n'),
      entry(3, '/w/a.ts', 'a\nB\n', 'a\nB\nc\n'),
      entry(4, '/w/same.ts', 'k\n', 'K\n'),
      entry(5, '/w/same.ts', 'K\n', 'k\n'),
      entry(6, '/w/undone.ts', 'u\n', 'U\n', true),
    ]);
    assert.deepEqual(
      changes.map((c) => [c.path, c.kind, c.added, c.removed, c.before, c.after]),
      [
        ['/w/a.ts', 'modified', 2, 1, 'a\nb\n', 'a\nB\nc\n'],
        ['/w/new.ts', 'created', 2, 0, null, 'x\ny\n'],
      ],
    );
  });
});

describe('panel transcript: hunk review and changes block', () => {
  it("updates the pending approval card's hunk states, and adds then updates one changes block per run", () => {
    const t = new Transcript({ now: () => 5 });
    const original = 'a\nb\nc\nd\ne\n';
    const proposed = 'A\nb\nc\nd\nE\n';
    t.apply({ type: 'run_start', runId: 'r', taskId: 't1', mode: 'implement', maxIterations: 25, userMessage: 'go' });
    t.apply({
      type: 'approval_requested',
      runId: 'r',
      request: {
        id: 'ap-1',
        taskId: 't1',
        toolCallId: 'c1',
        toolName: 'write_file',
        risk: 'write',
        args: {},
        preview: { kind: 'edit', path: '/w/a.ts', original, proposed, isNewFile: false },
      },
    });
    const card = () => t.getItems().find((i): i is ItemOf<'approval'> => i.kind === 'approval')!;
    const preview = () => card().preview as Extract<ItemOf<'approval'>['preview'], { kind: 'edit' }>;
    assert.deepEqual(
      preview().hunks?.map((h) => [h.header, h.state]),
      [
        ['@@ -1 +1 @@', 'pending'],
        ['@@ -5 +5 @@', 'pending'],
      ],
    );
    const hunks = splitHunks(original, proposed);
    const ops = t.setHunkReview(
      'ap-1',
      hunkViews(original, hunks, new Map([[1, { state: 'rejected', reason: 'keep e' }]])),
    );
    assert.equal(ops.length, 1);
    assert.ok(parseHostMessage({ type: 'patch', seq: 1, ops }).ok, 'the update is a valid protocol message');
    assert.deepEqual(
      preview().hunks?.map((h) => [h.state, h.reason]),
      [
        ['pending', undefined],
        ['rejected', 'keep e'],
      ],
    );

    const file = {
      path: '/w/a.ts',
      displayPath: 'a.ts',
      added: 1,
      removed: 1,
      kind: 'modified' as const,
      state: 'changed' as const,
    };
    t.setChanges('t1', [file]);
    t.setChanges('t1', [{ ...file, state: 'undone' }]);
    const blocks = t.getItems().filter((i) => i.kind === 'changes');
    assert.equal(blocks.length, 1, 'updated in place within the run');
    assert.equal((blocks[0] as ItemOf<'changes'>).files[0]!.state, 'undone');
    t.apply({
      type: 'run_start',
      runId: 'r2',
      taskId: 't1',
      mode: 'implement',
      maxIterations: 25,
      userMessage: 'again',
    });
    t.setChanges('t1', [file]);
    assert.equal(t.getItems().filter((i) => i.kind === 'changes').length, 2, 'a new block after the next user message');
    assert.equal(t.setChanges('t1', []).length, 1, 'an empty list still updates the current block');
  });
});

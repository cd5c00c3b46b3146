import * as assert from 'node:assert/strict';
import {
  checkpointOfToolCall,
  deriveCheckpoints,
  restoreToCheckpoint,
  stepKeysFromHistory,
} from '../../../../src/core/tasks/checkpoints';
import { EditJournal } from '../../../../src/core/tasks/journal';
import type { ChatMessage } from '../../../../src/core/model/types';
import { InMemoryTasksIO, MapWorkspace } from '../../../support/memory-tasks-io';

const assistant = (...ids: string[]): ChatMessage => ({
  role: 'assistant',
  content: '',
  toolCalls: ids.map((id) => ({ id, name: 'write_file', args: {}, rawArgs: '{}' })),
});
const result = (id: string): ChatMessage => ({ role: 'tool', toolCallId: id, toolName: 'write_file', content: 'ok' });

describe('tasks/checkpoints', () => {
  let ws: MapWorkspace;
  let journal: EditJournal;
  /** Writes through the "tool" and records it, as the host's journaling applier does. */
  const write = async (toolCallId: string, p: string, content: string | null) => {
    const before = ws.files.get(p) ?? null;
    if (content === null) ws.files.delete(p);
    else ws.files.set(p, content);
    await journal.record({ taskId: 't', path: p, before, after: content, toolCallId });
  };

  beforeEach(async () => {
    ws = new MapWorkspace();
    journal = await EditJournal.open('/store', { io: new InMemoryTasksIO() });
  });

  async function threeSteps() {
    ws.files.set('a.ts', 'a0');
    await write('c1', 'a.ts', 'a1'); // step 1: one call
    await write('c2', 'b.ts', 'b1'); // step 2: two calls in one turn
    await write('c3', 'a.ts', 'a2');
    await write('c4', 'a.ts', 'a3'); // step 3
    const history: ChatMessage[] = [
      { role: 'user', content: 'go' },
      assistant('c1'),
      result('c1'),
      assistant('c2', 'c3'),
      result('c2'),
      result('c3'),
      assistant('c4'),
      result('c4'),
    ];
    return deriveCheckpoints(await journal.entries('t'), stepKeysFromHistory(history));
  }

  it('one checkpoint per step that changed files, grouped by assistant turn', async () => {
    const cps = await threeSteps();
    assert.deepEqual(
      cps.map((c) => [c.step, c.toolCallIds, c.paths, c.toSeq]),
      [
        [1, ['c1'], ['a.ts'], 1],
        [2, ['c2', 'c3'], ['b.ts', 'a.ts'], 3],
        [3, ['c4'], ['a.ts'], 4],
      ],
    );
    assert.equal(checkpointOfToolCall(cps, 'c3')?.step, 2);
    // Without the history (compacted away), each call stands alone.
    assert.equal(deriveCheckpoints(await journal.entries('t')).length, 4);
  });

  it('restores the files to the end of a step; later steps are marked undone', async () => {
    const cps = await threeSteps();
    const out = await restoreToCheckpoint(journal, 't', cps[0], ws, async () => assert.fail('no conflicts expected'));
    assert.deepEqual([...ws.files.entries()].sort(), [['a.ts', 'a1']]);
    assert.deepEqual(out.restored, ['a.ts']);
    assert.deepEqual(out.deleted, ['b.ts']);
    const after = deriveCheckpoints(await journal.entries('t'));
    assert.deepEqual(
      after.map((c) => c.undone),
      [false, true, true, true],
    );
    // Restoring to the same point again changes nothing.
    const again = await restoreToCheckpoint(journal, 't', cps[0], ws, async () => []);
    assert.deepEqual([again.restored, again.deleted, again.conflicts], [[], [], []]);
  });

  it('a file the user changed since is never overwritten silently: asked per file, kept or overwritten', async () => {
    const cps = await threeSteps();
    ws.files.set('a.ts', 'user edit');
    ws.files.set('b.ts', 'user edit b');
    const asked: string[][] = [];
    const out = await restoreToCheckpoint(journal, 't', cps[0], ws, async (conflicts) => {
      asked.push(conflicts.map((c) => c.path));
      return ['b.ts']; // overwrite b (it goes: the task created it), keep a
    });
    assert.equal(asked.length, 1, 'asked once, with every changed file');
    assert.deepEqual(new Set(asked[0]), new Set(['a.ts', 'b.ts']));
    assert.equal(ws.files.get('a.ts'), 'user edit');
    assert.equal(ws.files.has('b.ts'), false);
    assert.deepEqual(out.skipped, ['a.ts']);
    assert.deepEqual(out.overwritten, ['b.ts']);
    assert.deepEqual(out.conflicts, []);
  });
});

import * as assert from 'node:assert/strict';
import { salvageJson, salvageTask } from '../../../src/core/tasks/salvage';
import { describeNotice } from '../../../src/host/session/recovery-notes';

describe('durability: salvaging a damaged task file', () => {
  it('keeps every complete element before the damage, and the path down to it', () => {
    const text = JSON.stringify({ a: 1, list: [{ x: 1 }, { x: 2 }, { x: 3 }], tail: 'end' });
    const cut = text.slice(0, text.indexOf('{"x":3}') + 4);
    assert.deepEqual(salvageJson(cut), { value: { a: 1, list: [{ x: 1 }, { x: 2 }] }, complete: false });
    assert.deepEqual(salvageJson(text), { value: JSON.parse(text), complete: true });
    // Garbage in the middle stops the read there; a number cut in half is not trusted.
    assert.deepEqual(salvageJson('{"a":[1,2,#,4]}').value, { a: [1, 2] });
    assert.deepEqual(salvageJson('{"n":12').value, {});
    assert.deepEqual(salvageJson('{"s":"a\\"b","t":"unterminated').value, { s: 'a"b' });
    assert.equal(salvageJson('').value, undefined);
    assert.equal(salvageJson('{"a":1} trailing').complete, false);
  });

  it('rebuilds a task from what survived, or gives up when not even one message did', () => {
    const record = {
      version: 1,
      task: {
        id: 't',
        title: 'Fix the build',
        createdAt: 5,
        updatedAt: 9,
        mode: 'implement',
        status: 'running',
        snapshot: {
          version: 1,
          taskId: 't',
          mode: 'implement',
          history: [
            { role: 'user', content: 'fix it' },
            { role: 'assistant', content: 'on it' },
          ],
          iterations: 2,
          pending: { calls: [] },
        },
        transcript: { items: [{ id: '1', kind: 'user', text: 'fix it' }] },
      },
    };
    const text = JSON.stringify(record);
    const cut = text.slice(0, text.indexOf('"on it"') + 3);
    const s = salvageTask(cut, 't', 100)!;
    assert.equal(s.messages, 1);
    assert.equal(s.record.title, 'Fix the build');
    assert.equal(s.record.status, 'stopped');
    const snap = s.record.snapshot as { history: unknown[]; pending?: unknown; taskId: string; maxIterations: number };
    assert.deepEqual(snap.history, [{ role: 'user', content: 'fix it' }]);
    assert.equal(snap.pending, undefined, 'a half-known approval is never restored');
    assert.equal(snap.taskId, 't');
    assert.equal(salvageTask(text.slice(0, text.indexOf('"history"')), 't'), undefined);
    assert.equal(salvageTask(text, 'another-id'), undefined, 'a file holding another task is not taken for this one');
  });

  it('says what was archived and where (nothing deleted)', () => {
    const m = describeNotice({
      kind: 'archived',
      ids: ['a', 'b'],
      titles: ['Old one', 'Older one'],
      dir: '/s/history/archive',
      limit: 1000,
    });
    assert.match(
      m,
      /archived 2 old tasks.*1000.*"Old one", "Older one".*Nothing was deleted: they are in \/s\/history\/archive/,
    );
  });
});

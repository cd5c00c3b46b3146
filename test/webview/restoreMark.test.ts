// Issue 26 item 10, seen again in the last-mile screenshots: "Restore to here" on the newest checkpoint offers only
// "Rewind Conversation" (no file changed after it), and the mark it left said "Restored 0 files to how they were
// after an earlier step" for a restore that restored nothing.
import { strict as assert } from 'node:assert';
import type { ItemOf } from '../../src/protocol/messages';
import { patch, state } from './fixtures';
import { usePanel, type PanelPage } from './harness';

const mark = (id: string, over: Partial<ItemOf<'checkpoint'>>): ItemOf<'checkpoint'> => ({
  id,
  ts: 1,
  kind: 'checkpoint',
  action: 'restore',
  step: 2,
  restored: [],
  deleted: [],
  skipped: [],
  conflicts: [],
  ...over,
});

describe('webview checkpoint marks', function () {
  let p: PanelPage;
  usePanel((page) => {
    p = page;
  });

  it('a rewind that restored no file says it rewound, never "Restored 0 files"', async () => {
    await p.host(state());
    await p.host(
      patch(
        { op: 'append', item: mark('m1', { rewoundMessages: 4 }) },
        { op: 'append', item: mark('m2', { restored: ['src/a.ts'] }) },
      ),
    );
    const m1 = await p.page.locator('[data-id="m1"]').innerText();
    assert.doesNotMatch(m1, /Restored 0 files/);
    assert.match(m1, /Rewound the conversation to this step/);
    assert.match(m1, /4 messages removed/);
    assert.equal(await p.page.locator('[data-id="m1"] .checkpoint-redo').count(), 0, 'nothing to redo');
    assert.match(await p.page.locator('[data-id="m2"]').innerText(), /Restored 1 file to how they were/);
  });
});

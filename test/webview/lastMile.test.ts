// Issue 26, the panel's last mile, in the built webview (Chromium, real CSP): what a newcomer tripped over.
import { strict as assert } from 'node:assert';
import { patch, state, tool } from './fixtures';
import { usePanel, type PanelPage } from './harness';

describe('webview last mile (issue 26)', function () {
  let p: PanelPage;
  usePanel((page) => {
    p = page;
  });

  it('an edit row after a per-hunk review says which hunks were not written and why', async () => {
    await p.host(state());
    await p.host(
      patch({
        op: 'append',
        item: tool('t1', {
          name: 'write_file',
          edit: {
            path: 'src/app.ts',
            isNewFile: false,
            added: 1,
            removed: 0,
            requestId: 'req-1',
            rejectedHunks: [{ n: 2, reason: 'keep the old name' }],
          },
        }),
      }),
    );
    const head = p.page.locator('[data-id="t1"] .tool-head');
    assert.match(await head.locator('.tool-edit').innerText(), /src\/app\.ts\s*\+1\s*−0/);
    const note = head.locator('.tool-note');
    assert.ok(await note.isVisible(), 'the note is on the collapsed row');
    assert.match(await note.innerText(), /Not written: hunk 2 \(“keep the old name”\), rejected in review/);
  });
});

// The approval card's hunk list and the completion block, in the built webview (Chromium, real CSP): keyboard
// operable toggles, reasons, and the messages they post.
import { strict as assert } from 'node:assert';
import type { HunkView, ItemOf } from '../../src/protocol/messages';
import { approval, patch, state } from './fixtures';
import { eventuallyText, usePanel, type PanelPage } from './harness';

const hunk = (index: number, over: Partial<HunkView> = {}): HunkView => ({
  index,
  header: `@@ -${index * 10 + 1} +${index * 10 + 1} @@`,
  body: `-old ${index}\n+new ${index}`,
  oldStart: index * 10 + 1,
  oldLines: 1,
  newStart: index * 10 + 1,
  newLines: 1,
  state: 'pending',
  ...over,
});
const withHunks = (hunks: HunkView[]) => {
  const a = approval('a1', 'req-a1');
  return {
    ...a,
    preview: { ...(a.preview as Extract<ItemOf<'approval'>['preview'], { kind: 'edit' }>), hunks },
  } as ItemOf<'approval'>;
};

describe('webview per-hunk review and completion block (Chromium)', function () {
  let p: PanelPage;
  usePanel((page) => {
    p = page;
  });

  it('lists the hunks; Accept / Reject toggles work from the keyboard and post hunk decisions with the reason', async () => {
    await p.host(state({ status: { state: 'awaiting_approval', runId: 'r1' } }));
    await p.host(patch({ op: 'append', item: withHunks([hunk(0), hunk(1), hunk(2)]) }));
    assert.equal(await p.page.locator('[data-id="a1"] .hunk').count(), 3);
    assert.match(await p.page.locator('[data-id="a1"] .hunk-summary').innerText(), /3 hunks · 0 reviewed/);
    await p.clearPosted();
    // Keyboard: focus the second hunk's Reject toggle and press Space.
    await p.page.locator('.hunk[data-index="1"] button.hunk-rejected').focus();
    await p.page.keyboard.press('Space');
    assert.deepEqual(await p.posted(), [{ type: 'hunk_decision', requestId: 'req-a1', index: 1, state: 'rejected' }]);
    // The host confirms: the card shows the state and a reason field; Enter in it saves the reason.
    await p.host(
      patch({
        op: 'update',
        item: withHunks([hunk(0, { state: 'accepted' }), hunk(1, { state: 'rejected' }), hunk(2)]),
      }),
    );
    assert.equal(
      await p.page.locator('.hunk[data-index="1"] button.hunk-rejected').getAttribute('aria-pressed'),
      'true',
    );
    assert.match(
      await eventuallyText(p.page.locator('[data-id="a1"] .hunk-summary'), /2 reviewed · 1 dropped/),
      /2 reviewed · 1 dropped/,
    );
    await p.clearPosted();
    const reason = p.page.locator('.hunk[data-index="1"] input.hunk-reason');
    await reason.focus();
    await p.page.keyboard.type('keep the old name');
    await p.page.keyboard.press('Enter');
    assert.deepEqual(await p.posted(), [
      { type: 'hunk_decision', requestId: 'req-a1', index: 1, state: 'rejected', reason: 'keep the old name' },
    ]);
    // Pressing a toggle that is on clears it.
    await p.clearPosted();
    await p.page.locator('.hunk[data-index="0"] button.hunk-accepted').focus();
    await p.page.keyboard.press('Enter');
    assert.deepEqual(await p.posted(), [{ type: 'hunk_decision', requestId: 'req-a1', index: 0, state: 'pending' }]);
  });

  it('shows the files a task changed with View changes, per-file diff, Undo / Keep and New task', async () => {
    await p.host(state({ status: { state: 'idle' } }));
    const item: ItemOf<'changes'> = {
      id: 'c1',
      ts: 1,
      kind: 'changes',
      taskId: 'task-1',
      files: [
        { path: '/ws/src/a.ts', displayPath: 'src/a.ts', added: 4, removed: 1, kind: 'modified', state: 'changed' },
        { path: '/ws/src/b.ts', displayPath: 'src/b.ts', added: 9, removed: 0, kind: 'created', state: 'changed' },
      ],
    };
    await p.host(patch({ op: 'append', item }));
    assert.match(await p.page.locator('[data-id="c1"] .changes-title').innerText(), /2 files changed\s*\+13\s*−1/);
    await p.clearPosted();
    await p.page.locator('[data-id="c1"] button[data-action="view"]').click();
    await p.page.locator('[data-id="c1"] .changed-path', { hasText: 'src/a.ts' }).focus();
    await p.page.keyboard.press('Enter');
    await p.page
      .locator('[data-id="c1"] .changed-file', { hasText: 'src/b.ts' })
      .locator('button[data-action="undo"]')
      .click();
    await p.page
      .locator('[data-id="c1"] .changed-file', { hasText: 'src/a.ts' })
      .locator('button[data-action="keep"]')
      .click();
    assert.deepEqual(await p.posted(), [
      { type: 'changes_action', taskId: 'task-1', action: 'view' },
      { type: 'changes_action', taskId: 'task-1', action: 'open', path: '/ws/src/a.ts' },
      { type: 'changes_action', taskId: 'task-1', action: 'undo', path: '/ws/src/b.ts' },
      { type: 'changes_action', taskId: 'task-1', action: 'keep', path: '/ws/src/a.ts' },
    ]);
    await p.clearPosted();
    await p.page.locator('[data-id="c1"] button[data-action="new_task"]').click();
    assert.deepEqual(await p.posted(), [{ type: 'new_task' }]);
    // The host marks a file undone: its row says so and offers no buttons.
    await p.host(
      patch({ op: 'update', item: { ...item, files: [item.files[0]!, { ...item.files[1]!, state: 'undone' }] } }),
    );
    assert.match((await p.page.locator('[data-id="c1"] .changed-file.state-undone').textContent()) ?? '', /undone/);
    assert.equal(await p.page.locator('[data-id="c1"] .changed-file.state-undone button').count(), 0);
    assert.match((await p.page.locator('[data-id="c1"] .changes-title').textContent()) ?? '', /1 file changed/);
  });
});

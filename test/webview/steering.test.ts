// Typing while a run works and editing a sent message, in the built webview (Chromium, strict CSP): Enter steers
// or queues per the visible switch (Alt+Enter the other), the queue above the input renders from the snapshot and
// queue patches, a queued message can be edited and removed, and edit-and-resend posts edit_resend.
import { strict as assert } from 'node:assert';
import type { ItemOf } from '../../src/protocol/messages';
import { assistant, patch, state } from './fixtures';
import { eventuallyText, usePanel, type PanelPage } from './harness';

const running = { state: 'running' as const, runId: 'run-1', requestId: 'req-1' };
const sent = (id: string, text: string, turnId?: string): ItemOf<'user'> => ({
  id,
  ts: 1,
  kind: 'user',
  text,
  ...(turnId ? { turnId } : {}),
});

describe('webview: steer, queue, edit and resend (Chromium)', function () {
  let p: PanelPage;
  usePanel((page) => {
    p = page;
  });

  async function type(text: string, opts: { alt?: boolean } = {}): Promise<void> {
    await p.page.locator('textarea.input').first().fill(text);
    await p.page
      .locator('textarea.input')
      .first()
      .press(opts.alt ? 'Alt+Enter' : 'Enter');
  }

  it('while a run works the input stays usable: Enter steers by default, Alt+Enter queues', async () => {
    await p.host(state({ taskId: 't', items: [sent('1', 'fix the tests', 't-turn-1')], status: running }));
    const input = p.page.locator('textarea.input').first();
    assert.equal(await input.isDisabled(), false);
    assert.equal(await p.page.locator('.delivery').isVisible(), true, 'the switch shows while a run works');
    assert.equal(await p.page.locator('.delivery-opt.on').textContent(), 'Steer');
    assert.equal((await p.page.locator('.submit-steer').textContent())?.trim(), 'Steer');
    await p.clearPosted();
    await type('use vitest, not jest');
    await type('then update the README', { alt: true });
    assert.deepEqual(await p.posted(), [
      { type: 'steer_message', text: 'use vitest, not jest' },
      { type: 'queue_add', text: 'then update the README' },
    ]);
    assert.equal(await input.inputValue(), '', 'the input is cleared');
    // Choosing Queue makes Enter queue and the button say so.
    await p.page.locator('.delivery-opt[data-delivery="queue"]').click();
    assert.equal((await p.page.locator('.submit-steer').textContent())?.trim(), 'Queue');
    await p.clearPosted();
    await type('and bump the version');
    assert.deepEqual(await p.posted(), [{ type: 'queue_add', text: 'and bump the version' }]);
  });

  it('idle: Enter sends as before, and the switch is hidden', async () => {
    await p.host(state({ taskId: 't' }));
    assert.equal(await p.page.locator('.delivery').isVisible(), false);
    assert.equal(await p.page.locator('.submit-steer').isVisible(), false);
    await p.clearPosted();
    await type('hello');
    const posted = await p.posted();
    assert.equal(posted.length, 1);
    assert.equal(posted[0].type, 'send_message');
  });

  it('the queue renders from the snapshot and patches; a queued message can be edited and removed', async () => {
    await p.host(
      state({
        taskId: 't',
        status: running,
        queue: [
          { id: 'q1', text: 'then update the README' },
          { id: 's1', text: 'use vitest', steer: true },
        ],
      }),
    );
    const rows = p.page.locator('.queue-list .queued');
    assert.equal(await rows.count(), 2);
    assert.match(await rows.nth(0).innerText(), /Queued[\s\S]*then update the README/);
    assert.match(await rows.nth(1).innerText(), /Steering[\s\S]*use vitest/);
    assert.equal(await rows.nth(1).locator('[data-queue-act]').count(), 0, 'a steer on its way cannot be edited');
    await p.clearPosted();
    await rows.nth(0).locator('[data-queue-act="edit"]').click();
    const editor = rows.nth(0).locator('textarea.queued-input');
    assert.equal(await editor.inputValue(), 'then update the README');
    await editor.fill('then update the README and CHANGELOG');
    await editor.press('Enter');
    await rows.nth(0).locator('[data-queue-act="remove"]').click();
    assert.deepEqual(await p.posted(), [
      { type: 'queue_update', id: 'q1', text: 'then update the README and CHANGELOG' },
      { type: 'queue_remove', id: 'q1' },
    ]);
    // The host's answer: the steer was delivered (it leaves the queue), q1 was removed.
    await p.host(patch({ op: 'queue', queue: [] }));
    assert.equal(await rows.count(), 0);
    // Idle with nothing waiting: the whole area goes.
    await p.host(patch({ op: 'status', status: { state: 'idle' } }));
    assert.equal(await p.page.locator('.steering').isVisible(), false);
    // A queue kept after Stop stays visible while idle.
    await p.host(patch({ op: 'queue', queue: [{ id: 'q2', text: 'left after stop' }] }));
    assert.equal(await p.page.locator('.steering').isVisible(), true);
    assert.equal(await p.page.locator('.delivery').isVisible(), false);
  });

  it('a steered message shows as sent while Forge worked', async () => {
    await p.host(
      state({
        taskId: 't',
        status: running,
        items: [sent('1', 'fix the tests', 't-turn-1'), { ...sent('2', 'use vitest', 't-steer-1-1'), steered: true }],
      }),
    );
    assert.match(
      await eventuallyText(p.page.locator('.item-user').nth(1), /Sent while Forge worked/),
      /Sent while Forge worked[\s\S]*use vitest/,
    );
    assert.doesNotMatch(await p.page.locator('.item-user').nth(0).innerText(), /Sent while/);
  });

  it('edit and resend: the pencil opens an editor; Resend posts edit_resend with the files choice', async () => {
    await p.host(
      state({
        taskId: 't',
        items: [sent('1', 'add a greet function', 't-turn-1'), assistant('2', 'Done.'), sent('3', 'old task')],
      }),
    );
    assert.equal(await p.page.locator('.item-user').nth(1).locator('.edit-message').count(), 0, 'no turn: no edit');
    const first = p.page.locator('.item-user').nth(0);
    await first.hover();
    await first.locator('.edit-message').click();
    const area = first.locator('textarea.edit-message-input');
    assert.equal(await area.inputValue(), 'add a greet function');
    assert.equal(await first.locator('.user-bubble').isVisible(), false);
    await area.fill('add a greet(name) function');
    await first.locator('input.edit-message-files').check();
    await p.clearPosted();
    await first.locator('[data-edit-act="resend"]').click();
    const posted = await p.posted();
    assert.equal(posted.length, 1);
    const m = posted[0] as { type: string; requestId: string };
    assert.deepEqual(
      { ...m, requestId: 'x' },
      { type: 'edit_resend', requestId: 'x', itemId: '1', text: 'add a greet(name) function', restoreFiles: true },
    );
    assert.ok(m.requestId.length > 0);
    assert.equal(await first.locator('.edit-message-form').count(), 0, 'the editor closes');
    // Escape cancels without posting; without the box ticked the files stay.
    await first.locator('.edit-message').click();
    await p.clearPosted();
    await first.locator('textarea.edit-message-input').press('Escape');
    assert.deepEqual(await p.posted(), []);
    assert.equal(await first.locator('.user-bubble').isVisible(), true);
    await first.locator('.edit-message').click();
    await first.locator('textarea.edit-message-input').press('Enter');
    const last = (await p.posted()).at(-1);
    assert.equal(last?.type, 'edit_resend');
    assert.equal(last?.type === 'edit_resend' && last.restoreFiles, false);
  });

  it('while a run works Resend is disabled', async () => {
    await p.host(state({ taskId: 't', status: running, items: [sent('1', 'add greet', 't-turn-1')] }));
    const first = p.page.locator('.item-user').nth(0);
    await first.hover();
    await first.locator('.edit-message').click();
    assert.equal(await first.locator('[data-edit-act="resend"]').getAttribute('disabled'), '');
    await p.clearPosted();
    await first.locator('textarea.edit-message-input').press('Enter');
    assert.deepEqual(await p.posted(), []);
  });
});

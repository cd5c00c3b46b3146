// The mode switch says what each built-in mode does, like the custom agents' descriptions (issue 26, item 12): the
// options' tooltips, the switch's tooltip, the empty panel's line on the current mode, and /mode's completions, all
// from the core's own mode list and the real slash registry.
import { strict as assert } from 'node:assert';
import { SlashCommandRegistry } from '../../src/core/commands/slash';
import { MODE_NAMES, MODES } from '../../src/core/modes';
import { state } from './fixtures';
import { usePanel, type PanelPage } from './harness';

const MODE_CHOICES = MODE_NAMES.map((n) => ({ id: n, label: MODES[n].label, description: MODES[n].description }));

describe('webview mode switch descriptions (Chromium)', function () {
  let p: PanelPage;
  usePanel((page) => {
    p = page;
  });

  it('each mode option carries what it does; the switch and the empty panel describe the current mode', async () => {
    await p.host(state({ modes: MODE_CHOICES, mode: 'plan' }));
    const select = p.page.locator('select.mode-select');
    assert.deepEqual(await select.locator('option').allTextContents(), [
      'Agent',
      'Plan',
      'Implement',
      'Review',
      'Test',
      'Deploy',
    ]);
    const titles = await select.locator('option').evaluateAll((os) => os.map((o) => o.getAttribute('title')));
    assert.deepEqual(
      titles,
      MODE_NAMES.map((n) => MODES[n].description),
    );
    assert.ok(new Set(titles).size === MODE_NAMES.length, 'no two modes are described alike');
    assert.match(
      (await select.getAttribute('title')) ?? '',
      /^Plan mode: reads the code and writes a step-by-step plan/,
    );
    const note = p.page.locator('.welcome .mode-note');
    assert.ok(await note.isVisible(), 'the empty panel says what the current mode does');
    assert.equal(
      await note.textContent(),
      'Plan mode: reads the code and writes a step-by-step plan; changes no files. Switch above or with /mode.',
    );

    // The host confirms a switch: the line follows.
    await p.host({ type: 'mode', mode: 'implement' });
    await p.page.waitForFunction(() => document.querySelector('.mode-note')?.textContent?.startsWith('Implement'));
    assert.match((await note.textContent()) ?? '', /^Implement mode: for larger changes, with more steps than Agent/);
  });

  it('a custom agent is described the same way; a mode without a description gets no empty line', async () => {
    await p.host(state());
    const hidden = await p.page.locator('.welcome .mode-note').evaluate((el) => (el as HTMLElement).hidden);
    assert.equal(hidden, true, 'no empty line (with its margin) before the modes arrive');
    await p.host(
      state({
        modes: [...MODE_CHOICES, { id: 'reviewer', label: 'reviewer', description: 'Reviews the diff for bugs' }],
        mode: 'reviewer',
      }),
    );
    assert.equal(
      await p.page.locator('select.mode-select option[value="reviewer"]').getAttribute('title'),
      'Reviews the diff for bugs',
    );
    assert.equal(
      await p.page.locator('.welcome .mode-note').textContent(),
      'reviewer mode: reviews the diff for bugs. Switch above or with /mode.',
    );
    await p.host(state({ modes: [{ id: 'x', label: 'X' }], mode: 'x' }));
    assert.equal(await p.page.locator('.welcome .mode-note').isVisible(), false);
  });

  it('/mode completes every built-in mode with what it does', async () => {
    await p.host(state());
    const commands = await new SlashCommandRegistry().list();
    await p.host({ type: 'slash_commands', commands });
    await p.page.locator('textarea.input').click();
    await p.page.keyboard.type('/mode ');
    const options = p.page.locator('#forge-slash-menu [role="option"]');
    assert.deepEqual(
      await options.locator('.slash-name').allTextContents(),
      MODE_NAMES.map((n) => `/mode ${n}`),
    );
    assert.deepEqual(
      await options.locator('.slash-desc').allTextContents(),
      MODE_NAMES.map((n) => MODES[n].description),
    );
  });
});

// Issue 26 item 6, from the first-start screenshots (scripts/screenshots/first-start-shots.mjs): the setup form as a
// newcomer sees it in a 300 px side bar.
import { strict as assert } from 'node:assert';
import { state } from './fixtures';
import { usePanel, type PanelPage } from './harness';

describe('webview first start at 300 px', function () {
  let p: PanelPage;
  usePanel((page) => {
    p = page;
  });

  it('every provider name fits its select: none is cut mid-word', async () => {
    await p.page.setViewportSize({ width: 300, height: 700 });
    await p.host(state({ provider: { configured: false, provider: 'OpenAI', problem: 'No API key for OpenAI.' } }));
    const select = p.page.locator('.setup-card select');
    await select.waitFor();
    const cut = await select.evaluate((el: HTMLSelectElement) => {
      const style = getComputedStyle(el);
      const ctx = document.createElement('canvas').getContext('2d')!;
      ctx.font = `${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
      // What the closed select has for its text: its box less padding and the drop-down arrow (about 20 px).
      const room = el.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight) - 20;
      return [...el.options]
        .filter((o) => ctx.measureText(o.text).width > room)
        .map((o) => `${o.text} (${Math.round(ctx.measureText(o.text).width)} px in ${Math.round(room)})`);
    });
    assert.deepEqual(cut, [], 'provider names wider than the select');
  });
});

// Issue 26, from the last-mile screenshots at 300 px: while a run works, Steer and Stop sit beside the input and its
// placeholder "Describe a task…" was cut to "Describe a task..".
import { strict as assert } from 'node:assert';
import { state } from './fixtures';
import { usePanel, type PanelPage } from './harness';

describe('webview composer in a narrow side bar', function () {
  let p: PanelPage;
  usePanel((page) => {
    p = page;
  });

  const fits = () =>
    p.page.locator('textarea.input').evaluate((el: HTMLTextAreaElement) => {
      const style = getComputedStyle(el);
      const ctx = document.createElement('canvas').getContext('2d')!;
      ctx.font = `${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
      const room = el.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
      return { text: el.placeholder, width: Math.round(ctx.measureText(el.placeholder).width), room: Math.round(room) };
    });

  // With room to spare: the real side bar's border and fonts take a few pixels more than this page (the real VS Code
  // cut a placeholder this page fitted to the pixel).
  const SLACK = 8;

  it('the placeholder fits at 300 px, idle and while a run works', async () => {
    await p.page.setViewportSize({ width: 300, height: 700 });
    await p.host(state());
    const idle = await fits();
    assert.ok(idle.width + SLACK <= idle.room, `idle: "${idle.text}" is ${idle.width} px in ${idle.room}`);
    await p.host(state({ status: { state: 'running', runId: 'r1' } }));
    await p.page.locator('vscode-button[data-act="stop"]').waitFor();
    const running = await fits();
    assert.ok(
      running.width + SLACK <= running.room,
      `running: "${running.text}" is ${running.width} px in ${running.room}`,
    );
  });
});

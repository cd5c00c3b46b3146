// WCAG contrast of every piece of text the panel shows, in the four theme kinds VS Code has (light, dark, high
// contrast dark and light), with the variables and default styles the real VS Code gives the webview
// (themes/<kind>.css). Issue 26, item 3: inline code in High Contrast Light was white on light grey.
import { strict as assert } from 'node:assert';
import type { ItemOf, TranscriptItem } from '../../src/protocol/messages';
import { approval, assistant, state, thinking, tool, user } from './fixtures';
import { THEME_KINDS, usePanel, type PanelPage } from './harness';

const ANSWER =
  'I changed `greet()` in `src/greet.js` so it says **Hi**. See [the docs](https://example.com).\n\n' +
  '```js\nfunction greet(name) {\n  return `Hi, ${name}!`;\n}\n```\n\n- `npm test` passes\n- > a quote with `code`';

const items: TranscriptItem[] = [
  user('u1', 'Make the greeting in `src/greet.js` say Hi.'),
  thinking('th1', 'The function `greet` builds the string.'),
  assistant('a1', 'I will read `src/greet.js` first.'),
  tool('t1'),
  tool('t2', { name: 'execute_command', argsSummary: 'npm test', exitCode: 1, status: 'error', result: 'FAIL' }),
  assistant('a2', ANSWER),
  approval('ap1', 'req-1'),
  {
    id: 'w1',
    ts: 1,
    kind: 'warning',
    warningKind: 'iteration_limit',
    message: 'Iteration 20 of 25: `max_iterations` is near.',
  } as ItemOf<'warning'>,
  {
    id: 'e1',
    ts: 1,
    kind: 'run_end',
    reason: 'done',
    detail: 'Changed `src/greet.js`.',
    iterations: 3,
    inputTokens: 900,
    outputTokens: 100,
    elapsedMs: 3000,
    actions: [],
  } as ItemOf<'run_end'>,
  {
    id: 'n1',
    ts: 1,
    kind: 'error',
    message: 'Forge can write the task history again; everything is saved.',
    actions: [],
    topic: 'storage',
    tone: 'ok',
  } as ItemOf<'error'>,
];

interface Low {
  text: string;
  cls: string;
  fg: string;
  bg: string;
  ratio: number;
}

/**
 * Every element with its own visible text: its colour (with the opacity of it and its ancestors) over the background
 * it is drawn on (translucent layers composited), as a WCAG ratio. Plain JavaScript in a string: tsx would add
 * helpers (__name) the page does not have.
 */
const MEASURE = `(minRatio) => {
  const probe = document.createElement('canvas').getContext('2d');
  const parse = (c) => {
    // color-mix() computes to color(srgb r g b / a), 0-1 channels; the canvas normalises the rest.
    const srgb = /^color\\(srgb ([\\d.e-]+) ([\\d.e-]+) ([\\d.e-]+)(?: \\/ ([\\d.e-]+))?\\)$/.exec(c);
    if (srgb) return [1, 2, 3].map((i) => Number(srgb[i]) * 255).concat(srgb[4] === undefined ? 1 : Number(srgb[4]));
    probe.fillStyle = '#000';
    probe.fillStyle = c;
    const v = String(probe.fillStyle);
    if (v.startsWith('#')) return [1, 3, 5].map((i) => parseInt(v.slice(i, i + 2), 16)).concat(1);
    const m = /rgba?\\(([^)]+)\\)/.exec(v);
    const [r, g, b, a] = (m ? m[1] : '0,0,0,0').split(',').map((x) => Number(x.trim()));
    return [r, g, b, a === undefined ? 1 : a];
  };
  const over = (top, below) => [0, 1, 2].map((i) => top[i] * top[3] + below[i] * (1 - top[3])).concat(1);
  const lum = (c) => {
    const [r, g, b] = [0, 1, 2].map((i) => {
      const s = c[i] / 255;
      return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  };
  const background = (el) => {
    const layers = [];
    for (let e = el; e; e = e.parentElement) {
      const c = parse(getComputedStyle(e).backgroundColor);
      if (c[3] > 0) layers.push(c);
      if (c[3] >= 1) break;
    }
    let acc = layers.length && layers[layers.length - 1][3] >= 1 ? layers.pop() : [255, 255, 255, 1];
    while (layers.length) acc = over(layers.pop(), acc);
    return acc;
  };
  const low = [];
  let checked = 0;
  for (const el of Array.from(document.querySelectorAll('body *'))) {
    const own = Array.from(el.childNodes).some((n) => n.nodeType === 3 && n.textContent.trim());
    if (!own || !(el instanceof HTMLElement)) continue;
    const box = el.getBoundingClientRect();
    const cs = getComputedStyle(el);
    if (!box.width || !box.height || cs.visibility === 'hidden' || el.closest('.sr-only,[hidden]')) continue;
    let opacity = 1;
    for (let e = el; e; e = e.parentElement) opacity *= Number(getComputedStyle(e).opacity);
    const bg = background(el);
    const raw = parse(cs.color);
    const fg = over([raw[0], raw[1], raw[2], raw[3] * opacity], bg);
    const [a, b] = [lum(fg), lum(bg)].sort((x, y) => y - x);
    const ratio = (a + 0.05) / (b + 0.05);
    checked++;
    if (ratio < minRatio)
      low.push({
        text: (el.textContent || '').trim().slice(0, 40),
        cls: el.tagName.toLowerCase() + '.' + el.className,
        fg: cs.color,
        bg: 'rgb(' + bg.slice(0, 3).map(Math.round).join(',') + ')',
        ratio: Math.round(ratio * 100) / 100,
      });
  }
  return { checked, low };
}`;

async function lowContrast(p: PanelPage, min: number): Promise<{ checked: number; low: Low[] }> {
  return p.page.evaluate(`(${MEASURE})(${min})`);
}

for (const theme of THEME_KINDS) {
  describe(`webview text contrast, ${theme} theme (Chromium)`, function () {
    let p: PanelPage;
    usePanel(
      (page) => {
        p = page;
      },
      { theme },
    );

    it('every text element, inline code included, reaches WCAG AA 4.5:1 on what it is drawn on', async () => {
      await p.host(state({ items, status: { state: 'awaiting_approval', runId: 'r1' } }));
      // Open the rows so their bodies are measured too.
      await p.page.locator('details.tool-card').evaluateAll((els) => els.forEach((e) => e.setAttribute('open', '')));
      const code = p.page.locator('.item-assistant .md :not(pre) > code').first();
      assert.ok(await code.isVisible(), 'inline code is on screen');
      const min = 4.5;
      const { checked, low } = await lowContrast(p, min);
      assert.ok(checked > 40, `measured ${checked} text elements`);
      assert.deepEqual(low, [], `text under ${min}:1 in ${theme}`);
    });
  });
}

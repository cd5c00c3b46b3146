// Hostile markdown in the panel (headless Chromium, the built bundle): whatever the model writes, streamed or
// rendered at once, the output stays bounded (nesting depth, pieces parsed), keeps the text, and stays inert.
// Speed is a benchmark figure (bench/webview.bench.ts: webview.stream.hostile), not asserted here.
import { strict as assert } from 'node:assert';
import { assistant, state } from './fixtures';
import { usePanel, type PanelPage } from './harness';

const END = 'END-OF-ANSWER';

/** ~200 KB hostile answers, each ending with a sentinel paragraph that must be rendered. */
export const HOSTILE: Record<string, string> = {
  nestedList:
    Array.from({ length: 2000 }, (_, i) => `${'  '.repeat(Math.min(i, 60))}- level ${i}`).join('\n') +
    '\n' +
    Array.from({ length: 400 }, (_, i) => `${'  '.repeat(i)}- deep ${i}`).join('\n'),
  dashChain: Array.from({ length: 100 }, () => `${'- '.repeat(2000)}x`).join('\n'),
  quoteChain: Array.from({ length: 100 }, () => `${'>'.repeat(2000)} quoted`).join('\n'),
  brackets: '['.repeat(200_000),
  oneLine: 'word **bold** `code` [link](https://example.com) '.repeat(4000),
  underscores: '_a'.repeat(100_000),
  htmlish:
    '<img src=x onerror="window.__pwned=1"><script>window.__pwned=2</script>[x](javascript:window.__pwned=3) '.repeat(
      1800,
    ),
};

interface Shape {
  depth: number;
  elements: number;
  text: number;
  hasEnd: boolean;
  active: number;
  pwned: unknown;
}

async function shape(p: PanelPage, id: string): Promise<Shape> {
  return (await p.page.evaluate(`(() => {
    const root = document.querySelector('[data-id="${id}"] .md');
    if (!root) return { depth: -1, elements: 0, text: 0, hasEnd: false, active: 0, pwned: window.__pwned };
    let depth = 0;
    const walk = (el, d) => { depth = Math.max(depth, d); for (const c of el.children) walk(c, d + 1); };
    walk(root, 0);
    const active = root.querySelectorAll('script, img, iframe, svg, [onerror], [onclick], a[href^="javascript"]').length;
    return { depth, elements: root.querySelectorAll('*').length, text: root.textContent.length, hasEnd: root.textContent.includes(${JSON.stringify(END)}), active, pwned: window.__pwned };
  })()`)) as Shape;
}

/** Streams `text` into assistant item `id` in `step`-char deltas, one patch per frame, then ends the stream. */
async function streamIn(p: PanelPage, id: string, text: string, step: number): Promise<void> {
  await p.page.evaluate(`(async ({ id, text, step }) => {
    let seq = 1;
    for (let i = 0; i < text.length; i += step) {
      window.postMessage({ type: 'patch', seq: ++seq, ops: [{ op: 'delta', id, field: 'text', delta: text.slice(i, i + step) }] }, '*');
      await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
    }
    window.postMessage({ type: 'patch', seq: ++seq, ops: [{ op: 'end_stream', id }] }, '*');
    // Pieces left for later frames are rendered within a few frames.
    for (let k = 0; k < 200 && document.querySelector('[data-id="' + id + '"] .md.streaming'); k++) await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
  })(${JSON.stringify({ id, text, step })})`);
}

describe('webview markdown: bounded and inert on hostile input (Chromium)', function () {
  this.timeout(180_000);
  let p: PanelPage;
  usePanel((page) => (p = page), { checkPage: false });

  for (const [name, body] of Object.entries(HOSTILE)) {
    const text = `${body}\n\n${END}\n`;

    it(`${name} (${Math.round(text.length / 1024)} KB) streamed in 2 KB deltas: bounded depth, text kept, inert`, async () => {
      await p.host(state({ seq: 1, items: [assistant('s', '', true)], status: { state: 'running' } }));
      await streamIn(p, 's', text, 2048);
      const s = await shape(p, 's');
      assert.equal(p.errors.length, 0, p.errors.join('\n'));
      assert.ok(s.hasEnd, 'the end of the answer is rendered');
      assert.ok(s.depth <= 40, `DOM depth ${s.depth}`);
      assert.equal(s.active, 0, 'nothing active survives');
      assert.equal(s.pwned, undefined);
      // The visible text keeps (most of) the answer: markers may be consumed, content is not dropped.
      if (name !== 'brackets') assert.ok(s.text > text.length * 0.3, `${s.text} of ${text.length} chars shown`);
    });

    it(`${name} rendered at once (a restored transcript): bounded depth, text kept, inert`, async () => {
      await p.host(state({ seq: 1, items: [assistant('w', text)], status: { state: 'idle' } }));
      await p.page.waitForFunction(() => !document.querySelector('[data-id="w"] .md[data-pending]'), undefined, {
        timeout: 30_000,
      });
      const s = await shape(p, 'w');
      assert.equal(p.errors.length, 0, p.errors.join('\n'));
      assert.ok(s.hasEnd, 'the end of the answer is rendered');
      assert.ok(s.depth <= 40, `DOM depth ${s.depth}`);
      assert.equal(s.active, 0);
      assert.equal(s.pwned, undefined);
    });
  }

  it('a deep list renders as lists up to the nesting cap and the rest verbatim inside the deepest item', async () => {
    const text = `${Array.from({ length: 30 }, (_, i) => `${'  '.repeat(i)}- level ${i}`).join('\n')}\n\n${END}`;
    await p.host(state({ seq: 1, items: [assistant('s', '', true)], status: { state: 'running' } }));
    await streamIn(p, 's', text, 50);
    const r = (await p.page.evaluate(`(() => {
      const md = document.querySelector('[data-id="s"] .md');
      let lists = 0;
      for (let el = md.querySelector('ul'); el; el = el.querySelector(':scope > li > ul')) lists++;
      const pre = md.querySelector('li pre');
      return { lists, pre: pre ? pre.textContent : '' };
    })()`)) as { lists: number; pre: string };
    assert.equal(r.lists, 8, 'nesting capped at 8 levels');
    assert.match(r.pre, /- level 8\b/);
    assert.match(r.pre, /- level 29\b/);
  });

  it('a long streamed code block stays code (reopened across pieces), and ordinary answers are untouched', async () => {
    const code = Array.from({ length: 4000 }, (_, i) => `const v${i} = ${i}; // **not bold** [not a link](x)`).join(
      '\n',
    );
    const text = `Intro **bold**.\n\n\`\`\`ts\n${code}\n\`\`\`\n\nAfter the code.\n\n${END}`;
    await p.host(state({ seq: 1, items: [assistant('s', '', true)], status: { state: 'running' } }));
    await streamIn(p, 's', text, 4096);
    const r = (await p.page.evaluate(`(() => {
      const md = document.querySelector('[data-id="s"] .md');
      const pres = [...md.querySelectorAll('pre')];
      return { pres: pres.length, code: pres.map((p) => p.textContent).join('\\n'), strong: [...md.querySelectorAll('strong')].map((s) => s.textContent), links: md.querySelectorAll('a').length, text: md.textContent };
    })()`)) as { pres: number; code: string; strong: string[]; links: number; text: string };
    // One box per 64 KB piece of code at most (CODE_TAIL_CHARS), never a paragraph of code.
    assert.ok(r.pres >= 1 && r.pres <= Math.ceil(code.length / 32768), `${r.pres} code blocks`);
    for (const i of [0, 1999, 3999])
      assert.ok(r.code.includes(`const v${i} = ${i}; // **not bold** [not a link](x)`), `line ${i} is code`);
    assert.deepEqual(r.strong, ['bold'], 'markdown inside the code is not rendered');
    assert.equal(r.links, 0);
    assert.match(r.text, /After the code\./);
    assert.ok(r.text.includes(END));
  });
});

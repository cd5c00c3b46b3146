// The built chat webview in headless Chromium under the provider's real CSP.
import { strict as assert } from 'node:assert';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { approval, assistant, manyItems, patch, state, thinking, tool, user } from './fixtures';
import { ROOT, openPanel, usePanel, type Harness, type PanelPage } from './harness';

describe('webview panel (Chromium)', function () {
  let h: Harness;
  let p: PanelPage;
  usePanel((page, harness) => {
    p = page;
    h = harness;
  });

  it('boots under the strict CSP and says ready', async () => {
    const posted = await p.posted();
    assert.deepEqual(posted, [{ type: 'ready' }]);
    const csp = await p.page.evaluate(() =>
      document.querySelector('meta[http-equiv="Content-Security-Policy"]')?.getAttribute('content'),
    );
    assert.match(csp!, /script-src 'nonce-[^']+'(;|$)/);
    assert.equal(await p.page.locator('vscode-button[data-act="send"]').count(), 1);
  });

  it('renders streamed text and thinking as deltas arrive', async () => {
    await p.host(state({ status: { state: 'running', runId: 'r1', requestId: 'req1' } }));
    await p.host(patch({ op: 'append', item: user('i1', 'Fix the failing test') }));
    await p.host(
      patch(
        { op: 'append', item: thinking('i2', 'Let me', true) },
        { op: 'delta', id: 'i2', field: 'text', delta: ' check the test.' },
      ),
    );
    assert.equal(await p.page.locator('[data-id="i2"] .thinking-text').textContent(), 'Let me check the test.');
    assert.equal(
      await p.page.locator('[data-id="i2"] details').getAttribute('open'),
      '',
      'thinking is open while it streams',
    );
    await p.host(patch({ op: 'end_stream', id: 'i2' }, { op: 'append', item: assistant('i3', 'The **bug**', true) }));
    assert.equal(await p.page.locator('[data-id="i2"] details').getAttribute('open'), null, 'and collapses when done');
    assert.equal(await p.page.locator('[data-id="i3"] .md strong').textContent(), 'bug');
    for (const d of [' is in ', '`parse()`', ':\n\n```ts\nconst a = 1;\n```']) {
      await p.host(patch({ op: 'delta', id: 'i3', field: 'text', delta: d }));
    }
    assert.equal(await p.page.locator('[data-id="i3"] .md code').first().textContent(), 'parse()');
    assert.equal(await p.page.locator('[data-id="i3"] .code-block pre code').textContent(), 'const a = 1;\n');
    assert.equal(await p.page.locator('[data-id="i3"] .copy-btn').count(), 1);
    await p.host(patch({ op: 'end_stream', id: 'i3' }));
    assert.equal(await p.page.locator('[data-id="i3"] .md.streaming').count(), 0);
    // Stop is visible while running and carries the run's request id.
    await p.page.locator('vscode-button[data-act="stop"]').click();
    assert.deepEqual((await p.posted()).at(-1), { type: 'stop', requestId: 'req1' });
  });

  it('shows tool cards and posts approval decisions from buttons and keys', async () => {
    await p.host(state({ status: { state: 'awaiting_approval', runId: 'r1' } }));
    await p.host(
      patch(
        { op: 'append', item: tool('t1', { status: 'awaiting_approval', durationMs: undefined, result: undefined }) },
        { op: 'append', item: approval('a1', 'req-a1') },
      ),
    );
    assert.match(await p.page.locator('[data-id="t1"] .tool-head').innerText(), /Read\s+src\/app.ts\s+needs approval/);
    assert.match(
      (await p.page.locator('[data-id="t1"] .tool-head').getAttribute('title')) ?? '',
      /^read_file: src\/app.ts/,
    );
    assert.equal(await p.page.locator('[data-id="a1"] pre.diff .add').count(), 3);
    await p.clearPosted();
    await p.page.locator('[data-id="a1"] vscode-button[data-act="approve"]').click();
    assert.deepEqual(await p.posted(), [
      { type: 'approval_decision', requestId: 'req-a1', decision: { kind: 'approve', scope: 'once' } },
    ]);

    // Host confirms: the card goes, and the tool's own row says what happened and reopens the change.
    const edit = { path: 'src/app.ts', isNewFile: false, added: 2, removed: 1, requestId: 'req-a1' };
    await p.host(
      patch(
        { op: 'update', item: approval('a1', 'req-a1', { status: 'approved' }) },
        { op: 'update', item: tool('t1', { status: 'done', edit }) },
      ),
    );
    assert.equal(await p.page.locator('[data-id="a1"]').isHidden(), true);
    assert.equal(await p.page.locator('[data-id="a1"] vscode-button').count(), 0);
    assert.match((await p.page.locator('[data-id="t1"] .tool-head').textContent()) ?? '', /Editedsrc\/app.ts\+2−1/);
    await p.clearPosted();
    await p.page.locator('[data-id="t1"] a[data-act="open_diff"]').click();
    assert.deepEqual(await p.posted(), [{ type: 'open_diff', requestId: 'req-a1' }]);
    assert.equal(
      await p.page.locator('[data-id="t1"] details').getAttribute('open'),
      null,
      'the link does not toggle the row',
    );

    const next = async (n: number) => {
      await p.host(patch({ op: 'append', item: approval(`a${n}`, `req-a${n}`) }));
      await p.clearPosted();
    };
    const resolve = (n: number) =>
      p.host(patch({ op: 'update', item: approval(`a${n}`, `req-a${n}`, { status: 'rejected' }) }));

    await next(2);
    await p.page.locator('body').press('Control+Enter');
    assert.deepEqual(await p.posted(), [
      { type: 'approval_decision', requestId: 'req-a2', decision: { kind: 'approve', scope: 'once' } },
    ]);
    await resolve(2);

    await next(3);
    await p.page.locator('body').press('Control+Shift+Enter');
    assert.deepEqual(await p.posted(), [
      { type: 'approval_decision', requestId: 'req-a3', decision: { kind: 'approve', scope: 'task' } },
    ]);
    await resolve(3);

    await next(4);
    await p.page.locator('body').press('Control+Backspace');
    assert.deepEqual(await p.posted(), [
      { type: 'approval_decision', requestId: 'req-a4', decision: { kind: 'reject' } },
    ]);
    await resolve(4);

    await next(5);
    await p.page.locator('[data-id="a5"] input.reject-reason').fill('Use the existing helper instead');
    await p.page.locator('[data-id="a5"] input.reject-reason').press('Enter');
    assert.deepEqual(await p.posted(), [
      {
        type: 'approval_decision',
        requestId: 'req-a5',
        decision: { kind: 'reject', reason: 'Use the existing helper instead' },
      },
    ]);
    await resolve(5);

    await next(6);
    await p.page.locator('[data-id="a6"] vscode-button[data-act="approve_task"]').click();
    await p.page.locator('[data-id="a6"] vscode-button[data-act="approve_task"]').click({ force: true });
    assert.deepEqual(
      await p.posted(),
      [{ type: 'approval_decision', requestId: 'req-a6', decision: { kind: 'approve', scope: 'task' } }],
      'a double click posts once',
    );

    // Ctrl+Backspace inside a non-empty input keeps deleting words.
    await resolve(6);
    await next(7);
    await p.page.locator('textarea.input').fill('some words');
    await p.page.locator('textarea.input').press('Control+Backspace');
    assert.deepEqual(await p.posted(), []);
  });

  it('a command approval says how it runs contained and what "Always" grants; a hazard can only be approved once', async () => {
    await p.host(state({ status: { state: 'awaiting_approval', runId: 'r1' } }));
    const command = (id: string, preview: Record<string, unknown>) =>
      approval(id, `req-${id}`, {
        toolName: 'execute_command',
        risk: 'execute',
        summary: 'Run a command',
        preview: { kind: 'command', command: 'git commit -m "x" && make', ...preview } as never,
      });
    await p.host(
      patch(
        {
          op: 'append',
          item: command('c1', {
            grant: 'git commit, make',
            containment: 'Runs contained (bubblewrap sandbox: network off)',
          }),
        },
        {
          op: 'append',
          item: command('c2', {
            containment: 'Runs WITHOUT a sandbox, with your full rights (bubblewrap is not installed)',
          }),
        },
      ),
    );
    assert.equal(
      await p.page.locator('[data-id="c1"] vscode-button[data-act="approve_task"]').innerText(),
      'Always allow git commit, make',
    );
    assert.match(await p.page.locator('[data-id="c1"] .containment.contained').innerText(), /Runs contained/);
    assert.equal(
      await p.page.locator('[data-id="c2"] vscode-button[data-act="approve_task"]').count(),
      0,
      'no grant: nothing beyond this call',
    );
    assert.match(await p.page.locator('[data-id="c2"] .containment.uncontained').innerText(), /WITHOUT a sandbox/);
    await p.clearPosted();
    await p.page.locator('[data-id="c1"] vscode-button[data-act="approve_task"]').click();
    assert.deepEqual(await p.posted(), [
      { type: 'approval_decision', requestId: 'req-c1', decision: { kind: 'approve', scope: 'task' } },
    ]);
  });

  it('renders hostile markdown inert', async () => {
    const hostile = [
      '<script>window.__pwned = "script"</script>',
      '<img src=x onerror="window.__pwned=\'img\'">',
      "[click](javascript:window.__pwned='link')",
      '[data](data:text/html,<script>alert(1)</script>)',
      '<iframe src="javascript:window.parent.__pwned=\'iframe\'"></iframe>',
      '<svg onload="window.__pwned=\'svg\'"><circle r="1"/></svg>',
      '<a href="javascript:alert(1)" onclick="window.__pwned=\'a\'">x</a>',
      '<div style="position:fixed;inset:0" onmouseover="window.__pwned=\'div\'">overlay</div>',
      '<details open ontoggle="window.__pwned=\'details\'">t</details>',
      '<form action="https://evil.invalid"><button>go</button></form>',
      '![img](x" onerror="window.__pwned=\'md-img\')',
      '<math><mi xlink:href="javascript:alert(1)">m</mi></math>',
      '[ok](https://example.com) and [file](src/app.ts#L12)',
    ].join('\n\n');
    await p.host(
      state({
        items: [
          assistant('h1', hostile),
          user('h2', '<img src=x onerror="window.__pwned=\'user\'">'),
          tool('h3', { result: '<script>window.__pwned="tool"</script>', argsSummary: '<svg onload=alert(1)>' }),
          approval('h4', 'req-h', { summary: '<img src=x onerror="window.__pwned=\'approval\'">' }),
          {
            id: 'h5',
            ts: 1,
            kind: 'run_end',
            reason: 'done',
            detail: hostile,
            iterations: 1,
            inputTokens: 1,
            outputTokens: 1,
            elapsedMs: 1,
            actions: [],
          },
        ],
      }),
    );
    await p.page.locator('[data-id="h5"] .md:not([data-pending])').waitFor();
    await p.page.mouse.move(200, 200);
    await p.page.waitForTimeout(200);
    assert.equal(
      await p.page.evaluate(() => (window as unknown as { __pwned?: string }).__pwned),
      undefined,
      'no injected code ran',
    );
    const found = await p.page.evaluate(() => {
      const root = document.querySelector('.items')!;
      const bad: string[] = [];
      for (const el of Array.from(root.querySelectorAll('*'))) {
        const tag = el.tagName.toLowerCase();
        if (['script', 'iframe', 'img', 'svg', 'math', 'form', 'object', 'embed', 'style'].includes(tag))
          bad.push(`<${tag}>`);
        for (const a of Array.from(el.attributes)) {
          if (/^on/i.test(a.name) || a.name === 'style' || a.name === 'action') bad.push(`${tag}[${a.name}]`);
          if (/^\s*(javascript|data|vbscript):/i.test(a.value)) bad.push(`${tag}[${a.name}=${a.value.slice(0, 20)}]`);
        }
      }
      return bad;
    });
    assert.deepEqual(found, []);
    // Raw HTML is shown as text, safe links survive, workspace links open files.
    assert.match(await p.page.locator('[data-id="h1"] .md').innerText(), /<script>window.__pwned = "script"<\/script>/);
    assert.equal(
      await p.page.locator('[data-id="h1"] a[href="https://example.com"]').getAttribute('rel'),
      'noopener noreferrer',
    );
    await p.clearPosted();
    await p.page.locator('[data-id="h1"] a[data-act="open_file"]').click();
    assert.deepEqual(await p.posted(), [{ type: 'open_file', path: 'src/app.ts', line: 12 }]);
  });

  it('ignores forged host messages and keeps working', async () => {
    await p.host(state({ items: [user('u1', 'hello')] }));
    const forged: unknown[] = [
      null,
      42,
      'state',
      [],
      { type: 'eval', code: 'window.__pwned=1' },
      { type: 'state' },
      { type: 'state', snapshot: { seq: 1, items: 'all', status: {}, provider: {}, history: [] } },
      {
        type: 'patch',
        seq: 2,
        ops: [{ op: 'append', item: { id: 'x1', kind: 'html', html: '<img src=x onerror=alert(1)>' } }],
      },
      { type: 'patch', seq: 2, ops: [{ op: 'delta', id: 'u1', field: 'innerHTML', delta: '<b>x</b>' }] },
      { type: 'patch', seq: 2, ops: [{ op: 'append', item: { id: 'x2', ts: 1, kind: 'user' } }] },
      { type: 'patch', seq: 2 },
      { type: 'error', message: 42 },
      { type: 'provider_status', provider: { configured: 'yes' } },
      { type: 'prefill', text: 'x'.repeat(100_001) },
    ];
    for (const f of forged) await p.host(f);
    assert.equal(p.warnings.filter((w) => w.includes('ignored host message')).length, forged.length);
    assert.equal(await p.page.locator('.items > .item').count(), 1);
    assert.equal(await p.page.locator('.setup-card').isHidden(), true);
    // The next valid patch still applies.
    await p.host(patch({ op: 'append', item: assistant('a1', 'still **alive**') }));
    assert.equal(await p.page.locator('[data-id="a1"] strong').textContent(), 'alive');
    // A valid patch out of sequence asks the host for a fresh snapshot instead of guessing.
    await p.clearPosted();
    await p.host({ type: 'patch', seq: 99, ops: [] });
    assert.deepEqual(await p.posted(), [{ type: 'ready' }]);
  });

  it('renders a 2,000-message transcript, stays scrollable, and updates one item per delta', async () => {
    const items = manyItems(2000);
    items.push(assistant('last', 'streaming', true));
    const t0 = Date.now();
    await p.host(state({ items, status: { state: 'running' } }));
    const renderMs = Date.now() - t0;
    assert.equal(await p.page.locator('.items > .item').count(), 2001);
    assert.ok(renderMs < 5000, `snapshot rendered in ${renderMs} ms`);
    const scroller = p.page.locator('main.transcript');
    const metrics = () =>
      scroller.evaluate((el) => ({ top: el.scrollTop, height: el.scrollHeight, client: el.clientHeight }));
    const atEnd = await metrics();
    assert.ok(atEnd.height > atEnd.client * 20, 'the list is long');
    assert.ok(atEnd.top + atEnd.client >= atEnd.height - 50, 'starts at the bottom');
    // Markdown is rendered lazily: items near the bottom are, items at the top are not yet.
    assert.equal(await p.page.locator('[data-id="m1"] .md[data-pending]').count(), 1);
    await scroller.evaluate((el) => {
      el.scrollTop = 0;
    });
    await p.page.locator('[data-id="m1"] .md:not([data-pending]) strong').waitFor();
    assert.equal((await metrics()).top, 0);
    // A delta touches only its own item.
    await scroller.evaluate((el) => {
      el.scrollTop = el.scrollHeight;
    });
    const touched = await p.page.evaluate(async () => {
      const seen = new Set<string>();
      const mo = new MutationObserver((recs) => {
        for (const r of recs) {
          const item = (r.target instanceof Element ? r.target : r.target.parentElement)?.closest('.item');
          seen.add(item ? (item as HTMLElement).dataset.id! : 'outside');
        }
      });
      mo.observe(document.querySelector('.items')!, {
        subtree: true,
        childList: true,
        characterData: true,
        attributes: true,
      });
      window.postMessage(
        { type: 'patch', seq: 2, ops: [{ op: 'delta', id: 'last', field: 'text', delta: ' more **text**' }] },
        '*',
      );
      await new Promise((r) => setTimeout(r, 50));
      await new Promise((r) => requestAnimationFrame(r));
      mo.disconnect();
      return [...seen];
    });
    assert.deepEqual(touched, ['last']);
    assert.equal(await p.page.locator('[data-id="last"] strong').textContent(), 'text');
    const frameMs = await p.page.evaluate(async () => {
      const t = performance.now();
      await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
      return performance.now() - t;
    });
    assert.ok(frameMs < 500, `frames keep flowing (${frameMs.toFixed(0)} ms for two)`);
  });

  it('streams markdown incrementally: same DOM as a one-shot render, sanitized, and stops following when scrolled up', async () => {
    const text = [
      'Intro with **bold** and `code`.',
      '',
      '- one',
      '- two',
      '',
      '2. not a list yet',
      '',
      '```ts',
      'const a = 1;',
      '',
      'const b = 2;',
      '```',
      '',
      '<img src=x onerror="window.__pwned=1">',
      '',
      '[bad](javascript:window.__pwned=2) and [ok](https://example.com) [ref]',
      '',
      '| a | b |',
      '|---|---|',
      '| 1 | 2 |',
      '',
      '> quote',
      '',
      'Last paragraph.',
      '',
      '[ref]: https://example.com/ref',
      '',
    ]
      .join('\n')
      .repeat(30);
    await p.host(state({ items: [...manyItems(200), assistant('s', '', true)], status: { state: 'running' } }));
    let seq = 1;
    for (let i = 0; i < text.length; i += 97) {
      await p.page.evaluate((m) => window.postMessage(m, '*'), {
        type: 'patch',
        seq: ++seq,
        ops: [{ op: 'delta', id: 's', field: 'text', delta: text.slice(i, i + 97) }],
      });
      if (i % (97 * 20) === 0)
        await p.page.evaluate(() => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0))));
    }
    await p.host({
      type: 'patch',
      seq: ++seq,
      ops: [
        { op: 'end_stream', id: 's' },
        { op: 'append', item: assistant('whole', text) },
      ],
    });
    await p.page.locator('[data-id="whole"] .md:not([data-pending])').waitFor();
    await p.page.waitForTimeout(300); // idle re-render of blocks that used [ref] before its definition arrived
    // A string, not a function: tsx would inject helpers (__name) the page does not have.
    const html = (await p.page.evaluate(`(() => {
      const norm = (sel) => {
        const md = document.querySelector(sel).cloneNode(true);
        for (const c of Array.from(md.querySelectorAll('.md-chunk'))) c.replaceWith(...Array.from(c.childNodes));
        md.normalize();
        return md.innerHTML.replace(/>\\s+</g, '><');
      };
      return { streamed: norm('[data-id="s"] .md'), whole: norm('[data-id="whole"] .md'), chunks: document.querySelectorAll('[data-id="s"] .md-chunk').length };
    })()`)) as { streamed: string; whole: string; chunks: number };
    assert.ok(html.chunks >= 2, `${html.chunks} chunks`);
    assert.equal(html.streamed, html.whole);
    assert.equal(await p.page.locator('[data-id="s"] .md.streaming').count(), 0);
    assert.equal(
      await p.page.locator('[data-id="s"] img, [data-id="s"] [onerror], [data-id="s"] a[href^="javascript"]').count(),
      0,
    );
    assert.equal(
      await p.page.locator('[data-id="s"] a[href="https://example.com/ref"]').count(),
      30,
      'forward [ref]s resolved',
    );
    assert.equal(await p.page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned), undefined);

    // Following the bottom: on while at the bottom, off once the user scrolls up, even as the stream grows.
    await p.host({ type: 'patch', seq: ++seq, ops: [{ op: 'append', item: assistant('t', 'start', true) }] });
    const scroller = p.page.locator('main.transcript');
    const gap = () => scroller.evaluate((el) => el.scrollHeight - el.scrollTop - el.clientHeight);
    await p.host({
      type: 'patch',
      seq: ++seq,
      ops: [{ op: 'delta', id: 't', field: 'text', delta: '\n\nmore text\n\n'.repeat(40) }],
    });
    await p.page.locator('[data-id="t"] p', { hasText: 'more text' }).first().waitFor();
    // The follow happens on a later frame; under load that can be a few frames on: poll, bounded.
    for (let t0 = Date.now(); (await gap()) >= 5 && Date.now() - t0 < 2000;) await p.page.waitForTimeout(20);
    assert.ok((await gap()) < 5, 'follows the stream at the bottom');
    await scroller.evaluate((el) => {
      el.scrollTop -= 400;
    });
    await p.page.waitForTimeout(50);
    const g0 = await gap();
    await p.host({
      type: 'patch',
      seq: seq + 1,
      ops: [{ op: 'delta', id: 't', field: 'text', delta: '\n\neven more\n\n'.repeat(40) }],
    });
    await p.page.locator('[data-id="t"] p', { hasText: 'even more' }).first().waitFor(); // the tail render may be throttled
    await p.page.evaluate(() => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0))));
    const g1 = await gap();
    assert.ok(g1 > 400, `stays where the user scrolled (gap ${g0} -> ${g1})`);
  });

  it('sends with Enter, keeps Shift+Enter for new lines, and wires setup, history and actions', async () => {
    await p.host(
      state({
        provider: { configured: false, problem: 'No API key for OpenAI. Set one, or pick a VS Code chat model.' },
        history: [{ id: 'task-1', title: 'Add login form', updatedAt: Date.UTC(2025, 0, 2), status: 'done' }],
        items: [
          {
            id: 'e1',
            ts: 1,
            kind: 'run_end',
            reason: 'max_iterations',
            detail: 'Reached 25 iterations. Continue to extend the limit.',
            iterations: 25,
            inputTokens: 9000,
            outputTokens: 1200,
            elapsedMs: 65000,
            actions: ['continue'],
          },
        ],
      }),
    );
    assert.match(await p.page.locator('.setup-card').innerText(), /No API key for OpenAI/);
    assert.equal(await p.page.locator('.header .needs-setup').count(), 1, 'the header names no model it cannot use');
    await p.clearPosted();
    await p.page.locator('[data-id="e1"] vscode-button[data-action="continue"]').click();
    await p.host({ type: 'show', view: 'history' });
    await p.page.locator('.history a[data-task-id="task-1"]').click();
    const input = p.page.locator('textarea.input');
    await input.fill('line one');
    await input.press('Shift+Enter');
    await input.type('line two');
    await input.press('Enter');
    const posted = await p.posted();
    assert.deepEqual(posted.slice(0, 1), [
      { type: 'continue', requestId: (posted[0] as { requestId: string }).requestId },
    ]);
    assert.match((posted[0] as { requestId: string }).requestId, /^[\x21-\x7e]+$/);
    assert.deepEqual(posted[1], { type: 'load_task', id: 'task-1' });
    assert.equal(posted[2]?.type, 'send_message');
    assert.equal((posted[2] as { text: string }).text, 'line one\nline two');
    assert.equal(await input.inputValue(), '');
    // Host banners say what to do and offer the action.
    await p.host({ type: 'error', message: 'The model rejected the API key (401).', actions: ['set_api_key'] });
    assert.match(await p.page.locator('.banner').innerText(), /401/);
  });

  it('restores the scroll position across hide/show from the saved state', async () => {
    const items = manyItems(300);
    await p.host(state({ items, taskId: 'task-9' }));
    await p.page.locator('main.transcript').evaluate((el) => {
      el.scrollTop = 1500;
    });
    await p.page.waitForFunction(
      () => ((window as unknown as { __state?: { scrollTop: number } }).__state?.scrollTop ?? 0) > 1000,
    );
    await p.page.waitForTimeout(100);
    const firstVisible = (page: typeof p.page) =>
      page.evaluate(() => {
        const top = document.querySelector('main.transcript')!.getBoundingClientRect().top;
        const el = Array.from(document.querySelectorAll<HTMLElement>('.items > .item')).find(
          (e) => e.getBoundingClientRect().bottom > top,
        );
        return el?.dataset.id;
      });
    const before = await firstVisible(p.page);
    const saved = await p.page.evaluate(
      () => (window as unknown as { __state: { stick: boolean; taskId: string; anchorId: string } }).__state,
    );
    assert.equal(saved.stick, false);
    assert.equal(saved.taskId, 'task-9');
    assert.equal(saved.anchorId, before);
    // "Hide and show": a fresh webview with the saved state gets the snapshot again and lands on the same item.
    const p2 = await openPanel(h, saved);
    await p2.host(state({ items, taskId: 'task-9' }));
    await p2.page.waitForTimeout(100);
    const after = await firstVisible(p2.page);
    await p2.page.close();
    assert.equal(after, before);
    assert.notEqual(before, 'm0');
  });

  it('writes a screenshot of the panel mid-task', async () => {
    await p.host(
      state({
        taskId: 'task-1',
        status: { state: 'awaiting_approval', runId: 'r1', requestId: 'req1', mode: 'implement' },
        progress: {
          iteration: 3,
          maxIterations: 25,
          inputTokens: 18420,
          outputTokens: 2315,
          costUsd: 0.0871,
          elapsedMs: 47000,
          contextTokens: 21000,
          contextWindow: 200000,
        },
        items: [
          user('s1', 'The `main()` entry point never calls `run()`. Fix it and make sure the tests pass.'),
          {
            id: 's2',
            ts: 1,
            kind: 'memory',
            direction: 'recalled',
            memories: [{ id: 'm1', content: 'Tests run with `npm test` (mocha).', type: 'procedural' }],
          },
          thinking(
            's3',
            'The user says main() never calls run(). I should read src/app.ts first, then check the test file.',
          ),
          assistant('s4', "I'll read the entry point first, then make the fix."),
          tool('s5', { durationMs: 41 }),
          tool('s6', {
            name: 'search_files',
            argsSummary: 'run\\(',
            argsText: '{\n  "regex": "run\\\\("\n}',
            result: 'src/run.ts:3: export function run()',
            durationMs: 112,
          }),
          assistant(
            's7',
            'Found it: `main` is an empty function. Here is the change:\n\n```ts\nexport function main(): void {\n  run();\n}\n```',
          ),
          tool('s8', {
            name: 'apply_diff',
            argsSummary: 'src/app.ts',
            status: 'awaiting_approval',
            durationMs: undefined,
            result: undefined,
          }),
          approval('s9', 'req-s9'),
        ],
      }),
    );
    const dir = join(ROOT, 'test-results');
    mkdirSync(dir, { recursive: true });
    await p.page.waitForTimeout(300);
    await p.page.screenshot({ path: join(dir, 'panel-mid-task.png') });
    assert.equal(
      await p.page
        .locator('.progress-text')
        .innerText()
        .then((t) => /Iteration 3 \/ 25/.test(t)),
      true,
    );
    assert.match(await p.page.locator('.progress-text').innerText(), /\$0\.09/);
  });

  it('shows tokens only when the cost is unknown', async () => {
    await p.host(
      state({
        status: { state: 'running' },
        progress: { iteration: 1, maxIterations: 10, inputTokens: 1500, outputTokens: 20, elapsedMs: 1000 },
      }),
    );
    const text = await p.page.locator('.progress-text').innerText();
    assert.match(text, /Iteration 1 \/ 10 · 1\.5k in · 20 out · 1\.0 s/);
    assert.doesNotMatch(text, /\$/);
  });

  it('spins while working, and animates nothing while it waits for an approval', async () => {
    const progress = { iteration: 1, maxIterations: 10, inputTokens: 0, outputTokens: 0, elapsedMs: 1000 };
    // Running animations of the page and of every shadow root, nested ones included (the toolkit's components draw
    // in theirs).
    const animations = () =>
      p.page.evaluate(() => {
        const roots: Array<Document | ShadowRoot> = [document];
        for (let k = 0; k < roots.length; k++) {
          for (const el of Array.from(roots[k]!.querySelectorAll('*'))) if (el.shadowRoot) roots.push(el.shadowRoot);
        }
        return roots.flatMap((r) => r.getAnimations()).filter((a) => a.playState === 'running').length;
      });
    await p.host(state({ status: { state: 'running', runId: 'r1' }, progress }));
    assert.equal(
      await p.page
        .locator('.progress .spinner.codicon-loading.codicon-modifier-spin[aria-label="Working"]')
        .isVisible(),
      true,
    );
    assert.equal(await p.page.locator('.progress .wait-icon').isVisible(), false);
    assert.ok((await animations()) > 0, 'the spinner animates while the run works');
    // A wait can last minutes: the progress ring it had repainted the panel all along (measured in code-server with an
    // edit waiting: Chromium's renderer and GPU process at 39% and 23% of a core).
    await p.host(state({ status: { state: 'awaiting_approval', runId: 'r1' }, progress }));
    assert.equal(await p.page.locator('.progress .spinner').isVisible(), false);
    assert.equal(
      await p.page.locator('.progress .wait-icon.codicon-shield[aria-label="Waiting for your approval"]').isVisible(),
      true,
    );
    assert.equal(await animations(), 0);
    assert.match(await p.page.locator('.composer-hint').innerText(), /Waiting for your approval/);
    // With reduced motion the working indicator stands still too.
    await p.page.emulateMedia({ reducedMotion: 'reduce' });
    try {
      await p.host(state({ status: { state: 'running', runId: 'r1' }, progress }));
      assert.equal(await p.page.locator('.progress .spinner').isVisible(), true);
      assert.equal(await animations(), 0);
    } finally {
      await p.page.emulateMedia({ reducedMotion: null });
    }
  });
});

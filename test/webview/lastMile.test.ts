// Issue 26, the panel's last mile, in the built webview (Chromium, real CSP): what a newcomer tripped over.
import { strict as assert } from 'node:assert';
import type { HunkView, ItemOf, PlanView } from '../../src/protocol/messages';
import { approval, assistant, manyItems, patch, state, thinking, tool } from './fixtures';
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

  it('a multi-hunk card: one Reject, hunks placed by line, Approve in view after a toggle', async () => {
    const body = Array.from({ length: 12 }, (_, i) => `+added line ${i}`).join('\n');
    const hunk = (index: number, st: HunkView['state'] = 'pending'): HunkView => ({
      index,
      header: `@@ -${index * 40 + 25} +${index * 40 + 26},12 @@`,
      body,
      oldStart: index * 40 + 25,
      oldLines: 0,
      newStart: index * 40 + 26,
      newLines: 12,
      state: st,
    });
    const card = (states: HunkView['state'][]) => {
      const a = approval('a1', 'req-1');
      const prev = a.preview as Extract<ItemOf<'approval'>['preview'], { kind: 'edit' }>;
      return { ...a, preview: { ...prev, hunks: states.map((st, i) => hunk(i, st)) } } as ItemOf<'approval'>;
    };
    await p.page.setViewportSize({ width: 300, height: 600 });
    await p.host(state({ status: { state: 'awaiting_approval', runId: 'r1' } }));
    await p.host(patch({ op: 'append', item: card(['pending', 'pending', 'pending']) }));
    const c = p.page.locator('[data-id="a1"]');
    const rejects = await c
      .locator('button, vscode-button')
      .evaluateAll((els) => els.map((e) => (e.textContent ?? '').trim()).filter((t) => /reject/i.test(t)));
    assert.deepEqual(rejects, ['Reject all'], 'one button says Reject');
    assert.equal(await c.locator('.hunk-header').first().innerText(), 'lines 26–37');
    assert.doesNotMatch(await c.innerText(), /@@/, 'no patch headers for people');
    // Toggle the first hunk (at the top of the card), as the host confirms it: Approve stays in view.
    await c.locator('.hunk[data-index="0"] button.hunk-rejected').click();
    await p.host(patch({ op: 'update', item: card(['rejected', 'pending', 'pending']) }));
    const approve = c.locator('vscode-button[data-act="approve"]');
    assert.equal(await approve.innerText(), 'Write 2 of 3 hunks');
    const box = await approve.boundingBox();
    const view = await p.page.locator('.transcript').boundingBox();
    assert.ok(box && view, 'both laid out');
    assert.ok(
      box.y >= view.y && box.y + box.height <= view.y + view.height + 1,
      `Approve in view: button ${box.y}-${box.y + box.height}, transcript ${view.y}-${view.y + view.height}`,
    );
  });

  it('plan steps wrap at 300 and 480 px instead of being cut; a plan update has no transcript row', async () => {
    const plan: PlanView = {
      goal: 'Add a --json flag to the command line interface and document it for the people who script it',
      steps: [
        { text: 'Read the argument parser and the existing output printers end to end', status: 'done' },
        { text: 'Add the flag together with a JSON printer that escapes every field', status: 'in_progress' },
      ],
      currentStep: 2,
      updatedBy: 'model',
      updatedAt: 1,
    };
    await p.host(
      state({
        taskId: 'task-1',
        plan,
        items: [
          tool('p1', { name: 'update_plan', argsSummary: plan.goal }),
          tool('p2', { name: 'update_plan', argsSummary: plan.goal, status: 'error', result: 'steps: required' }),
        ],
      }),
    );
    for (const width of [300, 480]) {
      await p.page.setViewportSize({ width, height: 700 });
      const cut = await p.page
        .locator('.plan-panel .plan-text')
        .evaluateAll((els) =>
          els
            .filter((e) => e.scrollWidth > e.clientWidth + 1 || e.scrollHeight > e.clientHeight + 1)
            .map((e) => (e as HTMLTextAreaElement).value),
        );
      assert.deepEqual(cut, [], `no step cut at ${width} px`);
      const lines = await p.page
        .locator('.plan-panel .plan-text')
        .first()
        .evaluate((e) => e.clientHeight / (1.2 * parseFloat(getComputedStyle(e).fontSize)));
      if (width === 300) assert.ok(lines >= 1.8, `the long step wraps at 300 px (${lines.toFixed(1)} lines high)`);
    }
    assert.equal(await p.page.locator('[data-id="p1"]').isHidden(), true, 'a plan update is the plan panel');
    const failed = p.page.locator('[data-id="p2"] .tool-head');
    assert.match(await failed.innerText(), /^Plan\b/, 'a failed update keeps its row, named for people');
  });

  it('noise: no sandbox note in command output, a last-line preview, a named thought, a modest H1', async () => {
    await p.host(
      state({
        items: [
          thinking('th', 'The parser lives in src/args.js; I should read it.\nThen add the flag.'),
          tool('c1', {
            name: 'execute_command',
            argsText: '{"command":"npm test -- --grep parser --reporter dot --timeout 20000 --forbid-only"}',
            argsSummary: 'npm test -- --grep parser --reporter dot --timeout 20000 --forbid-only',
            exitCode: 0,
            result:
              '$ npm test\nExit code: 0 (1.2 s)\n> test\n12 passing\n[Ran contained: no network, writes only in the workspace.]\n[Files the command changed: a.txt.]',
          }),
          assistant('a1', '# Summary\n\nDone.'),
        ],
      }),
    );
    const row = p.page.locator('[data-id="c1"]');
    assert.equal(await row.locator('.tool-preview').innerText(), '12 passing', 'the last line on the collapsed row');
    const middle = (sel: string) =>
      row.locator(sel).evaluate((e) => {
        const r = e.getBoundingClientRect();
        return (r.top + r.bottom) / 2;
      });
    const line = await middle('.tool-name');
    for (const sel of ['.tool-args', '.tool-duration'])
      assert.ok(Math.abs((await middle(sel)) - line) < 4, `${sel} is on the verb's line`);
    assert.match(
      (await row.locator('.tool-contained').getAttribute('title')) ?? '',
      /Ran contained: no network/,
      'containment is the lock',
    );
    await row.locator('summary').click();
    const out = await row.locator('pre.result').innerText();
    assert.doesNotMatch(out, /\[Ran contained|\[Files the command changed/);
    assert.match(out, /12 passing$/);
    assert.equal(await row.locator('.tool-preview').isVisible(), false, 'open: the output itself shows');
    assert.match(await p.page.locator('[data-id="th"] summary').innerText(), /^Thought: The parser lives in/);
    const [h1, body] = await p.page
      .locator('[data-id="a1"] .md')
      .evaluate((md) =>
        [md.querySelector('h1')!, md.querySelector('p')!].map((e) => parseFloat(getComputedStyle(e).fontSize)),
      );
    assert.ok(h1! <= body! * 1.35, `H1 ${h1} px against text ${body} px`);
  });

  it('first start without a chat model: the form opens on a local server, says it once, keeps no rejected endpoint', async () => {
    await p.host(
      state({
        provider: {
          configured: false,
          provider: 'VS Code chat model',
          problem:
            'No chat model is available in VS Code. Sign in to a chat model extension (e.g. GitHub Copilot), or run "Forge: Select Model" to use OpenAI, Anthropic or a local endpoint.',
        },
      }),
    );
    const form = p.page.locator('.setup-card');
    assert.equal(await form.isVisible(), true);
    assert.equal(await form.locator('select').inputValue(), 'openai-compatible', 'not the provider that has no model');
    const intro = await form.locator('.setup-problem').innerText();
    assert.doesNotMatch(intro, /Forge: Select Model/, 'no pointer to the palette while the form is on screen');
    assert.equal((intro.match(/chat model/gi) ?? []).length, 1, 'said once');
    await form.locator('input[type="url"]').fill('http://127.0.0.1:9/v1');
    await form.locator('input[list]').fill('qwen');
    await p.clearPosted();
    await form.locator('vscode-button[data-act="setup_check"]').click();
    await p.host({ type: 'provider_check', ok: false, message: 'Nothing is listening at http://127.0.0.1:9/v1' });
    await form.locator('vscode-button[data-act="setup_save"]').click();
    assert.deepEqual(
      (await p.posted()).filter((m) => m.type === 'save_provider'),
      [],
      'an endpoint the check just rejected is not saved on the first click',
    );
    assert.match(await form.locator('.check-result').innerText(), /Check connection failed.*press Save again/);
    await form.locator('vscode-button[data-act="setup_save"]').click();
    assert.equal((await p.posted()).filter((m) => m.type === 'save_provider').length, 1, 'a second Save keeps it');
  });

  it('a run whose only edit the user rejected ends as "nothing was written", not a green "Task complete"', async () => {
    const end = (id: string, nothingWritten?: boolean): ItemOf<'run_end'> => ({
      id,
      ts: 1,
      kind: 'run_end',
      reason: 'done',
      detail: 'Done.',
      iterations: 2,
      inputTokens: 9,
      outputTokens: 1,
      elapsedMs: 3000,
      actions: [],
      ...(nothingWritten ? { nothingWritten } : {}),
    });
    await p.host(state({ items: [end('e1', true), end('e2')] }));
    const title = (id: string) => p.page.locator(`[data-id="${id}"] .run-end-title`);
    assert.equal(await title('e1').innerText(), 'Finished: nothing was written');
    assert.equal(await title('e2').innerText(), 'Task complete');
    const colour = (id: string) =>
      title(id)
        .locator('.codicon')
        .evaluate((e) => getComputedStyle(e).color);
    assert.notEqual(await colour('e1'), await colour('e2'), 'not the success colour');
  });

  it('scrolled up during a stream: a Jump to latest button appears and brings the view back', async () => {
    await p.host(state({ items: [...manyItems(40), assistant('s1', 'streaming…', true)] }));
    const jump = p.page.locator('.jump-latest');
    assert.equal(await jump.isVisible(), false, 'at the bottom: no button');
    await p.page.locator('.transcript').evaluate((el) => el.scrollBy(0, -2000));
    await p.page.waitForTimeout(100);
    assert.equal(await jump.isVisible(), true, 'scrolled up: the button');
    await p.host(patch({ op: 'delta', id: 's1', field: 'text', delta: ' more text' }));
    await jump.click();
    await p.page.waitForTimeout(100);
    const gap = await p.page.locator('.transcript').evaluate((el) => el.scrollHeight - el.scrollTop - el.clientHeight);
    assert.ok(gap < 4, `back at the bottom (${gap} px off)`);
    assert.equal(await jump.isVisible(), false);
  });
});

// The panel as a whole: welcome, inline model setup, history, tool rows, run ends, numbers, mode switch, icons.
import { strict as assert } from 'node:assert';
import type { ItemOf } from '../../src/protocol/messages';
import { approval, assistant, patch, state, tool, user } from './fixtures';
import { usePanel, type PanelPage } from './harness';

const runEnd = (id: string, over: Partial<ItemOf<'run_end'>> = {}): ItemOf<'run_end'> => ({
  id,
  ts: 1,
  kind: 'run_end',
  reason: 'done',
  detail: 'Done.',
  iterations: 2,
  inputTokens: 900,
  outputTokens: 100,
  elapsedMs: 3000,
  actions: [],
  ...over,
});

describe('webview panel design (Chromium)', function () {
  let p: PanelPage;
  usePanel((page) => {
    p = page;
  });

  it('an empty panel welcomes with example tasks that fill the input (never send), and recent tasks', async () => {
    await p.host(
      state({
        history: [{ id: 't1', title: 'Add login form', updatedAt: Date.now() - 120_000, status: 'done', tokens: 1200 }],
      }),
    );
    const welcome = p.page.locator('.welcome');
    assert.equal(await welcome.isVisible(), true);
    assert.equal(await p.page.locator('.welcome .example').count(), 4);
    await p.clearPosted();
    await p.page.locator('.welcome .example').nth(1).click();
    assert.equal(await p.page.locator('textarea.input').inputValue(), 'Run the tests and fix what fails');
    assert.deepEqual(await p.posted(), [], 'an example is not sent');
    assert.match(await p.page.locator('.welcome .recent').innerText(), /Add login form\s+2 min ago/);
    // Keyboard: the examples are buttons.
    await p.page.locator('.welcome .example').first().focus();
    await p.page.keyboard.press('Enter');
    assert.match(await p.page.locator('textarea.input').inputValue(), /^Explain how this project/);
    // The first item replaces the greeting.
    await p.host(patch({ op: 'append', item: user('u1', 'hi') }));
    assert.equal(await welcome.isVisible(), false);
  });

  it('no model: the header names none, the setup form asks only what the provider needs, checks and saves', async () => {
    await p.host(
      state({
        provider: { configured: false, provider: 'OpenAI', model: 'gpt-4.1', problem: 'No API key for OpenAI.' },
      }),
    );
    assert.doesNotMatch(
      await p.page.locator('.header').innerText(),
      /gpt-4\.1/,
      'no model claimed that cannot be used',
    );
    assert.equal(await p.page.locator('.welcome').isVisible(), false);
    const form = p.page.locator('.setup-card');
    assert.equal(await form.isVisible(), true);
    // It opened on the provider in use and looked at the endpoint at once.
    assert.equal(await form.locator('select').inputValue(), 'openai');
    assert.deepEqual(
      (await p.posted()).filter((m) => m.type === 'check_provider'),
      [{ type: 'check_provider', provider: 'openai' }],
    );
    assert.equal(await form.locator('input[type="url"]').count(), 0, 'OpenAI needs no base URL');
    assert.equal(await form.locator('input[type="password"]').count(), 1);
    await form.locator('select').selectOption('openai-compatible');
    assert.equal(await form.locator('input[type="url"]').count(), 1);
    await form.locator('select').selectOption('vscode-lm');
    assert.equal(await form.locator('input[type="password"]').count(), 0, 'a VS Code model needs no key');
    await form.locator('select').selectOption('openai-compatible');
    await p.host({
      type: 'provider_check',
      ok: false,
      message: 'Nothing is listening at http://127.0.0.1:11434/v1',
      models: [],
      local: [
        { label: 'LM Studio at 127.0.0.1:1234', baseUrl: 'http://127.0.0.1:1234/v1', models: ['qwen2.5-coder-7b'] },
      ],
    });
    assert.match(await form.locator('.check-result').innerText(), /Nothing is listening/);
    await p.clearPosted();
    await form.locator('.found-row vscode-button').click();
    assert.equal(await form.locator('input[type="url"]').inputValue(), 'http://127.0.0.1:1234/v1');
    assert.equal(await form.locator('input[list]').inputValue(), 'qwen2.5-coder-7b');
    assert.deepEqual(await p.posted(), [
      { type: 'check_provider', provider: 'openai-compatible', baseUrl: 'http://127.0.0.1:1234/v1' },
    ]);
    await p.host({
      type: 'provider_check',
      ok: true,
      message: 'Connected: 2 models.',
      models: ['qwen2.5-coder-7b', 'llama3.1:8b'],
    });
    assert.equal(await form.locator('datalist option').count(), 2);
    await form.locator('input[type="password"]').fill('sk-local');
    await p.clearPosted();
    await form.locator('vscode-button[data-act="setup_save"]').click();
    assert.deepEqual(await p.posted(), [
      {
        type: 'save_provider',
        provider: 'openai-compatible',
        baseUrl: 'http://127.0.0.1:1234/v1',
        model: 'qwen2.5-coder-7b',
        apiKey: 'sk-local',
      },
    ]);
    // The host confirms and the model works: the form goes, the welcome comes.
    await p.host({ type: 'provider_check', ok: true, message: 'Saved.' });
    await p.host({
      type: 'provider_status',
      provider: { configured: true, provider: 'OpenAI-compatible endpoint', model: 'qwen2.5-coder-7b' },
    });
    assert.equal(await form.isVisible(), false);
    assert.equal(await p.page.locator('.welcome').isVisible(), true);
    assert.match(await p.page.locator('.header').innerText(), /qwen2\.5-coder-7b/);
  });

  it('history: searchable, opens with a click, deletes with its button, shows tokens and cost', async () => {
    const now = Date.now();
    await p.host(
      state({
        history: [
          {
            id: 'a',
            title: 'Add login form',
            updatedAt: now - 3_600_000 * 3,
            status: 'done',
            tokens: 12_400,
            costUsd: 0.042,
          },
          {
            id: 'b',
            title: 'Fix flaky parser test',
            updatedAt: now - 60_000 * 5,
            status: 'stopped',
            tokens: 0,
            costUsd: 0,
          },
        ],
      }),
    );
    await p.host({ type: 'show', view: 'history' });
    const list = p.page.locator('.history');
    assert.equal(await list.isVisible(), true);
    const text = await list.innerText();
    assert.match(text, /Add login form\s+3 h ago · 12k tokens · \$0\.04/);
    assert.match(text, /Fix flaky parser test\s+5 min ago/);
    assert.doesNotMatch(text, /\b0 tokens|\$0\.00/, 'a task that spent nothing shows no "0 tokens" and no "$0.00"');
    await p.page.locator('.history-search').fill('parser');
    assert.equal(await p.page.locator('.history-item').count(), 1);
    await p.clearPosted();
    await p.page.locator('.history-item button[data-act="delete_task"]').click({ force: true });
    await p.page.locator('.history-item a[data-task-id="b"]').click();
    assert.deepEqual(await p.posted(), [
      { type: 'delete_task', id: 'b' },
      { type: 'load_task', id: 'b' },
    ]);
    await p.host({ type: 'show', view: 'history' });
    await p.page.keyboard.press('Escape');
    assert.equal(await list.isVisible(), false, 'Escape closes the history');
  });

  it('tool rows: one line with verb, target, exit code and duration; output once; loop-control calls not shown twice', async () => {
    await p.host(
      state({
        items: [
          tool('r1'),
          tool('c1', {
            name: 'execute_command',
            argsText: '{"command":"npm test"}',
            argsSummary: 'npm test',
            exitCode: 1,
            durationMs: 2300,
            result: '$ npm test\nExit code: 1 (2.3 s)\n1 failing',
          }),
          tool('k1', {
            name: 'task_completion',
            argsText: '{"result":"All done"}',
            argsSummary: 'All done',
            result: 'All done',
          }),
          runEnd('e1', { detail: 'All done' }),
        ],
      }),
    );
    const head = p.page.locator('[data-id="c1"] .tool-head');
    assert.match(await head.innerText(), /Run\s+npm test\s+exit 1\s+2\.3 s/);
    const box = await head.boundingBox();
    // A second line previews the output's last line while the row is collapsed (issue 26).
    const preview = await head.locator('.tool-preview').boundingBox();
    assert.equal(await head.locator('.tool-preview').innerText(), '1 failing');
    assert.ok(box && preview && box.height - preview.height < 30, `one line and the preview (${box?.height} px)`);
    await head.click();
    const body = await p.page.locator('[data-id="c1"] .tool-body').innerText();
    assert.match(body, /\$ npm test/);
    assert.equal(body.match(/npm test/g)?.length, 1, 'the command is printed once');
    assert.doesNotMatch(body, /Exit code/, 'the exit code is on the row, not repeated');
    assert.equal(
      await p.page
        .locator('[data-id="c1"] .section-title')
        .allInnerTexts()
        .then((t) => t.join('|')),
      'Output',
    );
    assert.equal(await p.page.locator('[data-id="k1"]').isHidden(), true, 'task_completion shows once, as the run end');
    await p.host(
      patch({
        op: 'append',
        item: tool('k2', {
          name: 'converse',
          argsText: '{"reply":"Sur',
          argsSummary: '',
          status: 'pending',
          durationMs: undefined,
          result: undefined,
        }),
      }),
    );
    assert.match(
      await p.page.locator('[data-id="k2"] .tool-head').innerText(),
      /Replying/,
      'while it streams, the row says so',
    );
    await p.host(
      patch({
        op: 'update',
        item: tool('k2', {
          name: 'converse',
          argsText: '{"reply":"Sure."}',
          argsSummary: 'Sure.',
          status: 'done',
          result: 'Sure.',
        }),
      }),
    );
    assert.equal(await p.page.locator('[data-id="k2"]').isHidden(), true);
    assert.equal((await p.page.locator('.codicon').count()) > 5, true, 'codicons, not emoji');
    const fontLoaded = await p.page.evaluate(async () => {
      await document.fonts.load('16px codicon');
      return [...document.fonts].some((f) => f.family.replace(/"/g, '') === 'codicon' && f.status === 'loaded');
    });
    assert.equal(fontLoaded, true, 'the codicon font loads from the webview bundle under the CSP');
    assert.doesNotMatch(await p.page.locator('.items').innerText(), /[⚠⛔✅❌]/u);
  });

  it('a running command shows its output inline, then the same place shows the result', async () => {
    await p.host(
      state({
        status: { state: 'running' },
        items: [
          tool('c1', {
            name: 'execute_command',
            argsText: '{"command":"make"}',
            argsSummary: 'make',
            status: 'running',
            startedAt: Date.now(),
            durationMs: undefined,
            result: undefined,
            progress: 'compiling a.c\n',
          }),
        ],
      }),
    );
    assert.equal(await p.page.locator('[data-id="c1"] details').getAttribute('open'), '', 'open while it runs');
    assert.equal(await p.page.locator('[data-id="c1"] pre.progress-out').innerText(), 'compiling a.c\n');
    await p.host(
      patch({
        op: 'update',
        item: tool('c1', {
          name: 'execute_command',
          argsText: '{"command":"make"}',
          argsSummary: 'make',
          status: 'done',
          exitCode: 0,
          durationMs: 900,
          progress: 'compiling a.c\n',
          result: '$ make\nExit code: 0 (0.9 s)\ncompiling a.c',
        }),
      }),
    );
    assert.equal(
      await p.page.locator('[data-id="c1"] pre').filter({ hasText: 'compiling' }).count(),
      1,
      'no "Output (live)" next to "Result"',
    );
  });

  it('run ends: a plain answer ends quietly; stopped runs show no zero numbers; failures offer Retry and Open settings', async () => {
    await p.host(
      state({
        items: [
          user('u1', 'hi'),
          assistant('a1', 'Hello! How can I help?'),
          runEnd('e1', {
            reason: 'converse',
            detail: '',
            iterations: 1,
            inputTokens: 20,
            outputTokens: 8,
            elapsedMs: 800,
          }),
          runEnd('e2', {
            reason: 'stopped',
            detail: 'Stopped by the user.',
            iterations: 0,
            inputTokens: 0,
            outputTokens: 0,
            costUsd: 0,
            elapsedMs: 0,
            actions: ['continue'],
          }),
          runEnd('e3', {
            reason: 'error',
            detail: 'Model error (network): could not reach http://127.0.0.1:9/v1',
            iterations: 1,
            inputTokens: 0,
            outputTokens: 0,
            elapsedMs: 7100,
            actions: ['retry', 'open_settings', 'show_logs'],
          }),
        ],
      }),
    );
    assert.doesNotMatch(await p.page.locator('[data-id="e1"]').innerText(), /Task complete|Reply/);
    assert.match(await p.page.locator('[data-id="e1"]').innerText(), /1 iteration · 28 tokens/);
    const stopped = await p.page.locator('[data-id="e2"]').innerText();
    assert.doesNotMatch(stopped, /\$0|0 tokens|0 iterations/);
    await p.clearPosted();
    await p.page.locator('[data-id="e3"] vscode-button[data-action="retry"]').click();
    await p.page.locator('[data-id="e3"] vscode-button[data-action="open_settings"]').click();
    const posted = await p.posted();
    assert.equal(posted[0]?.type, 'continue');
    assert.deepEqual(posted[1], { type: 'open_settings' });
  });

  it('numbers: no "0 in · 0 out" while the first reply streams; the mode switch posts set_mode', async () => {
    await p.host(
      state({
        status: { state: 'running', mode: 'agent' },
        modes: [
          { id: 'agent', label: 'Agent' },
          { id: 'plan', label: 'Plan' },
        ],
        mode: 'agent',
        progress: { iteration: 1, maxIterations: 25, inputTokens: 0, outputTokens: 0, elapsedMs: 0 },
      }),
    );
    const progress = await p.page.locator('.progress-text').innerText();
    assert.match(progress, /^Iteration 1 \/ 25/);
    assert.doesNotMatch(progress, /0 in/);
    const mode = p.page.locator('select.mode-select');
    assert.equal(await mode.isDisabled(), true, 'not while running');
    await p.host(patch({ op: 'status', status: { state: 'idle' } }));
    assert.equal(await mode.isDisabled(), false);
    await p.clearPosted();
    await mode.selectOption('plan');
    assert.deepEqual(await p.posted(), [{ type: 'set_mode', mode: 'plan' }]);
  });

  it('the one-line input shows no scroll bar; code blocks are highlighted; a pending command is printed once', async () => {
    await p.host(
      state({
        items: [
          assistant('m1', '```ts\nconst a: number = 1;\n```'),
          approval('c1', 'req-c1', {
            toolName: 'execute_command',
            risk: 'execute',
            summary: 'Run: npm test',
            preview: { kind: 'command', command: 'npm test' },
          }),
        ],
      }),
    );
    const overflow = await p.page.locator('textarea.input').evaluate((el) => getComputedStyle(el).overflowY);
    assert.equal(overflow, 'hidden');
    await p.page.locator('[data-id="m1"] .md:not([data-pending])').waitFor();
    assert.ok((await p.page.locator('[data-id="m1"] code .hljs-keyword').count()) >= 1, 'highlighted');
    assert.equal((await p.page.locator('[data-id="c1"]').innerText()).match(/npm test/g)?.length, 1);
  });
});

// Slash command completion in the chat input, command notices, Escape to stop, nested sub-agent steps and the
// "Implement this plan" button, in the built webview under the real CSP (headless Chromium).
import { strict as assert } from 'node:assert';
import type { HostMessage, ItemOf } from '../../src/protocol/messages';
import { patch, state, tool, user } from './fixtures';
import { eventuallyText, usePanel, type PanelPage } from './harness';

const COMMANDS: HostMessage = {
  type: 'slash_commands',
  commands: [
    { name: 'stop', description: 'Stop the running task', source: 'builtin' },
    { name: 'new', description: 'Start a new task', source: 'builtin' },
    {
      name: 'mode',
      description: 'Switch mode',
      argumentHint: '<mode>',
      source: 'builtin',
      choices: ['agent', 'plan', 'review'],
    },
    { name: 'model', description: 'Choose the model', source: 'builtin' },
    { name: 'help', description: 'List the commands', source: 'builtin' },
    { name: 'review', description: 'Review a file', argumentHint: '<file>', source: 'custom' },
  ],
};

describe('webview slash commands and nested steps (Chromium)', function () {
  let p: PanelPage;
  usePanel((page) => {
    p = page;
  });

  const input = () => p.page.locator('textarea.input');
  const options = () => p.page.locator('#forge-slash-menu [role="option"]');

  it('completes as you type "/": filtered list, Up/Down with aria-activedescendant, Tab completes, Escape closes', async () => {
    await p.host(state());
    await p.host(COMMANDS);
    await input().click();
    await p.page.keyboard.type('/');
    assert.equal(await options().count(), 6);
    assert.equal(await input().getAttribute('role'), 'combobox');
    assert.equal(await input().getAttribute('aria-expanded'), 'true');
    assert.equal(await p.page.locator('#forge-slash-menu').getAttribute('role'), 'listbox');
    await p.page.keyboard.type('mo');
    assert.deepEqual(await options().locator('.slash-name').allTextContents(), ['/mode', '/model']);
    assert.equal(await input().getAttribute('aria-activedescendant'), 'forge-slash-menu-0');
    await p.page.keyboard.press('ArrowDown');
    assert.equal(await input().getAttribute('aria-activedescendant'), 'forge-slash-menu-1');
    assert.equal(await options().nth(1).getAttribute('aria-selected'), 'true');
    await p.page.keyboard.press('ArrowDown'); // wraps
    assert.equal(await input().getAttribute('aria-activedescendant'), 'forge-slash-menu-0');
    await p.page.keyboard.press('Tab');
    assert.equal(await input().inputValue(), '/mode ');
    // The argument's choices (from the host) are offered next.
    assert.deepEqual(await options().locator('.slash-name').allTextContents(), [
      '/mode agent',
      '/mode plan',
      '/mode review',
    ]);
    await p.page.keyboard.type('pl');
    assert.deepEqual(await options().locator('.slash-name').allTextContents(), ['/mode plan']);
    await p.clearPosted();
    await p.page.keyboard.press('Enter');
    assert.equal(await p.page.locator('#forge-slash-menu').isHidden(), true);
    assert.equal(await input().getAttribute('aria-expanded'), 'false');
    const sent = await p.posted();
    assert.equal(sent.length, 1);
    assert.deepEqual(
      { ...sent[0], requestId: undefined },
      { type: 'send_message', requestId: undefined, text: '/mode plan' },
    );
    // Escape closes the list and it stays closed for that text.
    await p.page.keyboard.type('/he');
    assert.equal(await options().count(), 1);
    await p.page.keyboard.press('Escape');
    assert.equal(await p.page.locator('#forge-slash-menu').isHidden(), true);
    assert.equal(await input().inputValue(), '/he');
  });

  it('Enter on a command without arguments sends it; the mouse picks too; notices show and dismiss', async () => {
    await p.host(state());
    await p.host(COMMANDS);
    await input().click();
    await p.page.keyboard.type('/hel');
    await p.clearPosted();
    await p.page.keyboard.press('Enter');
    assert.deepEqual(
      (await p.posted()).map((m) => m.type === 'send_message' && m.text),
      ['/help'],
    );
    await p.page.keyboard.type('/rev');
    await options().first().click();
    assert.equal(await input().inputValue(), '/review ');
    await p.host({ type: 'command_notice', text: 'Commands:\n- `/mode <mode>` — Switch mode', level: 'info' });
    assert.equal(await p.page.locator('.slash-notice code').first().textContent(), '/mode <mode>');
    await p.host({
      type: 'command_notice',
      text: 'Unknown command /x. Type /help for the list; nothing was sent to the model.',
      level: 'error',
    });
    assert.equal(await p.page.locator('.slash-notice').getAttribute('role'), 'alert');
    await p.page.locator('.slash-notice-close').click();
    assert.equal(await p.page.locator('.slash-notice').isHidden(), true);
    // The next message sent clears an answer that is still shown.
    await p.host({ type: 'command_notice', text: 'Mode: Plan', level: 'info' });
    assert.equal(await p.page.locator('.slash-notice').isVisible(), true);
    await input().fill('Plan the feature');
    await p.page.keyboard.press('Enter');
    assert.equal(await p.page.locator('.slash-notice').isHidden(), true);
  });

  it('while a run is going: Escape and /stop stop it; other commands still reach the host', async () => {
    await p.host(state({ status: { state: 'running', runId: 'r1', requestId: 'req-1' } }));
    await p.host(COMMANDS);
    await input().click();
    await p.clearPosted();
    await p.page.keyboard.press('Escape');
    assert.deepEqual(await p.posted(), [{ type: 'stop', requestId: 'req-1' }]);
    await p.clearPosted();
    await input().fill('/stop');
    await p.page.keyboard.press('Enter');
    assert.deepEqual(await p.posted(), [{ type: 'stop', requestId: 'req-1' }]);
    await p.clearPosted();
    await input().fill('/mode review');
    await p.page.keyboard.press('Enter');
    assert.deepEqual(
      (await p.posted()).map((m) => m.type === 'send_message' && m.text),
      ['/mode review'],
    );
    await p.clearPosted();
    await input().fill('an ordinary message');
    await p.page.keyboard.press('Enter');
    assert.deepEqual(
      await p.posted(),
      [{ type: 'steer_message', text: 'an ordinary message' }],
      'an ordinary message steers the run (messageQueue.ts)',
    );
  });

  it("shows a sub-agent's steps indented under the delegate card, collapsible; the plan button posts implement_plan", async () => {
    const child = (id: string, over: Partial<ItemOf<'tool'>> = {}) => tool(id, { parentId: 'd1', ...over });
    await p.host(
      state({
        items: [
          user('u1', 'Investigate'),
          tool('d1', { name: 'delegate_task', status: 'running', argsSummary: 'look at a.ts' }),
        ],
      }),
    );
    await p.host(
      patch(
        {
          op: 'append',
          item: { id: 'c1', ts: 1, kind: 'assistant', text: 'Looking at a.ts', streaming: false, parentId: 'd1' },
        },
        { op: 'append', item: child('c2') },
      ),
    );
    assert.equal(await p.page.locator('.item.sub-item').count(), 2);
    const indent = await p.page.locator('[data-id="c2"]').evaluate((el) => getComputedStyle(el).marginLeft);
    assert.notEqual(indent, '0px');
    const toggle = p.page.locator('[data-id="d1"] .sub-toggle');
    assert.match((await toggle.textContent()) ?? '', /Hide helper steps \(2\)/);
    await toggle.click();
    assert.equal(await p.page.locator('[data-id="c1"]').isHidden(), true);
    assert.equal(await toggle.getAttribute('aria-expanded'), 'false');
    // A step that arrives while collapsed stays hidden; an update of the card keeps the state.
    await p.host(
      patch(
        { op: 'append', item: child('c3') },
        { op: 'update', item: tool('d1', { name: 'delegate_task', status: 'done' }) },
      ),
    );
    assert.equal(await p.page.locator('[data-id="c3"]').isHidden(), true);
    assert.match((await p.page.locator('[data-id="d1"] .sub-toggle').textContent()) ?? '', /Show helper steps \(3\)/);
    await p.page.locator('[data-id="d1"] .sub-toggle').click();
    assert.equal(await p.page.locator('[data-id="c3"]').isVisible(), true);

    await p.host(
      patch(
        {
          op: 'append',
          item: {
            id: 'e1',
            ts: 1,
            kind: 'run_end',
            reason: 'done',
            detail: '1. Add the flag',
            iterations: 3,
            inputTokens: 1,
            outputTokens: 1,
            elapsedMs: 1,
            actions: ['implement_plan'],
          },
        },
        {
          op: 'append',
          item: {
            id: 'x1',
            ts: 1,
            kind: 'context',
            mode: 'plan',
            sources: ['package.json', 'tree (12 entries)'],
            tokens: 640,
          },
        },
      ),
    );
    const contextLine = /Plan mode context: package\.json, tree \(12 entries\) \(~640 tokens\)/;
    assert.match(await eventuallyText(p.page.locator('[data-id="x1"]'), contextLine), contextLine);
    await p.clearPosted();
    await p.page.locator('[data-id="e1"] vscode-button[data-action="implement_plan"]').click();
    const posted = await p.posted();
    assert.equal(posted.length, 1);
    assert.equal(posted[0].type, 'implement_plan');
  });
});

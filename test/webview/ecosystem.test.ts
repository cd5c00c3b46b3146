// The ecosystem strip (MCP servers, rules in use, queued attachments) in the built webview under its CSP.
import { strict as assert } from 'node:assert';
import { state } from './fixtures';
import { usePanel, type PanelPage } from './harness';

describe('webview ecosystem strip (Chromium)', function () {
  let p: PanelPage;
  usePanel((page) => {
    p = page;
  });

  it('stays hidden with nothing to show, then lists servers and rules and posts their actions', async () => {
    await p.host(state());
    assert.equal(await p.page.locator('.eco-strip').isHidden(), true);
    await p.host({
      type: 'ecosystem',
      ecosystem: {
        mcp: [
          { name: 'fs', state: 'running', tools: 14 },
          { name: 'broken', state: 'error', error: 'could not start: spawn nope ENOENT' },
        ],
        rules: [
          { display: 'AGENTS.md', kind: 'root', truncated: false },
          { display: 'pkg/AGENTS.md', kind: 'nested', truncated: true },
        ],
        attachments: ['file:///a.txt'],
      },
    });
    const strip = p.page.locator('.eco-strip');
    assert.equal(await strip.isVisible(), true);
    assert.equal(
      await strip.locator('details[data-key="mcp"] summary').textContent(),
      'MCP: 2 servers, 1 running, 1 failing',
    );
    assert.equal(await strip.locator('details[data-key="rules"] summary').textContent(), 'Rules in use: 2');
    assert.match((await strip.textContent()) ?? '', /Attached to next message: 1/);
    await strip.locator('details[data-key="mcp"] summary').click();
    assert.match(await strip.locator('details[data-key="mcp"] li').nth(0).innerText(), /fs\s+running · 14 tools/);
    assert.match(await strip.locator('details[data-key="mcp"] li').nth(1).innerText(), /spawn nope ENOENT/);
    await p.clearPosted();
    await strip.locator('a[data-eco="show_mcp_servers"]').click();
    await strip.locator('details[data-key="rules"] summary').click();
    await strip.locator('a[data-eco="open_rule"][data-display="pkg/AGENTS.md"]').click();
    await strip.locator('a[data-eco="edit_rules"]').click();
    assert.deepEqual(await p.posted(), [
      { type: 'ecosystem_action', action: 'show_mcp_servers' },
      { type: 'ecosystem_action', action: 'open_rule', display: 'pkg/AGENTS.md' },
      { type: 'ecosystem_action', action: 'edit_rules' },
    ]);
    // An update keeps what the user opened.
    await p.host({
      type: 'ecosystem',
      ecosystem: { mcp: [{ name: 'fs', state: 'crashed' }], rules: [], attachments: [] },
    });
    assert.equal(await strip.locator('details[data-key="mcp"]').getAttribute('open'), '');
    assert.equal(await strip.locator('details[data-key="rules"]').count(), 0, 'no rules: nothing to say');
  });

  it('a server waiting for permission is a question, not a failure, with the way to answer it (issue 26)', async () => {
    await p.host(state());
    await p.host({
      type: 'ecosystem',
      ecosystem: {
        mcp: [
          { name: 'db', state: 'needs_permission', error: 'not started: waiting for your permission' },
          { name: 'broken', state: 'error', error: 'could not start: spawn nope ENOENT' },
        ],
        rules: [],
        attachments: [],
      },
    });
    const strip = p.page.locator('.eco-strip');
    assert.equal(
      await strip.locator('details[data-key="mcp"] summary').textContent(),
      'MCP: 2 servers, 1 waiting for you, 1 failing',
    );
    await strip.locator('details[data-key="mcp"] summary').click();
    assert.match(await strip.locator('li').nth(0).innerText(), /db\s+waiting for your permission$/);
    const colour = (sel: string) => strip.locator(sel).evaluate((e) => getComputedStyle(e).backgroundColor);
    assert.notEqual(await colour('.eco-dot.eco-needs_permission'), await colour('.eco-dot.eco-error'), 'not red');
    await p.clearPosted();
    await strip.locator('.eco-ask a', { hasText: 'Allow MCP server “db”…' }).click();
    assert.deepEqual(await p.posted(), [{ type: 'ecosystem_action', action: 'show_mcp_servers' }]);
  });

  it('drops a forged ecosystem message', async () => {
    await p.host(state());
    await p.host({ type: 'ecosystem', ecosystem: { mcp: 'nope', rules: [], attachments: [] } });
    assert.equal(await p.page.locator('.eco-strip').isHidden(), true);
  });
});

// The team's skills and custom agents in the built webview under its CSP: the ecosystem strip's skills and agents
// sections, the mode switch's labels (an agent's own model beside it), and /mode completing custom agents.
import { strict as assert } from 'node:assert';
import type { HostMessage } from '../../src/protocol/messages';
import { state } from './fixtures';
import { usePanel, type PanelPage } from './harness';

const ECOSYSTEM: HostMessage = {
  type: 'ecosystem',
  ecosystem: {
    mcp: [],
    rules: [],
    attachments: [],
    skills: [
      { name: 'release-notes', display: '.agents/skills/release-notes/SKILL.md', loaded: true },
      { name: 'pdf', display: '.claude/skills/pdf/SKILL.md', loaded: false },
    ],
    agents: [{ name: 'reviewer', display: '.claude/agents/reviewer.md', model: 'gpt-4o-mini' }],
    teamProblems: [{ display: '.claude/agents/broken.md', reason: 'it has no prompt' }],
  },
};

describe('webview team files: skills, agents, modes (Chromium)', function () {
  let p: PanelPage;
  usePanel((page) => {
    p = page;
  });

  it('the strip lists skills (loaded ones marked), problems with their reason, agents with their model', async () => {
    await p.host(state());
    await p.host(ECOSYSTEM);
    const strip = p.page.locator('.eco-strip');
    const skills = strip.locator('details[data-key="skills"]');
    assert.equal(await skills.locator('summary').textContent(), 'Skills: 2, loaded: release-notes, 1 not used');
    await skills.locator('summary').click();
    const rows = skills.locator('li');
    assert.equal(await rows.count(), 3);
    assert.match(await rows.nth(0).innerText(), /release-notes\s+loaded/);
    assert.equal(await rows.nth(0).getAttribute('class'), 'eco-loaded');
    assert.doesNotMatch(await rows.nth(1).innerText(), /loaded/);
    assert.match(await rows.nth(2).innerText(), /broken\.md\s+it has no prompt/);
    const agents = strip.locator('details[data-key="agents"]');
    assert.equal(await agents.locator('summary').textContent(), 'Agents: 1');
    await agents.locator('summary').click();
    assert.match(await agents.locator('li').innerText(), /reviewer\s+gpt-4o-mini/);
    await p.clearPosted();
    await skills.locator('a[data-eco="open_team_file"]').first().click();
    assert.deepEqual(await p.posted(), [
      { type: 'ecosystem_action', action: 'open_team_file', display: '.agents/skills/release-notes/SKILL.md' },
    ]);
    // No skills and no agents: the sections go.
    await p.host({ type: 'ecosystem', ecosystem: { mcp: [], rules: [], attachments: [], skills: [], agents: [] } });
    assert.equal(await strip.locator('details[data-key="skills"]').count(), 0);
    assert.equal(await strip.locator('details[data-key="agents"]').count(), 0);
  });

  it('the mode switch names an agent and its own model; picking it posts set_mode', async () => {
    await p.host(
      state({
        modes: [
          { id: 'agent', label: 'Agent' },
          { id: 'review', label: 'Review', model: 'claude-haiku' },
          { id: 'reviewer', label: 'reviewer', model: 'gpt-4o-mini' },
        ],
        mode: 'agent',
      }),
    );
    const select = p.page.locator('select.mode-select');
    assert.deepEqual(await select.locator('option').allTextContents(), [
      'Agent',
      'Review · claude-haiku',
      'reviewer · gpt-4o-mini',
    ]);
    assert.equal(await select.inputValue(), 'agent');
    await p.clearPosted();
    await select.selectOption('reviewer');
    assert.deepEqual(await p.posted(), [{ type: 'set_mode', mode: 'reviewer' }]);
  });

  it('/mode completes custom agents with their description', async () => {
    await p.host(state());
    await p.host({
      type: 'slash_commands',
      commands: [
        {
          name: 'mode',
          description: 'Switch mode',
          argumentHint: '<mode>',
          source: 'builtin',
          choices: ['agent', 'plan', 'reviewer'],
          choiceDescriptions: { reviewer: 'Reviews the diff for bugs' },
        },
      ],
    });
    await p.page.locator('textarea.input').click();
    await p.page.keyboard.type('/mode ');
    const options = p.page.locator('#forge-slash-menu [role="option"]');
    assert.deepEqual(await options.locator('.slash-name').allTextContents(), [
      '/mode agent',
      '/mode plan',
      '/mode reviewer',
    ]);
    assert.deepEqual(await options.locator('.slash-desc').allTextContents(), ['', '', 'Reviews the diff for bugs']);
    await p.page.keyboard.type('rev');
    assert.deepEqual(await options.locator('.slash-name').allTextContents(), ['/mode reviewer']);
  });
});

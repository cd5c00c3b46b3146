#!/usr/bin/env node
// Screenshots for looking, not a test: a custom agent (.claude/agents/reviewer.md) and a skill
// (.agents/skills/release-notes/SKILL.md) as people see them: the mode switch's choices with the agent and its
// model, the ecosystem strip with the skill loaded after a run, and the /mode slash menu listing the agent, in the
// real VS Code (code-server + Chromium) with the scripted loopback model, in the light, dark and high-contrast dark
// themes at 300 and 600 px side bars. Writes test-results/team-<state>-<theme>-<width>.png.
//
//   node esbuild.mjs && node scripts/screenshots/team-files-shots.mjs   (FORGE_SHOTS_THEMES=dark, FORGE_SHOTS_WIDTHS=300)
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { openForgePanel, setSidebarWidth } from '../../test/integration/ui/workbench.mjs';
import { pickColorTheme, startShotSession } from '../../test/integration/ui/session.mjs';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const shots = path.join(repo, 'test-results');
// 'hc' is picked through the theme picker (as ui-shots.mjs does): the setting alone gives the light high contrast.
const ALL_THEMES = { light: 'Default Light Modern', dark: 'Default Dark Modern', hc: 'Default High Contrast' };
const THEMES = Object.fromEntries(
  Object.entries(ALL_THEMES).filter(
    ([k]) => !process.env.FORGE_SHOTS_THEMES || process.env.FORGE_SHOTS_THEMES.split(',').includes(k),
  ),
);
const WIDTHS = (process.env.FORGE_SHOTS_WIDTHS ?? '300,600').split(',').map(Number);

const turns = [
  {
    text: 'I will load the release notes skill.',
    toolCalls: [{ id: 'k1', name: 'use_skill', args: { name: 'release-notes' } }],
  },
  { toolCalls: [{ id: 'k2', name: 'task_completion', args: { result: 'Drafted the release notes.' } }] },
];

function prepare(workspace) {
  const agents = path.join(workspace, '.claude', 'agents');
  fs.mkdirSync(agents, { recursive: true });
  fs.writeFileSync(
    path.join(agents, 'reviewer.md'),
    '---\nname: reviewer\ndescription: Reviews diffs for bugs\ntools: Read, Grep\nmodel: gpt-4.1-mini\n---\n\n' +
      'You review the diff you are given and report bugs, with the file and line of each.\n',
  );
  const skill = path.join(workspace, '.agents', 'skills', 'release-notes');
  fs.mkdirSync(skill, { recursive: true });
  fs.writeFileSync(
    path.join(skill, 'SKILL.md'),
    '---\nname: release-notes\ndescription: Writes release notes from the changes since the last tag\n---\n\n' +
      '# Release notes\n\n1. List the commits since the last tag.\n2. Group them under Added, Changed and Fixed.\n',
  );
}

async function snap(page, state, label, before) {
  for (const width of WIDTHS) {
    await setSidebarWidth(page, width, (m) => console.log(`[shots] ${m}`));
    await page.waitForTimeout(300);
    if (before) await before();
    const box = await page.locator('.part.sidebar').boundingBox();
    const file = path.join(shots, `team-${state}-${label}-${width}.png`);
    await page.screenshot({
      path: file,
      clip: { x: 0, y: 0, width: Math.round((box?.x ?? 48) + (box?.width ?? width) + 40), height: 900 },
    });
    console.log(`[shots] ${file}`);
  }
}

async function run(theme, label) {
  const session = await startShotSession({
    repo,
    prefix: 'forge-tshots-',
    userSettings: {
      'workbench.colorTheme': theme,
      'window.autoDetectHighContrast': false,
      'window.autoDetectColorScheme': false,
    },
    turns,
    prepare,
  });
  const { page } = session;
  try {
    if (label === 'hc') await pickColorTheme(page, 'Dark High Contrast', 'hc-black');
    const { panel, wv } = await openForgePanel(page);
    // The run first, in the default mode: the reviewer agent may only Read and Grep, so it could not load a skill.
    await panel.input.fill('Write the release notes for 1.4.');
    await panel.input.press('Enter');
    await panel.runEnd('done').waitFor({ timeout: 60_000 });
    const skills = wv.locator('.eco-strip details[data-key="skills"]');
    await skills.waitFor({ timeout: 10_000 });
    if (!(await skills.evaluate((d) => d.open))) await skills.locator('summary').click();
    const agents = wv.locator('.eco-strip details[data-key="agents"]');
    if ((await agents.count()) && !(await agents.evaluate((d) => d.open))) await agents.locator('summary').click();
    await page.waitForTimeout(400);
    await snap(page, '1-ecosystem-skill-loaded', label);

    const select = wv.locator('select.mode-select');
    await select.waitFor({ timeout: 30_000 });
    const options = await select.locator('option').allTextContents();
    console.log(`[shots] mode switch choices: ${JSON.stringify(options)}`);
    // A native <select>'s popup is not in a screenshot: shown as a list box (size = its choices) for the picture.
    await select.evaluate((el, n) => (el.size = n), options.length);
    await snap(page, '2-mode-choices', label);
    await select.evaluate((el) => (el.size = 0));
    const agentOption = options.find((o) => /reviewer/i.test(o));
    if (agentOption) await select.selectOption({ label: agentOption });
    await page.waitForTimeout(500);
    await snap(page, '3-mode-agent-picked', label);

    await panel.input.fill('/mode ');
    await wv.locator('.slash-menu .slash-option').first().waitFor({ timeout: 10_000 });
    await snap(page, '4-slash-mode', label, async () => {
      await panel.input.fill('/mode');
      await panel.input.fill('/mode ');
      await page.waitForTimeout(300);
    });
  } finally {
    await session.close();
  }
}

fs.mkdirSync(shots, { recursive: true });
for (const [label, theme] of Object.entries(THEMES)) await run(theme, label);
process.exit(0);

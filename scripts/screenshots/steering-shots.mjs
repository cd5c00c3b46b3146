#!/usr/bin/env node
// Screenshots for looking, not a test: typing while a run works (the steer / queue switch, the waiting list, a
// queued message being edited), a steered message in the conversation, and edit-and-resend's editor, in the real
// VS Code (code-server + Chromium) with the scripted loopback model, in the light, dark and high-contrast themes
// at 300 and 600 px side bars. Writes test-results/steering-<state>-<theme>-<width>.png.
//
//   node esbuild.mjs && node scripts/screenshots/steering-shots.mjs   (FORGE_SHOTS_THEMES=dark, FORGE_SHOTS_WIDTHS=300)
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { openForgePanel, setSidebarWidth } from '../../test/integration/ui/workbench.mjs';
import { pickColorTheme, startShotSession } from '../../test/integration/ui/session.mjs';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const shots = path.join(repo, 'test-results');
// 'hc' is picked through the theme picker (as ui-shots.mjs does): the setting alone gives the light high contrast.
const ALL_THEMES = {
  light: 'Default Light Modern',
  dark: 'Default Dark Modern',
  hc: 'Default High Contrast',
  'hc-light': 'Default High Contrast Light',
};
const THEMES = Object.fromEntries(
  Object.entries(ALL_THEMES).filter(
    ([k]) => !process.env.FORGE_SHOTS_THEMES || process.env.FORGE_SHOTS_THEMES.split(',').includes(k),
  ),
);
const WIDTHS = (process.env.FORGE_SHOTS_WIDTHS ?? '300,600').split(',').map(Number);

const turns = [
  {
    text: "I'll add the greeting file first.",
    toolCalls: [{ id: 's1', name: 'write_file', args: { path: 'src/hello.js', content: "module.exports = 'hi';\n" } }],
  },
  { toolCalls: [{ id: 's2', name: 'task_completion', args: { result: 'Added src/hello.js, with tabs.' } }] },
  { toolCalls: [{ id: 's3', name: 'task_completion', args: { result: 'The README mentions src/hello.js now.' } }] },
];

async function snap(page, state, label) {
  for (const width of WIDTHS) {
    await setSidebarWidth(page, width, (m) => console.log(`[shots] ${m}`));
    await page.waitForTimeout(300);
    const box = await page.locator('.part.sidebar').boundingBox();
    const file = path.join(shots, `steering-${state}-${label}-${width}.png`);
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
    prefix: 'forge-sshots-',
    userSettings: {
      'workbench.colorTheme': theme,
      'window.autoDetectHighContrast': false,
      'window.autoDetectColorScheme': false,
      'forge.showDiffOnProposal': false,
    },
    turns,
  });
  const { page } = session;
  try {
    if (label === 'hc') await pickColorTheme(page, 'Dark High Contrast', 'hc-black');
    const { panel, wv } = await openForgePanel(page);
    await panel.input.fill('Add a greeting module in src/hello.js.');
    await panel.input.press('Enter');
    await panel.pendingApproval.waitFor({ timeout: 60_000 });
    // While it waits: one steer (Enter), one queued message (Alt+Enter).
    await panel.input.fill('Use tabs, not spaces.');
    await panel.input.press('Enter');
    await panel.input.fill('Then mention it in the README.');
    await panel.input.press('Alt+Enter');
    await wv.locator('.queue-list .queued').nth(1).waitFor({ timeout: 10_000 });
    await panel.input.fill('Also add a test');
    await snap(page, '1-queue-and-steer', label);
    await panel.input.fill('');
    await wv.locator('.queued [data-queue-act="edit"]').first().click();
    await wv.locator('.queued-input').waitFor({ timeout: 10_000 });
    await snap(page, '2-queued-edit', label);
    await wv.locator('.queued [data-queue-act="cancel"]').first().click();
    // Approve: the steer reaches the model, then the queued message runs.
    await panel.approveButton.click();
    await wv.locator('.item-run_end').nth(1).waitFor({ timeout: 60_000 });
    await wv.locator('.user-steered').first().scrollIntoViewIfNeeded();
    await snap(page, '3-steered', label);
    const first = wv.locator('.item-user').first();
    await first.scrollIntoViewIfNeeded();
    await first.hover();
    await first.locator('.edit-message').click();
    await wv.locator('.edit-message-form').waitFor({ timeout: 10_000 });
    await wv.locator('.edit-message-files').check();
    await snap(page, '4-edit-and-resend', label);
  } finally {
    await session.close();
  }
}

fs.mkdirSync(shots, { recursive: true });
for (const [label, theme] of Object.entries(THEMES)) await run(theme, label);
process.exit(0);

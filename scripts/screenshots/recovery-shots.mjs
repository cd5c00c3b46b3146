#!/usr/bin/env node
// Screenshots for looking, not a test: the live plan pinned above the conversation, tool cards with "Restore to
// here", the restore confirmation, the checkpoint mark a restore leaves and its Redo, in the real VS Code (code-server +
// Chromium) with the scripted loopback model. Writes test-results/recovery-<n>-<what>-<theme>.png.
//
//   node esbuild.mjs && node scripts/screenshots/recovery-shots.mjs        (FORGE_SHOTS_THEMES=dark,light)
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { openForgePanel, widenSidebar } from '../../test/integration/ui/workbench.mjs';
import { startShotSession } from '../../test/integration/ui/session.mjs';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const shots = path.join(repo, 'test-results');
const ALL_THEMES = { dark: 'Default Dark Modern', light: 'Default Light Modern' };
const THEMES = Object.fromEntries(
  Object.entries(ALL_THEMES).filter(
    ([k]) => !process.env.FORGE_SHOTS_THEMES || process.env.FORGE_SHOTS_THEMES.split(',').includes(k),
  ),
);
const plan = {
  goal: 'Add a --json flag to the CLI',
  steps: [
    { text: 'Read the argument parser', status: 'done' },
    { text: 'Add the flag and the JSON printer', status: 'in_progress' },
    { text: 'Document it in the README', status: 'pending' },
    { text: 'Run the tests', status: 'pending' },
  ],
  currentStep: 2,
};
const turns = [
  { text: 'I will plan this first.', toolCalls: [{ id: 'p1', name: 'update_plan', args: plan }] },
  {
    toolCalls: [
      {
        id: 'w1',
        name: 'write_file',
        args: { path: 'src/json.js', content: 'module.exports = (x) => JSON.stringify(x);\n' },
      },
    ],
  },
  {
    toolCalls: [
      {
        id: 'w2',
        name: 'write_file',
        args: { path: 'src/json.js', content: 'module.exports = (x) => JSON.stringify(x, null, 2);\n' },
      },
    ],
  },
  {
    toolCalls: [
      {
        id: 'p2',
        name: 'update_plan',
        args: {
          ...plan,
          steps: plan.steps.map((s, i) => ({ ...s, status: i < 2 ? 'done' : i === 2 ? 'in_progress' : 'pending' })),
          currentStep: 3,
        },
      },
    ],
  },
  { toolCalls: [{ id: 'd1', name: 'task_completion', args: { result: 'Added the printer.' } }] },
];

async function shot(page, name, label) {
  const file = path.join(shots, `recovery-${name}-${label}.png`);
  await page.screenshot({ path: file });
  console.log(`[shots] ${file}`);
}

async function run(theme, label) {
  const session = await startShotSession({
    repo,
    prefix: 'forge-rshots-',
    // Auto-approve is the user's setting (a workspace's value would apply only once the user allowed it there).
    userSettings: {
      'workbench.colorTheme': theme,
      'window.autoDetectHighContrast': false,
      'window.autoDetectColorScheme': false,
      'forge.autoApprove': { read: true, write: true, execute: false, network: false },
    },
    turns,
  });
  const { page, workspace } = session;
  try {
    const { panel, wv } = await openForgePanel(page);
    await widenSidebar(page, 520);
    await panel.input.fill('Add a --json flag to the CLI.');
    await panel.input.press('Enter');
    await panel.runEnd('done').waitFor({ timeout: 60_000 });
    await wv.locator('.plan-panel .plan-step').first().waitFor({ timeout: 10_000 });
    await page.waitForTimeout(500);
    await shot(page, '1-plan-and-checkpoints', label);

    // The user edits the plan: ticks step 3 and adds a step.
    await wv.locator('.plan-panel input.plan-check').nth(2).click();
    await wv.locator('.plan-panel input.plan-new').fill('Add a changelog entry');
    await wv.locator('.plan-panel input.plan-new').press('Enter');
    await wv.locator('.plan-panel .badge', { hasText: 'edited' }).waitFor({ timeout: 10_000 });
    await wv.locator('.plan-panel .plan-step').nth(4).waitFor({ timeout: 10_000 });
    await page.waitForTimeout(300);
    await shot(page, '2-plan-edited', label);

    // "Restore to here" on the first write: the confirmation, then the mark.
    await wv.locator('.checkpoint-restore').first().click();
    const dialog = page.locator('.monaco-dialog-box');
    await dialog.waitFor({ timeout: 10_000 });
    await page.waitForTimeout(300);
    await shot(page, '3-restore-confirm', label);
    await dialog.locator('.monaco-button', { hasText: /^Restore Files$/ }).click();
    await wv.locator('.item-checkpoint .checkpoint-mark').waitFor({ timeout: 10_000 });
    await wv.locator('.item-checkpoint').scrollIntoViewIfNeeded();
    await page.waitForTimeout(400);
    await shot(page, '4-restored-mark', label);
    const content = fs.readFileSync(path.join(workspace, 'src', 'json.js'), 'utf8');
    console.log(`[shots] src/json.js after the restore: ${JSON.stringify(content)}`);

    // Redo on the mark: the task's edit comes back and a second mark says so.
    await wv.locator('.checkpoint-redo').click();
    await wv.locator('.item-checkpoint .checkpoint-mark', { hasText: 'Redid' }).waitFor({ timeout: 10_000 });
    await wv.locator('.item-checkpoint').last().scrollIntoViewIfNeeded();
    await page.waitForTimeout(400);
    await shot(page, '5-redone-mark', label);
    console.log(
      `[shots] src/json.js after the redo: ${JSON.stringify(fs.readFileSync(path.join(workspace, 'src', 'json.js'), 'utf8'))}`,
    );
  } finally {
    await session.close();
  }
}

fs.mkdirSync(shots, { recursive: true });
for (const [label, theme] of Object.entries(THEMES)) await run(theme, label);
process.exit(0);

#!/usr/bin/env node
// Screenshots for looking, not a test: in the real VS Code, the slash command list under the chat input (with a
// custom `.forge/commands` prompt), and a delegate_task call with its helper's steps nested under it.
// Writes test-results/slash-menu.png, slash-help.png and delegate-nested.png.
//
//   node scripts/screenshots/ui-shots-slash.mjs
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { openForgePanel, widenSidebar } from '../../test/integration/ui/workbench.mjs';
import { startShotSession } from '../../test/integration/ui/session.mjs';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const shots = path.join(repo, 'test-results');
const turns = [
  {
    text: 'I will ask a helper to review the greeting module.',
    toolCalls: [
      { id: 'd1', name: 'delegate_task', args: { task: 'Review src/greet.js for edge cases', mode: 'review' } },
    ],
  },
  { text: 'Reading the module.', toolCalls: [{ id: 'c1', name: 'read_file', args: { path: 'src/greet.js' } }] },
  { toolCalls: [{ id: 'c2', name: 'task_completion', args: { result: 'greet.js handles empty names poorly.' } }] },
  { toolCalls: [{ id: 'p2', name: 'task_completion', args: { result: 'The helper found one issue: empty names.' } }] },
];

const session = await startShotSession({
  repo,
  userSettings: { 'workbench.colorTheme': 'Default Dark Modern' },
  turns,
  prepare(workspace) {
    fs.mkdirSync(path.join(workspace, '.forge', 'commands'), { recursive: true });
    fs.writeFileSync(
      path.join(workspace, '.forge', 'commands', 'review-file.md'),
      '---\ndescription: Review one file for bugs\nargument-hint: <file>\n---\nReview $1 for bugs.\n',
    );
  },
});
const { page } = session;
try {
  const { panel, wv } = await openForgePanel(page);
  await widenSidebar(page, 460);
  await panel.input.click();
  await panel.input.pressSequentially('/re');
  await wv.locator('#forge-slash-menu [role="option"]').first().waitFor({ timeout: 20_000 });
  await page.keyboard.press('ArrowDown');
  await page.waitForTimeout(400);
  await page.screenshot({ path: path.join(shots, 'slash-menu.png') });
  await page.keyboard.press('Escape');
  await panel.input.fill('/help');
  await panel.input.press('Enter');
  await panel.input.press('Enter'); // the first Enter completes, the second sends
  await wv
    .locator('.slash-notice')
    .waitFor({ timeout: 20_000 })
    .catch(() => console.log('[shots] no /help notice'));
  await page.waitForTimeout(400);
  await page.screenshot({ path: path.join(shots, 'slash-help.png') });
  await panel.input.fill('Get src/greet.js reviewed.');
  await panel.input.press('Enter');
  await panel.runEnd('done').waitFor({ timeout: 30_000 });
  await page.waitForTimeout(800);
  await page.screenshot({ path: path.join(shots, 'delegate-nested.png') });
  console.log(`[shots] ${shots}/slash-menu.png, slash-help.png, delegate-nested.png`);
} finally {
  await session.close();
}
process.exit(0);

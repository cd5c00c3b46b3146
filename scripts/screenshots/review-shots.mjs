#!/usr/bin/env node
// Screenshots for looking, not a test: per-hunk review and a task's changes in the real VS Code, driven like a
// person (clicks and keys). The scripted model proposes a three-hunk edit of src/math.js while the user has
// src/greet.js open; the shots show the diff opened beside the user's editor, the approval card's hunk list
// (one hunk rejected with a reason, one accepted), the completion block (files changed, View changes, Undo /
// Keep, New task) and VS Code's multi-file diff editor. Light, dark and high-contrast themes, 300 and 520 px
// side bars. Writes test-results/review-*.png.
//
//   node esbuild.mjs && node scripts/screenshots/review-shots.mjs
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { openForgePanel, widenSidebar } from '../../test/integration/ui/workbench.mjs';
import { pickColorTheme, startShotSession } from '../../test/integration/ui/session.mjs';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const shots = path.join(repo, 'test-results');
const THEMES = [
  ['dark', 'Dark Modern', 'vs-dark'],
  ['light', 'Light Modern', 'vs'],
  ['hc', 'Dark High Contrast', 'hc-black'],
];
const math = [
  '// Small math helpers used by the tests.',
  'function add(a, b) {',
  '  return a + b;',
  '}',
  '',
  'function divide(a, b) {',
  "  if (b === 0) throw new Error('division by zero');",
  '  return a / b;',
  '}',
  '',
  'function subtract(a, b) {',
  '  return a - b;',
  '}',
  '',
  'module.exports = { add, divide, subtract };',
  '',
].join('\n');
const greet =
  "// Greets someone.\nfunction greetWorld(name) {\n  return 'Hi, ' + name + '!';\n}\n\nmodule.exports = { greetWorld };\n";
const turns = [
  {
    text: 'I will tidy up the math helpers.',
    toolCalls: [{ id: 'r1', name: 'write_file', args: { path: 'src/math.js', content: math } }],
  },
  { toolCalls: [{ id: 'r2', name: 'write_file', args: { path: 'src/greet.js', content: greet } }] },
  {
    toolCalls: [
      { id: 'r3', name: 'task_completion', args: { result: 'Added a zero check and a friendlier greeting.' } },
    ],
  },
];

async function shootAll(page, name, widths = [300, 520]) {
  for (const width of widths) {
    await widenSidebar(page, width);
    await page.waitForTimeout(500);
    for (const [label, pick, cls] of THEMES) {
      await pickColorTheme(page, pick, cls);
      const file = path.join(shots, `review-${name}-${label}-${width}.png`);
      await page.screenshot({ path: file });
      console.log(`[shots] ${file}`);
    }
  }
}

async function main() {
  const session = await startShotSession({
    repo,
    prefix: 'forge-review-shots-',
    userSettings: { 'window.autoDetectHighContrast': false, 'window.autoDetectColorScheme': false },
    turns,
  });
  const { page } = session;
  try {
    // The user is working in greet.js.
    await page.locator('.explorer-folders-view .monaco-list-row', { hasText: 'src' }).first().click();
    await page
      .locator('.explorer-folders-view .monaco-list-row', { hasText: 'greet.js' })
      .first()
      .dblclick({ timeout: 30_000 });
    await page.locator('.tabs-container .tab', { hasText: 'greet.js' }).first().waitFor({ timeout: 30_000 });
    const { panel, wv } = await openForgePanel(page);
    await panel.input.fill('Tidy up the math helpers.');
    await panel.input.press('Enter');
    await wv.locator('.hunk-review').waitFor({ timeout: 60_000 });
    await page.locator('.tabs-container .tab', { hasText: 'math.js (proposed)' }).first().waitFor({ timeout: 30_000 });
    await page.waitForTimeout(1000);
    // Review like a person: reject the second hunk with a reason (Tab to the field, type, Enter), accept the first.
    await wv.locator('.hunk[data-index="1"] button.hunk-rejected').click();
    const reason = wv.locator('.hunk[data-index="1"] input.hunk-reason');
    await reason.waitFor({ timeout: 15_000 });
    await reason.fill('Throwing here breaks callers that expect Infinity');
    await reason.press('Enter');
    await wv.locator('.hunk[data-index="0"] button.hunk-accepted').click();
    await wv.locator('.hunk.hunk-state-accepted').waitFor({ timeout: 15_000 });
    await wv.locator('.hunk.hunk-state-rejected').waitFor({ timeout: 15_000 });
    await page.waitForTimeout(800);
    await shootAll(page, 'hunks');
    // Approve writes hunks 1 and 3; then the second file, then the completion block.
    await panel.approveButton.first().click();
    await wv.locator('.approval-card.pending .approval-title', { hasText: 'greet.js' }).waitFor({ timeout: 60_000 });
    await panel.approveButton.first().click();
    await wv.locator('.changes-block').waitFor({ timeout: 60_000 });
    await wv.locator('.changes-block').scrollIntoViewIfNeeded();
    await page.waitForTimeout(800);
    await shootAll(page, 'completion', [520]);
    await wv.locator('.changes-block button[data-action="view"]').click();
    await page.locator('.tabs-container .tab', { hasText: 'Forge: task changes' }).first().waitFor({ timeout: 30_000 });
    await page.waitForTimeout(2000);
    for (const [label, pick, cls] of THEMES.slice(0, 2)) {
      await pickColorTheme(page, pick, cls);
      const file = path.join(shots, `review-multidiff-${label}.png`);
      await page.screenshot({ path: file });
      console.log(`[shots] ${file}`);
    }
  } finally {
    await session.close();
  }
}

fs.mkdirSync(shots, { recursive: true });
await main();
process.exit(0);

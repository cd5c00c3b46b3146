#!/usr/bin/env node
// Screenshots for looking, not a test: messages typed while a run works that carry images and @-chips — a queued
// one and a steer waiting above the input with their thumbnails and chips, then the steer in the conversation —
// in the real VS Code with the scripted loopback model, light / dark / high contrast, 300 and 600 px side bars.
// Writes test-results/steer-attach-<state>-<theme>-<width>.png.
//
//   node esbuild.mjs && node scripts/screenshots/steering-attachments-shots.mjs [light|dark|hc ...]
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { openForgePanel, setSidebarWidth } from '../../test/integration/ui/workbench.mjs';
import { pickColorTheme, startShotSession } from '../../test/integration/ui/session.mjs';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const shots = path.join(repo, 'test-results');
const THEMES = {
  light: ['Light Modern', 'vs'],
  dark: ['Dark Modern', 'vs-dark'],
  hc: ['Dark High Contrast', 'hc-black'],
};
const wanted = process.argv.slice(2).filter((t) => t in THEMES);
const turns = [
  {
    text: "I'll add the greeting file first.",
    toolCalls: [{ id: 'a1', name: 'write_file', args: { path: 'src/hello.js', content: "module.exports = 'hi';\n" } }],
  },
  { toolCalls: [{ id: 'a2', name: 'task_completion', args: { result: 'Added src/hello.js as in the screenshot.' } }] },
  { toolCalls: [{ id: 'a3', name: 'task_completion', args: { result: 'The README shows it now.' } }] },
];

async function snap(page, state, theme) {
  for (const width of [300, 600]) {
    await setSidebarWidth(page, width, (m) => console.log(`[shots] ${m}`));
    await page.waitForTimeout(300);
    const box = await page.locator('.part.sidebar').boundingBox();
    const file = path.join(shots, `steer-attach-${state}-${theme}-${width}.png`);
    await page.screenshot({
      path: file,
      clip: { x: 0, y: 0, width: Math.round((box?.x ?? 48) + (box?.width ?? width) + 40), height: 900 },
    });
    console.log(`[shots] ${file}`);
  }
}

fs.mkdirSync(shots, { recursive: true });
for (const theme of wanted.length ? wanted : Object.keys(THEMES)) {
  const session = await startShotSession({
    repo,
    prefix: 'forge-sashots-',
    userSettings: { 'forge.imageInput': 'on', 'forge.showDiffOnProposal': false },
    turns,
  });
  const { page } = session;
  try {
    const { panel, wv } = await openForgePanel(page);
    await pickColorTheme(page, ...THEMES[theme]);
    const image = await page.screenshot({ clip: { x: 0, y: 0, width: 600, height: 400 } });
    const options = wv.locator('#forge-mention-menu [role="option"]');
    await panel.input.fill('Add a greeting module in src/hello.js.');
    await panel.input.press('Enter');
    await panel.pendingApproval.waitFor({ timeout: 60_000 });
    // A queued message (Alt+Enter) and a steer (Enter), each with an image and a chip.
    for (const [text, key] of [
      ['Then show it in the README like this ', 'Alt+Enter'],
      ['Match the style of ', 'Enter'],
    ]) {
      await wv
        .locator('footer.composer input[type=file]')
        .setInputFiles({ name: 'layout.png', mimeType: 'image/png', buffer: image });
      await wv.locator('.attach-tray .attach-thumb img').first().waitFor({ timeout: 30_000 });
      await panel.input.click();
      await panel.input.pressSequentially(`${text}@gre`);
      await options.first().waitFor({ timeout: 30_000 });
      await page.keyboard.press('Enter');
      await panel.input.press(key);
    }
    await wv.locator('.queue-list .queued .message-image img').nth(1).waitFor({ timeout: 30_000 });
    await snap(page, '1-waiting', theme);
    await panel.approveButton.click();
    await wv.locator('.item-run_end').nth(1).waitFor({ timeout: 60_000 });
    await wv.locator('.user-steered').first().scrollIntoViewIfNeeded();
    await snap(page, '2-steered', theme);
  } finally {
    await session.close();
  }
}
process.exit(0);

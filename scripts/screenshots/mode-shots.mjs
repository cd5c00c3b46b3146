#!/usr/bin/env node
// Screenshots for looking, not a test: the empty panel in the real VS Code with the mode switch and the line on what
// the current mode does (issue 26, item 12), per theme at 300 and 600 px side bars, for Agent and then Plan, and the
// /mode quick pick.
// Writes test-results/modes-<mode>-<theme>-<width>.png.
//
//   node esbuild.mjs && node scripts/screenshots/mode-shots.mjs
//   FORGE_SHOTS_THEMES=hc-light,dark   FORGE_SHOTS_WIDTHS=300
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { openForgePanel, setSidebarWidth } from '../../test/integration/ui/workbench.mjs';
import { pickColorTheme, startShotSession } from '../../test/integration/ui/session.mjs';
import { THEMES, widths } from './shot-matrix.mjs';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const shots = path.join(repo, 'test-results');
const WIDTHS = widths();

async function snap(page, mode, theme) {
  for (const width of WIDTHS) {
    await setSidebarWidth(page, width, (m) => console.log(`[shots] ${m}`));
    const box = await page.locator('.part.sidebar').boundingBox();
    const file = path.join(shots, `modes-${mode}-${theme}-${width}.png`);
    const clipW = Math.round((box?.x ?? 48) + (box?.width ?? width) + 20);
    await page.screenshot({ path: file, clip: { x: 0, y: 0, width: clipW, height: 560 } });
    console.log(`[shots] ${file}`);
  }
}

async function run(theme, [label, cls]) {
  const session = await startShotSession({
    repo,
    prefix: 'forge-modeshots-',
    userSettings: { 'window.autoDetectHighContrast': false, 'window.autoDetectColorScheme': false },
  });
  const { page } = session;
  try {
    await pickColorTheme(page, label, cls);
    const { wv } = await openForgePanel(page);
    const note = wv.locator('.welcome .mode-note');
    await note.waitFor({ timeout: 30_000 });
    console.log(`[shots] ${theme}: switch title "${await wv.locator('select.mode-select').getAttribute('title')}"`);
    await snap(page, 'agent', theme);
    await wv.locator('select.mode-select').selectOption('plan');
    await wv
      .locator('.welcome .mode-note', { hasText: 'Plan mode' })
      .waitFor({ timeout: 10_000 })
      .catch(() => console.log('[shots] the line never said Plan mode'));
    await snap(page, 'plan', theme);
    // /mode without a name: VS Code's quick pick, each mode with its description.
    const { panel } = await openForgePanel(page);
    await panel.input.fill('/mode');
    await panel.input.press('Escape'); // closes the completion list, which would take the Enter
    await panel.input.press('Enter');
    const pick = page.locator('.quick-input-widget', { hasText: 'mode for this task' });
    await pick
      .waitFor({ state: 'visible', timeout: 15_000 })
      .then(async () => {
        const box = await pick.boundingBox();
        const file = path.join(shots, `modes-quickpick-${theme}.png`);
        await page.screenshot({
          path: file,
          clip: { x: box.x - 10, y: 0, width: box.width + 20, height: box.y + box.height + 10 },
        });
        console.log(`[shots] ${file}`);
        await page.keyboard.press('Escape');
      })
      .catch((e) => console.log(`[shots] the /mode quick pick: ${e.message.split('\n')[0]}`));
  } finally {
    await session.close();
  }
}

fs.mkdirSync(shots, { recursive: true });
for (const [theme, pick] of THEMES) await run(theme, pick);
process.exit(0);

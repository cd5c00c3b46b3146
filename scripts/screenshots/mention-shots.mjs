#!/usr/bin/env node
// Screenshots for looking, not a test: in the real VS Code, the @ picker under the chat input, chips in the composer
// and a sent message with its chips, at ~300 and ~600 px side-bar widths, in the light, dark and high-contrast
// themes, and the /context view. Writes test-results/mentions-<theme>-<width>-{picker,chips,sent,context}.png.
//
//   node esbuild.mjs && node scripts/screenshots/mention-shots.mjs [light|dark|hc ...]
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { openForgePanel, setSidebarWidth } from '../../test/integration/ui/workbench.mjs';
import { pickColorTheme, startShotSession } from '../../test/integration/ui/session.mjs';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const shots = path.join(repo, 'test-results');
// The palette's theme names in this VS Code and the workbench class each one sets.
const THEMES = {
  light: ['Light Modern', 'vs'],
  dark: ['Dark Modern', 'vs-dark'],
  hc: ['Dark High Contrast', 'hc-black'],
  'hc-light': ['Light High Contrast', 'hc-light'],
};
const wanted = process.argv.slice(2).filter((t) => t in THEMES);
const reply = (id) => ({ toolCalls: [{ id, name: 'converse', args: { reply: 'greetWorld returns a greeting.' } }] });

for (const theme of wanted.length ? wanted : Object.keys(THEMES)) {
  const session = await startShotSession({ repo, turns: [reply('r1'), reply('r2')] });
  const { page } = session;
  try {
    const { panel, wv } = await openForgePanel(page);
    await pickColorTheme(page, ...THEMES[theme]);
    const options = wv.locator('#forge-mention-menu [role="option"]');
    for (const width of [300, 600]) {
      await setSidebarWidth(page, width, (m) => console.log(`[shots] ${m}`));
      const shot = (name) => page.screenshot({ path: path.join(shots, `mentions-${theme}-${width}-${name}.png`) });
      await panel.input.click();
      await panel.input.fill('');
      await panel.input.pressSequentially('What does @gre');
      await options.first().waitFor({ timeout: 30_000 });
      await page.waitForTimeout(300);
      await shot('picker');
      await page.keyboard.press('Enter');
      await panel.input.pressSequentially('return? Compare with @git');
      await options.first().waitFor({ timeout: 30_000 });
      await page.keyboard.press('Enter');
      await panel.input.pressSequentially('@math');
      await options.first().waitFor({ timeout: 30_000 });
      await page.keyboard.press('Enter');
      await page.waitForTimeout(300);
      await shot('chips');
      await panel.input.press('Enter');
      await panel
        .runEnd('converse')
        .last()
        .waitFor({ timeout: 30_000 })
        .catch(() => console.log('[shots] no run end'));
      await page.waitForTimeout(600);
      await shot('sent');
    }
    // The /context view: what fills the window after those messages (at 600 px).
    await panel.input.fill('/context');
    await panel.input.press('Enter');
    await panel.input.press('Enter'); // the first Enter completes, the second sends
    await wv
      .locator('.slash-notice table')
      .waitFor({ timeout: 20_000 })
      .catch(() => console.log('[shots] no /context notice'));
    await page.waitForTimeout(300);
    await page.screenshot({ path: path.join(shots, `mentions-${theme}-600-context.png`) });
    console.log(`[shots] ${theme}: ${shots}/mentions-${theme}-*.png`);
  } finally {
    await session.close();
  }
}
process.exit(0);

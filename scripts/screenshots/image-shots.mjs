#!/usr/bin/env node
// Screenshots for looking, not a test: in the real VS Code, images attached in the composer (thumbnails with their
// remove buttons) and a sent message with its images in the transcript, at ~300 and ~600 px side-bar widths, in
// the light, dark and high-contrast themes. Writes test-results/images-<theme>-<width>-{composer,sent}.png.
//
//   node esbuild.mjs && node scripts/screenshots/image-shots.mjs [light|dark|hc ...]
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
};
const wanted = process.argv.slice(2).filter((t) => t in THEMES);
const reply = (id) => ({
  toolCalls: [{ id, name: 'converse', args: { reply: 'The header is clipped by the fixed height of .toolbar.' } }],
});

for (const theme of wanted.length ? wanted : Object.keys(THEMES)) {
  const session = await startShotSession({
    repo,
    // The scripted test model is not known by name to take images: say it does.
    userSettings: { 'forge.imageInput': 'on' },
    turns: [reply('r1'), reply('r2')],
  });
  const { page } = session;
  try {
    const { panel, wv } = await openForgePanel(page);
    await pickColorTheme(page, ...THEMES[theme]);
    // Real screenshots to attach: two parts of this workbench.
    const shotA = await page.screenshot({ clip: { x: 0, y: 0, width: 900, height: 500 } });
    const shotB = await page.screenshot({ clip: { x: 200, y: 100, width: 400, height: 700 } });
    for (const width of [300, 600]) {
      await setSidebarWidth(page, width, (m) => console.log(`[shots] ${m}`));
      const shot = (name) => page.screenshot({ path: path.join(shots, `images-${theme}-${width}-${name}.png`) });
      await wv.locator('footer.composer input[type=file]').setInputFiles([
        { name: 'header-clipped.png', mimeType: 'image/png', buffer: shotA },
        { name: 'mobile-view.png', mimeType: 'image/png', buffer: shotB },
      ]);
      await wv.locator('.attach-tray .attach-thumb img').nth(1).waitFor({ timeout: 30_000 });
      await panel.input.click();
      await panel.input.fill('Why is the header cut off in these screenshots?');
      await page.waitForTimeout(300);
      await shot('composer');
      await panel.input.press('Enter');
      await panel
        .runEnd('converse')
        .last()
        .waitFor({ timeout: 30_000 })
        .catch(() => console.log('[shots] no run end'));
      await wv.locator('.message-images img').last().waitFor({ timeout: 30_000 });
      await page.waitForTimeout(600);
      await shot('sent');
    }
    console.log(`[shots] ${theme}: ${shots}/images-${theme}-*.png`);
  } finally {
    await session.close();
  }
}
process.exit(0);

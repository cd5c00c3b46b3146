#!/usr/bin/env node
// Screenshots for looking, not a test: the palette views of issue 25's permissions and hooks in the real VS Code,
// on a workspace whose .claude/settings.json has hooks and Claude Code permission rules (deny applied, allow only
// suggested), in light, dark and high-contrast themes. Writes test-results/perm-<view>-<theme>.png.
//
//   node esbuild.mjs && node scripts/screenshots/permission-shots.mjs
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { openPalette } from '../../test/integration/ui/workbench.mjs';
import { pickColorTheme, startShotSession } from '../../test/integration/ui/session.mjs';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const shots = path.join(repo, 'test-results');
const THEMES = [
  ['light', 'Light Modern', 'vs'],
  ['dark', 'Dark Modern', 'vs-dark'],
  ['hc-dark', 'Dark High Contrast', 'hc-black'],
];
const VIEWS = [
  ['permissions', 'Forge: Permissions and Saved Rules'],
  ['hooks', 'Forge: Hooks'],
];

fs.mkdirSync(shots, { recursive: true });
const session = await startShotSession({
  repo,
  prefix: 'forge-perm-shots-',
  prepare: (ws) => {
    fs.mkdirSync(path.join(ws, '.claude'), { recursive: true });
    fs.writeFileSync(
      path.join(ws, '.claude', 'settings.json'),
      JSON.stringify(
        {
          permissions: { allow: ['Bash(npm run test *)', 'Edit(./src/**)'], deny: ['Bash(curl *)'] },
          hooks: {
            PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: '.claude/hooks/no-force-push.sh' }] }],
            Stop: [{ hooks: [{ type: 'command', command: 'npm run -s lint' }] }],
          },
        },
        null,
        2,
      ),
    );
  },
});
try {
  const { page } = session;
  // Forge's palette commands wait for its activation: give it time, so no question is left queued behind a theme pick.
  await page.waitForTimeout(12_000);
  for (const [key, pick, cls] of THEMES) {
    await pickColorTheme(page, pick, cls);
    for (const [view, title] of VIEWS) {
      const input = await openPalette(page);
      await input.fill(`>${title}`);
      await page.locator('.quick-input-list .monaco-list-row', { hasText: title }).first().click();
      await page.waitForTimeout(2000);
      const file = path.join(shots, `perm-${view}-${key}.png`);
      await page.screenshot({ path: file });
      console.log(`[shots] ${file}`);
      await page.keyboard.press('Escape');
      await page.waitForTimeout(300);
    }
  }
} finally {
  await session.close();
}

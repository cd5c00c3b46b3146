#!/usr/bin/env node
// Screenshots for looking, not a test: what the panel says when Forge's storage turns read-only mid-task (a real
// read-only tmpfs over its folder, so as root), a second task started meanwhile, and the storage back. At ~300 and
// ~600 px side-bar widths in the light, dark and high-contrast themes. Writes test-results/storage-<theme>-<width>.png.
//
//   node esbuild.mjs && node scripts/screenshots/storage-shots.mjs [light|dark|hc ...]
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  EXTENSION_ID,
  forgeWebview,
  openForgePanel,
  runCommand,
  setSidebarWidth,
} from '../../test/integration/ui/workbench.mjs';
import { pickColorTheme, startShotSession } from '../../test/integration/ui/session.mjs';
import { mountTmpfs, remount, unmount } from '../../test/integration/ui/storage-mount.mjs';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const shots = path.join(repo, 'test-results');
const THEMES = {
  light: ['Light Modern', 'vs'],
  dark: ['Dark Modern', 'vs-dark'],
  hc: ['Dark High Contrast', 'hc-black'],
};
const wanted = process.argv.slice(2).filter((t) => t in THEMES);
const done = (id, result) => ({ toolCalls: [{ id, name: 'task_completion', args: { result } }] });

let mount;
process.on('exit', () => mount && unmount(mount));
const session = await startShotSession({
  repo,
  prepare: (workspace) => {
    mount = path.join(path.dirname(workspace), 'user-data', 'User', 'globalStorage', EXTENSION_ID);
    mountTmpfs(mount, 16);
  },
});
const { page, llm } = session;
try {
  const { panel } = await openForgePanel(page);
  const notice = (re) => forgeWebview(page).locator('.notice', { hasText: re }).first();
  llm.script([
    { text: 'Looking at it.', toolCalls: [{ id: 's0', name: 'read_file', args: { path: 'src/greet.js' } }] },
    { delayMs: 3000, ...done('s1', 'Nothing to change.') },
  ]);
  await panel.input.fill('Check the greeting');
  await panel.input.press('Enter');
  await page.waitForTimeout(1500);
  await remount(mount, 'ro');
  await notice(/kept in memory/).waitFor({ timeout: 60_000 });
  await runCommand(page, 'Forge: New Task');
  llm.script([done('s2', 'Done.')]);
  await panel.input.fill('A second task');
  await panel.input.press('Enter');
  await notice(/keeps it in this window's memory/).waitFor({ timeout: 60_000 });
  await remount(mount, 'rw');
  await notice(/everything is saved/).waitFor({ timeout: 60_000 });
  for (const theme of wanted.length ? wanted : Object.keys(THEMES)) {
    await pickColorTheme(page, ...THEMES[theme]);
    for (const width of [300, 600]) {
      await setSidebarWidth(page, width, (m) => console.log(`[shots] ${m}`));
      const file = path.join(shots, `storage-${theme}-${width}.png`);
      await page.screenshot({ path: file });
      console.log(`[shots] ${file}`);
    }
  }
} finally {
  unmount(mount);
  await session.close();
}

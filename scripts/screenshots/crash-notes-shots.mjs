#!/usr/bin/env node
// Screenshots for looking, not a test: what the panel says after the extension host was killed during a run's
// reflection (the task is shown finished, with a note) and during a checkpoint restore (which files went back), at
// ~300 and ~600 px side-bar widths in the light, dark and high-contrast themes. The checks are in
// test/integration/crash-phases.mjs. Writes test-results/crash-notes-<theme>-<width>.png.
//
//   node esbuild.mjs && node scripts/screenshots/crash-notes-shots.mjs [light|dark|hc ...]
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { forgeWebview, openForgePanel, setSidebarWidth } from '../../test/integration/ui/workbench.mjs';
import { pickColorTheme, startShotSession } from '../../test/integration/ui/session.mjs';
import { killHostNow, reloadAfterKill } from '../../test/integration/ui/kill.mjs';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const shots = path.join(repo, 'test-results');
const THEMES = {
  light: ['Light Modern', 'vs'],
  dark: ['Dark Modern', 'vs-dark'],
  hc: ['Dark High Contrast', 'hc-black'],
};
const wanted = process.argv.slice(2).filter((t) => t in THEMES);
const FILES = ['a', 'b'].map((n) => `src/r/${n}.js`);
const write = (id, file, content) => ({ id, name: 'write_file', args: { path: file, content } });

fs.mkdirSync(shots, { recursive: true });
const session = await startShotSession({
  repo,
  prefix: 'forge-crash-notes-',
  userSettings: { 'forge.autoApprove': { read: true, write: true, execute: false, network: false } },
  turns: [
    { text: 'The anchor first.', toolCalls: [write('n0', 'src/r/anchor.js', 'anchor\n')] },
    { text: 'Now the files.', toolCalls: FILES.map((f, i) => write(`n${i + 1}`, f, `${f} by the task\n`)) },
    { toolCalls: [{ id: 'nd', name: 'task_completion', args: { result: 'Changed both files.' } }] },
    { fault: 'hang', text: '[' },
  ],
  prepare: (ws) => {
    fs.mkdirSync(path.join(ws, 'src', 'r'), { recursive: true });
    for (const f of FILES) fs.writeFileSync(path.join(ws, f), `${f} original\n`);
    const settings = path.join(ws, '.vscode', 'settings.json');
    const json = JSON.parse(fs.readFileSync(settings, 'utf8'));
    fs.writeFileSync(settings, JSON.stringify({ ...json, 'forge.reflection.enabled': true }, null, 2));
  },
});
const { page, server, llm, workspace } = session;
const kill = async () => {
  const pid = killHostNow(server);
  if (await page.locator('.monaco-dialog-box').count()) await page.keyboard.press('Escape');
  await reloadAfterKill(server, page, pid);
  await openForgePanel(page);
};
try {
  const { panel } = await openForgePanel(page);
  await panel.input.fill('Change both files.');
  await panel.input.press('Enter');
  for (let i = 0; i < 600 && llm.requests.length < 4; i++) await page.waitForTimeout(50);
  await page.waitForTimeout(1000);
  await kill(); // during the reflection
  const wv = forgeWebview(page);
  await wv.locator('.notice', { hasText: 'drew lessons' }).waitFor({ timeout: 60_000 });
  fs.writeFileSync(path.join(workspace, FILES[1]), 'changed by the user\n');
  await wv.locator('.checkpoint-restore').first().click();
  await page.locator('.monaco-dialog-box .monaco-button', { hasText: /^Restore Files$/ }).click();
  await page.locator('.monaco-dialog-box', { hasText: 'was modified since' }).waitFor({ timeout: 20_000 });
  await kill(); // during the restore
  await wv.locator('.notice', { hasText: 'was not restored' }).waitFor({ timeout: 60_000 });
  for (const theme of wanted.length ? wanted : Object.keys(THEMES)) {
    await pickColorTheme(page, ...THEMES[theme]);
    for (const width of [300, 600]) {
      await setSidebarWidth(page, width);
      await wv.locator('.notice', { hasText: 'was not restored' }).scrollIntoViewIfNeeded();
      await page.waitForTimeout(400);
      const file = path.join(shots, `crash-notes-${theme}-${width}.png`);
      await page.screenshot({ path: file });
      console.log(`[shots] ${file}`);
    }
  }
} finally {
  await session.close();
}
process.exit(0);

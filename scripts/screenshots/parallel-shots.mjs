#!/usr/bin/env node
// Screenshot for looking, not a test: two background tasks in git worktrees, one running and one ready for
// review, in Forge's Background Tasks view and the status bar (dark theme). Writes
// test-results/background-tasks.png.
//
//   node esbuild.mjs && node scripts/screenshots/parallel-shots.mjs
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runCommand, widenSidebar } from '../../test/integration/ui/workbench.mjs';
import { startShotSession } from '../../test/integration/ui/session.mjs';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const shots = path.join(repo, 'test-results');
const write = (id, file) => ({
  toolCalls: [{ id, name: 'write_file', args: { path: file, content: `// ${file}\nexport const x = 1;\n` } }],
});
// Task 1 writes two files and completes; task 2 (started second) hangs on the model, so it stays "running".
const turns = [
  write('a1', 'src/feature.js'),
  { fault: 'hang', text: 'Thinking' },
  write('a2', 'src/feature.test.js'),
  { toolCalls: [{ id: 'd1', name: 'task_completion', args: { result: 'Feature and test added.' } }] },
];

const session = await startShotSession({
  repo,
  userSettings: { 'workbench.colorTheme': 'Default Dark Modern' },
  turns,
  prepare(workspace) {
    const git = (...a) => execFileSync('git', ['-c', 'user.name=T', '-c', 'user.email=t@t', ...a], { cwd: workspace });
    git('init', '-q', '-b', 'main');
    git('add', '-A');
    git('commit', '-qm', 'init');
  },
});
const { page } = session;
try {
  for (const task of ['Add the feature module with a test', 'Refactor the greeting helpers']) {
    await runCommand(page, 'Forge: Start Task in Background (Git Worktree)');
    const input = page.locator('.quick-input-widget input[aria-label="Forge: task to run in the background"]');
    await input.waitFor({ state: 'visible' });
    await input.fill(task);
    await input.press('Enter');
    await page.waitForTimeout(400);
  }
  await runCommand(page, 'Forge: Open Panel');
  await page.locator('.pane-header', { hasText: 'Background Tasks' }).first().waitFor({ timeout: 30_000 });
  await page.locator('.monaco-list-row', { hasText: 'feature.test.js' }).first().waitFor({ timeout: 30_000 });
  await widenSidebar(page, 460);
  await page.waitForTimeout(800);
  fs.mkdirSync(shots, { recursive: true });
  const file = path.join(shots, 'background-tasks.png');
  await page.screenshot({ path: file });
  console.log(`[shots] ${file}`);
} finally {
  await session.close();
}
process.exit(0);

#!/usr/bin/env node
// Screenshots for looking, not a test: the proposed edit's diff editor in a narrow editor group, to see that its
// Accept / Reject title actions stay in the title bar (issue 26, item 12) in light, dark and high-contrast themes.
// Writes test-results/difftitle-<theme>-<editor width>.png and prints the title bar's visible actions.
//
//   node esbuild.mjs && node scripts/screenshots/diff-title-shots.mjs
//   FORGE_SHOTS_THEMES=dark   FORGE_SHOTS_EDITOR_WIDTHS=320,480
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { openForgePanel, setSidebarWidth, waitForWorkbench } from '../../test/integration/ui/workbench.mjs';
import { pickColorTheme, startShotSession } from '../../test/integration/ui/session.mjs';
import { THEMES, widths } from './shot-matrix.mjs';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const shots = path.join(repo, 'test-results');
const EDITOR_WIDTHS = widths('FORGE_SHOTS_EDITOR_WIDTHS', '300,450,700');
// Title buttons of other extensions (a Markdown preview, a "Run file", a Git or AI extension), with no order as most
// declare them: VS Code sorts them first and folds every action past the ninth into "...".
const CROWD = Number(process.env.FORGE_SHOTS_CROWD ?? 4);

const original = ['// Names the greeting knows.', 'module.exports = [', "  'a',", "  'b',", '];', ''].join('\n');
const proposed = original.replace("  'b',", "  'b',\n  'c',");
const turns = [
  { toolCalls: [{ id: 'w1', name: 'write_file', args: { path: 'src/names.js', content: proposed } }] },
  { toolCalls: [{ id: 'd1', name: 'task_completion', args: { result: 'Added c.' } }] },
];

/**
 * Installs a declarative extension with `n` editor title buttons into the session's extensions folder, as other
 * installed extensions add them, then reloads the workbench so it is scanned.
 */
async function installCrowd(session, n) {
  const extensions = path.join(path.dirname(session.workspace), 'extensions');
  const dir = path.join(extensions, 'forge-shots.crowd-0.0.1');
  fs.mkdirSync(dir, { recursive: true });
  const commands = Array.from({ length: n }, (_, i) => ({
    command: `crowd.action${i}`,
    title: `Other extension ${i + 1}`,
    icon: '$(star)',
  }));
  const manifest = {
    name: 'crowd',
    publisher: 'forge-shots',
    version: '0.0.1',
    engines: { vscode: '^1.80.0' },
    contributes: {
      commands,
      menus: { 'editor/title': commands.map((c) => ({ command: c.command, group: 'navigation' })) },
    },
  };
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify(manifest, null, 2));
  const entry = {
    identifier: { id: 'forge-shots.crowd' },
    version: '0.0.1',
    location: { $mid: 1, path: dir, scheme: 'file' },
    relativeLocation: 'forge-shots.crowd-0.0.1',
    metadata: { installedTimestamp: Date.now(), source: 'resource' },
  };
  fs.writeFileSync(path.join(extensions, 'extensions.json'), JSON.stringify([entry]));
  await session.page.reload();
  await waitForWorkbench(session.page);
  await session.page
    .locator('.activitybar [aria-label^="Forge"]')
    .first()
    .waitFor({ state: 'attached', timeout: 60_000 });
}

/** The labels of the editor title's actions as shown (the overflow "…" included), left to right. */
const titleActions = (page) =>
  page.evaluate(() => {
    const bar = document.querySelector('.editor-group-container.active .editor-actions');
    if (!bar) return [];
    const right = bar.closest('.title')?.getBoundingClientRect().right ?? Infinity;
    return [...bar.querySelectorAll('.action-item a.action-label')]
      .filter((a) => {
        const r = a.getBoundingClientRect();
        return r.width > 0 && r.right <= right + 1;
      })
      .map((a) => a.getAttribute('aria-label') ?? a.getAttribute('title') ?? '?');
  });

async function run(theme, [label, cls]) {
  const session = await startShotSession({
    repo,
    prefix: 'forge-dtshots-',
    userSettings: {
      'window.autoDetectHighContrast': false,
      'window.autoDetectColorScheme': false,
      'forge.autoApprove': { read: true, write: false, execute: false, network: false },
    },
    turns,
    prepare: (ws) => fs.writeFileSync(path.join(ws, 'src', 'names.js'), original),
  });
  const { page } = session;
  try {
    if (CROWD > 0) await installCrowd(session, CROWD);
    await pickColorTheme(page, label, cls);
    const { panel, wv } = await openForgePanel(page);
    await panel.input.fill('Add c to src/names.js.');
    await panel.input.press('Enter');
    await wv.locator('.approval-card.pending').first().waitFor({ timeout: 60_000 });
    await page.locator('.monaco-diff-editor').first().waitFor({ timeout: 30_000 });
    await page.waitForTimeout(1500);
    const activity = (await page.locator('.part.activitybar').boundingBox())?.width ?? 48;
    const total = page.viewportSize()?.width ?? 1400;
    for (const w of EDITOR_WIDTHS) {
      await setSidebarWidth(page, total - activity - w - 4, (m) => console.log(`[shots] ${m}`));
      await page.waitForTimeout(600);
      const group = await page.locator('.editor-group-container.active').boundingBox();
      const file = path.join(shots, `difftitle-${theme}-${w}${CROWD ? `-crowd${CROWD}` : ''}.png`);
      const x = Math.max(0, Math.round((group?.x ?? 0) - 40));
      await page.screenshot({ path: file, clip: { x, y: 0, width: total - x, height: 260 } });
      console.log(
        `[shots] ${file}: editor ${Math.round(group?.width ?? 0)} px, title: ${(await titleActions(page)).join(' | ')}`,
      );
    }
  } finally {
    await session.close();
  }
}

fs.mkdirSync(shots, { recursive: true });
for (const [theme, pick] of THEMES) await run(theme, pick);
process.exit(0);

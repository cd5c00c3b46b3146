#!/usr/bin/env node
// Screenshots for looking, not a test: a command approval card (with its containment line and the scoped
// "Always allow" button) in the real VS Code, in the light, dark and high-contrast themes, at a narrow and a wide
// side bar. Writes test-results/approval-<theme>-<width>.png.
//
//   node test/integration/ui-shots.mjs
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, launchChromium, makeDirs, startCodeServer, workbenchUrl } from './lib/code-server.mjs';
import { prepareWorkspace } from './run.mjs';
import { startLoopbackLlm } from './ui/llm.mjs';
import { forgePanel, runCommand, waitForWorkbench, widenSidebar } from './ui/workbench.mjs';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const shots = path.join(repo, 'test-results');
const ALL_THEMES = { light: 'Default Light Modern', dark: 'Default Dark Modern', hc: 'Default High Contrast' };
// FORGE_SHOTS_THEMES=hc,dark limits the run to some themes.
const THEMES = Object.fromEntries(Object.entries(ALL_THEMES).filter(([k]) => !process.env.FORGE_SHOTS_THEMES || process.env.FORGE_SHOTS_THEMES.split(',').includes(k)));
const turns = [
  { text: 'I will build the project first.', toolCalls: [{ id: 's1', name: 'execute_command', args: { command: 'make build && git commit -am "build output"' } }] },
  { toolCalls: [{ id: 's2', name: 'task_completion', args: { result: 'Done.' } }] },
];

async function shoot(theme, label) {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'forge-shots-'));
  const dirs = makeDirs(root, { 'workbench.colorTheme': theme, 'window.autoDetectHighContrast': false, 'window.autoDetectColorScheme': false, 'workbench.secondarySideBar.defaultVisibility': 'hidden' });
  const workspace = path.join(root, 'workspace');
  let llm, server, browser;
  try {
    llm = await startLoopbackLlm(repo);
    llm.script(turns);
    prepareWorkspace(workspace, llm.url);
    server = await startCodeServer({ dirs, port: await freePort(), smokeTestDriver: true, extraEnv: { FORGE_TEST: '1', FORGE_TEST_LLM_URL: llm.url } });
    browser = await launchChromium(dirs, { viewport: { width: 1400, height: 900 } });
    const page = browser.pages()[0] ?? (await browser.newPage());
    await page.goto(workbenchUrl({ authority: server.authority, folder: workspace, extensionDevelopmentPath: repo }));
    await waitForWorkbench(page);
    const panel = forgePanel(page);
    await page.locator('.activitybar [aria-label^="Forge"]').first().waitFor({ state: 'attached', timeout: 60_000 });
    await runCommand(page, 'Forge: Open Panel');
    await panel.input.waitFor({ state: 'visible', timeout: 60_000 });
    await panel.input.fill('Build it and commit.');
    await panel.input.press('Enter');
    await panel.pendingApproval.waitFor({ timeout: 30_000 });
    // Pick the theme as a person would (the palette), then wait for its class on the workbench root.
    const cls = { light: 'vs', dark: 'vs-dark', hc: 'hc-black' }[label];
    const pick = { light: 'Light Modern', dark: 'Dark Modern', hc: 'Dark High Contrast' }[label];
    await page.keyboard.press('F1');
    const input = page.locator('.quick-input-widget input');
    await input.fill('>Preferences: Color Theme');
    await page.locator('.quick-input-list .monaco-list-row', { hasText: 'Preferences: Color Theme' }).first().click();
    await page.waitForTimeout(500);
    await input.fill(pick);
    await page.locator('.quick-input-list .monaco-list-row', { hasText: pick }).first().waitFor({ timeout: 10_000 });
    await input.press('Enter');
    await page.waitForFunction((c) => document.querySelector('.monaco-workbench')?.classList.contains(c), cls, { timeout: 30_000 })
      .catch(() => console.log(`[shots] ${label}: the workbench never showed the ${cls} class`));
    await page.waitForTimeout(800);
    for (const width of [300, 520]) {
      await widenSidebar(page, width);
      await page.waitForTimeout(600);
      const file = path.join(shots, `approval-${label}-${width}.png`);
      await page.screenshot({ path: file });
      console.log(`[shots] ${file}`);
    }
  } finally {
    await browser?.close().catch(() => {});
    await server?.stop().catch(() => {});
    await llm?.close().catch(() => {});
    fs.rmSync(root, { recursive: true, force: true });
  }
}

fs.mkdirSync(shots, { recursive: true });
for (const [label, theme] of Object.entries(THEMES)) await shoot(theme, label);
process.exit(0);

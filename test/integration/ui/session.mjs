// One real workbench for the screenshot scripts: code-server with Forge loaded from the repository, Chromium on
// it, the workspace open and Forge's activity bar entry present; plus the colour-theme switch they all use.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort, launchChromium, makeDirs, startCodeServer, workbenchUrl } from '../lib/code-server.mjs';
import { prepareWorkspace } from '../run.mjs';
import { startLoopbackLlm } from './llm.mjs';
import { openPalette, waitForWorkbench } from './workbench.mjs';

/** Starts code-server and Chromium; on failure closes what it started. The caller closes both when done. */
export async function startWorkbench({ repo, dirs, workspace, extraEnv = {} }) {
  const server = await startCodeServer({
    dirs,
    port: await freePort(),
    smokeTestDriver: true,
    extraEnv: { FORGE_TEST: '1', ...extraEnv },
  });
  let browser;
  try {
    browser = await launchChromium(dirs, { viewport: { width: 1400, height: 900 } });
    const page = browser.pages()[0] ?? (await browser.newPage());
    await page.goto(workbenchUrl({ authority: server.authority, folder: workspace, extensionDevelopmentPath: repo }));
    await waitForWorkbench(page);
    await page.locator('.activitybar [aria-label^="Forge"]').first().waitFor({ state: 'attached', timeout: 60_000 });
    return { server, browser, page };
  } catch (err) {
    await browser?.close().catch(() => {});
    await server.stop().catch(() => {});
    throw err;
  }
}

/**
 * A whole screenshot session in a temp folder: VS Code user settings, the loopback model scripted with `turns`, the
 * test workspace with that model configured (unless `configureModel` is false; `prepare(workspace)` may add to it),
 * and the workbench on it (`server`: code-server). `close()` closes and removes everything; on a failed start it has
 * run already.
 */
export async function startShotSession({
  repo,
  prefix = 'forge-shots-',
  userSettings = {},
  llmOptions,
  turns,
  configureModel = true,
  prepare,
}) {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  const dirs = makeDirs(root, { 'workbench.secondarySideBar.defaultVisibility': 'hidden', ...userSettings });
  const workspace = path.join(root, 'workspace');
  let llm;
  let started;
  const close = async () => {
    await started?.browser.close().catch(() => {});
    await started?.server.stop().catch(() => {});
    await llm?.close().catch(() => {});
    fs.rmSync(root, { recursive: true, force: true });
  };
  try {
    llm = await startLoopbackLlm(repo, llmOptions);
    if (turns) llm.script(turns);
    prepareWorkspace(workspace, configureModel ? llm.url : undefined);
    await prepare?.(workspace);
    started = await startWorkbench({
      repo,
      dirs,
      workspace,
      extraEnv: configureModel ? { FORGE_TEST_LLM_URL: llm.url } : {},
    });
    return { page: started.page, server: started.server, llm, workspace, close };
  } catch (err) {
    await close();
    throw err;
  }
}

/** Preferences: Color Theme -> `pick`, then waits for the workbench's theme class `cls` (reported, not failed). */
export async function pickColorTheme(page, pick, cls) {
  const input = await openPalette(page);
  await input.fill('>Preferences: Color Theme');
  await page.locator('.quick-input-list .monaco-list-row', { hasText: 'Preferences: Color Theme' }).first().click();
  await page.waitForTimeout(500);
  await input.fill(pick);
  await page.locator('.quick-input-list .monaco-list-row', { hasText: pick }).first().waitFor({ timeout: 10_000 });
  await input.press('Enter');
  await page
    .waitForFunction((c) => document.querySelector('.monaco-workbench')?.classList.contains(c), cls, {
      timeout: 30_000,
    })
    .catch(() => console.log(`[shots] the workbench never showed the ${cls} class`));
  await page.waitForTimeout(800);
}

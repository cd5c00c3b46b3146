// One real workbench for the screenshot scripts: code-server with Forge loaded from the repository, Chromium on
// it, the workspace open and Forge's activity bar entry present; plus the colour-theme switch they all use.
import { freePort, launchChromium, startCodeServer, workbenchUrl } from '../lib/code-server.mjs';
import { waitForWorkbench } from './workbench.mjs';

/** Starts code-server and Chromium; on failure closes what it started. The caller closes both when done. */
export async function startWorkbench({ repo, dirs, workspace, extraEnv = {} }) {
  const server = await startCodeServer({ dirs, port: await freePort(), smokeTestDriver: true, extraEnv: { FORGE_TEST: '1', ...extraEnv } });
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

/** Preferences: Color Theme -> `pick`, then waits for the workbench's theme class `cls` (reported, not failed). */
export async function pickColorTheme(page, pick, cls) {
  await page.keyboard.press('F1');
  const input = page.locator('.quick-input-widget input');
  await input.fill('>Preferences: Color Theme');
  await page.locator('.quick-input-list .monaco-list-row', { hasText: 'Preferences: Color Theme' }).first().click();
  await page.waitForTimeout(500);
  await input.fill(pick);
  await page.locator('.quick-input-list .monaco-list-row', { hasText: pick }).first().waitFor({ timeout: 10_000 });
  await input.press('Enter');
  await page.waitForFunction((c) => document.querySelector('.monaco-workbench')?.classList.contains(c), cls, { timeout: 30_000 })
    .catch(() => console.log(`[shots] the workbench never showed the ${cls} class`));
  await page.waitForTimeout(800);
}

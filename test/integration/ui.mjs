#!/usr/bin/env node
// End-to-end test through the REAL VS Code UI (code-server's workbench in headless Chromium, driven by
// playwright-core): a user opens Forge, types a task, approves the proposed edit in the panel, and the run ends.
//
//   node test/integration/ui.mjs [--keep] [--verbose]
//
// Starts the loopback LLM server (scripted turns, in this process), a fresh code-server with Forge loaded as a
// development extension on a temp copy of test/fixtures/sample-workspace (run.mjs's prepareWorkspace points
// Forge at the loopback server), then runs test/integration/ui/forge-task.mjs. Screenshots go to test-results/:
// vscode-panel-mid-task.png, vscode-panel-done.png, and vscode-ui-failure.png on failure.
// Exit 0 = passed; 1 = failed; 2 = not set up; 124 = overall timeout. Everything started here is stopped.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { isInstalled } from '../../scripts/setup-real-vscode.mjs';
import { freePort, launchChromium, makeDirs, startCodeServer, workbenchUrl } from './lib/code-server.mjs';
import { prepareWorkspace } from './run.mjs';
import { forgeTaskThroughTheUi, turns } from './ui/forge-task.mjs';
import { startLoopbackLlm } from './ui/llm.mjs';
import { waitForWorkbench } from './ui/workbench.mjs';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const shots = path.join(repo, 'test-results');
const argv = process.argv.slice(2);
const keep = argv.includes('--keep') || !!process.env.FORGE_UI_KEEP;
const verbose = argv.includes('--verbose') || !!process.env.FORGE_UI_VERBOSE;
const timeoutMs = Number(process.env.FORGE_UI_TIMEOUT_MS ?? 180_000);

const t0 = Date.now();
const step = (m) => console.log(`[ui ${((Date.now() - t0) / 1000).toFixed(1)}s] ${m}`);

function tail(file, n, keep = () => true) {
  try {
    return fs.readFileSync(file, 'utf8').trimEnd().split('\n').filter(keep).slice(-n).join('\n');
  } catch {
    return '(none)';
  }
}

async function main() {
  if (!isInstalled()) {
    console.error('Real VS Code is not installed. Run: node scripts/setup-real-vscode.mjs');
    return 2;
  }
  if (!fs.existsSync(path.join(repo, 'dist/extension.js')) || !fs.existsSync(path.join(repo, 'dist/webview'))) {
    console.error('dist/ is missing. Run: node esbuild.mjs');
    return 2;
  }
  fs.mkdirSync(shots, { recursive: true });
  for (const f of ['vscode-panel-mid-task.png', 'vscode-panel-done.png', 'vscode-ui-failure.png'])
    fs.rmSync(path.join(shots, f), { force: true });

  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'forge-ui-'));
  const dirs = makeDirs(root, { 'workbench.secondarySideBar.defaultVisibility': 'hidden' });
  const workspace = path.join(root, 'workspace');
  const pageLog = fs.createWriteStream(path.join(root, 'page.log'));
  let llm, server, browser, page;
  let cleaning;
  let timedOut = false;
  // One shared promise: whichever path ends the run (watchdog or main) waits for the same, complete cleanup.
  const cleanup = () =>
    (cleaning ??= (async () => {
      await browser?.close().catch(() => {});
      await server?.stop().catch(() => {});
      await llm?.close().catch(() => {});
      pageLog.end();
      if (keep) step(`kept ${root}`);
      else fs.rmSync(root, { recursive: true, force: true });
    })());
  async function failureShot() {
    try {
      await page?.screenshot({ path: path.join(shots, 'vscode-ui-failure.png'), timeout: 10_000 });
      console.error(`[ui] failure screenshot: ${path.join(shots, 'vscode-ui-failure.png')}`);
    } catch {
      /* the page may be gone */
    }
  }

  const watchdog = setTimeout(async () => {
    timedOut = true;
    console.error(`[ui] FAILED: overall timeout after ${timeoutMs} ms`);
    await failureShot();
    console.error(`[ui] code-server log tail:\n${tail(dirs.serverLog, 20)}`);
    await cleanup();
    process.exit(124);
  }, timeoutMs);
  try {
    llm = await startLoopbackLlm(repo);
    llm.script(turns);
    step(`loopback LLM server at ${llm.url}`);
    prepareWorkspace(workspace, llm.url);
    server = await startCodeServer({
      dirs,
      port: await freePort(),
      smokeTestDriver: true, // the workbench honours extensionDevelopmentPath only with it
      extraEnv: { FORGE_TEST: '1', FORGE_TEST_LLM_URL: llm.url },
    });
    step(`code-server up on ${server.base} (pid ${server.child.pid})`);
    server.exited.then((c) => !cleaning && console.error(`[ui] code-server exited unexpectedly (${c})`));

    browser = await launchChromium(dirs, { viewport: { width: 1600, height: 1000 } });
    page = browser.pages()[0] ?? (await browser.newPage());
    page.on('console', (m) => {
      pageLog.write(`[${m.type()}] ${m.text()}\n`);
      if (verbose && m.type() === 'error') console.log(`  [page error] ${m.text().slice(0, 300)}`);
    });
    page.on('pageerror', (e) => pageLog.write(`[pageerror] ${e.message}\n`));
    await page.goto(workbenchUrl({ authority: server.authority, folder: workspace, extensionDevelopmentPath: repo }));
    await waitForWorkbench(page);
    step('workbench open, explorer populated');

    await forgeTaskThroughTheUi(page, { workspace, llm, shots, step });
    step('PASSED');
    return 0;
  } catch (e) {
    if (timedOut) return 124; // the watchdog closed the browser under us; it reports and cleans up
    console.error(`[ui] FAILED: ${e?.stack ?? e}`);
    await failureShot();
    if (llm) console.error(`[ui] model requests: ${llm.requests.length}, scripted turns left: ${llm.pending}`);
    // Without stack frames and the marketplace lookups an offline workbench always fails.
    const useful = (l) => l.startsWith('[') && !/open-vsx|gallery|allow-same-origin/.test(l);
    console.error(`[ui] page console tail:\n${tail(path.join(root, 'page.log'), 15, useful)}`);
    return 1;
  } finally {
    if (!timedOut) clearTimeout(watchdog);
    await cleanup();
  }
}

main().then(
  (code) => {
    step(`done, exit ${code} (${((Date.now() - t0) / 1000).toFixed(1)}s)`);
    process.exit(code);
  },
  (e) => {
    console.error('[ui] harness error:', e);
    process.exit(1);
  },
);

#!/usr/bin/env node
// `npm start`: run Forge in a real VS Code on a copy of the sample workspace.
// - Desktop `code` on PATH: `code --extensionDevelopmentPath=<repo> <workspace>`.
// - Otherwise: installs code-server if needed (scripts/setup-real-vscode.mjs), starts it on 127.0.0.1 and prints
//   the URL that opens the workspace with Forge loaded as a development extension. Ctrl+C stops it.
// Options: --fresh (recopy the sample workspace), --workspace <dir>, --port <n>, --no-build,
//          --check (headless self-test: open the URL in Chromium, wait for the Forge activity bar entry, exit).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { isInstalled } from './setup-real-vscode.mjs';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const argv = process.argv.slice(2);
const option = (n) => (argv.indexOf(n) >= 0 ? argv[argv.indexOf(n) + 1] : undefined);
const log = (m) => console.log(`[forge start] ${m}`);

function run(cmd, args) {
  const r = spawnSync(cmd, args, { cwd: repo, stdio: 'inherit' });
  if (r.status !== 0) {
    console.error(`[forge start] ${cmd} ${args.join(' ')} failed (exit ${r.status})`);
    process.exit(r.status ?? 1);
  }
}

function onPath(bin) {
  return (process.env.PATH ?? '').split(path.delimiter).some((d) => d && fs.existsSync(path.join(d, bin)));
}

function workspaceCopy() {
  if (option('--workspace')) return path.resolve(option('--workspace'));
  const target = path.join(repo, '.cache', 'sample-workspace');
  if (argv.includes('--fresh')) fs.rmSync(target, { recursive: true, force: true });
  if (!fs.existsSync(target)) fs.cpSync(path.join(repo, 'test/fixtures/sample-workspace'), target, { recursive: true });
  return target;
}

async function main() {
  if (!argv.includes('--no-build')) {
    log('building Forge (esbuild, a few seconds)');
    run(process.execPath, ['esbuild.mjs']);
  }
  const workspace = workspaceCopy();
  const desktop = !argv.includes('--check') && !process.env.FORGE_FORCE_CODE_SERVER && onPath('code');
  if (desktop) {
    log(`opening ${workspace} in desktop VS Code with Forge as a development extension`);
    run('code', [`--extensionDevelopmentPath=${repo}`, workspace]);
    return;
  }
  if (!isInstalled()) {
    log('no desktop `code` on PATH: Forge opens in code-server (VS Code in the browser) instead');
    log('first start only: installing it takes one to three minutes; progress follows');
    run(process.execPath, ['scripts/setup-real-vscode.mjs']);
  }
  const { freePort, launchChromium, makeDirs, startCodeServer, workbenchUrl } =
    await import('../test/integration/lib/code-server.mjs');
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'forge-start-'));
  const dirs = makeDirs(root);
  const port = Number(option('--port') ?? process.env.FORGE_PORT ?? 0) || (await freePort());
  // The workbench honours the extensionDevelopmentPath payload only with the smoke-test driver option on.
  log('starting code-server on 127.0.0.1 (a few seconds)');
  const server = await startCodeServer({ dirs, port, smokeTestDriver: true });
  const url = workbenchUrl({ authority: server.authority, folder: workspace, extensionDevelopmentPath: repo });
  let stopping = false;
  const stop = async (code = 0) => {
    if (stopping) return;
    stopping = true;
    await server.stop();
    fs.rmSync(root, { recursive: true, force: true });
    process.exit(code);
  };
  process.on('SIGINT', () => void stop(0));
  process.on('SIGTERM', () => void stop(0));
  server.exited.then((c) => {
    if (!stopping) {
      console.error(`[forge start] code-server exited (${c}); log: ${dirs.serverLog}`);
      void stop(1);
    }
  });

  if (argv.includes('--check')) {
    const browser = await launchChromium(dirs);
    try {
      const page = browser.pages()[0] ?? (await browser.newPage());
      await page.goto(url);
      await page.waitForSelector('.explorer-folders-view .monaco-list-row', { timeout: 90_000 });
      const forgeEntry = page
        .locator('.activitybar [aria-label^="Forge"], .activitybar .action-label[aria-label^="Forge"]')
        .first();
      try {
        await forgeEntry.waitFor({ state: 'attached', timeout: 60_000 });
      } catch (e) {
        const labels = await page.$$eval('.activitybar [aria-label]', (els) =>
          els.map((el) => el.getAttribute('aria-label')),
        );
        throw new Error(`${e.message}\nactivity bar entries: ${labels.join(' | ')}`, { cause: e });
      }
      log('check passed: the workbench opened the workspace and shows the Forge activity bar entry');
      await browser.close();
      await stop(0);
    } catch (e) {
      console.error(`[forge start] check FAILED: ${e.message}`);
      await browser.close().catch(() => {});
      await stop(1);
    }
    return;
  }
  log(`VS Code (code-server) is running with Forge loaded. Open:\n\n  ${url}\n`);
  log(`workspace: ${workspace}   (Ctrl+C to stop)`);
}

main().catch((e) => {
  console.error('[forge start]', e);
  process.exit(1);
});

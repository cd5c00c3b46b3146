// Killing the real extension host the way a crash does (SIGKILL, no deactivate), then reloading the window as a user
// would: code-server leaves a crashed remote host down.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { runCommand } from './workbench.mjs';

/** Process ids of the extension hosts code-server started (they are in its process group). */
export function extensionHosts(server) {
  const out = execFileSync('ps', ['-eo', 'pid=,pgid=,args='], { encoding: 'utf8' });
  return out
    .split('\n')
    .map((l) => l.trim().match(/^(\d+)\s+(\d+)\s+(.*)$/))
    .filter((m) => m && Number(m[2]) === server.child.pid && /extensionHost/.test(m[3]))
    .map((m) => Number(m[1]));
}

/** SIGKILLs the extension host, or throws when there is none. Returns its pid. */
export function killHostNow(server) {
  const [pid] = extensionHosts(server);
  assert.ok(pid, 'found the extension host');
  process.kill(pid, 'SIGKILL');
  return pid;
}

/** Reloads the window after `killHostNow` and waits for a new extension host. */
export async function reloadAfterKill(server, page, pid, step = () => {}) {
  // Another extension-host process that shows up meanwhile is not a restart: once taken for one, the panel never
  // came back. So the user reloads the window.
  await runCommand(page, 'Developer: Reload Window', { log: step });
  await page.waitForTimeout(1000);
  await page
    .locator('.monaco-workbench .activitybar [aria-label^="Forge"]')
    .first()
    .waitFor({ state: 'attached', timeout: 90_000 });
  await page.evaluate(() => navigator.serviceWorker.ready);
  for (let i = 0; i < 300 && !extensionHosts(server).some((p) => p !== pid); i++) await page.waitForTimeout(100);
  assert.ok(
    extensionHosts(server).some((p) => p !== pid),
    'a new extension host started',
  );
  step('window reloaded, new extension host');
}

/** Kills the extension host and reloads the window. */
export async function killExtensionHost(server, page, step = () => {}) {
  const pid = killHostNow(server);
  step(`extension host ${pid} killed`);
  await reloadAfterKill(server, page, pid, step);
}

/**
 * Waits until a JSON Lines file in a `folder` (answers, commands...) of Forge's storage under `storage` holds
 * `needle`: the moment to kill, once Forge has recorded what the test is about.
 */
export async function waitForLogLine(storage, folder, needle, { timeoutMs = 30_000, pollMs = 2 } = {}) {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    for (const dir of findDirs(storage, folder))
      for (const f of fs.readdirSync(dir))
        if (f.endsWith('.jsonl') && fs.readFileSync(path.join(dir, f), 'utf8').includes(needle)) return;
    await new Promise((r) => setTimeout(r, pollMs));
  }
  throw new Error(`no ${folder}/*.jsonl under ${storage} ever held ${needle}`);
}

function findDirs(root, name, depth = 3) {
  if (depth < 0 || !fs.existsSync(root)) return [];
  const out = [];
  for (const e of fs.readdirSync(root, { withFileTypes: true })) {
    if (!e.isDirectory()) continue;
    const p = path.join(root, e.name);
    if (e.name === name) out.push(p);
    else out.push(...findDirs(p, name, depth - 1));
  }
  return out;
}

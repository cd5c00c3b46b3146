#!/usr/bin/env node
// Issue 26 item 9, "tokens vanish from the footer after a reload", in the real VS Code (code-server + Chromium) with
// the loopback model reporting exact usage. The footer's figures are read before and after each of:
//  1. a window reload while an approval waits (the restored run asks again);
//  2. a window reload once that task finished;
//  3. a window reload while the model streams its reply;
//  4. a SIGKILL of the extension host while an approval waits, then a reload.
// Each time the footer must show the tokens it showed before; once the resumed run ends, the whole run's tokens.
// Before the fix, 1 and 4 failed: the footer lagged a step behind while an approval waited (270 spent, 120 shown),
// showed no tokens after the reload, and the resumed run's end showed its own step only (200 of 470).
//
//   node esbuild.mjs && node test/integration/reload-tokens.mjs
//
// Exit 0 = passed; 1 = failed; 124 = timed out. Writes test-results/reload-tokens-*.png.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startShotSession } from './ui/session.mjs';
import { killExtensionHost } from './ui/kill.mjs';
import { forgeWebview, openForgePanel, runCommand } from './ui/workbench.mjs';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const shots = path.join(repo, 'test-results');
const t0 = Date.now();
const step = (m) => console.log(`[reload-tokens ${((Date.now() - t0) / 1000).toFixed(1)}s] ${m}`);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// Usage under 1,000 so the footer prints the exact numbers ("270 in · 50 out").
const read = (id, usage) => ({ usage, toolCalls: [{ id, name: 'read_file', args: { path: 'src/greet.js' } }] });
const write = (id, content, usage) => ({
  usage,
  toolCalls: [{ id, name: 'write_file', args: { path: 'src/out.txt', content } }],
});
const done = (id, usage) => ({ usage, toolCalls: [{ id, name: 'task_completion', args: { result: 'Done.' } }] });

/** "Iteration 2 / 25 · 270 in · 50 out · 3s" -> "270 in · 50 out" (undefined when the footer shows no tokens). */
async function footerTokens(page) {
  const text = await forgeWebview(page)
    .locator('.progress .progress-text')
    .textContent({ timeout: 5_000 })
    .catch(() => '');
  return text?.match(/(\S+ in · \S+ out)/)?.[1];
}

/** Polls the footer until it shows `want` (or the timeout), and returns what it last showed. */
async function waitTokens(page, want, timeoutMs = 15_000) {
  let seen;
  for (const end = Date.now() + timeoutMs; Date.now() < end; await sleep(200)) {
    seen = await footerTokens(page);
    if (seen === want) break;
  }
  return seen;
}

async function reloadWindow(page) {
  await runCommand(page, 'Developer: Reload Window', { log: step });
  await page.waitForTimeout(1000);
  await page.locator('.monaco-workbench .activitybar [aria-label^="Forge"]').first().waitFor({ timeout: 90_000 });
  await page.evaluate(() => navigator.serviceWorker.ready);
}

async function main() {
  fs.mkdirSync(shots, { recursive: true });
  const session = await startShotSession({
    repo,
    prefix: 'forge-reload-tokens-',
    userSettings: { 'forge.autoApprove': { read: true, write: false, execute: false, network: false } },
  });
  const watchdog = setTimeout(() => {
    console.error('[reload-tokens] timed out after 420 s');
    void session.close().finally(() => process.exit(124));
  }, 420_000);
  const { page, server, llm } = session;
  const failures = [];
  const check = async (what, want) => {
    const seen = await waitTokens(page, want);
    await page.screenshot({ path: path.join(shots, `reload-tokens-${what}.png`) }).catch(() => {});
    step(`${what}: footer shows ${JSON.stringify(seen)} (wanted ${JSON.stringify(want)})`);
    if (seen !== want) failures.push(`${what}: the footer showed ${JSON.stringify(seen)}, not ${JSON.stringify(want)}`);
  };
  try {
    // 1. Reload while an approval waits.
    llm.script([
      read('t-r1', { inputTokens: 120, outputTokens: 30 }),
      write('t-w1', 'one\n', { inputTokens: 150, outputTokens: 20 }),
    ]);
    let { panel } = await openForgePanel(page, { log: step });
    await panel.input.fill('Write one.');
    await panel.input.press('Enter');
    await panel.pendingApproval.waitFor({ timeout: 60_000 });
    // The step that waits counts already: its reply is in.
    await check('1-approval-live', '270 in · 50 out');
    await sleep(1200); // past the session's save delay
    await reloadWindow(page);
    ({ panel } = await openForgePanel(page, { log: step }));
    await panel.pendingApproval.waitFor({ timeout: 60_000 });
    await check('1-approval-after-reload', '270 in · 50 out');
    llm.script([done('t-d1', { inputTokens: 200, outputTokens: 10 })]);
    await panel.approveButton.first().click();
    await panel.runEnd('done').waitFor({ timeout: 60_000 });
    await check('1-resumed-run-ended', '470 in · 60 out');
    const finished = await footerTokens(page);

    // 2. Reload once the task finished.
    await reloadWindow(page);
    ({ panel } = await openForgePanel(page, { log: step }));
    await panel.runEnd('done').waitFor({ timeout: 60_000 });
    await check('2-finished-after-reload', finished);

    // 3. Reload while the model streams (one step is done, the next reply never ends).
    llm.script([
      read('t-r3', { inputTokens: 300, outputTokens: 40 }),
      { fault: 'hang', text: 'Streaming a long answer that the reload cuts off' },
    ]);
    await panel.input.fill('Read again.');
    await panel.input.press('Enter');
    await panel.assistant('Streaming a long answer').waitFor({ timeout: 60_000 });
    await check('3-streaming-live', '300 in · 40 out');
    await sleep(1200); // past the session's save delay, as a user who watched it stream would be
    await reloadWindow(page);
    ({ panel } = await openForgePanel(page, { log: step }));
    await panel.userBubble('Read again.').waitFor({ timeout: 60_000 });
    await check('3-streaming-after-reload', '300 in · 40 out');

    // 4. The extension host killed while an approval waits.
    llm.script([write('t-w4', 'four\n', { inputTokens: 400, outputTokens: 50 })]);
    await panel.input.fill('Write four.');
    await panel.input.press('Enter');
    await panel.pendingApproval.waitFor({ timeout: 60_000 });
    await check('4-approval-live', '400 in · 50 out');
    await sleep(1200); // saved
    await killExtensionHost(server, page, step);
    ({ panel } = await openForgePanel(page, { log: step }));
    await panel.pendingApproval.waitFor({ timeout: 60_000 });
    await check('4-approval-after-kill', '400 in · 50 out');

    assert.deepEqual(failures, [], 'the footer kept its tokens through every reload');
    step('passed: the footer keeps its tokens through reloads and a crash');
    return 0;
  } catch (err) {
    await page.screenshot({ path: path.join(shots, 'reload-tokens-failure.png') }).catch(() => {});
    console.error(err);
    return 1;
  } finally {
    clearTimeout(watchdog);
    await session.close();
  }
}

main().then((code) => process.exit(code));

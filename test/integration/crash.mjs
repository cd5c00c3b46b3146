#!/usr/bin/env node
// A real crash mid-task in the real VS Code: the extension host is killed (SIGKILL, no deactivate) while Forge
// waits for the user to approve an edit, and again while a command runs. The window is reloaded (a new extension host);
// Forge must come back with the conversation, ask the pending approval again (Approve then writes the edit once),
// report the command the crash cut off (with its output so far, not to be rerun blindly) and go on.
//
//   node esbuild.mjs && node test/integration/crash.mjs
//
// FORGE_CRASH_THEME=dark|hc takes the screenshots in that theme; FORGE_CRASH_WIDTH=600 at that side-bar width.
// Exit 0 = passed; 1 = failed; 124 = timed out. Writes test-results/crash-*.png. FORGE_CRASH_KEEP=1 leaves the
// session (code-server, Chromium, the temp folder) running for a look.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { pickColorTheme, startShotSession } from './ui/session.mjs';
import { killExtensionHost } from './ui/kill.mjs';
import { forgeWebview, openForgePanel, setSidebarWidth } from './ui/workbench.mjs';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const shots = path.join(repo, 'test-results');
const t0 = Date.now();
const step = (m) => console.log(`[crash ${((Date.now() - t0) / 1000).toFixed(1)}s] ${m}`);

const TASK = 'Make the greeting in src/greet.js say Hi, then run the migration script.';
const SEARCH = "  return 'Hello, ' + name + '!';";
const REPLACE = "  return 'Hi, ' + name + '!';";
const turns = [
  {
    text: 'Changing the greeting first.',
    toolCalls: [
      {
        id: 'crash-edit',
        name: 'apply_diff',
        args: { path: 'src/greet.js', blocks: [{ search: SEARCH, replace: REPLACE }] },
      },
    ],
  },
  // After the restore and Approve: a long command, cut off by the second crash.
  {
    toolCalls: [
      {
        id: 'crash-cmd',
        name: 'execute_command',
        args: { command: 'echo migrating-users; echo migrating-orders; sleep 60; echo never-printed' },
      },
    ],
  },
  // After the second restore, the user's Continue: the model is told what happened and finishes.
  {
    toolCalls: [
      {
        id: 'crash-done',
        name: 'task_completion',
        args: { result: 'The greeting says Hi; the migration was cut off by a reload and needs checking.' },
      },
    ],
  },
];

async function main() {
  fs.mkdirSync(shots, { recursive: true });
  const session = await startShotSession({ repo, prefix: 'forge-crash-', turns });
  const watchdog = setTimeout(() => {
    console.error('[crash] timed out after 300 s');
    void session.close().finally(() => process.exit(124));
  }, 300_000);
  const { page, server, workspace, llm } = session;
  const file = path.join(workspace, 'src', 'greet.js');
  const original = fs.readFileSync(file, 'utf8');
  try {
    let { panel } = await openForgePanel(page, { log: step });
    const theme = { dark: ['Dark Modern', 'vs-dark'], hc: ['Dark High Contrast', 'hc-black'] }[
      process.env.FORGE_CRASH_THEME ?? ''
    ];
    // Picked again after each reload: the workbench does not always keep a theme picked just before a crash.
    const width = Number(process.env.FORGE_CRASH_WIDTH ?? 0);
    const applyTheme = async () => {
      if (width) await setSidebarWidth(page, width);
      if (theme) await pickColorTheme(page, theme[0], theme[1]);
    };
    await applyTheme();
    await panel.input.fill(TASK);
    await panel.input.press('Enter');
    await panel.pendingApproval.filter({ hasText: 'src/greet.js' }).waitFor({ timeout: 60_000 });
    step('the edit waits for approval');

    // 1. Crash while the approval is pending: nothing was written; after the restart it is asked again.
    await killExtensionHost(server, page, step);
    ({ panel } = await openForgePanel(page, { log: step }));
    await applyTheme();
    await panel.userBubble('Make the greeting').waitFor({ timeout: 60_000 });
    await panel.pendingApproval.filter({ hasText: 'src/greet.js' }).waitFor({ timeout: 60_000 });
    assert.equal(fs.readFileSync(file, 'utf8'), original, 'nothing written before Approve');
    await page.screenshot({ path: path.join(shots, 'crash-approval-restored.png') });
    step('conversation and the pending approval are back');
    await panel.approveButton.first().click();
    for (let i = 0; i < 200 && !fs.readFileSync(file, 'utf8').includes("'Hi, '"); i++) await page.waitForTimeout(100);
    assert.equal(fs.readFileSync(file, 'utf8'), original.replace(SEARCH, REPLACE), 'the edit written once, exactly');

    // 2. Crash while the command runs (after its output so far reached the command log).
    await panel.pendingApproval.filter({ hasText: 'migrating-users' }).waitFor({ timeout: 60_000 });
    const requestsBefore = llm.requests.length;
    await panel.approveButton.first().click();
    const storage = path.join(path.dirname(workspace), 'user-data', 'User', 'globalStorage');
    const logged = () =>
      execFileSync('grep', ['-rl', '--include=*.out', 'migrating-orders', storage], { encoding: 'utf8' }).trim() !== '';
    for (let i = 0; i < 300; i++) {
      if (
        (() => {
          try {
            return logged();
          } catch {
            return false;
          }
        })()
      )
        break;
      await page.waitForTimeout(100);
    }
    step('the command runs; its output is in the command log');
    await killExtensionHost(server, page, step);
    ({ panel } = await openForgePanel(page, { log: step }));
    await applyTheme();
    await panel.userBubble('Make the greeting').waitFor({ timeout: 60_000 });
    // The restore reports the cut-off command as its result, and offers Continue.
    const wv = forgeWebview(page);
    const cut = wv.locator('.item-tool .tool-card', { hasText: 'migrating' }).first();
    await cut.waitFor({ timeout: 60_000 });
    assert.match(await cut.innerText(), /interrupted/, 'the card says the command was interrupted');
    await cut.locator('.tool-head').click(); // open it: the restore's report
    const cont = wv.locator('vscode-button[data-action="continue"]').last();
    await cont.waitFor({ timeout: 30_000 });
    await page.screenshot({ path: path.join(shots, 'crash-command-restored.png') });
    step('the cut-off command is reported; Continue');
    await cont.click();
    await panel.runEnd('done').waitFor({ timeout: 60_000 });
    const sent = llm.requests.slice(requestsBefore).map((r) => JSON.stringify(r.body?.messages ?? []));
    const told = sent.find((m) => m.includes('Interrupted: Forge was reloaded while this command was running'));
    assert.ok(told, 'the model was told the command was cut off');
    // (messages as JSON: a newline reads \\n)
    assert.match(
      told,
      /Output so far:\\nmigrating-users\\nmigrating-orders\\nIt is not running any more/,
      'its output so far; the contained process died with the host',
    );
    assert.match(told, /Do NOT run it again blindly/);
    assert.equal(fs.readFileSync(file, 'utf8'), original.replace(SEARCH, REPLACE), 'the edit is still there, once');
    await page.screenshot({ path: path.join(shots, 'crash-done.png') });
    step('passed: both crashes recovered');
    return 0;
  } catch (err) {
    await page.screenshot({ path: path.join(shots, 'crash-failure.png') }).catch(() => {});
    console.error(err);
    return 1;
  } finally {
    clearTimeout(watchdog);
    if (process.env.FORGE_CRASH_KEEP) step(`kept: ${workspace}`);
    else await session.close();
  }
}

main().then((code) => process.exit(code));

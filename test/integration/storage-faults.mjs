#!/usr/bin/env node
// Storage faults in the real VS Code: Forge's storage folder is a small tmpfs that the test makes read-only (remount)
// or full (a filler file) before and during runs, then gives back. What Forge says must be true on disk:
//  (a) read-only mid-task: the panel says the conversation is kept in memory; another task is started; the first
//      stays in History and is saved once writing works again ("everything is saved" only once it is);
//  (b) starting on read-only and on full storage restores the latest task; one that cannot be read is named, with why;
//  (c) a full disk during a run: every audit line reaches the log once space returns (or a gap line says how many did
//      not), no line is torn, and no temporary file stays behind, after space returns nor after a reload.
//
//   node esbuild.mjs && node test/integration/storage-faults.mjs      (as root: it mounts a tmpfs)
//
// Exit 0 = passed; 1 = failed; 124 = timed out. Writes test-results/storage-faults-*.png.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startShotSession } from './ui/session.mjs';
import { extensionHosts } from './ui/kill.mjs';
import { fill, mountTmpfs, remount, tempFiles, unfill, unmount } from './ui/storage-mount.mjs';
import { EXTENSION_ID, forgeWebview, openForgePanel, runCommand } from './ui/workbench.mjs';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const shots = path.join(repo, 'test-results');
const t0 = Date.now();
const step = (m) => console.log(`[storage-faults ${((Date.now() - t0) / 1000).toFixed(1)}s] ${m}`);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const TASK_A = 'First task: read greet.js';
const TASK_B = 'Second task: nothing to change';
const TASK_C = 'Third task: read package.json again and again';
const read = (id, p = 'src/greet.js', startLine) => ({
  id,
  name: 'read_file',
  args: { path: p, ...(startLine ? { startLine } : {}) },
});
const MANY = Array.from({ length: 12 }, (_, i) => `c-read-${i + 2}`);
const done = (id, result) => ({ id, name: 'task_completion', args: { result } });

/** Polls `fn` until it returns something truthy; throws `what` after `timeoutMs`. */
async function until(what, fn, timeoutMs = 30_000) {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

/** The storage of this workspace: <mount>/<workspace key>/, once Forge made it. */
function workspaceDir(mount) {
  const keys = fs.existsSync(mount) ? fs.readdirSync(mount).filter((n) => n.startsWith('workspace-')) : [];
  return keys.length ? path.join(mount, keys[0]) : undefined;
}

/** The saved task file whose text contains `needle` (undefined: none). */
function taskFileWith(dir, needle) {
  const tasks = path.join(dir, 'history', 'tasks');
  if (!fs.existsSync(tasks)) return undefined;
  for (const f of fs.readdirSync(tasks).filter((n) => n.endsWith('.json'))) {
    const text = fs.readFileSync(path.join(tasks, f), 'utf8');
    if (text.includes(needle)) return { file: path.join(tasks, f), text };
  }
  return undefined;
}

function auditLines(dir) {
  const file = path.join(dir, 'audit', 'audit.jsonl');
  if (!fs.existsSync(file)) return [];
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l)); // a torn line throws here
}

/** The panel's notices (errors and warnings), as text. */
async function notices(page) {
  return forgeWebview(page)
    .locator('.notice')
    .allInnerTexts()
    .catch(() => []);
}

async function waitNotice(page, re, what, timeoutMs = 30_000) {
  return until(what, async () => (await notices(page)).find((t) => re.test(t)), timeoutMs);
}

/** Reloads the window as a user would and waits for a new extension host and the panel. */
async function reloadWindow(page, server) {
  const before = new Set(extensionHosts(server));
  await runCommand(page, 'Developer: Reload Window', { log: step });
  await page.waitForTimeout(1000);
  await page.locator('.monaco-workbench .activitybar [aria-label^="Forge"]').first().waitFor({ timeout: 90_000 });
  await until('a new extension host', () => extensionHosts(server).some((p) => !before.has(p)), 60_000);
  const opened = await openForgePanel(page, { log: step });
  // The model is in the settings, not in the storage: a "Connect a model" card would be untrue.
  await opened.panel.model.filter({ hasText: 'test-model' }).waitFor({ timeout: 30_000 });
  return opened;
}

async function send(panel, text) {
  await panel.input.fill(text);
  await panel.input.press('Enter');
}

async function main() {
  fs.mkdirSync(shots, { recursive: true });
  let mount;
  const cleanup = () => mount && unmount(mount);
  process.on('exit', cleanup);
  for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => process.exit(130)); // 'exit' unmounts
  const session = await startShotSession({
    repo,
    prefix: 'forge-storage-faults-',
    // Forge's folder in globalStorage is the tmpfs from the start, so every write of Forge's goes to it.
    prepare: (workspace) => {
      mount = path.join(path.dirname(workspace), 'user-data', 'User', 'globalStorage', EXTENSION_ID);
      mountTmpfs(mount, 16);
    },
  });
  const watchdog = setTimeout(() => {
    console.error('[storage-faults] timed out after 300 s');
    cleanup();
    void session.close().finally(() => process.exit(124));
  }, 300_000);
  const { page, server, llm } = session;
  try {
    let { panel } = await openForgePanel(page, { log: step });

    // (a) read-only mid-task.
    llm.script([
      { text: 'Reading greet.js first.', toolCalls: [read('a-read')] },
      {
        delayMs: 8000,
        text: 'The greeting is fine.',
        toolCalls: [done('a-done', 'Read greet.js; nothing to change.')],
      },
    ]);
    await send(panel, TASK_A);
    const dir = await until('the workspace storage', () => workspaceDir(mount));
    await until('the first task saved with its tool result', () => taskFileWith(dir, 'a-read'), 30_000);
    await remount(mount, 'ro');
    step('storage read-only while the model thinks');
    await panel.runEnd('done').waitFor({ timeout: 60_000 });
    const inMemory = await waitNotice(page, /task history.*kept in memory/s, 'the "kept in memory" notice');
    step(`panel: ${inMemory.split('\n')[0]}`);
    // True on disk: the saved file does not have the end of the conversation; the panel does.
    assert.ok(!taskFileWith(dir, 'nothing to change.'), 'the end of the first task is not on disk (read-only)');
    await panel.assistant('The greeting is fine').waitFor({ timeout: 10_000 });
    await page.screenshot({ path: path.join(shots, 'storage-faults-readonly.png') });

    await runCommand(page, 'Forge: New Task', { log: step });
    llm.script([{ toolCalls: [done('b-done', 'Second task finished.')] }]);
    await send(panel, TASK_B);
    await panel.runEnd('done').waitFor({ timeout: 60_000 });
    await waitNotice(page, /could not be saved, so Forge keeps it in this window's memory/, 'the left-behind notice');
    await runCommand(page, 'Forge: Show Task History', { log: step });
    const wv = forgeWebview(page);
    await wv.locator('.history-item .history-title', { hasText: TASK_A }).first().waitFor({ timeout: 15_000 });
    step('the first task, never saved, is in History');
    await page.screenshot({ path: path.join(shots, 'storage-faults-history.png') });
    // Opened from History, the whole conversation is there (its only copy is this window's memory).
    await wv.locator('.history-item a[data-act="load_task"]', { hasText: TASK_A }).first().click();
    await panel.userBubble(TASK_A).waitFor({ timeout: 15_000 });
    await panel.assistant('The greeting is fine').waitFor({ timeout: 15_000 });
    step('the first task reopened from memory, whole');

    await remount(mount, 'rw');
    step('storage writable again');
    const saved = await waitNotice(page, /task history again; everything is saved/, '"everything is saved"', 40_000);
    // Said only once it is true: both conversations are whole on disk now.
    assert.ok(taskFileWith(dir, 'nothing to change.'), `"${saved}" while the first task was not on disk yet`);
    assert.ok(taskFileWith(dir, 'Second task finished.'), `"${saved}" while the second task was not on disk yet`);
    step('(a) passed: both tasks are on disk once Forge says everything is saved');

    // (b) starting on read-only storage, then on full storage: the latest task comes back.
    await remount(mount, 'ro');
    ({ panel } = await reloadWindow(page, server));
    await panel.userBubble(TASK_B).waitFor({ timeout: 60_000 });
    step('started on read-only storage: the latest task is restored');
    await sleep(1000);
    // What the last window said about its storage was true then, not now: both tasks are on disk.
    for (const n of await notices(page)) {
      step(`panel: ${n.split('\n')[0]}`);
      assert.doesNotMatch(n, /keeps it in this window's memory|can write .* again/, 'a stale storage notice');
      // Opening needs no write: the task is on disk as it opened, nothing waits in memory yet.
      if (/cannot write/.test(n)) assert.match(n, /on disk as it opened/);
    }
    assert.ok(taskFileWith(dir, 'Second task finished.'), 'the restored task is on disk as it opened');
    await page.screenshot({ path: path.join(shots, 'storage-faults-start-readonly.png') });
    await remount(mount, 'rw');
    assert.equal(fill(mount), 0, 'the storage is full');
    ({ panel } = await reloadWindow(page, server));
    await panel.userBubble(TASK_B).waitFor({ timeout: 60_000 });
    step('started on full storage: the latest task is restored');
    unfill(mount);
    // The latest task's file damaged (cut in half) and the storage read-only, so it cannot even be put aside.
    const latest = taskFileWith(dir, TASK_B);
    fs.writeFileSync(latest.file, latest.text.slice(0, Math.floor(latest.text.length / 2)));
    await remount(mount, 'ro');
    ({ panel } = await reloadWindow(page, server));
    const why = await waitNotice(page, /Second task/, 'a word about the unreadable latest task', 60_000);
    step(`panel: ${why.split('\n')[0]}`);
    await page.screenshot({ path: path.join(shots, 'storage-faults-unreadable.png') });
    assert.match(why, /damaged/);
    // True on disk: the damaged file is where it was (read-only storage), so it "could not be moved aside".
    if (/could not be moved aside/.test(why)) assert.ok(fs.existsSync(latest.file), 'the damaged file is still there');
    // Issue 28: the first half holds the first message; what was recovered is shown, not an empty conversation.
    assert.match(why, /Forge recovered .*rebuilt from the saved conversation/s);
    await panel.userBubble(TASK_B).waitFor({ timeout: 15_000 });
    step('the recovered conversation is shown: the first message bubble is visible');
    await page.screenshot({ path: path.join(shots, 'storage-faults-rebuilt.png') });
    const told = (await notices(page)).filter((n) => /"Second task: nothing to change" is damaged/.test(n));
    assert.equal(told.length, 1, 'the damage is told once (a failed save re-reading the file does not repeat it)');
    await remount(mount, 'rw');
    step('(b) passed');

    // (c) disk full during a run.
    await runCommand(page, 'Forge: New Task', { log: step });
    llm.script([
      { text: 'Reading the first file.', toolCalls: [read('c-read1')] },
      // Enough audit lines to pass the slack in the log's last page (a full tmpfs still takes those bytes).
      { delayMs: 6000, toolCalls: MANY.map((id, i) => read(id, i < 6 ? 'package.json' : 'src/greet.js', (i % 6) + 1)) },
      { toolCalls: [done('c-done', 'Read the files.')] },
    ]);
    await send(panel, TASK_C);
    await until('the first read in the audit log', () =>
      auditLines(dir).some((l) => l.kind === 'tool_result' && l.toolCallId === 'c-read1'),
    );
    assert.equal(fill(mount), 0, 'the storage is full');
    step('storage full while the model thinks');
    await panel.runEnd('done').waitFor({ timeout: 60_000 });
    const waiting = await waitNotice(page, /audit log.*wait in memory/s, 'the audit notice');
    step(`panel: ${waiting.split('\n')[0]}`);
    assert.ok(
      !auditLines(dir).some((l) => l.toolCallId === 'c-done'),
      'the audit lines of the full disk are not on disk yet',
    );
    unfill(mount);
    step('space returned');
    // The audit log and the task history come back each on its own retry: the panel says which, and "everything
    // is saved" (which replaces the earlier storage notices) only once both are on disk.
    const back = await waitNotice(page, /audit log again|everything is saved/, 'the storage recovered', 40_000);
    step(`panel: ${back.split('\n')[0]}`);
    const allSaved = () => taskFileWith(dir, 'Read the files.');
    if (/everything is saved/.test(back)) assert.ok(allSaved(), `"${back}" before the task was on disk`);
    await waitNotice(page, /everything is saved/, '"everything is saved"', 40_000);
    assert.ok(allSaved(), 'the task is on disk once everything is said to be saved');
    const lines = auditLines(dir);
    const ids = (kind) => lines.filter((l) => l.kind === kind).map((l) => l.toolCallId);
    const gap = lines.find((l) => l.kind === 'audit_gap');
    if (!gap)
      for (const id of ['c-read1', ...MANY, 'c-done']) {
        assert.equal(ids('tool_call').filter((x) => x === id).length, 1, `one tool_call line for ${id}`);
        assert.equal(ids('tool_result').filter((x) => x === id).length, 1, `one tool_result line for ${id}`);
      }
    else step(`the log says ${gap.dropped} lines were dropped`);
    // Each run's end too, the first one's written after the read-only storage came back.
    assert.equal(lines.filter((l) => l.kind === 'run_end').length, 3, 'three runs ended in the audit log');
    assert.deepEqual(tempFiles(mount), [], 'no temporary file after space returned');
    ({ panel } = await reloadWindow(page, server));
    await panel.userBubble(TASK_C).waitFor({ timeout: 60_000 });
    await sleep(2000);
    assert.deepEqual(tempFiles(mount), [], 'no temporary file after a reload');
    step('(c) passed: every audit line is in the log, no temporary file stayed');
    return 0;
  } catch (err) {
    await page.screenshot({ path: path.join(shots, 'storage-faults-failure.png') }).catch(() => {});
    console.error(err);
    for (const n of await notices(page)) console.error(`[storage-faults] panel notice: ${n.replace(/\s+/g, ' ')}`);
    return 1;
  } finally {
    clearTimeout(watchdog);
    cleanup();
    await session.close();
  }
}

main().then((code) => process.exit(code));

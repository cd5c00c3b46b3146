#!/usr/bin/env node
// The extension host killed (SIGKILL) at three moments that are not a tool call, in the real VS Code, then the window
// reloaded as a user would:
//  1. during reflection (the model is asked for learnings after the task completed): the restored task is told as
//     complete, not as a run to continue, and the memory file holds no torn line;
//  2. during a checkpoint restore ("Restore to here"; two files already written back, the third waiting on the
//     user's Overwrite / Keep Mine): the panel and the model are told exactly which files were restored and which
//     were not, and the disk agrees; restoring again asks only about the file left;
//  3. during /compact (the summary half streamed): nothing of the conversation is lost, the panel says the compaction
//     did not happen, and the next request carries the first message verbatim and no part of the half summary;
//  4. just after reflection wrote a lesson to .forge/memory.jsonl: the lesson is in the file once, also after the
//     next run learns it again;
//  5. during the compaction a run starts when its context is nearly full (the summary half streamed): the panel says
//     it did not happen, Continue compacts again, and the model gets a whole summary, never the half one.
//
//   node esbuild.mjs && node test/integration/crash-phases.mjs
//
// Exit 0 = passed; 1 = failed; 124 = timed out. Writes test-results/crash-phases-*.png.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startShotSession } from './ui/session.mjs';
import { killHostNow, reloadAfterKill, waitForLogLine } from './ui/kill.mjs';
import { forgeWebview, openForgePanel } from './ui/workbench.mjs';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const shots = path.join(repo, 'test-results');
const t0 = Date.now();
const step = (m) => console.log(`[crash-phases ${((Date.now() - t0) / 1000).toFixed(1)}s] ${m}`);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const FILES = ['a', 'b', 'c'].map((n) => `src/r/${n}.js`);
const original = (f) => `// ${f} as the user wrote it\nmodule.exports = 1;\n`;
const changed = (f) => `// ${f} as the task left it\nmodule.exports = 2;\n`;
const USER_EDIT = '// c.js changed by the user after the task\nmodule.exports = 3;\n';
const LESSON = 'Run the checks in src/r before reporting the task complete.';
const lesson = JSON.stringify([
  { type: 'procedural', content: LESSON, context: 'src/r', confidence: 0.8, tags: ['checks'] },
]);
const PARTIAL_SUMMARY = 'HALF-WRITTEN-SUMMARY';
const HALF_AUTO = 'HALF-AUTO-SUMMARY';
const WHOLE_SUMMARY = 'WHOLE-SUMMARY-AFTER-THE-RELOAD';
// Reported input tokens past 90% of forge.contextWindow (50 000): the next step compacts first.
const FULL = { inputTokens: 48_000, outputTokens: 5 };
const done = (id, result = 'Done.') => ({ toolCalls: [{ id, name: 'task_completion', args: { result } }] });
const write = (id, file, content) => ({ id, name: 'write_file', args: { path: file, content } });
const read = (id, file) => ({ toolCalls: [{ id, name: 'read_file', args: { path: file } }] });

// Phase 1: a checkpoint (anchor.js), then the three files, then done; the reflection request hangs.
const firstTurns = [
  { text: 'The anchor first.', toolCalls: [write('cp-anchor', 'src/r/anchor.js', 'module.exports = "anchor";\n')] },
  { text: 'Now the three files.', toolCalls: FILES.map((f, i) => write(`cp-${i}`, f, changed(f))) },
  done('cp-done', 'Changed the three files.'),
  { fault: 'hang', text: '[{"type": "procedural", "content": "' + 'PARTIAL-LESSON' },
];

async function main() {
  fs.mkdirSync(shots, { recursive: true });
  const session = await startShotSession({
    repo,
    prefix: 'forge-crash-phases-',
    turns: firstTurns,
    userSettings: {
      'forge.autoApprove': { read: true, write: true, execute: false, network: false },
      'forge.contextWindow': 50_000,
    },
    prepare: (ws) => {
      fs.mkdirSync(path.join(ws, 'src', 'r'), { recursive: true });
      for (const f of FILES) fs.writeFileSync(path.join(ws, f), original(f));
      // The sample workspace turns reflection off (other tests script no reflection turn); this test needs it.
      const settings = path.join(ws, '.vscode', 'settings.json');
      const json = JSON.parse(fs.readFileSync(settings, 'utf8'));
      fs.writeFileSync(settings, JSON.stringify({ ...json, 'forge.reflection.enabled': true }, null, 2));
    },
  });
  const watchdog = setTimeout(() => {
    console.error('[crash-phases] timed out after 300 s');
    void session.close().finally(() => process.exit(124));
  }, 300_000);
  const { page, server, workspace, llm } = session;
  const storage = path.join(path.dirname(workspace), 'user-data', 'User', 'globalStorage');
  const disk = (f) => fs.readFileSync(path.join(workspace, f), 'utf8');
  const memoryFile = path.join(workspace, '.forge', 'memory.jsonl');
  const memoryLines = () =>
    fs.existsSync(memoryFile)
      ? fs
          .readFileSync(memoryFile, 'utf8')
          .split('\n')
          .filter((l) => l.trim())
      : [];
  const wv = forgeWebview(page);
  const failures = [];
  const check = (ok, what) => {
    if (ok) return;
    failures.push(what);
    step(`FAILED: ${what}`);
  };
  const requestsAfter = (n) => llm.requests.slice(n).map((r) => JSON.stringify(r.body?.messages ?? []));
  const kill = async (what) => {
    const pid = killHostNow(server);
    step(`killed ${what}`);
    // A modal the dead host opened (the restore's question) would keep the palette from opening.
    const modal = page.locator('.monaco-dialog-box');
    if (await modal.count()) {
      await page.keyboard.press('Escape');
      await modal.waitFor({ state: 'detached', timeout: 10_000 });
    }
    await reloadAfterKill(server, page, pid, step);
    const { panel } = await openForgePanel(page, { log: step });
    await panel.userBubble('Change the three files').waitFor({ timeout: 60_000 });
    return panel;
  };
  const waitRequests = async (n, what) => {
    for (let i = 0; i < 600 && llm.requests.length < n; i++) await sleep(50);
    assert.ok(llm.requests.length >= n, `${what}: ${llm.requests.length} of ${n} model requests`);
  };
  try {
    let { panel } = await openForgePanel(page, { log: step });
    await panel.input.fill('Change the three files.');
    await panel.input.press('Enter');

    // 1. Killed while the model is asked for learnings, after task_completion.
    await waitRequests(4, 'the reflection request');
    assert.match(JSON.stringify(llm.requests[3].body), /reflection step of Forge/);
    // The answer is saved as it comes (not after the 500 ms debounce); the reflection then takes seconds.
    await waitForTaskFile(storage, '"toolName":"task_completion"');
    panel = await kill('during reflection');
    for (const f of FILES) assert.equal(disk(f), changed(f), `${f} holds the task's edit`);
    await wv.locator('.item-tool').first().waitFor({ timeout: 30_000 });
    await page.screenshot({ path: path.join(shots, 'crash-phases-reflection.png') });
    const afterReflection = await wv.locator('.app').innerText();
    step(`the panel says: ${JSON.stringify(afterReflection.slice(-600))}`);
    check(!/while this task was running/.test(afterReflection), 'the task had finished: it was not running');
    check(!/PARTIAL-LESSON/.test(afterReflection), 'no half lesson in the panel');
    check((await wv.locator('vscode-button[data-action="continue"]').count()) === 0, 'no Continue for a done task');
    check(/Task complete/i.test(afterReflection), 'the panel says the task completed');
    for (const l of memoryLines()) JSON.parse(l);
    assert.ok(!memoryLines().some((l) => l.includes('PARTIAL-LESSON')), 'no half lesson in the memory file');
    step('reflection cut off: the task reads as complete, the memory file is whole');

    // 2. The user changed c.js; "Restore to here" on the anchor's step restores a and b, then asks about c: killed.
    fs.writeFileSync(path.join(workspace, FILES[2]), USER_EDIT);
    await wv.locator('.checkpoint-restore').first().click();
    const dialog = page.locator('.monaco-dialog-box');
    await dialog.waitFor({ timeout: 10_000 });
    await dialog.locator('.monaco-button', { hasText: /^Restore Files$/ }).click();
    await page.locator('.monaco-dialog-box', { hasText: 'c.js was modified since Forge edited it' }).waitFor({
      timeout: 20_000,
    });
    await waitForLogLine(storage, 'answers', '"k":"restore"');
    assert.equal(disk(FILES[0]), original(FILES[0]), 'a.js restored before the question');
    assert.equal(disk(FILES[1]), original(FILES[1]), 'b.js restored before the question');
    panel = await kill('while the restore asked about c.js');
    const cut = wv.locator('.notice', { hasText: 'restore' }).last();
    await cut.waitFor({ timeout: 30_000 });
    const told = await cut.innerText();
    await page.screenshot({ path: path.join(shots, 'crash-phases-restore.png') });
    step(`the panel says: ${JSON.stringify(told)}`);
    check(!/while this task was running/.test(told), 'no run was going on, a restore was');
    check(/src\/r\/a\.js and src\/r\/b\.js were restored/.test(told), 'the panel names the restored files');
    check(/src\/r\/c\.js was not restored/.test(told), 'the panel names the file not restored');
    assert.equal(disk(FILES[2]), USER_EDIT, 'c.js kept the user edit');
    llm.script([done('next-1')]);
    const before2 = llm.requests.length;
    await panel.input.fill('Go on.');
    await panel.input.press('Enter');
    await waitRequests(before2 + 1, 'the next request');
    const toModel = requestsAfter(before2).join('\n');
    check(/src\/r\/a\.js and src\/r\/b\.js were restored/.test(toModel), 'the model is told the restored files');
    check(/src\/r\/c\.js was not restored/.test(toModel), 'the model is told the file not restored');
    check(!/may be partly restored/.test(toModel), 'the model is not told a vague "may be"');
    await panel.runEnd('done').last().waitFor({ timeout: 30_000 });
    // "Use Restore to here again to finish it": only c.js is asked about; keeping the user's edit ends it.
    await wv.locator('.checkpoint-restore').first().click();
    await dialog.waitFor({ timeout: 10_000 });
    await dialog.locator('.monaco-button', { hasText: /^Restore Files$/ }).click();
    const again = page.locator('.monaco-dialog-box', { hasText: 'was modified since Forge edited it' });
    await again.waitFor({ timeout: 20_000 });
    check((await again.innerText()).includes('c.js'), 'the second restore asks about c.js only');
    await again.locator('.monaco-button', { hasText: /^Keep Mine$/ }).click();
    await wv.locator('.item-checkpoint .checkpoint-mark').last().waitFor({ timeout: 20_000 });
    check(!(await page.locator('.monaco-dialog-box').count()), 'nothing else is asked');
    for (const f of FILES.slice(0, 2)) assert.equal(disk(f), original(f), `${f} stays restored`);
    assert.equal(disk(FILES[2]), USER_EDIT, 'c.js keeps the user edit');
    step('restore cut off: user and model told exactly which files went back; restoring again finished it');

    // 3. /compact killed with half a summary streamed.
    llm.script([{ fault: 'hang', text: `## Goal\n${PARTIAL_SUMMARY} ` }]);
    const before3 = llm.requests.length;
    await wv.locator('.submit-steer').waitFor({ state: 'hidden', timeout: 30_000 });
    await panel.input.fill('/compact');
    await panel.input.press('Enter');
    for (let i = 0; i < 40 && llm.requests.length === before3; i++) {
      await sleep(250);
      if (i === 8) await panel.input.press('Enter'); // the slash menu took the first Enter
    }
    await waitRequests(before3 + 1, 'the summary request');
    assert.match(JSON.stringify(llm.requests[before3].body), /compress an AI coding agent/);
    await sleep(300);
    panel = await kill('during /compact');
    await panel.userBubble('Go on.').waitFor({ timeout: 30_000 });
    assert.doesNotMatch(await wv.locator('.app').innerText(), new RegExp(PARTIAL_SUMMARY));
    // The user who typed /compact is told it did not happen (the conversation is whole).
    const cutCompact = wv.locator('.notice', { hasText: '/compact was cut off' });
    await cutCompact
      .last()
      .waitFor({ timeout: 30_000 })
      .catch(() => undefined);
    const toldCompact = (await cutCompact.count()) ? await cutCompact.last().innerText() : '';
    step(`the panel says: ${JSON.stringify(toldCompact)}`);
    check(/the compaction did not happen/.test(toldCompact), 'the panel says the /compact did not happen');
    check(/conversation is whole/.test(toldCompact), 'the panel says the conversation is whole');
    check(!/while this task was running/.test(toldCompact), 'no run was going on, a /compact was');
    await page.screenshot({ path: path.join(shots, 'crash-phases-compact.png') });

    // 4. The next message: the whole conversation goes to the model; a lesson is learned and the host killed as
    // soon as it is in the memory file.
    llm.script([read('m-read', FILES[0]), done('m-done'), { text: lesson }]);
    const before4 = llm.requests.length;
    await panel.input.fill('Check a.js.');
    await panel.input.press('Enter');
    await waitRequests(before4 + 1, 'the first request after the compaction was cut');
    const next = requestsAfter(before4)[0];
    assert.match(next, /Change the three files\./, 'the first message is there verbatim');
    assert.match(next, /Go on\./);
    assert.doesNotMatch(next, new RegExp(PARTIAL_SUMMARY), 'no part of the half summary');
    assert.doesNotMatch(next, /Summary of the earlier conversation/, 'no summary replaced the messages');
    step('compaction cut off: the conversation is whole');
    for (let i = 0; i < 600 && !memoryLines().some((l) => l.includes(LESSON)); i++) await sleep(5);
    assert.ok(
      memoryLines().some((l) => l.includes(LESSON)),
      'the lesson reached the memory file',
    );
    panel = await kill('just after the lesson was written');
    assert.equal(memoryLines().filter((l) => l.includes(LESSON)).length, 1, 'the lesson once');
    for (const l of memoryLines()) JSON.parse(l);
    // The same lesson learned again by the next run is merged, not added.
    llm.script([read('m-read-2', FILES[1]), done('m-done-2'), { text: lesson }]);
    await wv.locator('.submit-steer').waitFor({ state: 'hidden', timeout: 30_000 });
    const runs = await panel.runEnd('done').count();
    await panel.input.fill('Check b.js.');
    await panel.input.press('Enter');
    // The run ends after its reflection stored what it learned.
    for (let i = 0; i < 600 && (await panel.runEnd('done').count()) <= runs; i++) await sleep(100);
    assert.equal(llm.pending, 0, 'the second reflection ran');
    const lines = memoryLines();
    for (const l of lines) JSON.parse(l);
    assert.equal(lines.filter((l) => l.includes(LESSON)).length, 1, `the lesson once:\n${lines.join('\n')}`);
    step('the lesson is in the memory file once');

    // 5. Compaction in a run: the context is reported nearly full, so the next step summarises first; killed with
    // half the summary streamed. Continue compacts again, whole, and the model never sees the half.
    llm.script([
      { toolCalls: [{ id: 'big-read', name: 'read_file', args: { path: FILES[2] } }], usage: FULL },
      { fault: 'hang', text: `## Goal\n${HALF_AUTO} ` },
    ]);
    const before5 = llm.requests.length;
    await wv.locator('.submit-steer').waitFor({ state: 'hidden', timeout: 30_000 });
    await panel.input.fill('Read c.js.');
    await panel.input.press('Enter');
    await waitRequests(before5 + 2, 'the compaction request in the run');
    assert.match(JSON.stringify(llm.requests[before5 + 1].body), /compress an AI coding agent/);
    await waitForTaskFile(storage, '48000'); // the step's save (the context nearly full) landed
    panel = await kill('while the run compacted its context');
    await panel.userBubble('Go on.').waitFor({ timeout: 30_000 });
    const afterAuto = await wv.locator('.app').innerText();
    check(!afterAuto.includes(HALF_AUTO), 'the panel shows no half summary');
    check(
      /The run was compacting its context[^\n]*the compaction did not happen/.test(afterAuto),
      "the panel says the run's compaction did not happen",
    );
    check((await cutCompact.count()) <= 1, 'the cut /compact is told once, not at every reload');
    await page.screenshot({ path: path.join(shots, 'crash-phases-auto-compact.png') });
    llm.script([{ text: `## Goal\n${WHOLE_SUMMARY}` }, done('auto-done'), { text: '[]' }]);
    const before5b = llm.requests.length;
    await wv.locator('vscode-button[data-action="continue"]').last().click();
    await waitRequests(before5b + 2, 'the requests after Continue');
    const resumed = requestsAfter(before5b);
    check(!resumed.some((m) => m.includes(HALF_AUTO)), 'the model never gets the half summary');
    check(resumed[1]?.includes(WHOLE_SUMMARY), 'the step after Continue carries the whole summary');
    check(resumed[1]?.includes('Change the three files.'), 'and the task verbatim');
    step('compaction in a run cut off: the model gets a whole summary or none');

    assert.deepEqual(failures, [], 'every check held');
    step('passed: reflection, restore, compaction and the memory write survive a kill');
    return 0;
  } catch (err) {
    await page.screenshot({ path: path.join(shots, 'crash-phases-failure.png') }).catch(() => {});
    console.error(err);
    return 1;
  } finally {
    clearTimeout(watchdog);
    await session.close();
  }
}

/** Waits until a saved task under Forge's storage (tasks/*.json) holds `needle`. */
async function waitForTaskFile(storage, needle, timeoutMs = 10_000) {
  const end = Date.now() + timeoutMs;
  const find = (dir, depth) =>
    depth < 0 || !fs.existsSync(dir)
      ? []
      : fs
          .readdirSync(dir, { withFileTypes: true })
          .filter((e) => e.isDirectory())
          .flatMap((e) => (e.name === 'tasks' ? [path.join(dir, e.name)] : find(path.join(dir, e.name), depth - 1)));
  while (Date.now() < end) {
    for (const dir of find(storage, 3))
      for (const f of fs.readdirSync(dir))
        if (f.endsWith('.json') && fs.readFileSync(path.join(dir, f), 'utf8').includes(needle)) return;
    await sleep(10);
  }
  throw new Error(`no saved task under ${storage} ever held ${needle}`);
}

main().then((code) => process.exit(code));

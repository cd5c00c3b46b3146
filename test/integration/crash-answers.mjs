#!/usr/bin/env node
// A question already answered is never asked again, in the real VS Code with a real crash (SIGKILL of the extension
// host, then a window reload):
//  1. killed just after the user's Approve reached Forge (its answer is in the answer log; the edit may or may not be
//     on disk yet): the restored task does not ask again, and the edit is in the file exactly once;
//  2. killed during a per-hunk review (one hunk dropped): the restored card shows the dropped hunk still dropped,
//     and Approve writes only the kept hunk; the message that started that run is a user message of the restored
//     conversation and nothing waits in the queue (it is never sent twice).
//
//   node esbuild.mjs && node test/integration/crash-answers.mjs
//
// Exit 0 = passed; 1 = failed; 124 = timed out. Writes test-results/crash-answers-*.png.
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
const step = (m) => console.log(`[crash-answers ${((Date.now() - t0) / 1000).toFixed(1)}s] ${m}`);

const GREET_OLD = "  return 'Hello, ' + name + '!';";
const GREET_NEW = "  return 'Hi, ' + name + '!';";
const LONG = Array.from({ length: 24 }, (_, i) => `const line${i + 1} = ${i + 1};`).join('\n') + '\n';
const done = (id) => ({ toolCalls: [{ id, name: 'task_completion', args: { result: 'Done.' } }] });
// Phase 1. Two completions: the crash may come after the first was already requested (the edit was written and the
// model told), and the restored run then asks for another.
const greetTurns = [
  {
    text: 'Greeting first.',
    toolCalls: [
      {
        id: 'ans-1',
        name: 'apply_diff',
        args: { path: 'src/greet.js', blocks: [{ search: GREET_OLD, replace: GREET_NEW }] },
      },
    ],
  },
  done('ans-done-1'),
  done('ans-done-2'),
];
// Phase 2, scripted once phase 1 is over.
const longTurns = [
  {
    text: 'Now the two constants.',
    toolCalls: [
      {
        id: 'ans-2',
        name: 'apply_diff',
        args: {
          path: 'src/long.js',
          blocks: [
            { search: 'const line2 = 2;', replace: 'const line2 = 20; // kept' },
            { search: 'const line22 = 22;', replace: 'const line22 = 220; // dropped' },
          ],
        },
      },
    ],
  },
  done('ans-done-3'),
];

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function main() {
  fs.mkdirSync(shots, { recursive: true });
  const session = await startShotSession({
    repo,
    prefix: 'forge-crash-answers-',
    turns: greetTurns,
    prepare: (ws) => fs.writeFileSync(path.join(ws, 'src', 'long.js'), LONG),
  });
  const watchdog = setTimeout(() => {
    console.error('[crash-answers] timed out after 360 s');
    void session.close().finally(() => process.exit(124));
  }, 360_000);
  const { page, server, workspace, llm } = session;
  const storage = path.join(path.dirname(workspace), 'user-data', 'User', 'globalStorage');
  const greet = path.join(workspace, 'src', 'greet.js');
  const long = path.join(workspace, 'src', 'long.js');
  const greetOriginal = fs.readFileSync(greet, 'utf8');
  try {
    let { panel } = await openForgePanel(page, { log: step });
    await panel.input.fill('Say Hi.');
    await panel.input.press('Enter');
    await panel.pendingApproval.filter({ hasText: 'src/greet.js' }).waitFor({ timeout: 60_000 });

    // 1. Approve, and crash as soon as Forge has the answer.
    await panel.approveButton.first().click();
    await waitForLogLine(storage, 'answers', '"k":"answer"');
    const pid = killHostNow(server);
    const onDisk = fs.readFileSync(greet, 'utf8').includes("'Hi, '");
    step(`killed once the answer was logged (edit on disk at the kill: ${onDisk})`);
    await reloadAfterKill(server, page, pid, step);
    ({ panel } = await openForgePanel(page, { log: step }));
    await panel.userBubble('Say Hi').waitFor({ timeout: 60_000 });
    const wv = forgeWebview(page);
    // The run goes on by itself (the answer is taken), or waits for Continue (the edit was already written).
    const ended = wv.locator('.item-run_end .run-end.reason-done');
    // Continue is pressed once: the notice's button stays, and a second press after the run ended would start
    // another run (the message typed next would then steer it instead of starting its own).
    let askedAgain = false;
    let continued = false;
    for (let i = 0; i < 600 && !(await ended.count()); i++) {
      if (await panel.pendingApproval.filter({ hasText: 'src/greet.js' }).count()) askedAgain = true;
      const cont = wv.locator('vscode-button[data-action="continue"]');
      if (!continued && (await cont.count()))
        continued = await cont
          .last()
          .click()
          .then(() => true)
          .catch(() => false);
      await sleep(100);
    }
    await page.screenshot({ path: path.join(shots, 'crash-answers-approved.png') });
    assert.equal(askedAgain, false, 'the answered approval was not asked again');
    assert.equal(fs.readFileSync(greet, 'utf8'), greetOriginal.replace(GREET_OLD, GREET_NEW), 'written exactly once');
    await ended.first().waitFor({ timeout: 5_000 });
    const toldFailed = llm.requests
      .map((r) => JSON.stringify(r.body?.messages ?? []))
      .some((m) => m.includes('changed while this proposal waited'));
    assert.equal(toldFailed, false, 'the model was never told the approved edit failed');
    step('not asked again; the edit is in the file once; the run finished');

    llm.script(longTurns);
    const runsBefore = await ended.count();
    // Idle (no Steer button): Enter sends the message, which starts the next run.
    await wv.locator('.submit-steer').waitFor({ state: 'hidden', timeout: 30_000 });
    await panel.input.fill('Now the constants.');
    await panel.input.press('Enter');
    const longCard = panel.pendingApproval.filter({ hasText: 'src/long.js' });
    await longCard.waitFor({ timeout: 60_000 });
    const sawIt = llm.requests.some((r) => JSON.stringify(r.body?.messages ?? []).includes('Now the constants.'));
    assert.ok(sawIt, 'the model had the message before the crash');

    // 2. Drop the second hunk, crash, and find the review as it was left.
    await wv.locator('.approval-card.pending button.hunk-toggle.hunk-rejected[data-index="1"]').click();
    await waitForLogLine(storage, 'answers', '"k":"review"');
    const pid2 = killHostNow(server);
    step('killed during the per-hunk review (hunk 2 dropped)');
    await reloadAfterKill(server, page, pid2, step);
    ({ panel } = await openForgePanel(page, { log: step }));
    await panel.userBubble('Say Hi').waitFor({ timeout: 60_000 });
    const card = panel.pendingApproval.filter({ hasText: 'src/long.js' });
    await card.waitFor({ timeout: 60_000 });
    await card.locator('li.hunk.hunk-state-rejected[data-index="1"]').waitFor({ timeout: 30_000 });
    assert.equal(await card.locator('li.hunk.hunk-state-rejected').count(), 1, 'only the dropped hunk is dropped');
    await page.screenshot({ path: path.join(shots, 'crash-answers-review.png') });
    // The message that started this run is in the conversation, not waiting to be sent again.
    await panel.userBubble('Now the constants.').waitFor({ timeout: 10_000 });
    assert.equal(await wv.locator('.queued').count(), 0, 'nothing waits in the queue after the restore');
    step('the review came back as the user left it');
    await panel.approveButton.first().click();
    for (let i = 0; i < 200 && !fs.readFileSync(long, 'utf8').includes('// kept'); i++) await sleep(100);
    const after = fs.readFileSync(long, 'utf8');
    assert.match(after, /const line2 = 20; \/\/ kept/, 'the kept hunk is written');
    assert.match(after, /const line22 = 22;/, 'the dropped hunk is not');
    assert.doesNotMatch(after, /dropped/);
    for (
      let i = 0;
      i < 600 && (await forgeWebview(page).locator('.item-run_end .run-end.reason-done').count()) <= runsBefore;
      i++
    )
      await sleep(100);
    assert.ok(
      (await forgeWebview(page).locator('.item-run_end .run-end.reason-done').count()) > runsBefore,
      'the run finished',
    );
    step('passed: answers and reviews survive the crash');
    return 0;
  } catch (err) {
    await page.screenshot({ path: path.join(shots, 'crash-answers-failure.png') }).catch(() => {});
    console.error(err);
    return 1;
  } finally {
    clearTimeout(watchdog);
    await session.close();
  }
}

main().then((code) => process.exit(code));

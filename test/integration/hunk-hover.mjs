#!/usr/bin/env node
// The diff editor's hunk note and hover in the real VS Code (issue 26, item 8): each hunk of a proposed edit has a
// short note after its first line ("◀ Forge hunk 2/2: hover to keep or drop", not a sentence cut off at the edge),
// its hover says the state and offers Keep / Drop… as links, and Keep in the hover keeps the hunk: the note, the
// panel's card and the file written agree.
//
//   node esbuild.mjs && node test/integration/hunk-hover.mjs
//
// Exit 0 = passed; 1 = failed; 124 = timed out. Writes test-results/hunk-hover-*.png.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startShotSession } from './ui/session.mjs';
import { openForgePanel } from './ui/workbench.mjs';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const shots = path.join(repo, 'test-results');
const t0 = Date.now();
const step = (m) => console.log(`[hunk-hover ${((Date.now() - t0) / 1000).toFixed(1)}s] ${m}`);

const original = Array.from({ length: 20 }, (_, i) => `const v${i} = ${i};`).join('\n') + '\n';
const proposed = original.replace('const v1 = 1;', 'const v1 = 100;').replace('const v15 = 15;', 'const v15 = 1500;');
const turns = [
  { toolCalls: [{ id: 'w1', name: 'write_file', args: { path: 'src/values.js', content: proposed } }] },
  { toolCalls: [{ id: 'd1', name: 'task_completion', args: { result: 'Changed two values.' } }] },
];

/** The text each Forge hunk note shows after its line (VS Code draws it as a CSS ::after of a decoration). */
const notes = (page) =>
  page.evaluate(() =>
    [...document.querySelectorAll('.monaco-diff-editor .editor.modified .view-lines span')]
      .map((el) => getComputedStyle(el, '::after').content)
      .filter((c) => c && c !== 'none' && /hunk \d/.test(c))
      .map((c) => c.replace(/^"|"$/g, '')),
  );

async function waitForNotes(page, want, what) {
  let seen = [];
  for (const until = Date.now() + 20_000; Date.now() < until; await page.waitForTimeout(200)) {
    seen = await notes(page);
    if (JSON.stringify(seen) === JSON.stringify(want)) return;
  }
  assert.deepEqual(seen, want, what);
}

async function main() {
  fs.mkdirSync(shots, { recursive: true });
  const session = await startShotSession({
    repo,
    prefix: 'forge-hunk-hover-',
    turns,
    userSettings: { 'forge.autoApprove': { read: true, write: false, execute: false, network: false } },
    prepare: (ws) => fs.writeFileSync(path.join(ws, 'src', 'values.js'), original),
  });
  const watchdog = setTimeout(() => {
    console.error('[hunk-hover] timed out after 240 s');
    void session.close().finally(() => process.exit(124));
  }, 240_000);
  const { page, workspace } = session;
  try {
    const { panel, wv } = await openForgePanel(page, { log: step });
    await panel.input.fill('Change v1 and v15 in src/values.js.');
    await panel.input.press('Enter');
    await wv.locator('.approval-card.pending .hunk').nth(1).waitFor({ timeout: 60_000 });
    await page.locator('.monaco-diff-editor .editor.modified').first().waitFor({ timeout: 30_000 });
    step('the card and the diff editor are open');

    // A short note per hunk, pointing at its hover.
    await waitForNotes(
      page,
      ['◀ Forge hunk 1/2: hover to keep or drop', '◀ Forge hunk 2/2: hover to keep or drop'],
      'a short note after each hunk',
    );

    // The hover on the second hunk: its state and Keep / Drop as links.
    const line = page.locator('.monaco-diff-editor .editor.modified .view-line', { hasText: 'v15 = 1500' }).first();
    await line.hover({ position: { x: 30, y: 5 } });
    const hover = page.locator('.monaco-hover', { hasText: 'Forge hunk 2 of 2' }).first();
    await hover.waitFor({ state: 'visible', timeout: 15_000 });
    assert.match(await hover.innerText(), /Forge hunk 2 of 2: not reviewed/);
    const labels = (await hover.locator('a').allInnerTexts()).map((t) => t.trim()).filter(Boolean);
    assert.ok(
      labels.includes('Keep') && labels.includes('Drop…'),
      `Keep and Drop… in the hover: ${JSON.stringify(labels)}`,
    );
    await page.screenshot({ path: path.join(shots, 'hunk-hover-1-hover.png') });

    // Keep in the hover keeps that hunk: the note and the panel's card say so.
    await hover.locator('a', { hasText: 'Keep' }).first().click();
    await waitForNotes(page, ['◀ Forge hunk 1/2: hover to keep or drop', '✓ hunk 2/2 kept'], 'the note after Keep');
    await wv.locator('.approval-card.pending .hunk.hunk-state-accepted[data-index="1"]').waitFor({ timeout: 10_000 });
    assert.equal(await wv.locator('.approval-card.pending .hunk.hunk-state-accepted').count(), 1);
    step('Keep in the hover kept hunk 2; the card says so');
    await page.mouse.move(5, 5);
    await page.screenshot({ path: path.join(shots, 'hunk-hover-2-kept.png') });

    // Approve writes the edit (kept and unreviewed hunks alike).
    await wv.locator('.approval-card.pending vscode-button[data-act="approve"]').click();
    await panel.runEnd('done').waitFor({ timeout: 60_000 });
    assert.equal(fs.readFileSync(path.join(workspace, 'src', 'values.js'), 'utf8'), proposed);
    step('passed');
  } finally {
    clearTimeout(watchdog);
    await session.close();
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(`[hunk-hover] FAILED: ${err.stack ?? err}`);
    process.exit(1);
  },
);

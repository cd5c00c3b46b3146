#!/usr/bin/env node
// Screenshots for looking, not a test: the states of issue 26 (the panel's last mile) in the real VS Code with the
// scripted loopback model, in light, dark, high-contrast dark and light at 300 and 600 px side bars: an MCP server
// waiting for permission, the plan with long steps, a multi-hunk edit card (and the diff editor beside it), the
// card after a hunk is dropped, the row after the review, a command row, an answer with inline code and a heading,
// the "Restore to here" modal and the mark the restore leaves (first-start-shots.mjs has the first start).
// Writes test-results/lastmile-<n>-<state>-<theme>-<width>.png.
//
//   node esbuild.mjs && node scripts/screenshots/last-mile-shots.mjs
//   FORGE_SHOTS_THEMES=hc-light,dark   FORGE_SHOTS_WIDTHS=300
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { openForgePanel, setSidebarWidth } from '../../test/integration/ui/workbench.mjs';
import { pickColorTheme, startShotSession } from '../../test/integration/ui/session.mjs';
import { THEMES, widths } from './shot-matrix.mjs';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const shots = path.join(repo, 'test-results');
const WIDTHS = widths();

const names = Array.from({ length: 24 }, (_, i) => `  'name${i}',`);
const original = ['// Names the greeting knows.', 'module.exports = [', ...names, '];', ''].join('\n');
const proposedLines = original.split('\n');
proposedLines[0] = '// Names the greeting knows, in the order people asked for them.';
proposedLines[13] = "  'renamed11', // was name11";
proposedLines[24] = "  'name22',\n  'added-after-22',";
const proposed = proposedLines.join('\n');
const plan = {
  goal: 'Rename the names in src/names.js and document why, for the people who script the greeting',
  steps: [
    { text: 'Read src/names.js and the callers of every exported name, end to end', status: 'done' },
    { text: 'Rename name11 and add a name after name22, keeping the order people asked for', status: 'in_progress' },
    { text: 'Run the greeting once to check it still prints every name', status: 'pending' },
  ],
  currentStep: 2,
};
const turns = [
  { text: 'I will plan this first.', toolCalls: [{ id: 'p1', name: 'update_plan', args: plan }] },
  { toolCalls: [{ id: 'r1', name: 'read_file', args: { path: 'src/names.js' } }] },
  {
    text: 'Here is the change.',
    toolCalls: [{ id: 'w1', name: 'write_file', args: { path: 'src/names.js', content: proposed } }],
  },
  {
    toolCalls: [
      {
        id: 'c1',
        name: 'execute_command',
        args: { command: "node -e \"console.log(require('./src/names.js').length + ' names')\"" },
      },
    ],
  },
  {
    toolCalls: [
      {
        id: 'd1',
        name: 'task_completion',
        args: {
          result:
            '# Renamed\n\nI renamed `name11` in `src/names.js` and kept the order; `greetWorld()` is unchanged.\n\n```js\nmodule.exports = [/* 25 names */];\n```',
        },
      },
    ],
  },
];

async function snap(page, n, state, theme) {
  for (const width of WIDTHS) {
    await setSidebarWidth(page, width, (m) => console.log(`[shots] ${m}`));
    const box = await page.locator('.part.sidebar').boundingBox();
    const file = path.join(shots, `lastmile-${n}-${state}-${theme}-${width}.png`);
    const clipW = Math.round((box?.x ?? 48) + (box?.width ?? width) + (state.includes('diff') ? 700 : 40));
    await page.screenshot({ path: file, clip: { x: 0, y: 0, width: Math.min(1400, clipW), height: 900 } });
    console.log(`[shots] ${file}`);
  }
}

async function step(what, fn) {
  try {
    await fn();
  } catch (e) {
    console.log(`[shots] ${what} failed: ${e.message.split('\n')[0]}`);
  }
}

async function run(theme, [label, cls]) {
  const session = await startShotSession({
    repo,
    prefix: 'forge-lmshots-',
    userSettings: {
      'window.autoDetectHighContrast': false,
      'window.autoDetectColorScheme': false,
      'forge.autoApprove': { read: true, write: false, execute: true, network: false },
    },
    turns,
    prepare: (ws) => {
      fs.writeFileSync(path.join(ws, 'src', 'names.js'), original);
      fs.writeFileSync(
        path.join(ws, '.vscode', 'mcp.json'),
        JSON.stringify({ servers: { db: { command: 'node', args: ['-e', 'setInterval(() => {}, 1000)'] } } }, null, 2),
      );
    },
  });
  const { page } = session;
  try {
    await pickColorTheme(page, label, cls);
    const { panel, wv } = await openForgePanel(page);
    await panel.input.fill('Rename name11 in src/names.js and add a name after name22.');
    await panel.input.press('Enter');
    await step('the multi-hunk card', async () => {
      await wv.locator('.approval-card.pending .hunk').first().waitFor({ timeout: 60_000 });
      await page.waitForTimeout(1500); // the diff editor opens beside
      await snap(page, 1, 'card-plan-mcp-diff', theme);
    });
    await step('the hunk hover in the diff editor', async () => {
      const line = page.locator('.monaco-diff-editor .editor.modified .view-line', { hasText: 'renamed11' }).first();
      await line.hover({ position: { x: 40, y: 5 } });
      await page.locator('.monaco-hover', { hasText: 'Forge hunk 2 of 3' }).first().waitFor({ timeout: 10_000 });
      await snap(page, '1b', 'diff-hunk-hover', theme);
      await page.mouse.move(5, 5);
    });
    await step('drop a hunk', async () => {
      await wv.locator('.approval-card.pending .hunk[data-index="1"] button.hunk-rejected').click();
      const reason = wv.locator('.approval-card.pending input.hunk-reason');
      await reason.waitFor({ timeout: 10_000 });
      await reason.fill('keep name11: the API exports it');
      await reason.press('Enter');
      await wv
        .locator('.approval-card.pending vscode-button[data-act="approve"]', { hasText: 'Write 2 of 3' })
        .waitFor({
          timeout: 10_000,
        });
      await page.waitForTimeout(400);
      await snap(page, 2, 'card-hunk-dropped', theme);
    });
    await step('approve the rest', async () => {
      await wv.locator('.approval-card.pending vscode-button[data-act="approve"]').click();
      await panel.runEnd('done').waitFor({ timeout: 60_000 });
      await wv.locator('.tool-note').first().scrollIntoViewIfNeeded();
      await page.waitForTimeout(600);
      await snap(page, 3, 'rows-after-review', theme);
    });
    await step('the answer', async () => {
      await panel.runEnd('done').scrollIntoViewIfNeeded();
      await page.waitForTimeout(300);
      await snap(page, 4, 'answer-inline-code', theme);
    });
    await step('Restore to here: the modal, then the mark in the transcript', async () => {
      const dialog = page.locator('.monaco-dialog-box');
      const open = async () => {
        await wv.locator('.checkpoint-restore').first().click();
        await dialog.waitFor({ timeout: 10_000 });
        await page.waitForTimeout(300);
      };
      // The modal holds the side bar's sash: one width at a time, cancelled in between.
      for (const width of WIDTHS) {
        await setSidebarWidth(page, width, (m) => console.log(`[shots] ${m}`));
        await open();
        const file = path.join(shots, `lastmile-5-restore-modal-${theme}-${width}.png`);
        await page.screenshot({ path: file, clip: { x: 0, y: 0, width: 1400, height: 900 } });
        console.log(`[shots] ${file}`);
        await dialog.locator('.monaco-button', { hasText: /^Cancel$/ }).click();
        await dialog.waitFor({ state: 'hidden', timeout: 10_000 });
      }
      await open();
      // "Restore Files", or "Rewind Conversation" where no file changed after that step.
      await dialog.locator('.monaco-button', { hasText: /^(Restore Files|Rewind Conversation)$/ }).click();
      await wv.locator('.item-checkpoint .checkpoint-mark').waitFor({ timeout: 10_000 });
      await wv.locator('.item-checkpoint').last().scrollIntoViewIfNeeded();
      await page.waitForTimeout(400);
      await snap(page, 6, 'restored-mark', theme);
    });
  } finally {
    await session.close();
  }
}

fs.mkdirSync(shots, { recursive: true });
for (const [theme, pick] of THEMES) await run(theme, pick);
process.exit(0);

#!/usr/bin/env node
// Screenshots for looking, not a test: in the real VS Code, the slash command list under the chat input (with a
// custom `.forge/commands` prompt), and a delegate_task call with its helper's steps nested under it.
// Writes test-results/slash-menu.png, slash-help.png and delegate-nested.png.
//
//   node test/integration/ui-shots-slash.mjs
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeDirs } from './lib/code-server.mjs';
import { prepareWorkspace } from './run.mjs';
import { startLoopbackLlm } from './ui/llm.mjs';
import { forgePanel, forgeWebview, runCommand, widenSidebar } from './ui/workbench.mjs';
import { startWorkbench } from './ui/session.mjs';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const shots = path.join(repo, 'test-results');
const turns = [
  { text: 'I will ask a helper to review the greeting module.', toolCalls: [{ id: 'd1', name: 'delegate_task', args: { task: 'Review src/greet.js for edge cases', mode: 'review' } }] },
  { text: 'Reading the module.', toolCalls: [{ id: 'c1', name: 'read_file', args: { path: 'src/greet.js' } }] },
  { toolCalls: [{ id: 'c2', name: 'task_completion', args: { result: 'greet.js handles empty names poorly.' } }] },
  { toolCalls: [{ id: 'p2', name: 'task_completion', args: { result: 'The helper found one issue: empty names.' } }] },
];

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'forge-shots-'));
const dirs = makeDirs(root, { 'workbench.colorTheme': 'Default Dark Modern', 'workbench.secondarySideBar.defaultVisibility': 'hidden' });
const workspace = path.join(root, 'workspace');
let llm, server, browser;
try {
  llm = await startLoopbackLlm(repo);
  llm.script(turns);
  prepareWorkspace(workspace, llm.url);
  fs.mkdirSync(path.join(workspace, '.forge', 'commands'), { recursive: true });
  fs.writeFileSync(path.join(workspace, '.forge', 'commands', 'review-file.md'), '---\ndescription: Review one file for bugs\nargument-hint: <file>\n---\nReview $1 for bugs.\n');
const started = await startWorkbench({ repo, dirs, workspace, extraEnv: { FORGE_TEST_LLM_URL: llm.url } });
server = started.server;
browser = started.browser;
const page = started.page;
  const panel = forgePanel(page);
  const wv = forgeWebview(page);
  await runCommand(page, 'Forge: Open Panel');
  await panel.input.waitFor({ state: 'visible', timeout: 60_000 });
  await widenSidebar(page, 460);
  await panel.input.click();
  await panel.input.pressSequentially('/re');
  await wv.locator('#forge-slash-menu [role="option"]').first().waitFor({ timeout: 20_000 });
  await page.keyboard.press('ArrowDown');
  await page.waitForTimeout(400);
  await page.screenshot({ path: path.join(shots, 'slash-menu.png') });
  await page.keyboard.press('Escape');
  await panel.input.fill('/help');
  await panel.input.press('Enter');
  await panel.input.press('Enter'); // the first Enter completes, the second sends
  await wv.locator('.slash-notice').waitFor({ timeout: 20_000 }).catch(() => console.log('[shots] no /help notice'));
  await page.waitForTimeout(400);
  await page.screenshot({ path: path.join(shots, 'slash-help.png') });
  await panel.input.fill('Get src/greet.js reviewed.');
  await panel.input.press('Enter');
  await panel.runEnd('done').waitFor({ timeout: 30_000 });
  await page.waitForTimeout(800);
  await page.screenshot({ path: path.join(shots, 'delegate-nested.png') });
  console.log(`[shots] ${shots}/slash-menu.png, slash-help.png, delegate-nested.png`);
} finally {
  await browser?.close().catch(() => {});
  await server?.stop().catch(() => {});
  await llm?.close().catch(() => {});
  fs.rmSync(root, { recursive: true, force: true });
}
process.exit(0);

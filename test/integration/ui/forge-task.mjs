// The user story, through the real UI: open Forge, type a task, watch it stream and read a file, review the
// proposed edit (approval card in the panel + diff editor in the workbench), Approve, see the run end.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { editorTab, openForgePanel, widenSidebar } from './workbench.mjs';

const TASK = 'Make the greeting in src/greet.js say Hi instead of Hello.';
const STREAMED = 'Sure. I will read src/greet.js first, then change the greeting.';
const SEARCH = "  return 'Hello, ' + name + '!';";
const REPLACE = "  return 'Hi, ' + name + '!';";

/** The scripted model: text + read_file, then apply_diff, then task_completion (one turn per model request). */
export const turns = [
  { text: STREAMED, deltaSize: 6, toolCalls: [{ id: 'ui-read', name: 'read_file', args: { path: 'src/greet.js' } }] },
  {
    text: 'Here is the edit.',
    toolCalls: [
      {
        id: 'ui-edit',
        name: 'apply_diff',
        args: { path: 'src/greet.js', blocks: [{ search: SEARCH, replace: REPLACE }] },
      },
    ],
  },
  { toolCalls: [{ id: 'ui-done', name: 'task_completion', args: { result: 'The greeting now says Hi.' } }] },
];

function toolResult(request, toolCallId) {
  const msg = (request?.body?.messages ?? []).find((m) => m.role === 'tool' && m.tool_call_id === toolCallId);
  if (!msg) return undefined;
  return typeof msg.content === 'string' ? msg.content : JSON.stringify(msg.content);
}

/**
 * @param {import('playwright-core').Page} page  the workbench, workspace open
 * @param {{ workspace: string, llm: any, shots: string, step: (m: string) => void }} ctx
 */
export async function forgeTaskThroughTheUi(page, { workspace, llm, shots, step }) {
  const file = path.join(workspace, 'src', 'greet.js');
  const original = fs.readFileSync(file, 'utf8');

  // The activity bar entry appears once Forge's contributions are registered, so the palette lists its commands.
  await page.locator('.activitybar [aria-label^="Forge"]').first().waitFor({ state: 'attached', timeout: 60_000 });
  const { panel } = await openForgePanel(page, { log: step });
  // The provider status arrived: the header's model picker offers the loopback model and shows it as the one
  // in use (choice ids are provider-qualified), and there is no setup card.
  await panel.model.filter({ hasText: 'test-model' }).waitFor({ timeout: 30_000 });
  assert.equal(await panel.setupCard.isVisible(), false, 'the setup card is hidden (the model is configured)');
  let shown = null;
  for (const started = Date.now(); Date.now() - started < 10_000; await page.waitForTimeout(100)) {
    shown = await panel.model
      .locator('vscode-dropdown')
      .getAttribute('current-value')
      .catch(() => null);
    if (shown?.endsWith(':test-model')) break;
  }
  assert.ok(shown?.endsWith(':test-model'), `the header's model picker shows the model in use, not "${shown}"`);
  await widenSidebar(page, 460, step);
  step('Forge panel rendered in the webview');

  await panel.input.click();
  await panel.input.fill(TASK);
  await panel.input.press('Enter');
  await panel.userBubble(TASK).waitFor({ timeout: 15_000 });
  step('task sent from the input box');

  await panel.assistant(STREAMED).waitFor({ timeout: 30_000 });
  await panel.toolCard('read_file').first().waitFor({ timeout: 30_000 });
  await panel.pendingApproval.filter({ hasText: 'src/greet.js' }).waitFor({ timeout: 30_000 });
  await panel.approveButton.waitFor({ state: 'visible', timeout: 10_000 });
  step('approval card shown in the panel');

  const diffTab = editorTab(page, 'greet.js (proposed)');
  await diffTab.waitFor({ timeout: 30_000 });
  // Both sides rendered (Monaco draws lines after the tab appears): original says Hello, proposed says Hi.
  const diff = page.locator('.monaco-diff-editor').first();
  await diff.locator('.editor.original .view-line', { hasText: 'Hello,' }).waitFor({ timeout: 30_000 });
  await diff.locator('.editor.modified .view-line', { hasText: 'Hi,' }).waitFor({ timeout: 30_000 });
  await panel.progressText.filter({ hasText: 'Iteration' }).waitFor({ timeout: 10_000 });
  assert.equal(fs.readFileSync(file, 'utf8'), original, 'nothing is written before approval');
  step('diff editor tab open in the workbench; file untouched');

  await page.screenshot({ path: path.join(shots, 'vscode-panel-mid-task.png') });
  step('screenshot vscode-panel-mid-task.png');

  await panel.approveButton.click();
  await panel.resolvedEdit.filter({ hasText: 'greet.js' }).waitFor({ timeout: 15_000 });
  step('Approve clicked; the card went and the row reads "Edited src/greet.js +1 −1"');

  const ended = panel.runEnd('done');
  await ended.waitFor({ timeout: 30_000 });
  assert.match(await ended.locator('.run-end-title').textContent(), /Task complete/);
  await panel.sendButton.waitFor({ state: 'visible', timeout: 10_000 }); // back to idle: Send replaces Stop
  await diffTab.waitFor({ state: 'detached', timeout: 15_000 });
  step('run ended (done); the diff tab closed');

  const edited = fs.readFileSync(file, 'utf8');
  assert.notEqual(edited, original, 'the file on disk changed');
  assert.ok(edited.includes(REPLACE) && !edited.includes(SEARCH), `the approved edit is on disk:\n${edited}`);

  const requests = llm.requests;
  assert.equal(requests.length, turns.length, `one model request per scripted turn (got ${requests.length})`);
  const firstUser = (requests[0].body?.messages ?? [])
    .filter((m) => m.role === 'user')
    .map((m) => JSON.stringify(m.content))
    .join('\n');
  assert.ok(firstUser.includes('Make the greeting in src/greet.js say Hi'), 'the typed task reached the model');
  const readResult = toolResult(requests[1], 'ui-read');
  assert.ok(readResult?.includes("'Hello, ' + name"), `the second request carries the read_file result: ${readResult}`);
  const editResult = toolResult(requests[2], 'ui-edit');
  assert.ok(
    editResult !== undefined && !/reject|error/i.test(editResult),
    `the third request carries the apply_diff result: ${editResult}`,
  );
  step('disk + model requests verified');

  await page.screenshot({ path: path.join(shots, 'vscode-panel-done.png') });
  step('screenshot vscode-panel-done.png');
}

#!/usr/bin/env node
// An MCP tool call cut off by a real crash (SIGKILL of the extension host while the server works on it): the restored
// task tells the model and the user that its outcome is unknown, with the server, tool and arguments, never a bare
// "interrupted", and the model is told not to call it again blindly.
//
//   node esbuild.mjs && node test/integration/crash-mcp.mjs
//
// Exit 0 = passed; 1 = failed; 124 = timed out. Writes test-results/crash-mcp-*.png.
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
const step = (m) => console.log(`[crash-mcp ${((Date.now() - t0) / 1000).toFixed(1)}s] ${m}`);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const everything = path.join(repo, 'node_modules', '@modelcontextprotocol', 'server-everything', 'dist', 'index.js');

const TOOL = 'mcp__every__trigger-long-running-operation';
const turns = [
  {
    text: 'Starting the long operation.',
    toolCalls: [{ id: 'mcp-long', name: TOOL, args: { duration: 60, steps: 6 } }],
  },
  { toolCalls: [{ id: 'mcp-done', name: 'task_completion', args: { result: 'Checked the operation.' } }] },
];

async function main() {
  fs.mkdirSync(shots, { recursive: true });
  assert.ok(fs.existsSync(everything), everything);
  const session = await startShotSession({
    repo,
    prefix: 'forge-crash-mcp-',
    turns,
    userSettings: {
      'forge.mcp.servers': { every: { type: 'stdio', command: 'node', args: [everything, 'stdio'] } },
      'forge.mcp.autoApprove': { every: true },
    },
  });
  const watchdog = setTimeout(() => {
    console.error('[crash-mcp] timed out after 300 s');
    void session.close().finally(() => process.exit(124));
  }, 300_000);
  const { page, server, workspace, llm } = session;
  const storage = path.join(path.dirname(workspace), 'user-data', 'User', 'globalStorage');
  try {
    let { panel } = await openForgePanel(page, { log: step });
    await panel.input.fill('Run the long operation.');
    await panel.input.press('Enter');
    await waitForLogLine(storage, 'commands', '"toolCallId":"mcp-long"', { timeoutMs: 60_000, pollMs: 20 });
    await sleep(500); // the server is working on it
    const pid = killHostNow(server);
    step('killed while the MCP server ran the call');
    await reloadAfterKill(server, page, pid, step);
    ({ panel } = await openForgePanel(page, { log: step }));
    await panel.userBubble('Run the long operation').waitFor({ timeout: 60_000 });
    const wv = forgeWebview(page);
    const notice = wv.locator('.notice', { hasText: 'outcome is unknown' }).first();
    await notice.waitFor({ timeout: 60_000 });
    assert.match(await notice.innerText(), /trigger-long-running-operation/);
    await page.screenshot({ path: path.join(shots, 'crash-mcp-restored.png') });
    step('the restore says the outcome is unknown');
    const before = llm.requests.length;
    await wv.locator('vscode-button[data-action="continue"]').last().click();
    await panel.runEnd('done').waitFor({ timeout: 60_000 });
    const told = llm.requests
      .slice(before)
      .map((r) => JSON.stringify(r.body?.messages ?? []))
      .find((m) => m.includes('Unknown outcome: Forge was reloaded while the MCP tool'));
    assert.ok(told, 'the model was told the outcome is unknown');
    assert.match(told, /of server \\"every\\"/);
    assert.match(told, /Arguments: \{\\"duration\\":60,\\"steps\\":6\}/);
    assert.match(told, /Do NOT call it again blindly/);
    assert.doesNotMatch(told, /Interrupted: Forge was reloaded/);
    step('passed: the model was told the outcome is unknown, with server, tool and arguments');
    return 0;
  } catch (err) {
    await page.screenshot({ path: path.join(shots, 'crash-mcp-failure.png') }).catch(() => {});
    console.error(err);
    return 1;
  } finally {
    clearTimeout(watchdog);
    await session.close();
  }
}

main().then((code) => process.exit(code));

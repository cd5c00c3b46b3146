#!/usr/bin/env node
// The same integration suite under a desktop VS Code downloaded by @vscode/test-electron (for machines that
// can reach update.code.visualstudio.com; CI here uses run.mjs with code-server instead).
//   node test/integration/electron.mjs [--grep <regex>]      (VSCODE_VERSION=stable|insiders|1.95.0)
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runTests } from '@vscode/test-electron';
import { buildSuite, outDir, prepareWorkspace, repo, startLlmServer } from './run.mjs';

const i = process.argv.indexOf('--grep');
const grep = i >= 0 ? process.argv[i + 1] : process.env.FORGE_IT_GREP;

async function main() {
  await buildSuite();
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'forge-it-electron-'));
  const workspace = path.join(root, 'workspace');
  const llm = await startLlmServer();
  prepareWorkspace(workspace, llm?.url, path.join(repo, 'test/fixtures/sample-workspace'));
  try {
    return await runTests({
      version: process.env.VSCODE_VERSION ?? 'stable',
      extensionDevelopmentPath: repo,
      extensionTestsPath: path.join(outDir, 'suite', 'index.js'),
      launchArgs: [
        workspace,
        '--disable-extensions',
        '--disable-workspace-trust',
        '--user-data-dir',
        path.join(root, 'user-data'),
      ],
      extensionTestsEnv: {
        FORGE_TEST: '1',
        FORGE_TEST_WORKSPACE: workspace,
        FORGE_IT_RESULTS: path.join(root, 'results.txt'),
        ...(llm ? { FORGE_TEST_LLM_URL: llm.url } : {}),
        ...(grep ? { FORGE_IT_GREP: grep } : {}),
      },
    });
  } finally {
    await llm?.close();
    fs.rmSync(root, { recursive: true, force: true });
  }
}

main().then(
  (code) => process.exit(code),
  (e) => {
    console.error('[it:electron]', e?.message ?? e);
    process.exit(1);
  },
);

#!/usr/bin/env node
// Runs the integration suite inside a real VS Code (code-server + headless Chromium): the @vscode/test-electron
// equivalent for machines that cannot download VS Code. Exit code = the extension host's (0 = all passed).
//
//   node test/integration/run.mjs [--grep <regex>] [--keep] [--verbose] [--no-build] [--workspace <dir>]
//
// Per run: bundles test/integration/suite/*.test.ts (+ the mocha runner) into out/integration/suite/, copies the
// fixture workspace to a temp folder, starts the loopback LLM server (test/support/llm-server) in this process,
// starts a private code-server with the smoke-test driver, opens the workspace with
// extensionDevelopmentPath=<repo> and extensionTestsPath=<runner>, forwards test output, and kills all it started.
// The test-only chat model extension (test/integration/fixtures/lm-provider) is installed into the run's private
// extensions folder: the web workbench keeps one extensionDevelopmentPath only (its payload is a Map).
// Env reaching the extension host: FORGE_TEST_LLM_URL, FORGE_TEST_WORKSPACE, FORGE_IT_GREP, FORGE_IT_RESULTS.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import util from 'node:util';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';
import { isInstalled, paths } from '../../scripts/setup-real-vscode.mjs';
import { freePort, launchChromium, makeDirs, startCodeServer, workbenchUrl } from './lib/code-server.mjs';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const outDir = path.join(repo, 'out', 'integration');
/** Test-only extension loaded next to Forge: a scripted vscode.lm chat model (see its extension.js). */
export const lmProviderExtension = path.join(repo, 'test/integration/fixtures/lm-provider');

const argv = process.argv.slice(2);
const flag = (name) => argv.includes(name);
const option = (name) => {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : undefined;
};
const opts = {
  grep: option('--grep') ?? process.env.FORGE_IT_GREP,
  keep: flag('--keep') || !!process.env.FORGE_IT_KEEP,
  verbose: flag('--verbose') || !!process.env.FORGE_IT_VERBOSE,
  build: !flag('--no-build'),
  workspace: path.resolve(option('--workspace') ?? path.join(repo, 'test/fixtures/sample-workspace')),
  timeoutMs: Number(process.env.FORGE_IT_TIMEOUT_MS ?? 10 * 60_000),
};

const t0 = Date.now();
const lap = (m) => console.error(`[it ${((Date.now() - t0) / 1000).toFixed(1)}s] ${m}`);

/** Bundles the runner and every suite/*.test.ts (vscode + mocha external; src/ code is bundled in). */
export async function buildSuite() {
  const suiteDir = path.join(repo, 'test/integration/suite');
  const entries = fs.readdirSync(suiteDir).filter((f) => f === 'index.ts' || f.endsWith('.test.ts'));
  fs.rmSync(path.join(outDir, 'suite'), { recursive: true, force: true });
  await esbuild.build({
    entryPoints: entries.map((f) => path.join(suiteDir, f)),
    outdir: path.join(outDir, 'suite'),
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    sourcemap: 'inline',
    external: ['vscode', 'mocha'],
    logLevel: 'warning',
  });
}

/** Loads test/support/llm-server (TypeScript) by bundling it; undefined when it does not exist yet. */
export async function startLlmServer() {
  const candidates = ['test/support/llm-server.ts', 'test/support/llm-server/index.ts'].map((p) => path.join(repo, p));
  const entry = candidates.find((p) => fs.existsSync(p));
  if (!entry) return undefined;
  const outfile = path.join(outDir, 'llm-server.cjs');
  await esbuild.build({
    entryPoints: [entry],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    packages: 'external',
    logLevel: 'warning',
  });
  const mod = createRequire(import.meta.url)(outfile);
  const start = mod.startLlmServer ?? mod.default?.startLlmServer;
  if (typeof start !== 'function') throw new Error(`${entry} does not export startLlmServer()`);
  const server = await start();
  const url = server.url ?? server.baseUrl ?? (server.port ? `http://127.0.0.1:${server.port}` : undefined);
  if (!url) throw new Error('startLlmServer() returned no url/baseUrl/port');
  return { url: String(url).replace(/\/$/, ''), close: () => (server.close ?? server.stop)?.call(server) };
}

/**
 * Copies the test-only extensions into the run's extensions folder (code-server picks up the folders it finds
 * there when it first initialises the profile). Only one extensionDevelopmentPath reaches the web workbench.
 */
export function installTestExtensions(extensionsDir) {
  const manifest = JSON.parse(fs.readFileSync(path.join(lmProviderExtension, 'package.json'), 'utf8'));
  const target = path.join(extensionsDir, `${manifest.publisher}.${manifest.name}-${manifest.version}`);
  fs.cpSync(lmProviderExtension, target, { recursive: true });
  return target;
}

/** Copies the fixture and points its workspace settings at the loopback LLM server. */
export function prepareWorkspace(target, llmUrl, fixture = opts.workspace) {
  fs.cpSync(fixture, target, { recursive: true });
  const settingsFile = path.join(target, '.vscode', 'settings.json');
  let settings = {};
  try {
    settings = JSON.parse(fs.readFileSync(settingsFile, 'utf8'));
  } catch {
    /* none or not plain JSON */
  }
  if (llmUrl)
    Object.assign(settings, {
      'forge.provider': 'openai-compatible',
      'forge.baseUrl': `${llmUrl}/v1`,
      'forge.model': 'test-model',
    });
  fs.mkdirSync(path.dirname(settingsFile), { recursive: true });
  fs.writeFileSync(settingsFile, JSON.stringify(settings, null, 2) + '\n');
}

async function main() {
  if (!isInstalled()) {
    console.error('Real VS Code is not installed. Run: node scripts/setup-real-vscode.mjs');
    return 2;
  }
  if (!fs.existsSync(path.join(repo, 'dist/extension.js'))) {
    console.error('dist/extension.js missing. Run: node esbuild.mjs');
    return 2;
  }
  if (opts.build) {
    await buildSuite();
    lap('suite bundled');
  }
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'forge-it-'));
  const dirs = makeDirs(root);
  installTestExtensions(dirs.extensions);
  const workspace = path.join(root, 'workspace');
  const resultsFile = path.join(root, 'results.txt');
  const consoleLog = fs.createWriteStream(path.join(root, 'console.log'));
  let llm, server, browser;
  let cleaned = false;
  async function cleanup() {
    if (cleaned) return;
    cleaned = true;
    await browser?.close().catch(() => {});
    await server?.stop().catch(() => {});
    await llm?.close()?.catch?.(() => {});
    consoleLog.end();
    if (opts.keep) lap(`kept ${root}`);
    else fs.rmSync(root, { recursive: true, force: true });
  }
  const watchdog = setTimeout(async () => {
    console.error(`[it] TIMEOUT after ${opts.timeoutMs} ms; server log: ${dirs.serverLog}`);
    await cleanup();
    process.exit(124);
  }, opts.timeoutMs);
  try {
    llm = await startLlmServer();
    lap(llm ? `loopback LLM server at ${llm.url}` : 'no test/support/llm-server yet: FORGE_TEST_LLM_URL unset');
    prepareWorkspace(workspace, llm?.url);
    const port = await freePort();
    server = await startCodeServer({
      dirs,
      port,
      smokeTestDriver: true,
      extraEnv: {
        FORGE_TEST: '1',
        FORGE_TEST_WORKSPACE: workspace,
        FORGE_IT_RESULTS: resultsFile,
        ...(llm ? { FORGE_TEST_LLM_URL: llm.url } : {}),
        ...(opts.grep ? { FORGE_IT_GREP: opts.grep } : {}),
      },
    });
    lap(`code-server up on ${server.base} (pid ${server.child.pid})`);
    browser = await launchChromium(dirs);
    const page = browser.pages()[0] ?? (await browser.newPage());
    let resolveExit;
    const exited = new Promise((r) => (resolveExit = r));
    await page.exposeFunction('codeAutomationExit', (code) => resolveExit(code));
    await page.exposeFunction('codeAutomationLog', (type, args) => {
      const line = util.format(...(Array.isArray(args) ? args : [args]));
      consoleLog.write(`[${type}] ${line}\n`);
      if (/^\[(mocha|runner)\] /.test(line)) console.log(line.replace(/^\[(mocha|runner)\] /gm, ''));
      else if (opts.verbose) console.log(`  [host ${type}] ${line.slice(0, 2000)}`);
    });
    page.on('console', (m) => consoleLog.write(`[page ${m.type()}] ${m.text()}\n`));
    page.on('pageerror', (e) => consoleLog.write(`[page error] ${e.message}\n`));
    server.exited.then((c) => resolveExit(`code-server exited (${c})`));
    const url = workbenchUrl({
      authority: server.authority,
      folder: workspace,
      extensionDevelopmentPath: repo,
      extensionTestsPath: path.join(outDir, 'suite', 'index.js'),
    });
    await page.goto(url);
    lap('workbench opened; tests running in the extension host');
    const code = await exited;
    lap(`extension host exit code: ${code}`);
    if (code !== 0 && !fs.existsSync(resultsFile)) {
      console.error(`[it] no results; last console lines:\n${tail(path.join(root, 'console.log'), 30)}`);
      console.error(`[it] code-server log tail:\n${tail(dirs.serverLog, 30)}`);
    }
    return typeof code === 'number' ? code : 1;
  } finally {
    clearTimeout(watchdog);
    await cleanup();
  }
}

function tail(file, n) {
  try {
    return fs.readFileSync(file, 'utf8').trimEnd().split('\n').slice(-n).join('\n');
  } catch {
    return '(none)';
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().then(
    (code) => {
      lap(`done, exit ${code}`);
      process.exit(code);
    },
    (e) => {
      console.error('[it] harness error:', e);
      process.exit(1);
    },
  );
}
export { paths, repo, outDir };

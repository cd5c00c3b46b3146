// The extension's own latency helpers in a real VS Code: the pre-warmed Forge terminal (hidden, never takes
// focus, used by the next command) and the shell parser loaded ahead of the first command check.
import * as assert from 'node:assert';
import * as vscode from 'vscode';
import { parseScript, shellParserLoaded } from '../../../src/core/safety/command-parse';
import { warmShellParser } from '../../../src/node/shell-parser-warmup';
import { TerminalCommandRunner } from '../../../src/host/terminal/terminal-runner';
import { waitFor, workspaceRoot } from '../helpers';

describe('pre-warming for the first command', () => {
  it('starts a hidden Forge terminal that does not take focus, and the next command runs in it', async function () {
    this.timeout(60_000);
    const runner = new TerminalCommandRunner({ terminalName: 'Forge prewarm test', shellIntegrationTimeoutMs: 10_000 });
    try {
      const activeBefore = vscode.window.activeTerminal;
      const opened: vscode.Terminal[] = [];
      const sub = vscode.window.onDidOpenTerminal((t) => opened.push(t));
      runner.prewarm(workspaceRoot());
      runner.prewarm(workspaceRoot()); // a second run start reuses the idle terminal
      const term = await waitFor(() => opened.find((t) => t.name === 'Forge prewarm test'), 'the pre-warmed terminal');
      assert.strictEqual(
        (term.creationOptions as vscode.TerminalOptions).hideFromUser,
        true,
        'hidden until a command runs',
      );
      assert.strictEqual(vscode.window.activeTerminal, activeBefore, 'the active terminal did not change');
      await waitFor(() => term.shellIntegration, 'shell integration in the pre-warmed terminal', 20_000);
      const t0 = Date.now();
      const r = await runner.run({
        command: 'echo warm-$((6*7))',
        cwd: workspaceRoot(),
        timeoutMs: 20_000,
        signal: new AbortController().signal,
      });
      console.log(`      command in the pre-warmed terminal took ${Date.now() - t0} ms`);
      sub.dispose();
      assert.match(r.output, /warm-42/);
      assert.strictEqual(runner.lastRunUsedTerminal, true);
      assert.deepStrictEqual(
        opened.filter((t) => t.name === 'Forge prewarm test'),
        [term],
        'one terminal: the pre-warmed one ran the command',
      );
    } finally {
      runner.dispose();
    }
  });

  it('replaces a closed Forge terminal with a hidden spare once commands have run in the window', async function () {
    this.timeout(60_000);
    const name = 'Forge spare test';
    const runner = new TerminalCommandRunner({ terminalName: name, shellIntegrationTimeoutMs: 10_000 });
    const opened: vscode.Terminal[] = [];
    const sub = vscode.window.onDidOpenTerminal((t) => t.name === name && opened.push(t));
    try {
      runner.prewarm(workspaceRoot());
      const first = await waitFor(() => opened[0], 'the pre-warmed terminal');
      await waitFor(() => first.shellIntegration, 'shell integration in the pre-warmed terminal', 20_000);
      first.dispose(); // the user closes the Forge terminal
      const spare = await waitFor(() => opened[1], 'the spare terminal', 20_000);
      assert.strictEqual((spare.creationOptions as vscode.TerminalOptions).hideFromUser, true, 'the spare is hidden');
      await waitFor(() => spare.shellIntegration, 'shell integration in the spare', 20_000);
      const r = await runner.run({
        command: 'echo spare-$((6*7))',
        cwd: workspaceRoot(),
        timeoutMs: 20_000,
        signal: new AbortController().signal,
      });
      assert.match(r.output, /spare-42/);
      assert.strictEqual(opened.length, 2, 'the command ran in the spare: no third terminal');
      runner.dispose(); // a disposed runner starts nothing more
      await new Promise((r) => setTimeout(r, 500));
      assert.strictEqual(opened.length, 2);
    } finally {
      sub.dispose();
      runner.dispose();
      for (const t of vscode.window.terminals.filter((x) => x.name === name)) t.dispose();
    }
  });

  it('loads the shell parser ahead of time (or finds it loaded), and parsing works after', async () => {
    const r = await warmShellParser({});
    assert.ok(r.loaded || r.via === 'missing', JSON.stringify(r));
    assert.strictEqual(parseScript('a | b && c').length, 3);
    assert.ok(shellParserLoaded());
  });
});

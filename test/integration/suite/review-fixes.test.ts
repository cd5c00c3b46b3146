// Regression tests for bugs found reviewing the VS Code glue (diff approval, terminal runner, edit applier).
import * as assert from 'node:assert';
import * as vscode from 'vscode';
import type { CommandRunner, RunRequest, RunResult } from '../../../src/core/workspace/types';
import type { DiffApproval } from '../../../src/host/diff-approval';
import { PROPOSED_SCHEME } from '../../../src/host/diff-approval';
import { ConcurrentChangeError, VscodeEditApplier } from '../../../src/host/edit-applier';
import { TerminalCommandRunner } from '../../../src/host/terminal-runner';
import { activateForge, allTabs, closeAllEditors, readText, waitFor, workspaceRoot, wsPath } from '../helpers';

const proposalTabs = () =>
  allTabs().filter((t) => t.input instanceof vscode.TabInputTextDiff && t.input.modified.scheme === PROPOSED_SCHEME);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('review fixes: diff approval', () => {
  let diffApproval: DiffApproval;
  before(async () => {
    diffApproval = (await activateForge<{ diffApproval: DiffApproval }>()).diffApproval;
    await closeAllEditors();
  });
  afterEach(closeAllEditors);

  it('a proposal answered while its diff tab is still opening leaves no tab behind', async () => {
    const file = wsPath('src', 'greet.js');
    const original = await readText(file);
    const outcome = diffApproval.propose({ id: 'rf-fast', path: file, original, proposed: original + '// x\n', isNewFile: false });
    // Answered at once (keyboard shortcut, Stop): before vscode.diff has opened the tab.
    assert.strictEqual(await diffApproval.reject('rf-fast', 'no'), true);
    assert.deepStrictEqual(await outcome, { kind: 'reject', reason: 'no' });
    await sleep(1500);
    assert.deepStrictEqual(proposalTabs().map((t) => t.label), [], 'no orphaned proposal tab');
  });
});

/** Child-process stand-in that only counts calls (it must not be used in these tests). */
class CountingFallback implements CommandRunner {
  used = 0;
  async run(_req: RunRequest): Promise<RunResult> {
    this.used++;
    return { exitCode: 0, output: '', timedOut: false };
  }
}

describe('review fixes: terminal runner', () => {
  const fallback = new CountingFallback();
  const runner = new TerminalCommandRunner({ fallback, shellIntegrationTimeoutMs: 15_000, terminalName: 'Forge review' });
  after(() => runner.dispose());

  it('Stop while the terminal starts neither runs the command elsewhere nor turns shell integration off', async function () {
    this.timeout(60_000);
    const ac = new AbortController();
    const first = runner.run({ command: 'echo never', cwd: workspaceRoot(), timeoutMs: 30_000, signal: ac.signal });
    setTimeout(() => ac.abort(), 30);
    const r = await first;
    assert.strictEqual(r.aborted, true);
    assert.strictEqual(fallback.used, 0, 'the stopped command was not run by the fallback');
    const next = await runner.run({ command: 'echo forge-after-stop', cwd: workspaceRoot(), timeoutMs: 30_000, signal: new AbortController().signal });
    assert.match(next.output, /forge-after-stop/);
    assert.strictEqual(runner.lastRunUsedTerminal, true, 'the next command still runs in the terminal');
    assert.strictEqual(fallback.used, 0);
  });
});

describe('review fixes: edit applier', () => {
  afterEach(closeAllEditors);

  it('refuses to overwrite unsaved editor changes, and says so (re-reading the file cannot help)', async () => {
    const file = wsPath('src', 'math.js');
    const disk = await readText(file);
    const doc = await vscode.window.showTextDocument(vscode.Uri.file(file)).then((e) => e.document);
    const we = new vscode.WorkspaceEdit();
    we.insert(doc.uri, new vscode.Position(0, 0), '// my unsaved note\n');
    assert.ok(await vscode.workspace.applyEdit(we));
    assert.ok(doc.isDirty);
    const applier = new VscodeEditApplier();
    await assert.rejects(
      applier.apply({ path: file, content: disk + '// from forge\n', original: disk, isNewFile: false }),
      (err: Error) => err instanceof ConcurrentChangeError && /unsaved changes/.test(err.message),
    );
    assert.ok(doc.getText().startsWith('// my unsaved note\n'), 'the buffer keeps the user edit');
    assert.strictEqual(await readText(file), disk, 'nothing written to disk');
    await vscode.commands.executeCommand('workbench.action.files.revert');
    await waitFor(() => !doc.isDirty, 'the revert');
  });
});

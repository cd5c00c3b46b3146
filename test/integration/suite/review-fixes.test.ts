// Regression tests for bugs found reviewing the VS Code glue (diff approval, terminal runner, edit applier,
// controller).
import * as assert from 'node:assert';
import * as vscode from 'vscode';
import type { CommandRunner, RunRequest, RunResult } from '../../../src/core/workspace/types';
import type { DiffApproval } from '../../../src/host/edits/diff-approval';
import { PROPOSED_SCHEME } from '../../../src/host/edits/diff-approval';
import { ConcurrentChangeError, VscodeEditApplier } from '../../../src/host/edits/edit-applier';
import { TerminalCommandRunner } from '../../../src/host/terminal/terminal-runner';
import { Agent } from '../../../src/core/loop/agent';
import type { AgentSnapshot } from '../../../src/core/tasks/snapshot';
import { Controller, type ControllerDeps } from '../../../src/host/ui/controller';
import { SessionManager } from '../../../src/host/session/session-manager';
import { FakeClock, ScriptedModel, doneTurn } from '../../support/scripted-model';
import { ScriptedApprover } from '../../support/loop-harness';
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
    const outcome = diffApproval.propose({
      id: 'rf-fast',
      path: file,
      original,
      proposed: original + '// x\n',
      isNewFile: false,
    });
    // Answered at once (keyboard shortcut, Stop): before vscode.diff has opened the tab.
    assert.strictEqual(await diffApproval.reject('rf-fast', 'no'), true);
    assert.deepStrictEqual(await outcome, { kind: 'reject', reason: 'no' });
    await sleep(1500);
    assert.deepStrictEqual(
      proposalTabs().map((t) => t.label),
      [],
      'no orphaned proposal tab',
    );
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
  const runner = new TerminalCommandRunner({
    fallback,
    shellIntegrationTimeoutMs: 15_000,
    terminalName: 'Forge review',
  });
  after(() => runner.dispose());

  it('Stop while the terminal starts neither runs the command elsewhere nor turns shell integration off', async function () {
    this.timeout(60_000);
    const ac = new AbortController();
    const first = runner.run({ command: 'echo never', cwd: workspaceRoot(), timeoutMs: 30_000, signal: ac.signal });
    setTimeout(() => ac.abort(), 30);
    const r = await first;
    assert.strictEqual(r.aborted, true);
    assert.strictEqual(fallback.used, 0, 'the stopped command was not run by the fallback');
    const next = await runner.run({
      command: 'echo forge-after-stop',
      cwd: workspaceRoot(),
      timeoutMs: 30_000,
      signal: new AbortController().signal,
    });
    assert.match(next.output, /forge-after-stop/);
    assert.strictEqual(runner.lastRunUsedTerminal, true, 'the next command still runs in the terminal');
    assert.strictEqual(fallback.used, 0);
  });
});

describe('review fixes: terminal runner without shell integration', () => {
  const name = 'Forge no-integration';
  const forgeTerminals = () => vscode.window.terminals.filter((t) => t.name === name);

  it('closes the terminal it opened when shell integration never starts (the fallback ran the command)', async function () {
    this.timeout(30_000);
    const fallback = new CountingFallback();
    // 1 ms: shell integration cannot have started, as with an unsupported shell.
    const runner = new TerminalCommandRunner({ fallback, shellIntegrationTimeoutMs: 1, terminalName: name });
    try {
      const r = await runner.run({
        command: 'echo hi',
        cwd: workspaceRoot(),
        timeoutMs: 10_000,
        signal: new AbortController().signal,
      });
      assert.strictEqual(r.exitCode, 0);
      assert.strictEqual(fallback.used, 1);
      assert.strictEqual(runner.lastRunUsedTerminal, false);
      await waitFor(() => forgeTerminals().length === 0, 'the empty Forge terminal to close', 5000);
    } finally {
      runner.dispose();
      for (const t of forgeTerminals()) t.dispose();
    }
  });
});

describe('review fixes: controller', () => {
  const log = { info() {}, warn() {}, error() {}, debug() {}, trace() {}, show() {} };

  /** A Controller over real sessions with a scripted model, whose model resolution waits for `release()`. */
  function setup() {
    const model = new ScriptedModel([{ events: doneTurn('first').slice(), delayMs: 50 }, doneTurn('second')]);
    const store = {
      list: async () => [],
      load: async () => undefined,
      save: async () => undefined,
      flush: async () => undefined,
      onDidRemoveTasks: () => ({ dispose() {} }),
    };
    const makeAgent = (snapshot?: AgentSnapshot) => {
      const d = { model, tools: [], approver: new ScriptedApprover(), clock: new FakeClock() };
      return snapshot ? Agent.restore(snapshot, d) : new Agent(d);
    };
    const manager = new SessionManager({ store: store as any, makeAgent, log: log as any, saveDelayMs: 5 });
    const switchable = { configured: false };
    let release!: () => void;
    const resolved = new Promise<void>((r) => (release = r));
    const controller = new Controller({
      manager,
      toolkit: { refresh: () => false } as any,
      model: switchable as any,
      journal: { collectGarbageSoon() {}, removeTask: async () => undefined } as any,
      log: log as any,
      refreshModel: async () => {
        await resolved;
        switchable.configured = true;
      },
    } as unknown as ControllerDeps);
    const prefilled: string[] = [];
    controller.setPanel({
      prefill: async (t: string) => void prefilled.push(t),
      bridge: { snapshot: () => ({}) },
    } as any);
    const errors = () =>
      manager.current.transcript
        .snapshot()
        .items.filter((i: any) => i.kind === 'error')
        .map((i: any) => i.message as string);
    return { controller, manager, release, prefilled, errors };
  }

  it('a second send while the model is being resolved comes back to the input box (no "already running" error)', async () => {
    const { controller, release, prefilled, errors } = setup();
    const first = controller.startRun('send', 'one');
    const second = controller.startRun('send', 'two');
    release();
    const [a, b] = await Promise.allSettled([first, second]);
    assert.strictEqual(a.status, 'fulfilled');
    assert.strictEqual((a as PromiseFulfilledResult<any>).value?.reason, 'done');
    assert.deepStrictEqual(b, { status: 'fulfilled', value: undefined }, 'the second send neither ran nor threw');
    assert.deepStrictEqual(prefilled, ['two']);
    assert.ok(
      errors().some((m) => /input box/.test(m)),
      `notes: ${errors().join(' | ')}`,
    );
  });

  it('a task switch while the model is being resolved does not run the message in the closed task', async () => {
    const { controller, manager, release, prefilled, errors } = setup();
    const before = manager.current;
    const run = controller.startRun('send', 'for the old task');
    manager.newTask();
    release();
    assert.strictEqual(await run, undefined, 'nothing ran');
    assert.strictEqual(before.dump().history.length, 0, 'the closed task did not run');
    assert.strictEqual(manager.current.dump().history.length, 0, 'nor did the new one');
    assert.deepStrictEqual(prefilled, ['for the old task']);
    assert.ok(
      errors().some((m) => /input box/.test(m)),
      `notes: ${errors().join(' | ')}`,
    );
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

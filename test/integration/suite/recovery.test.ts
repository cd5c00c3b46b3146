// Recover and review in a real VS Code: checkpoints (restore from the transcript's card, per-file conflicts,
// rewind), a command's changed files on its card, the live plan (model updates, user edits back to the model),
// the audit log and the run report.
import * as assert from 'node:assert';
import * as fs from 'node:fs';
import * as vscode from 'vscode';
import { closeAllEditors, llm, readText, waitFor, wsPath } from '../helpers';
import { forge, freshTask, setSetting, type ForgeApi } from './forge-api';

const plan = {
  goal: 'Write the notes files',
  steps: [
    { text: 'Write a first version of a.txt', status: 'in_progress' },
    { text: 'Refine a.txt and add b.txt', status: 'pending' },
    { text: 'Generate the command output', status: 'pending' },
  ],
  currentStep: 1,
};

describe('Forge recovery: checkpoints, live plan, audit trail', function () {
  this.timeout(90_000);
  let api: ForgeApi;
  const a = wsPath('recovery-a.txt');
  const b = wsPath('recovery-b.txt');
  const out = wsPath('recovery-cmd-out.txt');

  before(async () => {
    api = await forge();
    for (const f of [a, b, out]) fs.rmSync(f, { force: true });
    await setSetting('autoApprove', { read: true, write: true, execute: true, network: false }, 'user');
  });
  after(async () => {
    await setSetting('autoApprove', undefined, 'user');
    for (const f of [a, b, out]) fs.rmSync(f, { force: true });
    await closeAllEditors();
  });

  it('restores the files to a checkpoint from the card, keeps a file the user changed, rewinds, and leaves marks', async () => {
    await freshTask(api, [
      { text: 'Planning first.', toolCalls: [{ id: 'r-plan', name: 'update_plan', args: plan }] },
      { toolCalls: [{ id: 'r-w1', name: 'write_file', args: { path: 'recovery-a.txt', content: 'one\n' } }] },
      {
        toolCalls: [
          { id: 'r-w2', name: 'write_file', args: { path: 'recovery-a.txt', content: 'two\n' } },
          { id: 'r-w3', name: 'write_file', args: { path: 'recovery-b.txt', content: 'bee\n' } },
        ],
      },
      {
        toolCalls: [
          {
            id: 'r-cmd',
            name: 'execute_command',
            args: { command: `node -e "require('fs').writeFileSync('recovery-cmd-out.txt', 'x')"` },
          },
        ],
      },
      { toolCalls: [{ id: 'r-done', name: 'task_completion', args: { result: 'Wrote the files.' } }] },
    ]);
    const report = await api.testApi.controller.startRun('send', 'Write the notes files.');
    assert.strictEqual(report.reason, 'done', report.detail);
    assert.strictEqual(await readText(a), 'two\n');
    const session = api.testApi.manager.current;
    const items = () => session.transcript.snapshot().items as any[];
    const card = (id: string) => items().find((i) => i.kind === 'tool' && i.toolCallId === id);
    assert.deepStrictEqual(
      ['r-w1', 'r-w2', 'r-w3'].map((id) => card(id)?.checkpoint),
      [true, true, true],
      'edits make their cards checkpoints',
    );
    assert.strictEqual(card('r-plan')?.checkpoint, undefined);
    await waitFor(() => card('r-cmd')?.changedFiles?.length, 'the command card to list the files it changed');
    assert.deepStrictEqual(card('r-cmd').changedFiles, [out]);
    // The plan is in the panel's state.
    const snap = api.testApi.panel.bridge.snapshot();
    assert.strictEqual(snap.plan?.goal, plan.goal);
    assert.strictEqual(snap.plan?.currentStep, 1);

    const checkpoints = await (api.testApi as any).recovery.checkpoints(session.id);
    // A contained command's changes are in the checkpoints too (its write layer says exactly what it changed).
    assert.deepStrictEqual(
      checkpoints.map((c: any) => c.toolCallIds),
      [['r-w1'], ['r-w2', 'r-w3'], ['r-cmd']],
    );

    // The newest checkpoint (the command's): nothing changed after it, so nothing is restored and no mark says
    // "Restored 0 files" (issue 26, item 10).
    const markCount = () => items().filter((i) => i.kind === 'checkpoint').length;
    const before = markCount();
    const none = await vscode.commands.executeCommand<any>('forge.restoreCheckpoint', {
      taskId: session.id,
      toolCallId: 'r-cmd',
      rewind: false,
      confirm: false,
    });
    assert.strictEqual(none, undefined, 'restoring to the newest checkpoint does nothing');
    assert.strictEqual(markCount(), before, 'and leaves no mark');
    assert.strictEqual(await readText(a), 'two\n');

    // The user changes b.txt; then restores to the first checkpoint (the card's action), keeping b.txt, rewinding.
    fs.writeFileSync(b, 'mine\n');
    const restored = await vscode.commands.executeCommand<any>('forge.restoreCheckpoint', {
      taskId: session.id,
      toolCallId: 'r-w1',
      rewind: true,
      confirm: false,
      conflicts: 'skip',
    });
    assert.ok(restored, 'the restore ran');
    assert.strictEqual(await readText(a), 'one\n', 'a.txt is back at checkpoint 1');
    assert.strictEqual(await readText(b), 'mine\n', "the user's change is never overwritten silently");
    assert.deepStrictEqual(restored.skipped, [b]);
    assert.ok(!fs.existsSync(out), 'the file the command created after checkpoint 1 is gone too');
    const last = items()
      .filter((i) => i.kind === 'checkpoint')
      .at(-1); // the changes block may follow it
    assert.strictEqual(last.kind, 'checkpoint');
    assert.strictEqual(last.step, 1);
    assert.deepStrictEqual(last.skipped, [b]);
    assert.ok(last.rewoundMessages > 0);
    assert.ok(
      !items().some((i) => i.kind === 'tool' && i.toolCallId === 'r-cmd'),
      'the transcript was rewound past the command',
    );
    const history = session.dump().history;
    assert.ok(
      !history.some((m: any) => m.role === 'tool' && m.toolCallId === 'r-w2'),
      "the model's history was rewound too",
    );

    // The audit log (extension storage) has the tool calls, decisions, file writes, the command and the restore.
    await (api.testApi as any).audit.flush();
    const files: string[] = await (api.testApi as any).auditSink.files();
    assert.ok(!files[0].startsWith(wsPath()), 'the audit log is not in the workspace');
    const lines = fs
      .readFileSync(files[0], 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const mine = lines.filter((l) => l.taskId === session.id);
    const kinds = new Set(mine.map((l) => l.kind));
    for (const k of [
      'run_start',
      'tool_call',
      'decision',
      'tool_result',
      'model_call',
      'file_write',
      'command',
      'plan',
      'run_end',
      'restore',
    ])
      assert.ok(kinds.has(k), `audit has ${k}: ${[...kinds]}`);
    const cmd = mine.find((l) => l.kind === 'command');
    assert.strictEqual(cmd.exitCode, 0);
    assert.strictEqual(typeof cmd.contained, 'boolean');
    assert.ok(
      mine
        .filter((l) => l.kind === 'decision')
        .some((l) => l.by === 'setting' && l.reason === 'forge.autoApprove.write' && l.tool === 'write_file'),
      'auto-approval is recorded as such, with the setting',
    );
    const write = mine.find((l) => l.kind === 'file_write' && l.toolCallId === 'r-w2');
    assert.match(write.beforeSha256, /^[0-9a-f]{64}$/);
    assert.ok(!JSON.stringify(mine).includes('bee'), 'no file content in the audit log');

    const doc = await vscode.commands
      .executeCommand('forge.showAuditLog')
      .then(() => vscode.window.activeTextEditor?.document);
    assert.strictEqual(doc?.uri.scheme, 'forge-view', 'the audit log opens read-only');
    assert.match(doc!.getText(), /"kind":"restore"/);
    const md = await vscode.commands.executeCommand<string>('forge.showRunReport');
    assert.match(md, /# Run report: Write the notes files/);
    assert.match(md, /model time .* tool time/);
    assert.match(md, /write_file [\d.]+ m?s, \d+ chars/);

    // Redo (the mark's button) takes the restore back: the task's edits are in the files again; the user's b.txt,
    // which the restore kept, stays; the rewound conversation stays rewound.
    await api.testApi.controller.webview.redo_checkpoint({ type: 'redo_checkpoint', taskId: session.id });
    assert.strictEqual(await readText(a), 'two\n');
    assert.strictEqual(await readText(b), 'mine\n');
    const marks = items().filter((i) => i.kind === 'checkpoint');
    assert.deepStrictEqual(
      marks.map((m) => [m.action, !!m.redone]),
      [
        ['restore', true],
        ['redo', false],
      ],
    );
    assert.deepStrictEqual(marks[1].restored, [a, out], "the command's file is redone too");
    await (api.testApi as any).audit.flush();
    assert.match(fs.readFileSync(files[0], 'utf8'), /"kind":"redo"/);
  });

  it('a plan the user edits in the panel reaches the model in its next step, and survives a reload', async () => {
    const session = api.testApi.manager.current;
    const edited = {
      goal: plan.goal,
      steps: [...plan.steps.slice(0, 2), { text: 'Also write c.txt', status: 'in_progress' as const }],
      currentStep: 3,
    };
    api.testApi.controller.webview.edit_plan({ type: 'edit_plan', taskId: session.id, plan: edited });
    await waitFor(() => api.testApi.panel.bridge.snapshot().plan?.updatedBy === 'user', 'the edited plan in the panel');
    await llm.reset();
    await llm.script([{ toolCalls: [{ id: 'p-done', name: 'task_completion', args: { result: 'ok' } }] }]);
    const report = await api.testApi.controller.startRun('send', 'Carry on.');
    assert.strictEqual(report.reason, 'done', report.detail);
    const sent = JSON.stringify((await llm.requests())[0].body.messages);
    assert.match(sent, /the USER edited it/);
    assert.match(sent, /Also write c\.txt/);
    await session.save();
    const { restored } = await api.testApi.simulateReload();
    assert.strictEqual(restored.dump().plan?.steps[2].text, 'Also write c.txt');
    assert.strictEqual(
      api.testApi.panel.bridge.snapshot().plan?.steps[2].text,
      'Also write c.txt',
      'the panel shows the plan after a reload',
    );
  });

  it('Undo Task Changes leaves the same mark (and reports the file the user changed)', async () => {
    const session = api.testApi.manager.current;
    const result = await api.testApi.controller.undoTaskChanges(session.id, false);
    // a.txt was created by the task, and recovery-cmd-out.txt by its command (a contained command is undone too).
    assert.deepStrictEqual([...result.deleted].sort(), [a, out].sort(), 'what the task and its command created');
    assert.ok(!fs.existsSync(out));
    assert.deepStrictEqual(
      result.conflicts.map((c: any) => c.path),
      [b],
      'b.txt, changed by the user, is left alone',
    );
    assert.ok(!fs.existsSync(a));
    assert.strictEqual(await readText(b), 'mine\n');
    const last = (session.transcript.snapshot().items as any[]).filter((i) => i.kind === 'checkpoint').at(-1);
    assert.strictEqual(last.kind, 'checkpoint');
    assert.strictEqual(last.action, 'undo');
    assert.deepStrictEqual([...last.deleted].sort(), [a, out].sort());
    // The task's changes block is computed again: a.txt, undone, is no longer listed as changed.
    const changes = () =>
      session.transcript
        .snapshot()
        .items.filter((i: any) => i.kind === 'changes')
        .at(-1) as any;
    await waitFor(
      () => changes() && !changes().files.some((f: any) => f.path === a && f.state === 'changed'),
      'the changes block to drop a.txt',
    );
    await (api.testApi as any).audit.flush();
    const files: string[] = await (api.testApi as any).auditSink.files();
    const lines = fs
      .readFileSync(files[0], 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    assert.ok(
      lines.some((l) => l.kind === 'undo' && l.taskId === session.id && l.deleted.includes(a)),
      'the undo is in the audit log',
    );
  });
});

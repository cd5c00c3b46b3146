// Fault tests in the real VS Code (docs/DESIGN-durability.md): the stored state is damaged the way a crash or a
// bad disk leaves it, the window is reloaded (simulateReload: a fresh TaskStore and session manager), and the
// panel, History, the files on disk, the journal and what the model is told next are checked.
import * as assert from 'node:assert';
import { promises as fsp } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { llm, readText, waitFor, wsPath } from '../helpers';
import {
  forge,
  freshTask,
  historyIsConsistent,
  pendingApproval,
  toolResultSeenByModel,
  type ForgeApi,
} from './forge-api';

describe('durability faults', function () {
  this.timeout(90_000);
  let api: ForgeApi;
  let storageDir: string;
  before(async () => {
    api = await forge();
    storageDir = (api.testApi as any).storageDir;
  });

  const taskFile = (id: string) => path.join(storageDir, 'history', 'tasks', `${id}.json`);
  const errors = (session: any) =>
    session.transcript
      .snapshot()
      .items.filter((i: any) => i.kind === 'error')
      .map((i: any) => i.message as string);

  async function finishedTask(id: string, prompt: string) {
    await freshTask(api, [
      { toolCalls: [{ id: `${id}-read`, name: 'read_file', args: { path: 'src/greet.js' } }] },
      { toolCalls: [{ id: `${id}-done`, name: 'task_completion', args: { result: 'greet.js greets.' } }] },
    ]);
    const report = await api.testApi.controller.startRun('send', prompt);
    assert.strictEqual(report.reason, 'done', report.detail);
    return api.testApi.manager.current;
  }

  it('a truncated task file: kept aside, the intact part restored, the panel says what happened, History lists only what opens', async () => {
    const session = await finishedTask('dt', 'Summarise greet.js (durability)');
    const id = session.id as string;
    const history = session.dump().history;
    let damaged = '';
    const { restored } = await api.testApi.simulateReload(undefined, {
      beforeReopen: async () => {
        const text = await fsp.readFile(taskFile(id), 'utf8');
        // Cut inside the last message of the conversation, as a torn write would.
        damaged = text.slice(0, text.lastIndexOf('{"role":"tool"') + 20);
        await fsp.writeFile(taskFile(id), damaged);
      },
    });
    assert.ok(restored, 'the damaged task still opens');
    assert.strictEqual(restored.id, id);
    // Every message before the damage is back; the cut-off last one is gone (its call is closed as interrupted).
    assert.deepStrictEqual(restored.dump().history.slice(0, history.length - 1), history.slice(0, history.length - 1));
    assert.ok(
      !restored.dump().history.some((m: any) => m.role === 'tool' && m.content === history[history.length - 1].content),
    );
    assert.ok(historyIsConsistent(restored.dump().history));
    const message = errors(restored).find((m: string) => /is damaged/.test(m));
    assert.ok(message, `the panel explains: ${JSON.stringify(errors(restored))}`);
    assert.match(message, /recovered everything up to the damage: \d+ message/);
    const kept = (await fsp.readdir(path.dirname(taskFile(id)))).filter((n) => n.startsWith(`${id}.json.corrupt-`));
    assert.strictEqual(kept.length, 1, 'the damaged file is kept for the user');
    assert.ok(message.includes(kept[0]), 'and named in the message');
    assert.strictEqual(await fsp.readFile(path.join(path.dirname(taskFile(id)), kept[0]), 'utf8'), damaged);
    const listed = await api.testApi.manager.history();
    assert.ok(
      listed.some((t: any) => t.id === id),
      'the recovered task is in History',
    );
    const panelHistory = await waitFor(() => api.testApi.panel.bridge.snapshot().history, 'the panel history');
    assert.ok(panelHistory.some((t: any) => t.id === id));
  });

  it('an unrecoverable task file leaves History (kept aside, explained) and the previous task is restored instead', async () => {
    const older = await finishedTask('du1', 'First task (durability)');
    const newer = await finishedTask('du2', 'Second task (durability)');
    const { restored } = await api.testApi.simulateReload(undefined, {
      beforeReopen: async () => fsp.writeFile(taskFile(newer.id), 'garbage from a bad disk'),
    });
    assert.strictEqual(restored?.id, older.id, 'the newest task that opens is restored');
    const listed = await api.testApi.manager.history();
    assert.ok(!listed.some((t: any) => t.id === newer.id), 'History never lists a task it cannot open');
    assert.ok(
      errors(restored).some((m: string) =>
        /Second task \(durability\)".*damaged.*Nothing of it could be recovered/s.test(m),
      ),
      JSON.stringify(errors(restored)),
    );
    assert.ok(
      (await fsp.readdir(path.dirname(taskFile(newer.id)))).some((n) => n.startsWith(`${newer.id}.json.corrupt-`)),
    );
  });

  it('killed after Approve with the edit written: the restored task does not ask again, Undo sees the edit, the model is told it was applied', async () => {
    const rel = 'src/durable-note.txt';
    const file = wsPath(rel);
    await fsp.rm(file, { force: true });
    await freshTask(api, [
      {
        toolCalls: [{ id: 'dk-write', name: 'write_file', args: { path: rel, content: 'written before the crash\n' } }],
      },
    ]);
    const run = api.testApi.controller.startRun('send', 'Write the durable note.');
    await pendingApproval(api, 'write_file');
    const session = api.testApi.manager.current;
    const crashed = session.record(); // saved while the approval waited
    assert.ok(crashed.snapshot.pending);
    // The crash moment: the user approved, the journal's intent is durable, the file is written, then the host died.
    await api.testApi.journal.beginEdit({
      taskId: session.id,
      path: file,
      before: null,
      after: 'written before the crash\n',
      toolCallId: 'dk-write',
    });
    await fsp.mkdir(path.dirname(file), { recursive: true });
    await fsp.writeFile(file, 'written before the crash\n');
    await llm.script([{ toolCalls: [{ id: 'dk-done', name: 'task_completion', args: { result: 'Note written.' } }] }]);

    const { restored, resumed } = await api.testApi.simulateReload(crashed);
    await run;
    assert.strictEqual(restored.id, session.id);
    assert.strictEqual(resumed, undefined, 'no stale approval is asked again');
    assert.strictEqual(restored.hasPendingApproval, false);
    assert.ok(!api.approvals.pending().some((r) => r.toolCallId === 'dk-write'));
    assert.ok(
      errors(restored).some((m: string) => /durable-note\.txt was written before the reload: marked applied/.test(m)),
      JSON.stringify(errors(restored)),
    );
    const entries = await api.testApi.journal.entries(session.id);
    assert.ok(
      entries.some((e: any) => e.path === file && e.after === 'written before the crash\n' && !e.undone),
      'the journal has the edit',
    );

    const report = await api.testApi.controller.continueTask();
    assert.strictEqual(report?.reason, 'done', report?.detail);
    assert.match(
      (await toolResultSeenByModel('dk-write')) ?? '',
      /^Applied: this edit of .*durable-note\.txt was written before Forge was reloaded/,
    );

    const undo = await api.testApi.controller.undoTaskChanges(session.id, false);
    assert.deepStrictEqual(undo.conflicts, []);
    await assert.rejects(readText(file), 'Undo deleted the file the task created');
  });

  it('killed with the edit in the editor but unsaved: the restore saves it, the journal knows, the model is told', async () => {
    const rel = 'src/unsaved-note.txt';
    const file = wsPath(rel);
    await fsp.writeFile(file, 'before\n');
    await freshTask(api, [
      { toolCalls: [{ id: 'du-write', name: 'write_file', args: { path: rel, content: 'after\n' } }] },
    ]);
    const run = api.testApi.controller.startRun('send', 'Change the unsaved note.');
    await pendingApproval(api, 'write_file');
    const session = api.testApi.manager.current;
    const crashed = session.record();
    // The crash moment: intent durable, the WorkspaceEdit reached the buffer, the save did not happen.
    await api.testApi.journal.beginEdit({
      taskId: session.id,
      path: file,
      before: 'before\n',
      after: 'after\n',
      toolCallId: 'du-write',
    });
    const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(file));
    const we = new vscode.WorkspaceEdit();
    we.replace(doc.uri, new vscode.Range(doc.positionAt(0), doc.positionAt(doc.getText().length)), 'after\n');
    assert.ok(await vscode.workspace.applyEdit(we));
    assert.ok(doc.isDirty);

    const { restored } = await api.testApi.simulateReload(crashed);
    await run;
    assert.strictEqual(restored.hasPendingApproval, false);
    assert.strictEqual(await fsp.readFile(file, 'utf8'), 'after\n', 'the approved edit was saved');
    assert.ok(!doc.isDirty);
    assert.ok(
      (await api.testApi.journal.entries(session.id)).some((e: any) => e.path === file && e.after === 'after\n'),
    );
    const result = restored.dump().history.find((m: any) => m.role === 'tool' && m.toolCallId === 'du-write');
    assert.match(result?.content ?? '', /Forge saved it after the reload/);
  });

  it('a task open in another window: opening it here is refused with a clear message; at startup this window starts a new task', async () => {
    const session = await finishedTask('dw', 'A task the other window has (durability)');
    const id = session.id as string;
    await api.testApi.manager.flush(); // saved (and its lease taken) before this window lets it go
    assert.ok(
      await fsp.stat(path.join(storageDir, 'leases', `${id}.json`)),
      'this window holds the task while it is open',
    );
    api.testApi.controller.newTask();
    await api.testApi.manager.flush();
    // Let the lease go as switching away does, then the other window (alive: same machine, live pid) takes it.
    await waitFor(
      async () => !(await fsp.stat(path.join(storageDir, 'leases', `${id}.json`)).catch(() => undefined)),
      'the lease to be released',
    );
    await fsp.writeFile(
      path.join(storageDir, 'leases', `${id}.json`),
      JSON.stringify({ owner: 'other-window', pid: process.pid, host: os.hostname(), at: Date.now() }),
    );
    await assert.rejects(api.testApi.manager.load(id), /open in another VS Code window/);
    const { restored, manager } = await api.testApi.simulateReload();
    const listed = (await manager.history()).slice(0, 3).map((t: any) => `${t.id}@${t.updatedAt}`);
    assert.notStrictEqual(restored?.id, id);
    assert.strictEqual(
      restored,
      undefined,
      `the newest task is the other window's: nothing restored (${id}; ${listed.join(', ')})`,
    );
    assert.ok(
      errors(manager.current).some((m: string) =>
        /open in another VS Code window, so this window starts a new task/.test(m),
      ),
      JSON.stringify(errors(manager.current)),
    );
    await fsp.rm(path.join(storageDir, 'leases', `${id}.json`), { force: true });
  });

  it('storage that cannot be written: the panel warns once, the edit is not applied (the model is told why), the next save catches up', async function () {
    this.timeout(60_000);
    const rel = 'src/storage-fault.txt';
    const file = wsPath(rel);
    await fsp.rm(file, { force: true });
    await freshTask(api, [
      { toolCalls: [{ id: 'ds-write', name: 'write_file', args: { path: rel, content: 'should not land\n' } }] },
      { toolCalls: [{ id: 'ds-done', name: 'task_completion', args: { result: 'Could not write.' } }] },
    ]);
    // Break the storage the way a full or read-only disk does: every write under these folders fails.
    const broken = [path.join(storageDir, 'journal', 'logs'), path.join(storageDir, 'history', 'tasks')];
    for (const dir of broken) {
      await fsp.mkdir(dir, { recursive: true });
      await fsp.rename(dir, `${dir}.aside`);
      await fsp.writeFile(dir, 'not a folder');
    }
    try {
      const session = api.testApi.manager.current;
      const run = api.testApi.controller.startRun('send', 'Write the storage note.');
      const approval = await pendingApproval(api, 'write_file');
      assert.ok(await api.approvals.resolve(approval.id, { kind: 'approve', scope: 'once' }));
      const report = await run;
      assert.strictEqual(report?.reason, 'done', report?.detail);
      await assert.rejects(fsp.stat(file), 'the edit was not applied: it could not be journaled');
      assert.match((await toolResultSeenByModel('ds-write')) ?? '', /Not applied: Forge could not record this edit/);
      await waitFor(
        () => errors(session).some((m: string) => /cannot write the task history/.test(m)),
        'the save warning in the panel',
      );
      const shown = errors(session);
      assert.strictEqual(
        shown.filter((m: string) => /cannot write the edit journal/.test(m)).length,
        1,
        JSON.stringify(shown),
      );
      assert.strictEqual(
        shown.filter((m: string) => /cannot write the task history/.test(m)).length,
        1,
        'shown once, not per attempt',
      );
    } finally {
      for (const dir of broken) {
        await fsp.rm(dir, { force: true });
        await fsp.rename(`${dir}.aside`, dir);
      }
    }
    const session = api.testApi.manager.current;
    await waitFor(
      () => errors(session).some((m: string) => /can write the task history again/.test(m)),
      'the retried save',
      30_000,
    );
    const saved = JSON.parse(await fsp.readFile(taskFile(session.id), 'utf8'));
    assert.ok(
      saved.task.snapshot.history.some((m: any) => m.role === 'tool' && m.toolCallId === 'ds-done'),
      'the whole conversation reached the disk',
    );
  });
});

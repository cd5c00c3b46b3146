// The panel restores from the host after hide/show, and tasks survive a reload (including one cut mid-run).
import * as assert from 'node:assert';
import * as vscode from 'vscode';
import { llm, readText, waitFor, wsPath } from '../helpers';
import { forge, freshTask, historyIsConsistent, pendingApproval, type ForgeApi } from './forge-api';

describe('panel restore and task persistence', function () {
  this.timeout(60_000);
  let api: ForgeApi;
  before(async () => {
    api = await forge();
  });

  it('hide/show: the side view is kept alive (no reload, no new ready) and gets the updates posted while hidden', async () => {
    await freshTask(api, [
      { text: 'Looking.', toolCalls: [{ id: 'f-read', name: 'read_file', args: { path: 'src/math.js' } }] },
      { toolCalls: [{ id: 'f-bye', name: 'converse', args: { reply: 'math.js has add and divide.' } }] },
    ]);
    const seen: { dir: string; msg: any; webview: vscode.Webview }[] = [];
    const sub = api.testApi.panel.observe((dir: string, msg: any, webview: vscode.Webview) =>
      seen.push({ dir, msg, webview }),
    );
    try {
      await vscode.commands.executeCommand('forge.chatView.focus');
      const view = await waitFor(() => api.testApi.panel.view as vscode.WebviewView | undefined, 'the side view');
      await waitFor(() => api.testApi.panel.readyWebviews.has(view.webview), 'the side view to be ready', 20_000);
      // Hide the Forge view (another view container takes the side bar); a run updates the transcript meanwhile.
      await vscode.commands.executeCommand('workbench.view.explorer');
      await waitFor(() => !view.visible, 'the side view to be hidden');
      const mark = seen.length;
      const report = await api.testApi.controller.startRun('send', 'What is in math.js?');
      assert.strictEqual(report.reason, 'converse', report.detail);
      // Patches are coalesced: the last one may follow the run's end by a moment.
      await waitFor(
        () =>
          seen
            .slice(mark)
            .some(
              (s) =>
                s.webview === view.webview &&
                s.dir === 'out' &&
                JSON.stringify(s.msg).includes('math.js has add and divide.'),
            ),
        'the hidden view to receive the run reply',
      );
      assert.ok(api.testApi.panel.readyWebviews.has(view.webview), 'still loaded while hidden');
      const shown = seen.length;
      await vscode.commands.executeCommand('forge.chatView.focus');
      await waitFor(() => view.visible, 'the side view to be shown again');
      await new Promise((r) => setTimeout(r, 1000));
      assert.ok(
        !seen.slice(shown).some((s) => s.dir === 'in' && s.msg?.type === 'ready'),
        'no reload: the webview did not start over',
      );
      assert.strictEqual(api.testApi.panel.view, view, 'the same view');
    } finally {
      sub.dispose();
    }
  });

  it('a finished task survives a reload: conversation and transcript come back from the TaskStore', async () => {
    await freshTask(api, [
      { toolCalls: [{ id: 'h-read', name: 'read_file', args: { path: 'src/greet.js' } }] },
      { toolCalls: [{ id: 'h-done', name: 'task_completion', args: { result: 'greet.js greets.' } }] },
    ]);
    const report = await api.testApi.controller.startRun('send', 'Summarise greet.js');
    assert.strictEqual(report.reason, 'done', report.detail);
    const before = api.testApi.manager.current;
    const history = before.dump().history;
    const items = before.transcript.snapshot().items;

    const { restored } = await api.testApi.simulateReload();
    assert.ok(restored, 'a task was restored');
    assert.strictEqual(restored.id, before.id);
    assert.deepStrictEqual(restored.dump().history, history);
    assert.deepStrictEqual(
      restored.transcript.snapshot().items.map((i: any) => i.id),
      items.map((i: any) => i.id),
    );
    assert.strictEqual(api.testApi.panel.bridge.snapshot().taskId, before.id, 'the panel shows the restored task');
  });

  it('a task cut mid-run comes back stopped with a consistent history and can be continued', async () => {
    await freshTask(api, [
      { toolCalls: [{ id: 'x-read', name: 'read_file', args: { path: 'src/math.js' } }] },
      { fault: 'hang', text: 'Working on it' },
    ]);
    const session = api.testApi.manager.current;
    const run = api.testApi.controller.startRun('send', 'Explain math.js in detail.');
    await waitFor(async () => (await llm.requests()).length >= 2, 'the hanging model call');
    const crashed = session.record(); // what the debounced save writes while the run is in flight
    assert.strictEqual(crashed.status, 'running');

    const { restored } = await api.testApi.simulateReload(crashed);
    await run;
    assert.strictEqual(restored.id, crashed.id);
    assert.strictEqual(restored.record().status, 'stopped');
    assert.ok(historyIsConsistent(restored.dump().history), 'no dangling tool call after restore');
    const items = restored.transcript.snapshot().items;
    assert.ok(
      items.some((i: any) => i.kind === 'user' && /math\.js/.test(i.text)),
      'the user message is there',
    );
    assert.ok(
      items.some((i: any) => i.kind === 'error' && /reloaded/.test(i.message)),
      'the panel says what happened',
    );
    assert.ok(
      !items.some((i: any) => i.kind === 'tool' && (i.status === 'running' || i.status === 'pending')),
      'nothing spins',
    );

    await llm.script([{ toolCalls: [{ id: 'x-done', name: 'task_completion', args: { result: 'Explained.' } }] }]);
    const again = await api.testApi.controller.continueTask();
    assert.strictEqual(again?.reason, 'done', again?.detail);
    const last = (await llm.requests()).at(-1)!;
    assert.ok(
      last.body.messages.some((m: any) => m.role === 'tool' && m.tool_call_id === 'x-read'),
      'the continued run kept the conversation',
    );
  });

  it('a task saved while waiting for an approval asks it again after a reload', async () => {
    const file = wsPath('src', 'greet.js');
    const original = await readText(file);
    await freshTask(api, [
      {
        toolCalls: [
          {
            id: 'p-edit',
            name: 'apply_diff',
            args: { path: 'src/greet.js', blocks: [{ search: 'Hello, ', replace: 'Hey, ' }] },
          },
        ],
      },
      { toolCalls: [{ id: 'p-done', name: 'task_completion', args: { result: 'Says hey now.' } }] },
    ]);
    const run = api.testApi.controller.startRun('send', 'Say hey.');
    const first = await pendingApproval(api, 'apply_diff');
    const saved = api.testApi.manager.current.record();
    assert.ok(saved.snapshot.pending, 'the snapshot holds the pending approval');

    const { restored, resumed } = (await api.testApi.simulateReload(saved)) as any;
    await run; // the pre-reload run was stopped
    assert.ok(resumed, 'the restored task resumed its pending approval');
    const again = await pendingApproval(api, 'apply_diff');
    assert.strictEqual(again.id, first.id, 'the same approval is asked again');
    assert.strictEqual(await readText(file), original, 'still nothing written');
    assert.ok(await api.approvals.resolve(again.id, { kind: 'approve', scope: 'once' }));
    const report = await resumed;
    assert.strictEqual(report?.reason, 'done', report?.detail);
    assert.match(await readText(file), /Hey, /);

    const undo = await api.testApi.controller.undoTaskChanges(restored.id, false);
    assert.deepStrictEqual(undo.conflicts, []);
    assert.strictEqual(await readText(file), original);
  });
});

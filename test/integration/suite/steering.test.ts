// Steering and knowing when Forge needs you, in a real VS Code: a message steers a running task at its next step,
// a queued one goes when the run ends, an approval while another editor has the focus raises a notification,
// the view's badge and the status bar (in words), and edit-and-resend takes the conversation and the files back.
import * as assert from 'node:assert';
import * as fs from 'node:fs';
import * as vscode from 'vscode';
import { llm, readText, waitFor, wsPath } from '../helpers';
import { done, endLeftoverRun, forge, freshTask, pendingApproval, setSetting, type ForgeApi } from './forge-api';

// The user's words in a request (the per-step context Forge appends to the last one is cut off).
const userTexts = (body: any): string[] =>
  (body?.messages ?? [])
    .filter((m: any) => m.role === 'user')
    .map((m: any) => String(m.content).split('\n\n[Forge step context')[0]);

describe('Forge steering, queue, notifications, edit and resend', function () {
  this.timeout(90_000);
  let api: ForgeApi;
  const noted = wsPath('steer-notes.txt');
  const greet = wsPath('steer-greet.txt');

  before(async () => {
    api = await forge();
    for (const f of [noted, greet]) fs.rmSync(f, { force: true });
  });
  afterEach(async () => {
    await endLeftoverRun(api);
    await setSetting('notifications.enabled', undefined);
  });
  after(async () => {
    for (const f of [noted, greet]) fs.rmSync(f, { force: true });
  });

  it('a steer typed while the task waits reaches the model at its next step; a queued message runs after', async () => {
    await freshTask(api, [
      { toolCalls: [{ id: 'st-w', name: 'write_file', args: { path: 'steer-notes.txt', content: 'one\n' } }] },
      done('Wrote the notes, in French as asked.'),
      done('Listed the files.'),
    ]);
    const run = api.testApi.controller.startRun('send', 'Write the notes file.');
    const approval = await pendingApproval(api, 'write_file');
    const handlers = api.testApi.controller.webview;
    // Typed in the panel while the run waits: one steer, one queued message.
    handlers.steer_message({ type: 'steer_message', text: 'Write it in French, please.' });
    handlers.queue_add({ type: 'queue_add', text: 'Then list the files.' });
    const session = api.testApi.manager.current;
    assert.deepStrictEqual(
      session.transcript.queued.map((q: any) => [q.text, !!q.steer]),
      [
        ['Write it in French, please.', true],
        ['Then list the files.', false],
      ],
    );
    assert.strictEqual(api.testApi.panel.bridge.snapshot().queue?.length, 2, 'the panel shows both');
    await api.approvals.resolve(approval.id, { kind: 'approve', scope: 'once' });
    const report = await run;
    assert.strictEqual(report.reason, 'done', report.detail);
    // One run took the steer: step 2's request ends with the user's words after the tool result.
    const requests = await llm.requests();
    const second = requests[1].body;
    assert.strictEqual(second.messages.at(-1).role, 'user');
    assert.deepStrictEqual(userTexts(second), ['Write the notes file.', 'Write it in French, please.']);
    assert.strictEqual(second.messages.at(-2).role, 'tool');
    // The queued message went as the next turn once the run finished.
    await waitFor(async () => (await llm.requests()).length >= 3, 'the queued message to be sent');
    await waitFor(() => !session.running, 'the queued run to end');
    const third = (await llm.requests())[2].body;
    assert.deepStrictEqual(userTexts(third).slice(-1), ['Then list the files.']);
    assert.deepStrictEqual(session.transcript.queued, []);
    const users = session.transcript.getItems().filter((i: any) => i.kind === 'user');
    assert.deepStrictEqual(
      users.map((u: any) => [u.text, !!u.steered]),
      [
        ['Write the notes file.', false],
        ['Write it in French, please.', true],
        ['Then list the files.', false],
      ],
    );
  });

  it('an approval while another editor has the focus: notification, badge and status bar, in words', async () => {
    const attention = (api as any).attention;
    await setSetting('notifications.enabled', true);
    await freshTask(api, [
      { toolCalls: [{ id: 'nt-w', name: 'write_file', args: { path: 'steer-greet.txt', content: 'hi\n' } }] },
      done('Wrote it.'),
    ]);
    // The user works in an editor, the Forge view out of sight.
    await vscode.commands.executeCommand('workbench.view.explorer');
    const doc = await vscode.workspace.openTextDocument({ content: 'elsewhere', language: 'plaintext' });
    await vscode.window.showTextDocument(doc, { preserveFocus: false });
    await waitFor(() => !api.testApi.panel.visible, 'the Forge view to be out of sight');
    const shownBefore = attention.shown.length;
    const run = api.testApi.controller.startRun('send', 'Write a greeting.');
    const approval = await pendingApproval(api, 'write_file');
    await waitFor(() => attention.shown.length > shownBefore, 'a notification');
    assert.strictEqual(attention.shown.at(-1).message, 'Forge wants to create steer-greet.txt.');
    assert.strictEqual(attention.shown.at(-1).diffRequestId, approval.id, 'its button can open the diff');
    assert.strictEqual(attention.badge, 1);
    assert.strictEqual(api.testApi.panel.view?.badge?.value, 1, "the badge on Forge's view");
    assert.match(api.statusBar.text, /bell/);
    assert.doesNotMatch(attention.shown.at(-1).message, /write_file/);
    await api.approvals.resolve(approval.id, { kind: 'approve', scope: 'once' });
    assert.strictEqual((await run).reason, 'done');
    // Answered: the badge went; the run's end, still out of sight, is news again.
    assert.strictEqual(attention.shown.at(-1).message, 'Forge finished: Wrote it.');
    assert.strictEqual(attention.badge, 1);

    // With notifications off, the badge still counts but no notification shows.
    await setSetting('notifications.enabled', false);
    await freshTask(api, [done('Nothing to do.')]);
    await vscode.commands.executeCommand('workbench.view.explorer');
    await waitFor(() => !api.testApi.panel.visible, 'the Forge view to be out of sight');
    const count = attention.shown.length;
    await api.testApi.controller.startRun('send', 'Anything?');
    assert.strictEqual(attention.shown.length, count);
    assert.ok(attention.badge >= 1);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it('edit and resend with files: the conversation and the file go back, and the edited message runs', async () => {
    await setSetting('autoApprove', { read: true, write: true, execute: false, network: false }, 'user');
    try {
      fs.writeFileSync(greet, 'original\n');
      await freshTask(api, [
        { toolCalls: [{ id: 'er-w', name: 'write_file', args: { path: 'steer-greet.txt', content: 'hello\n' } }] },
        done('Said hello.'),
        { toolCalls: [{ id: 'er-w2', name: 'write_file', args: { path: 'steer-greet.txt', content: 'bonjour\n' } }] },
        done('Said bonjour.'),
      ]);
      const first = await api.testApi.controller.startRun('send', 'Greet in English.');
      assert.strictEqual(first.reason, 'done', first.detail);
      assert.strictEqual(await readText(greet), 'hello\n');
      const session = api.testApi.manager.current;
      const item = session.transcript.getItems().find((i: any) => i.kind === 'user');
      assert.ok(item?.turnId, 'the message has a turn to go back to');
      // The webview's Resend with "Also restore files" ticked.
      const resent = api.testApi.controller.webview.edit_resend(
        { type: 'edit_resend', requestId: 'er-1', itemId: item.id, text: 'Greet in French.', restoreFiles: true },
        new AbortController().signal,
      );
      // The file is back to before the message, then the edited message's run writes again.
      await resent;
      assert.strictEqual(await readText(greet), 'bonjour\n');
      const requests = await llm.requests();
      const last = requests.at(-2)!.body;
      assert.deepStrictEqual(userTexts(last), ['Greet in French.'], 'the old message and its replies are gone');
      const toolResult = last.messages.find((m: any) => m.role === 'tool');
      assert.strictEqual(toolResult, undefined);
      const users = session.transcript.getItems().filter((i: any) => i.kind === 'user');
      assert.deepStrictEqual(
        users.map((u: any) => u.text),
        ['Greet in French.'],
      );
      const mark = session.transcript.getItems().find((i: any) => i.kind === 'checkpoint');
      assert.ok(
        mark?.restored.some((p: string) => p.endsWith('steer-greet.txt')),
        'the restore left a mark',
      );
      // Between the restore and the new write the file was the original: the journal's before-content.
      const journal = await api.testApi.journal.entries(session.id);
      const undone = journal.filter((e: any) => e.toolCallId === 'er-w');
      assert.ok(
        undone.every((e: any) => e.undone),
        'the first write was undone',
      );
    } finally {
      await setSetting('autoApprove', undefined, 'user');
    }
  });
});

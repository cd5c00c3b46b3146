// Per-hunk review, the focus rule for proposals, and a task's changes at a glance, in a real VS Code: the scripted
// model proposes an edit with three hunks, the user decides hunk by hunk through VS Code commands (context-menu
// style, on the hunk at the cursor, and by index), approves from the panel path, and reviews / undoes the task's
// changes.
import * as assert from 'node:assert';
import * as fs from 'node:fs';
import * as vscode from 'vscode';
import { allTabs, readText, waitFor, wsPath } from '../helpers';
import {
  done,
  endLeftoverRun,
  forge,
  freshTask,
  pendingApproval,
  proposalDiffTab,
  toolResultSeenByModel,
  type ForgeApi,
} from './forge-api';

const lines = (n: number) => Array.from({ length: n }, (_, i) => `const v${i + 1} = ${i + 1};`).join('\n') + '\n';

describe('per-hunk review, focus and task changes', function () {
  this.timeout(90_000);
  let api: ForgeApi;
  before(async () => {
    api = await forge();
  });
  afterEach(() => endLeftoverRun(api));

  it('accepts and rejects hunks one by one through commands; only accepted hunks are written; the model is told exactly what was rejected', async () => {
    const file = wsPath('src', 'hunks.js');
    const original = lines(30);
    fs.writeFileSync(file, original);
    const proposed = original
      .replace('const v2 = 2;', 'const v2 = 200;')
      .replace('const v15 = 15;', 'const v15 = 1500; // hunk two')
      .replace('const v28 = 28;', 'const v28 = 2800;');
    await freshTask(api, [
      { toolCalls: [{ id: 'h-write', name: 'write_file', args: { path: 'src/hunks.js', content: proposed } }] },
      done('Updated three values.'),
    ]);
    const run = api.testApi.controller.startRun('send', 'Change three values.');
    const req = await pendingApproval(api, 'write_file');
    const tab = await waitFor(proposalDiffTab, 'the diff tab');
    const proposedUri = (tab.input as vscode.TabInputTextDiff).modified;
    assert.doesNotMatch(proposedUri.path, new RegExp(req.id), 'no internal id in the diff editor path (breadcrumb)');
    assert.strictEqual(proposedUri.path, '/src/hunks.js');

    // The approval card lists the three hunks, none reviewed yet.
    const card = () =>
      api.testApi.manager.current.transcript
        .snapshot()
        .items.find((i: any) => i.kind === 'approval' && i.requestId === req.id);
    assert.deepStrictEqual(
      card().preview.hunks.map((x: any) => x.state),
      ['pending', 'pending', 'pending'],
    );

    // Context-menu style: the cursor on the second hunk of the proposed side, the command gets the editor's URI.
    const editor = await waitFor(
      () => vscode.window.visibleTextEditors.find((e) => e.document.uri.toString() === proposedUri.toString()),
      'the proposed side editor',
    );
    const line = editor.document
      .getText()
      .split('\n')
      .findIndex((l) => l.includes('hunk two'));
    editor.selection = new vscode.Selection(line, 3, line, 3);
    assert.strictEqual(
      await vscode.commands.executeCommand('forge.rejectHunk', proposedUri, undefined, 'keep v15 as it is'),
      true,
    );
    // By index (the CodeLens / panel path): accept the first, reject then clear the third.
    assert.strictEqual(await vscode.commands.executeCommand('forge.acceptHunk', req.id, 0), true);
    assert.strictEqual(await vscode.commands.executeCommand('forge.rejectHunk', req.id, 2, ''), true);
    assert.strictEqual(await vscode.commands.executeCommand('forge.resetHunk', req.id, 2), true);
    await waitFor(
      () =>
        card()
          .preview.hunks.map((x: any) => x.state)
          .join() === 'accepted,rejected,pending',
      'the card to show the decisions',
    );
    assert.strictEqual(card().preview.hunks[1].reason, 'keep v15 as it is');
    assert.strictEqual(await readText(file), original, 'nothing is written before approval');

    // The panel's Approve writes the accepted and unreviewed hunks, not the rejected one.
    api.testApi.controller.webview.approval_decision({
      type: 'approval_decision',
      requestId: req.id,
      decision: { kind: 'approve', scope: 'once' },
    });
    const report = await run;
    assert.strictEqual(report.reason, 'done', report.detail);
    const written = await readText(file);
    assert.strictEqual(
      written,
      original.replace('const v2 = 2;', 'const v2 = 200;').replace('const v28 = 28;', 'const v28 = 2800;'),
    );
    const seen = (await toolResultSeenByModel('h-write')) ?? '';
    assert.match(seen, /2 of 3 hunks were accepted/, seen);
    assert.match(seen, /Hunk #2 \(original line 15; proposed line 15\), reason: keep v15 as it is/, seen);
    assert.match(seen, /\+const v15 = 1500; \/\/ hunk two/, seen);
    await waitFor(() => !proposalDiffTab(), 'the diff tab to close');

    // The completion block lists the file the task changed, against the task's start.
    const changes = await waitFor(
      () => api.testApi.manager.current.transcript.snapshot().items.find((i: any) => i.kind === 'changes'),
      'the changes block',
    );
    assert.deepStrictEqual(
      changes.files.map((f: any) => [f.displayPath, f.added, f.removed, f.kind, f.state]),
      [['src/hunks.js', 2, 2, 'modified', 'changed']],
    );

    // Forge: Review Task Changes opens the multi-file diff editor.
    assert.strictEqual(await vscode.commands.executeCommand('forge.reviewTaskChanges'), true);
    const multi = await waitFor(
      () => allTabs().find((t) => /Forge: task changes/.test(t.label)),
      'the multi-file diff editor',
    );
    assert.ok(
      !(multi.input instanceof vscode.TabInputTextDiff),
      `a multi-diff tab, not a single diff (${multi.input?.constructor?.name})`,
    );
    const left = vscode.workspace.textDocuments.find((d) => d.uri.scheme === 'forge-task-original');
    if (left) assert.strictEqual(left.getText(), original, "the left side is the file at the task's start");
    const originalDoc = await vscode.workspace.openTextDocument(
      vscode.Uri.from({
        scheme: 'forge-task-original',
        path: vscode.Uri.file(file).path,
        query: `task=${encodeURIComponent(api.testApi.manager.current.id)}`,
      }),
    );
    assert.strictEqual(originalDoc.getText(), original);

    // Undo one file from the completion block: back to the task's start, marked undone.
    api.testApi.controller.webview.changes_action({
      type: 'changes_action',
      taskId: api.testApi.manager.current.id,
      action: 'undo',
      path: file,
    });
    await waitFor(async () => (await readText(file)) === original, 'the file to be restored');
    await waitFor(() => {
      const item = api.testApi.manager.current.transcript.snapshot().items.find((i: any) => i.kind === 'changes');
      return item?.files[0]?.state === 'undone';
    }, 'the block to show the file as undone');
  });

  it('rejecting every hunk rejects the edit with the reasons', async () => {
    const file = wsPath('src', 'hunks-all.js');
    const original = lines(12);
    fs.writeFileSync(file, original);
    const proposed = original.replace('const v1 = 1;', 'const v1 = -1;').replace('const v12 = 12;', 'const v12 = -12;');
    await freshTask(api, [
      { toolCalls: [{ id: 'h-all', name: 'write_file', args: { path: 'src/hunks-all.js', content: proposed } }] },
      done('Nothing to do.'),
    ]);
    const run = api.testApi.controller.startRun('send', 'Negate.');
    const req = await pendingApproval(api, 'write_file');
    api.testApi.controller.webview.hunk_decision({
      type: 'hunk_decision',
      requestId: req.id,
      index: 0,
      state: 'rejected',
      reason: 'positive only',
    });
    api.testApi.controller.webview.hunk_decision({
      type: 'hunk_decision',
      requestId: req.id,
      index: 1,
      state: 'rejected',
    });
    assert.strictEqual(await vscode.commands.executeCommand('forge.acceptEdit', req.id), true);
    await run;
    assert.strictEqual(await readText(file), original);
    const seen = (await toolResultSeenByModel('h-all')) ?? '';
    assert.match(seen, /User rejected: The user rejected every hunk \(2\) of your change to src\/hunks-all\.js:/, seen);
    assert.match(seen, /Nothing of this change was written\. Do not repeat this action unchanged\./, seen);
    assert.match(seen, /reason: positive only/);
  });

  it("a proposal never takes the editor the user is typing in: the diff opens beside, keystrokes stay in the user's editor", async () => {
    const mine = wsPath('src', 'typing.js');
    fs.writeFileSync(mine, '// typing here\n');
    const doc = await vscode.workspace.openTextDocument(mine);
    const userEditor = await vscode.window.showTextDocument(doc, { viewColumn: vscode.ViewColumn.One, preview: false });
    userEditor.selection = new vscode.Selection(1, 0, 1, 0);
    await vscode.commands.executeCommand('type', { text: 'a' });
    await waitFor(() => doc.getText().endsWith('a'), 'typing to reach the editor');

    const target = wsPath('src', 'greet.js');
    const originalText = await readText(target);
    const outcome = api.diffApproval.propose({
      id: 'focus-1',
      path: target,
      original: originalText,
      proposed: originalText + '// more\n',
      isNewFile: false,
    });
    // Keep typing while the proposal opens.
    for (const ch of 'bcd') await vscode.commands.executeCommand('type', { text: ch });
    const tab = await waitFor(proposalDiffTab, 'the diff tab');
    await vscode.commands.executeCommand('type', { text: 'e' });
    await waitFor(() => doc.getText().endsWith('abcde'), "every keystroke to land in the user's editor");
    assert.strictEqual(doc.getText(), '// typing here\nabcde');
    assert.notStrictEqual(
      tab.group.viewColumn,
      vscode.ViewColumn.One,
      "the diff opened beside, not in the user's group",
    );
    assert.strictEqual(
      vscode.window.activeTextEditor?.document.uri.toString(),
      doc.uri.toString(),
      "the user's editor stays active",
    );
    const groupOne = vscode.window.tabGroups.all.find((g) => g.viewColumn === vscode.ViewColumn.One)!;
    assert.ok(
      groupOne.activeTab?.input instanceof vscode.TabInputText && groupOne.activeTab.input.uri.fsPath === mine,
      "the user's editor is still shown",
    );
    const proposedDoc = vscode.workspace.textDocuments.find(
      (d) => d.uri.scheme === 'forge-proposed' && d.uri.path === '/src/greet.js' && !d.isClosed,
    );
    assert.ok(
      !proposedDoc || proposedDoc.getText() === originalText + '// more\n',
      'nothing typed went into the proposal',
    );
    assert.doesNotMatch(tab.label, /focus-1/);
    await vscode.commands.executeCommand('forge.rejectEdit', 'focus-1', 'test');
    await outcome;
    await doc.save();
  });
});

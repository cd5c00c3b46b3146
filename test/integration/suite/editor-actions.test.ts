// Editor actions: Explain / Fix This Problem attach the selection (or the lines around a diagnostic) as a chip:
// the model gets the code as a labelled context block, the panel shows a short line and the chip "math.js:5-7";
// Add Selection to Chat puts the chip in the panel's composer.
import * as assert from 'node:assert';
import * as vscode from 'vscode';
import { closeAllEditors, llm, waitFor, wsPath } from '../helpers';
import { forge, freshTask, type ForgeApi } from './forge-api';

async function userMessages(): Promise<string[]> {
  return (await llm.requests()).flatMap((r) =>
    (r.body?.messages ?? []).filter((m: any) => m.role === 'user').map((m: any) => String(m.content)),
  );
}

describe('editor actions', function () {
  this.timeout(60_000);
  let api: ForgeApi;
  before(async () => {
    api = await forge();
  });
  afterEach(closeAllEditors);

  it('Explain Selection attaches the selection as a chip; the model gets it as labelled context', async () => {
    await freshTask(api, [
      { toolCalls: [{ id: 'ex-1', name: 'converse', args: { reply: 'divide() divides a by b.' } }] },
    ]);
    const editor = await vscode.window.showTextDocument(
      await vscode.workspace.openTextDocument(wsPath('src', 'math.js')),
    );
    editor.selection = new vscode.Selection(4, 0, 6, 1);
    const report = await vscode.commands.executeCommand<any>('forge.explainSelection');
    assert.strictEqual(report?.reason, 'converse', report?.detail);
    const prompt = (await userMessages()).find((m) => m.startsWith('Explain'));
    assert.ok(prompt, 'an explain prompt reached the model');
    assert.match(
      prompt,
      /<context kind="selection" path="src\/math\.js" lines="5-7">\n[\s\S]*return a \/ b;[\s\S]*<\/context>/,
    );
    // The panel shows a short line and the chip, never the internal prompt; the task is titled by the line.
    const users = api.testApi.manager.current.transcript
      .snapshot()
      .items.filter((i: any) => i.kind === 'user') as any[];
    assert.deepEqual(
      users.map((i) => [i.text, i.mentions?.map((c: any) => c.label)]),
      [['Explain this code.', ['math.js:5-7']]],
    );
    assert.doesNotMatch(users[0].text, /Read surrounding code/);
    assert.strictEqual(api.testApi.manager.current.record().title, 'Explain this code');
  });

  it('Explain Selection over a task with history starts a new task and keeps the old one in the history', async () => {
    await freshTask(api, [
      { toolCalls: [{ id: 'h-1', name: 'converse', args: { reply: 'Hello.' } }] },
      { toolCalls: [{ id: 'ex-2', name: 'converse', args: { reply: 'add() adds.' } }] },
    ]);
    await api.testApi.controller.startRun('send', 'Say hello');
    const before = api.testApi.manager.current.id;
    const editor = await vscode.window.showTextDocument(
      await vscode.workspace.openTextDocument(wsPath('src', 'math.js')),
    );
    editor.selection = new vscode.Selection(0, 0, 1, 0);
    await vscode.commands.executeCommand<any>('forge.explainSelection');
    assert.notStrictEqual(api.testApi.manager.current.id, before, 'a new task');
    await waitFor(
      async () => (await api.testApi.manager.history()).some((t: any) => t.id === before),
      'the old task in the history',
    );
  });

  it('Fix This Problem (the code action) names the diagnostic and attaches the code around it', async () => {
    await freshTask(api, [
      { toolCalls: [{ id: 'fx-1', name: 'task_completion', args: { result: 'Added a zero check.' } }] },
    ]);
    const uri = vscode.Uri.file(wsPath('src', 'math.js'));
    const args = {
      uri,
      range: new vscode.Range(5, 2, 5, 15),
      diagnostics: [
        { message: 'Division by zero is not handled', severity: 'Warning', source: 'lint', code: 'no-div0', line: 6 },
      ],
    };
    const report = await vscode.commands.executeCommand<any>('forge.fixProblem', args);
    assert.strictEqual(report?.reason, 'done', report?.detail);
    const prompt = (await userMessages()).find((m) => m.startsWith('Fix'));
    assert.ok(prompt);
    assert.match(prompt, /`src\/math\.js`/);
    assert.match(prompt, /line 6 \(Warning, lint no-div0\): Division by zero is not handled/);
    assert.match(prompt, /<context kind="selection" path="src\/math\.js" lines="3-9">[\s\S]*FORGE_FIXTURE_MARKER/);
    const users = api.testApi.manager.current.transcript
      .snapshot()
      .items.filter((i: any) => i.kind === 'user') as any[];
    assert.deepEqual(
      users.map((i) => [i.text, i.mentions?.map((c: any) => c.label)]),
      [['Fix this problem.', ['math.js:3-9']]],
    );
  });

  it('Add Selection to Chat puts a chip of the selection in the composer, not the quoted code', async () => {
    const seen: any[] = [];
    const sub = api.testApi.panel.observe((dir: string, msg: any) => dir === 'out' && seen.push(msg));
    try {
      await vscode.commands.executeCommand('forge.chatView.focus');
      const editor = await vscode.window.showTextDocument(
        await vscode.workspace.openTextDocument(wsPath('src', 'greet.js')),
      );
      editor.selection = new vscode.Selection(1, 0, 3, 1);
      await vscode.commands.executeCommand('forge.addSelectionToChat');
      const prefill = await waitFor(() => seen.find((m) => m.type === 'prefill'), 'a prefill message to the webview');
      assert.strictEqual(prefill.text, '');
      assert.deepStrictEqual(prefill.chips, [
        { mention: { kind: 'selection', path: 'src/greet.js', startLine: 2, endLine: 4 }, label: 'greet.js:2-4' },
      ]);
    } finally {
      sub.dispose();
    }
  });
});

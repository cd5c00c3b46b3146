// End to end in a real VS Code: the Agent + real tools + diff approval + terminal + journal, driven by the
// scripted loopback model through the same controller path the panel uses.
import * as assert from 'node:assert';
import * as fs from 'node:fs';
import * as vscode from 'vscode';
import { llm, readText, waitFor, wsPath } from '../helpers';
import {
  done,
  endLeftoverRun,
  forge,
  freshTask,
  historyIsConsistent,
  proposalDiffTab,
  pendingApproval,
  setSetting,
  toolResultSeenByModel,
  type ForgeApi,
} from './forge-api';

describe('Forge task end to end (scripted model, real tools)', function () {
  this.timeout(60_000);
  let api: ForgeApi;
  before(async () => {
    api = await forge();
    assert.ok(api.testApi.model.configured, 'the loopback model is configured from the workspace settings');
    assert.ok(typeof api.activationMs === 'number' && api.activationMs >= 0);
  });
  afterEach(() => endLeftoverRun(api));

  it('reads, edits through an accepted diff (undoable), runs an approved command, completes', async () => {
    const file = wsPath('src', 'greet.js');
    const original = await readText(file);
    const command = `node -e "console.log(require('./src/greet.js').greetWorld('Forge')); process.exit(3)"`;
    await freshTask(api, [
      {
        text: 'Let me look at the file.',
        toolCalls: [{ id: 'a-read', name: 'read_file', args: { path: 'src/greet.js' } }],
      },
      {
        toolCalls: [
          {
            id: 'a-edit',
            name: 'apply_diff',
            args: {
              path: 'src/greet.js',
              blocks: [{ search: "  return 'Hello, ' + name + '!';", replace: "  return 'Hi, ' + name + '!';" }],
            },
          },
        ],
      },
      { toolCalls: [{ id: 'a-cmd', name: 'execute_command', args: { command } }] },
      done('Changed the greeting to "Hi" and checked it.'),
    ]);
    const run = api.testApi.controller.startRun('send', 'Make the greeting say Hi and check it.');

    const edit = await pendingApproval(api, 'apply_diff');
    await waitFor(proposalDiffTab, 'the diff editor for the proposed edit');
    assert.strictEqual(await readText(file), original, 'nothing is written before approval');
    assert.strictEqual(await vscode.commands.executeCommand('forge.acceptEdit'), true);
    await waitFor(() => !api.approvals.pending().some((r) => r.id === edit.id), 'the edit approval to resolve');

    const cmd = await pendingApproval(api, 'execute_command');
    // the panel's button path
    api.testApi.controller.webview.approval_decision({
      type: 'approval_decision',
      requestId: cmd.id,
      decision: { kind: 'approve', scope: 'once' },
    });
    const report = await run;
    assert.strictEqual(report.reason, 'done', report.detail);

    const edited = await readText(file);
    assert.match(edited, /'Hi, ' \+ name/);
    assert.match((await toolResultSeenByModel('a-read')) ?? '', /Hello, /, 'the model saw the file');
    const cmdResult = (await toolResultSeenByModel('a-cmd')) ?? '';
    assert.match(cmdResult, /Exit code: 3/, cmdResult);
    assert.match(cmdResult, /Hi, Forge!/, 'the command ran against the edited file');

    const session = api.testApi.manager.current;
    const kinds = session.transcript.snapshot().items.map((i: any) => i.kind);
    for (const k of ['user', 'assistant', 'tool', 'approval', 'run_end'])
      assert.ok(kinds.includes(k), `transcript has a ${k} item: ${kinds}`);
    const tools = session.transcript.snapshot().items.filter((i: any) => i.kind === 'tool');
    assert.deepStrictEqual(
      tools.map((i: any) => i.name),
      ['read_file', 'apply_diff', 'execute_command', 'task_completion'],
    );
    assert.deepStrictEqual(
      tools.slice(0, 2).map((i: any) => i.status),
      ['done', 'done'],
    );

    await session.save();
    const history = await api.testApi.store.list();
    assert.ok(
      history.some((t: any) => t.id === session.id && t.status === 'done'),
      'the task is in the history',
    );

    // The edit went through WorkspaceEdit: Undo in the editor restores the file.
    const doc = await vscode.workspace.openTextDocument(file);
    await vscode.window.showTextDocument(doc);
    // The edit went to disk; the editor shows it once VS Code reloads the file (its watcher): then Ctrl+Z.
    await waitFor(() => doc.getText() === edited, 'the editor to show the edit');
    await vscode.commands.executeCommand('undo');
    await waitFor(() => doc.getText() === original, 'Ctrl+Z to restore the original text');
    await doc.save();
    assert.strictEqual(await readText(file), original);
  });

  it('a rejected edit leaves the file untouched and the model gets the reason', async () => {
    const file = wsPath('src', 'math.js');
    const original = await readText(file);
    await freshTask(api, [
      {
        toolCalls: [
          {
            id: 'b-edit',
            name: 'apply_diff',
            args: {
              path: 'src/math.js',
              blocks: [{ search: '  return a / b;', replace: '  return b === 0 ? NaN : a / b;' }],
            },
          },
        ],
      },
      done('Left math.js as it is.'),
    ]);
    const run = api.testApi.controller.startRun('send', 'Guard the division.');
    const req = await pendingApproval(api, 'apply_diff');
    await waitFor(proposalDiffTab, 'the diff editor');
    assert.strictEqual(
      await vscode.commands.executeCommand('forge.rejectEdit', req.id, 'Throw instead of returning NaN'),
      true,
    );
    const report = await run;
    assert.strictEqual(report.reason, 'done', report.detail);
    assert.strictEqual(await readText(file), original);
    const seen = (await toolResultSeenByModel('b-edit')) ?? '';
    assert.match(seen, /Throw instead of returning NaN/, seen);
    await waitFor(() => !proposalDiffTab(), 'the diff to close');
  });

  it('denied commands never run and the model sees why (built-in rule and the user deny list)', async () => {
    const marker = wsPath('pushed.txt');
    await setSetting('commandDenyList', ['git push']);
    const asked: string[] = [];
    const sub = api.approvals.onDidChange((e) => e.type === 'requested' && asked.push(e.request.toolName));
    try {
      await freshTask(api, [
        { toolCalls: [{ id: 'c-sudo', name: 'execute_command', args: { command: 'sudo rm -rf /' } }] },
        {
          toolCalls: [
            {
              id: 'c-push',
              name: 'execute_command',
              args: { command: `git push origin main && echo ran > pushed.txt` },
            },
          ],
        },
        done('Could not run those.'),
      ]);
      const report = await api.testApi.controller.startRun('send', 'Clean up and push.');
      assert.strictEqual(report.reason, 'done', report.detail);
      assert.deepStrictEqual(asked, [], 'no approval was asked for denied commands');
      assert.match((await toolResultSeenByModel('c-sudo')) ?? '', /sudo|privilege|refused|denied/i);
      const push = (await toolResultSeenByModel('c-push')) ?? '';
      assert.match(push, /git push|deny|denied|refused/i, push);
      assert.ok(!fs.existsSync(marker), 'the denied command line did not run');
    } finally {
      sub.dispose();
      await setSetting('commandDenyList', undefined);
    }
  });

  it('sandbox refusals (outside the workspace, secrets) come back as error results', async () => {
    fs.writeFileSync(wsPath('.env'), 'API_TOKEN=super-secret-value\n');
    await freshTask(api, [
      {
        toolCalls: [
          { id: 'd-out', name: 'read_file', args: { path: '../outside.txt' } },
          { id: 'd-env', name: 'read_file', args: { path: '.env' } },
        ],
      },
      done('Could not read those.'),
    ]);
    const report = await api.testApi.controller.startRun('send', 'Read the env file.');
    assert.ok(['done', 'guardrail'].includes(report.reason), report.detail);
    const out = (await toolResultSeenByModel('d-out')) ?? '';
    const env = (await toolResultSeenByModel('d-env')) ?? '';
    assert.match(out, /outside|workspace/i, out);
    assert.match(env, /secret|refus/i, env);
    assert.ok(!env.includes('super-secret-value'), 'the secret never reached the model');
  });

  it('Stop ends a hung model call within 2 s with a consistent history; Continue finishes the task', async () => {
    await freshTask(api, [
      { toolCalls: [{ id: 'e-read', name: 'read_file', args: { path: 'src/math.js' } }] },
      { fault: 'hang', text: 'Thinking about the division' },
    ]);
    const run = api.testApi.controller.startRun('send', 'Look at math.js.');
    await waitFor(async () => (await llm.requests()).length >= 2, 'the second (hanging) model call');
    await waitFor(
      () =>
        api.testApi.manager.current.transcript
          .snapshot()
          .items.some((i: any) => i.kind === 'assistant' && /Thinking/.test(i.text)),
      'the streamed text',
    );
    const t0 = Date.now();
    await vscode.commands.executeCommand('forge.stop');
    const report = await run;
    const stopMs = Date.now() - t0;
    assert.strictEqual(report.reason, 'stopped');
    assert.ok(stopMs < 2000, `stopped in ${stopMs} ms`);
    const session = api.testApi.manager.current;
    assert.ok(historyIsConsistent(session.dump().history), 'no dangling tool call');
    assert.strictEqual(session.transcript.snapshot().status.state, 'idle');

    await llm.script([done('math.js divides without a zero check.')]);
    const again = await vscode.commands.executeCommand<any>('forge.continue');
    assert.strictEqual(again?.reason, 'done', again?.detail);
    assert.ok(
      (await llm.requests()).at(-1)!.body.messages.some((m: any) => m.role === 'tool' && m.tool_call_id === 'e-read'),
      'the continued run kept the history',
    );
  });

  it('Undo Task Changes restores edited files and removes created ones', async () => {
    const greet = wsPath('src', 'greet.js');
    const created = wsPath('src', 'farewell.js');
    const original = await readText(greet);
    await freshTask(api, [
      {
        toolCalls: [
          {
            id: 'g-edit',
            name: 'apply_diff',
            args: { path: 'src/greet.js', blocks: [{ search: 'Hello, ', replace: 'Howdy, ' }] },
          },
        ],
      },
      {
        toolCalls: [
          {
            id: 'g-new',
            name: 'write_file',
            args: { path: 'src/farewell.js', content: 'module.exports = () => "bye";\n' },
          },
        ],
      },
      done('Edited greet.js and added farewell.js.'),
    ]);
    const run = api.testApi.controller.startRun('send', 'Change greetings and add a farewell.');
    for (const tool of ['apply_diff', 'write_file']) {
      const req = await pendingApproval(api, tool);
      assert.ok(await api.approvals.resolve(req.id, { kind: 'approve', scope: 'once' }));
    }
    const report = await run;
    assert.strictEqual(report.reason, 'done', report.detail);
    assert.match(await readText(greet), /Howdy, /);
    assert.ok(fs.existsSync(created));

    const taskId = api.testApi.manager.current.id;
    const entries = await api.testApi.journal.entries(taskId);
    assert.strictEqual(entries.length, 2, 'both edits are in the journal');
    const result = await api.testApi.controller.undoTaskChanges(taskId, false);
    assert.deepStrictEqual(result.conflicts, []);
    assert.strictEqual(await readText(greet), original);
    assert.ok(!fs.existsSync(created), 'the created file is gone');
  });
});

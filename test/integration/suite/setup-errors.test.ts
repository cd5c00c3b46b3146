// First-run setup and errors that say what to do; the webview -> bridge -> controller path with Stop.
import * as assert from 'node:assert';
import * as vscode from 'vscode';
import { llm, waitFor } from '../helpers';
import { forge, freshTask, pendingApproval, setSetting, toolResultSeenByModel, type ForgeApi } from './forge-api';

describe('setup, errors and the webview message path', function () {
  this.timeout(60_000);
  let api: ForgeApi;
  const provider = () => api.testApi.panel.bridge.snapshot().provider;
  before(async () => {
    api = await forge();
  });
  afterEach(async () => {
    // Back to the loopback server the harness configured.
    await setSetting('provider', 'openai-compatible');
    await setSetting('model', 'test-model');
    await waitFor(
      () => provider().provider === 'openai-compatible' && api.testApi.model.configured,
      'the loopback model again',
    );
  });

  it('default provider (vscode-lm) without a chat model: setup status in the panel, and a run explains what to do', async () => {
    const lmModels = await api.testApi.listVscodeLmModels();
    await setSetting('model', ''); // first run: nothing chosen yet
    await setSetting('provider', 'vscode-lm');
    await waitFor(() => provider().provider === 'vscode-lm' && !provider().model, 'the provider status to update');
    if (lmModels.length > 0) {
      assert.strictEqual(provider().configured, true, 'a VS Code chat model is used when one exists');
      return;
    }
    assert.strictEqual(provider().configured, false);
    assert.match(provider().problem ?? '', /No chat model is available in VS Code.*Select Model/s);
    await freshTask(api, []);
    const report = await api.testApi.controller.startRun('send', 'Hello?');
    assert.strictEqual(report, undefined, 'no run without a model');
    const items = api.testApi.manager.current.transcript.snapshot().items;
    const error = items.at(-1);
    assert.strictEqual(error.kind, 'error');
    assert.ok(
      error.actions.includes('select_model') && error.actions.includes('setup_model'),
      `actions: ${error.actions}`,
    );
    // The form above says why, once: the error points there, not at the palette (issue 26 item 6).
    assert.match(error.message, /connect one in the form above; your message is back in the input box/);
    assert.doesNotMatch(error.message, /Select Model|No chat model/);
    assert.strictEqual(
      error.topic,
      'setup',
      'a "no model" error goes away once a model is configured, and is never saved',
    );
    assert.strictEqual((await llm.requests()).length, 0, 'nothing was sent anywhere');
  });

  it('OpenAI without a stored key: the status says to run Set API Key', async () => {
    await setSetting('provider', 'openai');
    await waitFor(() => provider().provider === 'openai', 'the provider status to update');
    assert.strictEqual(provider().configured, false);
    assert.match(provider().problem ?? '', /No API key for OpenAI: run "Forge: Set API Key"/);
  });

  it('an auth error from the provider ends the run with what to do', async () => {
    await freshTask(api, [
      {
        fault: 'http',
        status: 401,
        body: { error: { message: 'Incorrect API key provided', type: 'invalid_request_error' } },
      },
    ]);
    const report = await api.testApi.controller.startRun('send', 'Hi');
    assert.strictEqual(report.reason, 'error');
    assert.match(report.detail, /Set API Key/);
    const end = api.testApi.manager.current.transcript.snapshot().items.find((i: any) => i.kind === 'run_end');
    assert.ok(end?.actions.includes('set_api_key'), `run_end actions: ${end?.actions}`);
    assert.strictEqual(api.statusBar.text, '$(tools) Forge', 'the status bar is idle again');
  });

  it('webview messages drive a run: approval from the card, progress in the status bar, Stop by request id', async () => {
    await freshTask(api, [
      { toolCalls: [{ id: 'w-cmd', name: 'execute_command', args: { command: 'node -e "console.log(6*7)"' } }] },
      { fault: 'hang', text: 'Now thinking' },
    ]);
    const sent: any[] = [];
    const conn = api.testApi.panel.bridge.connect((m: any) => sent.push(m));
    try {
      conn.receive({ type: 'ready' });
      assert.strictEqual(sent[0]?.type, 'state');
      conn.receive({ type: 'send_message', requestId: 'req-w1', text: 'What is six times seven?' });
      const req = await pendingApproval(api, 'execute_command');
      await waitFor(
        () =>
          sent.some(
            (m) =>
              m.type === 'patch' &&
              m.ops.some(
                (op: any) => op.op === 'append' && op.item.kind === 'approval' && op.item.requestId === req.id,
              ),
          ),
        'the approval card in the webview',
      );
      assert.strictEqual(api.statusBar.text, '$(bell-dot) Forge', 'the status bar shows Forge is waiting');
      conn.receive({ type: 'approval_decision', requestId: req.id, decision: { kind: 'approve', scope: 'once' } });
      await waitFor(async () => (await llm.requests()).length >= 2, 'the next model call');
      assert.match((await toolResultSeenByModel('w-cmd')) ?? '', /42/);
      await waitFor(() => /Forge \d+\/\d+/.test(api.statusBar.text), 'iteration progress in the status bar');

      const t0 = Date.now();
      conn.receive({ type: 'stop', requestId: 'req-w1' });
      await waitFor(() => !api.testApi.manager.current.running, 'the run to stop', 2000);
      assert.ok(Date.now() - t0 < 2000);
      const end = api.testApi.manager.current.transcript.snapshot().items.find((i: any) => i.kind === 'run_end');
      assert.strictEqual(end?.reason, 'stopped');
      assert.ok(end.actions.includes('continue'));
    } finally {
      conn.dispose();
    }
  });

  it('forged webview messages: open_file outside the workspace or on a secret is refused; junk is dropped', async () => {
    await freshTask(api, []);
    const sent: any[] = [];
    const conn = api.testApi.panel.bridge.connect((m: any) => sent.push(m));
    try {
      conn.receive({ type: 'ready' });
      const before = vscode.window.visibleTextEditors.map((e) => e.document.uri.fsPath);
      for (const path of ['/etc/passwd', '../../outside.txt', '.env']) conn.receive({ type: 'open_file', path });
      await waitFor(
        () => sent.filter((m) => m.type === 'error' && /will not open/.test(m.message)).length === 3,
        'three refusals',
      );
      // Forged shapes never reach the controller.
      conn.receive({ type: 'send_message', text: 'no request id' });
      conn.receive({ type: 'approval_decision', requestId: 'x', decision: { kind: 'approve', scope: 'forever' } });
      conn.receive('<script>alert(1)</script>');
      await new Promise((r) => setTimeout(r, 300));
      assert.deepStrictEqual(
        vscode.window.visibleTextEditors.map((e) => e.document.uri.fsPath),
        before,
        'no editor opened',
      );
      assert.strictEqual(api.testApi.manager.current.running, false, 'no run started');
      assert.strictEqual((await llm.requests()).length, 0, 'nothing reached the model');
      // A file inside the workspace opens.
      conn.receive({ type: 'open_file', path: 'src/greet.js' });
      await waitFor(
        () => vscode.window.visibleTextEditors.some((e) => e.document.uri.fsPath.endsWith('greet.js')),
        'greet.js to open',
      );
    } finally {
      conn.dispose();
    }
  });
});

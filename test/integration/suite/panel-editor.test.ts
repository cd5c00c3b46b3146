// The chat in an editor tab comes back after a window reload: the provider is the WebviewPanelSerializer for
// forge.chatEditor, and a restored tab is set up like a new one (fresh CSP nonce, bridge) whatever state it saved.
import * as assert from 'node:assert';
import * as vscode from 'vscode';
import { closeAllEditors, llm, waitFor } from '../helpers';
import { forge, freshTask, type ForgeApi } from './forge-api';

interface Seen {
  dir: 'in' | 'out';
  msg: any;
  webview: vscode.Webview;
}

function nonceOf(html: string): string {
  const csp = /http-equiv="Content-Security-Policy" content="([^"]*)"/.exec(html)?.[1] ?? '';
  const nonce = /script-src 'nonce-([^']+)'/.exec(csp)?.[1];
  assert.ok(nonce, `no script nonce in the CSP: ${csp}`);
  assert.ok(html.includes(`<script type="module" nonce="${nonce}"`), 'the script carries the CSP nonce');
  return nonce;
}

describe('panel in an editor tab survives a reload', function () {
  this.timeout(60_000);
  let api: ForgeApi;
  let seen: Seen[];
  let sub: vscode.Disposable;
  const panels: vscode.WebviewPanel[] = [];
  before(async () => {
    api = await forge();
    seen = [];
    sub = api.testApi.panel.observe((dir: 'in' | 'out', msg: any, webview: vscode.Webview) =>
      seen.push({ dir, msg, webview }),
    );
  });
  after(async () => {
    sub.dispose();
    for (const p of panels) p.dispose();
    await closeAllEditors();
  });

  const readyFrom = (w: vscode.Webview, from = 0) =>
    waitFor(
      () => seen.slice(from).find((s) => s.webview === w && s.dir === 'in' && s.msg?.type === 'ready'),
      'ready from the webview',
      20_000,
    );
  const stateTo = (w: vscode.Webview, from = 0) =>
    waitFor(
      () => seen.slice(from).find((s) => s.webview === w && s.dir === 'out' && s.msg?.type === 'state'),
      'a state snapshot to the webview',
      20_000,
    );

  it('the serializer re-initialises a restored tab with a forged state; ready yields the host snapshot; all views get run updates', async () => {
    await closeAllEditors();
    await freshTask(api, [
      { text: 'Reading.', toolCalls: [{ id: 'pe-read', name: 'read_file', args: { path: 'src/math.js' } }] },
      { toolCalls: [{ id: 'pe-done', name: 'converse', args: { reply: 'math.js adds and divides.' } }] },
    ]);
    const first = await api.testApi.controller.startRun('send', 'What does math.js do?');
    assert.strictEqual(first.reason, 'converse', first.detail);
    const taskId = api.testApi.manager.current.id;

    // The side view (kept alive while hidden, so it is loaded once: ready now or earlier) and a tab opened the normal way.
    const sideMark = seen.length;
    await vscode.commands.executeCommand('forge.chatView.focus');
    const sideView = await waitFor(
      () => api.testApi.panel.view as vscode.WebviewView | undefined,
      'the side view',
      20_000,
    );
    await waitFor(
      () =>
        api.testApi.panel.readyWebviews.has(sideView.webview) ||
        seen.slice(sideMark).some((s) => s.webview === sideView.webview && s.dir === 'in' && s.msg?.type === 'ready'),
      'ready from the side view',
      20_000,
    );
    const side = sideView.webview;
    const opened: vscode.WebviewPanel = api.testApi.panel.openInEditor(vscode.ViewColumn.One);
    panels.push(opened);
    assert.strictEqual(opened.viewType, 'forge.chatEditor');
    assert.notStrictEqual(opened.webview, side);
    await readyFrom(opened.webview);
    const openedNonce = nonceOf(opened.webview.html);

    // The restore path: VS Code creates the panel (with the options it saved, here deliberately none) and hands
    // it to the serializer with whatever the old webview saved. A forged state must not matter.
    const restored = vscode.window.createWebviewPanel(
      'forge.chatEditor',
      'Forge',
      { viewColumn: vscode.ViewColumn.Two, preserveFocus: true },
      {},
    );
    panels.push(restored);
    const mark = seen.length;
    const forged = {
      taskId: 'not-the-current-task',
      scrollTop: 'x'.repeat(10_000),
      stick: { evil: true },
      items: [{ kind: 'user', text: 'injected' }],
    };
    await api.testApi.panel.deserializeWebviewPanel(restored, forged);

    assert.strictEqual(restored.webview.options.enableScripts, true, 'scripts enabled like a new tab');
    assert.notStrictEqual(restored.webview.options.enableCommandUris, true);
    const roots = (restored.webview.options.localResourceRoots ?? []).map((u) => u.path);
    assert.ok(
      roots.some((r) => r.endsWith('/dist/webview')) && roots.some((r) => r.endsWith('/media')),
      `roots: ${roots}`,
    );
    assert.strictEqual(roots.length, 2);
    assert.notStrictEqual(restored.options.retainContextWhenHidden, true);
    const restoredNonce = nonceOf(restored.webview.html);
    assert.notStrictEqual(restoredNonce, openedNonce, 'a fresh nonce per document');

    await readyFrom(restored.webview, mark);
    const state = await stateTo(restored.webview, mark);
    const items = api.testApi.manager.current.transcript.snapshot().items;
    assert.strictEqual(state.msg.snapshot.taskId, taskId, 'the host task, not the forged one');
    assert.deepStrictEqual(
      state.msg.snapshot.items.map((i: any) => i.id),
      items.map((i: any) => i.id),
      'the full transcript',
    );
    assert.ok(
      !JSON.stringify(state.msg.snapshot).includes('injected'),
      'nothing from the forged state reached the snapshot',
    );
    assert.strictEqual(state.msg.snapshot.provider.configured, true);
    assert.ok(
      state.msg.snapshot.history.some((t: any) => t.id === taskId),
      'the history lists the task',
    );

    // A run: the restored tab, the other tab and the side view all receive its updates.
    await llm.script([
      { toolCalls: [{ id: 'pe-more', name: 'converse', args: { reply: 'Also: divide throws on zero.' } }] },
    ]);
    const runMark = seen.length;
    const second = await api.testApi.controller.startRun('send', 'Anything else?');
    assert.strictEqual(second.reason, 'converse', second.detail);
    const updated = (w: vscode.Webview) =>
      waitFor(
        () =>
          seen
            .slice(runMark)
            .some(
              (s) =>
                s.webview === w &&
                s.dir === 'out' &&
                (s.msg.type === 'patch' || s.msg.type === 'state') &&
                JSON.stringify(s.msg).includes('divide throws on zero'),
            ),
        'the run reply to reach the webview',
      );
    await updated(restored.webview);
    await updated(side);
    if (opened.visible) await updated(opened.webview);

    // Closing the restored tab disconnects it; the provider still reveals the remaining one.
    const restoredWebview = restored.webview;
    restored.dispose();
    await new Promise((r) => setTimeout(r, 200));
    const afterClose = seen.length;
    api.testApi.panel.showError('after close');
    await waitFor(
      () => seen.slice(afterClose).some((s) => s.webview === side && s.msg.type === 'error'),
      'the side view to still get messages',
    );
    const leaked = seen.slice(afterClose).filter((s) => s.webview === restoredWebview);
    assert.deepStrictEqual(
      leaked.map((s) => `${s.dir} ${JSON.stringify(s.msg).slice(0, 120)}`),
      [],
      'nothing is sent to a closed tab',
    );
    assert.strictEqual(api.testApi.panel.openInEditor(vscode.ViewColumn.One), opened, 'the open tab is reused');
  });
});

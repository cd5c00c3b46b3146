import { strict as assert } from 'node:assert';
import { buildWebviewHtml, contentSecurityPolicy, makeNonce, parseRestoredPanelState } from '../../../src/panel/html';

describe('panel html: the webview document', () => {
  it('nonces the one script and stylesheet, and the CSP allows only that nonce', () => {
    const nonce = makeNonce();
    const html = buildWebviewHtml({
      cspSource: 'vscode-resource:',
      scriptUri: 'https://x/main.js',
      styleUri: 'https://x/main.css',
      nonce,
    });
    assert.ok(html.includes(`script-src 'nonce-${nonce}'`));
    assert.ok(html.includes(`<script type="module" nonce="${nonce}" src="https://x/main.js">`));
    assert.ok(html.includes("default-src 'none'"));
    assert.ok(!/unsafe-inline|unsafe-eval/.test(html));
  });

  it('every document gets a fresh nonce', () => {
    const a = makeNonce();
    const b = makeNonce();
    assert.notEqual(a, b);
    assert.ok(a.length >= 16);
  });

  it('escapes attribute values so a URI cannot break out of the tag', () => {
    const html = buildWebviewHtml({
      cspSource: 'c',
      scriptUri: '"><script>alert(1)</script>',
      styleUri: 's',
      nonce: 'n',
    });
    assert.ok(!html.includes('"><script>alert(1)'));
    assert.ok(contentSecurityPolicy('c', 'n').includes("connect-src 'none'"));
  });
});

describe('panel html: restored editor-tab state is only a validated hint', () => {
  it('keeps well-typed fields', () => {
    assert.deepEqual(parseRestoredPanelState({ taskId: 'task-1a2b', scrollTop: 120, stick: false, anchorId: 'i3' }), {
      taskId: 'task-1a2b',
      scrollTop: 120,
      stick: false,
    });
  });

  it('drops garbage, forged and oversized values', () => {
    for (const garbage of [undefined, null, 0, 'state', [], [{ taskId: 'x' }], true, () => 1]) {
      assert.deepEqual(parseRestoredPanelState(garbage), {}, String(garbage));
    }
    assert.deepEqual(
      parseRestoredPanelState({
        taskId: '../../etc/passwd',
        scrollTop: Number.NaN,
        stick: 'yes',
      }),
      {},
    );
    assert.deepEqual(parseRestoredPanelState({ taskId: 'a'.repeat(201), scrollTop: -5, stick: 1 }), {});
    assert.deepEqual(parseRestoredPanelState({ taskId: { toString: () => 'x' }, scrollTop: Infinity }), {});
  });

  it('ignores inherited properties (prototype tricks)', () => {
    const forged = Object.create({ taskId: 'inherited', stick: true });
    assert.deepEqual(parseRestoredPanelState(forged), {});
    assert.deepEqual(parseRestoredPanelState(JSON.parse('{"__proto__": {"taskId": "p"}, "stick": true}')), {
      stick: true,
    });
  });
});

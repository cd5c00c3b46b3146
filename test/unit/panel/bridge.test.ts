import { strict as assert } from 'node:assert';
import { PanelBridge } from '../../../src/panel/bridge';
import { contentSecurityPolicy, buildWebviewHtml, makeNonce } from '../../../src/panel/html';
import { Transcript } from '../../../src/panel/transcript';
import { parseHostMessage, type HostMessage } from '../../../src/protocol/messages';
import { fakeHandlers } from './fake-handlers';

type Call = [string, ...unknown[]];

function setup() {
  const calls: Call[] = [];
  const warnings: string[] = [];
  const signals = new Map<string, AbortSignal>();
  const resolvers = new Map<string, () => void>();
  const handlers = fakeHandlers({
    send_message: ({ text, requestId }, signal) => {
      calls.push(['send', text, requestId]);
      signals.set(requestId, signal);
      return new Promise<void>((r) => resolvers.set(requestId, r));
    },
    continue: ({ requestId }, signal) => {
      calls.push(['continue', requestId]);
      signals.set(requestId, signal);
    },
    stop: ({ requestId }) => void calls.push(['stop', requestId]),
    approval_decision: ({ requestId, decision }) => void calls.push(['approval', requestId, decision]),
    new_task: () => void calls.push(['new_task']),
    load_task: ({ id }) => void calls.push(['load', id]),
    open_file: ({ path, line }) => void calls.push(['open_file', path, line]),
    open_diff: ({ requestId }) => void calls.push(['open_diff', requestId]),
    open_tool_output: ({ ref }) => void calls.push(['output', ref]),
    select_model: ({ modelId }) => void calls.push(['model', modelId]),
    open_settings: () => void calls.push(['settings']),
    set_api_key: ({ provider }) => void calls.push(['key', provider]),
    show_logs: () => void calls.push(['logs']),
  });
  const logger = { info: () => {}, warn: (m: string) => warnings.push(m), error: (m: string) => warnings.push(m) };
  const bridge = new PanelBridge(handlers, logger, { flushIntervalMs: 16 });
  const sent: HostMessage[] = [];
  const conn = bridge.connect((m) => {
    sent.push(m);
    return Promise.resolve(true);
  });
  return { bridge, conn, sent, calls, warnings, signals, resolvers };
}

describe('panel bridge', () => {
  it('sends a snapshot on ready and patches after, with consecutive seqs', () => {
    const { bridge, conn, sent } = setup();
    const t = new Transcript();
    bridge.attachTranscript(t);
    t.apply({ type: 'run_start', runId: 'r', taskId: 't', mode: 'm', maxIterations: 5, userMessage: 'before ready' });
    assert.equal(sent.length, 0, 'nothing goes to a webview that has not said ready');
    conn.receive({ type: 'ready' });
    assert.equal(sent.length, 1);
    const state = sent[0]!;
    assert.ok(state.type === 'state' && state.snapshot.items.length === 1);
    assert.ok(parseHostMessage(state).ok);
    t.apply({ type: 'text_delta', runId: 'r', delta: 'hi' });
    bridge['coalescer'].flush();
    const patch = sent[1]!;
    assert.ok(patch.type === 'patch' && state.type === 'state');
    if (patch.type === 'patch' && state.type === 'state') assert.equal(patch.seq, state.snapshot.seq + 1);
  });

  it('drops and logs invalid messages without calling the controller', () => {
    const { conn, calls, warnings } = setup();
    conn.receive({ type: 'send_message', requestId: 'r1', text: 'x'.repeat(100_001) });
    conn.receive({ type: 'run_shell', cmd: 'rm -rf /' });
    conn.receive('ready');
    assert.equal(calls.length, 0);
    assert.equal(warnings.length, 3);
    assert.match(warnings[0]!, /dropped webview message/);
  });

  it('routes messages and aborts the request signal on stop', async () => {
    const { conn, calls, signals, resolvers } = setup();
    conn.receive({ type: 'send_message', requestId: 'r1', text: 'go' });
    conn.receive({ type: 'approval_decision', requestId: 'ap', decision: { kind: 'reject', reason: 'no' } });
    conn.receive({ type: 'open_file', path: 'src/a.ts', line: 2 });
    conn.receive({ type: 'select_model', modelId: 'm1' });
    assert.equal(signals.get('r1')!.aborted, false);
    conn.receive({ type: 'stop', requestId: 'r1' });
    assert.equal(signals.get('r1')!.aborted, true);
    assert.deepEqual(calls, [
      ['send', 'go', 'r1'],
      ['approval', 'ap', { kind: 'reject', reason: 'no' }],
      ['open_file', 'src/a.ts', 2],
      ['model', 'm1'],
      ['stop', 'r1'],
    ]);
    resolvers.get('r1')!();
    await new Promise((r) => setImmediate(r));
    conn.receive({ type: 'send_message', requestId: 'r1', text: 'again' });
    assert.equal(calls.at(-1)![0], 'send', 'the id is free again once the run settled');
  });

  it('stop without a request id aborts every panel request', () => {
    const { conn, signals } = setup();
    conn.receive({ type: 'send_message', requestId: 'a', text: 'x' });
    conn.receive({ type: 'send_message', requestId: 'b', text: 'y' });
    conn.receive({ type: 'stop' });
    assert.ok(signals.get('a')!.aborted && signals.get('b')!.aborted);
  });

  it('ignores a duplicate in-flight request id', () => {
    const { conn, calls, warnings } = setup();
    conn.receive({ type: 'send_message', requestId: 'a', text: 'x' });
    conn.receive({ type: 'send_message', requestId: 'a', text: 'x' });
    assert.equal(calls.length, 1);
    assert.match(warnings[0]!, /duplicate/);
  });

  it('shows a rejected request in the transcript', async () => {
    const { bridge, conn } = setup();
    bridge['handlers'].send_message = () => Promise.reject(new Error('no provider'));
    conn.receive({ type: 'send_message', requestId: 'a', text: 'x' });
    await new Promise((r) => setImmediate(r));
    const last = bridge.getTranscript().getItems().at(-1)!;
    assert.ok(last.kind === 'error' && last.message.includes('no provider'));
  });

  it('resends the snapshot when the transcript is reset', () => {
    const { bridge, conn, sent } = setup();
    conn.receive({ type: 'ready' });
    bridge.getTranscript().reset({ items: [{ id: 'i1', ts: 0, kind: 'user', text: 'loaded' }] });
    const last = sent.at(-1)!;
    assert.ok(last.type === 'state' && last.snapshot.items[0]!.kind === 'user');
  });
});

describe('panel html', () => {
  it('has a strict nonce CSP with no eval or inline scripts', () => {
    const nonce = makeNonce();
    assert.equal(Buffer.from(nonce, 'base64').length, 16);
    const csp = contentSecurityPolicy('https://x.vscode-cdn.net', nonce);
    assert.match(csp, /default-src 'none'/);
    assert.match(csp, new RegExp(`script-src 'nonce-${nonce.replace(/[+/]/g, '\\$&')}'(;|$)`));
    assert.doesNotMatch(csp, /unsafe-eval|unsafe-inline/);
    const html = buildWebviewHtml({
      cspSource: 'https://x',
      scriptUri: 'https://x/main.js',
      styleUri: 'https://x/main.css',
      nonce,
    });
    assert.equal((html.match(/<script/g) ?? []).length, 1);
    assert.ok(html.includes(`nonce="${nonce}" src="https://x/main.js"`));
  });
});

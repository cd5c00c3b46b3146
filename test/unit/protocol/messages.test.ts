import { strict as assert } from 'node:assert';
import { LIMITS, actionToMessage, parseHostMessage, parseWebviewMessage } from '../../../src/protocol/messages';

describe('protocol: webview -> host', () => {
  const valid: unknown[] = [
    { type: 'ready' },
    { type: 'send_message', requestId: 'req-1', text: 'fix the bug' },
    { type: 'stop', requestId: 'req-1' },
    { type: 'stop' },
    { type: 'approval_decision', requestId: 'ap-1', decision: { kind: 'approve', scope: 'once' } },
    { type: 'approval_decision', requestId: 'ap-1', decision: { kind: 'approve', scope: 'task' } },
    { type: 'approval_decision', requestId: 'ap-1', decision: { kind: 'reject', reason: 'wrong file' } },
    { type: 'approval_decision', requestId: 'ap-1', decision: { kind: 'reject' } },
    { type: 'continue', requestId: 'r2' },
    { type: 'new_task' },
    { type: 'load_task', id: 'task-9' },
    { type: 'open_file', path: 'src/a.ts', line: 3 },
    { type: 'open_diff', requestId: 'ap-1' },
    { type: 'open_tool_output', ref: 'out-1' },
    { type: 'select_model' },
    { type: 'select_model', modelId: 'gpt-4o' },
    { type: 'open_settings' },
    { type: 'set_api_key', provider: 'openai' },
    { type: 'show_logs' },
  ];
  for (const m of valid) {
    it(`accepts ${JSON.stringify(m)}`, () => {
      const r = parseWebviewMessage(m);
      assert.ok(r.ok, r.ok ? '' : r.error);
      assert.deepEqual(r.message, m);
    });
  }

  const invalid: [string, unknown][] = [
    ['null', null],
    ['a string', 'send_message'],
    ['an array', [{ type: 'ready' }]],
    ['no type', { text: 'hi' }],
    ['unknown type', { type: 'eval', code: 'x' }],
    ['prototype-ish type', { type: '__proto__' }],
    ['missing requestId', { type: 'send_message', text: 'hi' }],
    ['empty text', { type: 'send_message', requestId: 'r', text: '' }],
    ['oversized text', { type: 'send_message', requestId: 'r', text: 'x'.repeat(LIMITS.userText + 1) }],
    ['non-string text', { type: 'send_message', requestId: 'r', text: { toString: 'x' } }],
    ['id with spaces', { type: 'send_message', requestId: 'a b', text: 'hi' }],
    ['overlong id', { type: 'load_task', id: 'x'.repeat(LIMITS.id + 1) }],
    ['extra keys', { type: 'new_task', command: 'rm -rf /' }],
    ['approve without scope', { type: 'approval_decision', requestId: 'a', decision: { kind: 'approve' } }],
    ['forged decision kind', { type: 'approval_decision', requestId: 'a', decision: { kind: 'approve_all' } }],
    [
      'smuggled editedContent',
      {
        type: 'approval_decision',
        requestId: 'a',
        decision: { kind: 'approve', scope: 'once', editedContent: 'evil' },
      },
    ],
    [
      'oversized reject reason',
      {
        type: 'approval_decision',
        requestId: 'a',
        decision: { kind: 'reject', reason: 'r'.repeat(LIMITS.rejectReason + 1) },
      },
    ],
    ['negative line', { type: 'open_file', path: 'a', line: -1 }],
    ['host message type', { type: 'state', snapshot: {} }],
  ];
  for (const [name, m] of invalid) {
    it(`rejects ${name}`, () => {
      const r = parseWebviewMessage(m);
      assert.equal(r.ok, false);
      if (!r.ok) assert.match(r.error, /message/);
    });
  }

  it('names the offending field', () => {
    const r = parseWebviewMessage({ type: 'send_message', requestId: 'r', text: 5 });
    assert.ok(!r.ok && r.error.includes('text'));
  });

  it('maps actions to messages', () => {
    assert.deepEqual(
      actionToMessage('continue', () => 'r9'),
      { type: 'continue', requestId: 'r9' },
    );
    assert.deepEqual(
      actionToMessage('set_api_key', () => 'x'),
      { type: 'set_api_key' },
    );
    for (const a of ['continue', 'new_task', 'set_api_key', 'select_model', 'open_settings', 'show_logs'] as const) {
      assert.ok(parseWebviewMessage(actionToMessage(a, () => 'r1')).ok, a);
    }
  });
});

describe('protocol: host -> webview', () => {
  const snapshot = {
    seq: 3,
    items: [
      { id: 'i1', ts: 1, kind: 'user', text: 'hi' },
      { id: 'i2', ts: 2, kind: 'assistant', text: '**yo**', streaming: false },
      {
        id: 'i3',
        ts: 3,
        kind: 'tool',
        toolCallId: 'call_1',
        name: 'read_file',
        argsText: '{}',
        argsSummary: 'a.ts',
        status: 'done',
        durationMs: 12,
        result: 'content',
        resultTruncated: false,
      },
    ],
    status: { state: 'idle' },
    provider: { configured: true, provider: 'openai', model: 'gpt-4o' },
    history: [{ id: 't1', title: 'Fix bug', updatedAt: 5 }],
  };

  it('accepts a full state snapshot', () => {
    const r = parseHostMessage({ type: 'state', snapshot });
    assert.ok(r.ok, r.ok ? '' : r.error);
  });

  it('accepts a patch of every op', () => {
    const r = parseHostMessage({
      type: 'patch',
      seq: 4,
      ops: [
        { op: 'append', item: { id: 'i4', ts: 4, kind: 'thinking', text: '', streaming: true } },
        { op: 'delta', id: 'i4', field: 'text', delta: 'hmm' },
        { op: 'end_stream', id: 'i4' },
        { op: 'update', item: snapshot.items[2] },
        {
          op: 'progress',
          progress: { iteration: 2, maxIterations: 25, inputTokens: 10, outputTokens: 5, elapsedMs: 100 },
        },
        { op: 'status', status: { state: 'running', runId: 'run1', requestId: 'req1' } },
      ],
    });
    assert.ok(r.ok, r.ok ? '' : r.error);
  });

  it('rejects forged host messages', () => {
    const bad: unknown[] = [
      { type: 'state' },
      { type: 'state', snapshot: { ...snapshot, items: [{ id: 'x', ts: 1, kind: 'script', text: 'x' }] } },
      { type: 'patch', seq: -1, ops: [] },
      { type: 'patch', seq: 1, ops: [{ op: 'delta', id: 'i1', field: 'innerHTML', delta: 'x' }] },
      { type: 'patch', seq: 1, ops: [{ op: 'update', item: { id: 'i3', kind: 'tool', status: 'exploded' } }] },
      { type: 'error' },
      { type: 'prefill', text: 'x'.repeat(LIMITS.userText + 1) },
      { type: 'send_message', requestId: 'r', text: 'hi' },
    ];
    for (const m of bad) assert.equal(parseHostMessage(m).ok, false, JSON.stringify(m).slice(0, 120));
  });
});

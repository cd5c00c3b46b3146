import { strict as assert } from 'node:assert';
import type { AgentEvent, RunReport } from '../../../src/core/loop/events';
import { parseHostMessage, type PatchOp, type TranscriptItem } from '../../../src/protocol/messages';
import { Transcript } from '../../../src/panel/transcript';

const R = 'run-1';
const usage = { inputTokens: 1200, outputTokens: 300 };
function report(over: Partial<RunReport> = {}): RunReport {
  return {
    runId: R,
    taskId: 't1',
    reason: 'done',
    detail: 'All fixed.',
    iterations: 2,
    steps: [],
    usage,
    costUsd: 0.0123,
    elapsedMs: 4200,
    ...over,
  };
}

/** A realistic run: thinking, text, a tool call that needs approval, a result, then done. */
function runEvents(): AgentEvent[] {
  return [
    {
      type: 'run_start',
      runId: R,
      taskId: 't1',
      mode: 'implement',
      maxIterations: 25,
      userMessage: 'Fix the bug in a.ts',
    },
    { type: 'step_start', runId: R, iteration: 1, maxIterations: 25 },
    { type: 'thinking_delta', runId: R, delta: 'Let me ' },
    { type: 'thinking_delta', runId: R, delta: 'look.' },
    { type: 'text_delta', runId: R, delta: 'I will ' },
    { type: 'text_delta', runId: R, delta: 'edit **a.ts**.' },
    { type: 'tool_call_start', runId: R, id: 'call_1', name: 'write_file' },
    { type: 'tool_call_args_delta', runId: R, id: 'call_1', delta: '{"path":"a.ts",' },
    { type: 'tool_call_args_delta', runId: R, id: 'call_1', delta: '"content":"x"}' },
    { type: 'tool_call_end', runId: R, id: 'call_1', name: 'write_file', args: { path: 'a.ts', content: 'x' } },
    {
      type: 'approval_requested',
      runId: R,
      request: {
        id: 'ap-1',
        taskId: 't1',
        toolCallId: 'call_1',
        toolName: 'write_file',
        risk: 'write',
        args: { path: 'a.ts' },
        preview: { kind: 'edit', path: 'a.ts', original: 'a\nb\nc\n', proposed: 'a\nB\nc\nd\n', isNewFile: false },
      },
    },
    { type: 'approval_resolved', runId: R, requestId: 'ap-1', decision: { kind: 'approve', scope: 'task' } },
    { type: 'tool_progress', runId: R, id: 'call_1', chunk: 'writing…' },
    { type: 'tool_result', runId: R, id: 'call_1', name: 'write_file', content: 'ok', isError: false, latencyMs: 42 },
    {
      type: 'iteration',
      runId: R,
      iteration: 1,
      maxIterations: 25,
      usage,
      costUsd: 0.01,
      elapsedMs: 2000,
      contextTokens: 1500,
      contextWindow: 128000,
    },
    { type: 'step_end', runId: R, step: { iteration: 1, latencyMs: 10, toolCalls: [] } },
    { type: 'memory_learned', runId: R, memories: [{ id: 'm1', content: 'Tests live in test/', type: 'semantic' }] },
    { type: 'run_end', runId: R, report: report() },
  ];
}

function item<K extends TranscriptItem['kind']>(
  items: readonly TranscriptItem[],
  kind: K,
): Extract<TranscriptItem, { kind: K }>[] {
  return items.filter((i): i is Extract<TranscriptItem, { kind: K }> => i.kind === kind);
}

describe('panel transcript folding', () => {
  it('folds a full run into the expected items', () => {
    const t = new Transcript({ now: () => 1000 });
    t.beginRequest('req-1');
    for (const e of runEvents()) t.apply(e);
    const items = t.getItems();
    assert.deepEqual(
      items.map((i) => i.kind),
      ['user', 'thinking', 'assistant', 'tool', 'approval', 'memory', 'run_end'],
    );
    assert.equal(item(items, 'user')[0]!.text, 'Fix the bug in a.ts');
    assert.deepEqual(item(items, 'thinking')[0], {
      id: 'i2',
      ts: 1000,
      kind: 'thinking',
      text: 'Let me look.',
      streaming: false,
    });
    assert.equal(item(items, 'assistant')[0]!.text, 'I will edit **a.ts**.');
    const tool = item(items, 'tool')[0]!;
    assert.equal(tool.status, 'done');
    assert.equal(
      tool.durationMs,
      0,
      'counted from the approval (the test clock stands still), not the 42 ms that include the wait',
    );
    assert.equal(tool.argsSummary, 'a.ts');
    assert.equal(tool.argsText, JSON.stringify({ path: 'a.ts', content: 'x' }, null, 2));
    assert.equal(tool.progress, 'writing…');
    assert.equal(tool.result, 'ok');
    assert.deepEqual(
      tool.edit,
      { path: 'a.ts', isNewFile: false, added: 2, removed: 1, requestId: 'ap-1' },
      'the approved edit is on the row',
    );
    const ap = item(items, 'approval')[0]!;
    assert.equal(ap.status, 'approved_task');
    assert.equal(ap.summary, 'Edit a.ts');
    assert.ok(ap.preview?.kind === 'edit');
    if (ap.preview?.kind === 'edit') {
      assert.equal(ap.preview.added, 2);
      assert.equal(ap.preview.removed, 1);
      assert.match(ap.preview.diff, /^@@/);
    }
    const end = item(items, 'run_end')[0]!;
    assert.equal(end.reason, 'done');
    assert.deepEqual(end.actions, []);
    const snap = t.snapshot();
    assert.deepEqual(snap.status, { state: 'idle' });
    assert.equal(snap.progress?.inputTokens, 1200);
    assert.equal(snap.progress?.costUsd, 0.0123);
    assert.equal(snap.taskId, 't1');
  });

  it('emits ops that the webview protocol accepts and that replay to the same items', () => {
    const t = new Transcript({ now: () => 5 });
    const all: PatchOp[] = [];
    t.subscribe((c) => {
      if (c.kind === 'ops') all.push(...c.ops);
    });
    for (const e of runEvents()) t.apply(e);
    assert.ok(parseHostMessage({ type: 'patch', seq: 1, ops: all }).ok);
    // replay like the webview does
    const replay = new Map<string, TranscriptItem>();
    for (const op of all) {
      if (op.op === 'append' || op.op === 'update') replay.set(op.item.id, op.item);
      else if (op.op === 'delta') {
        const it = replay.get(op.id) as any;
        it[op.field] += op.delta;
      } else if (op.op === 'end_stream') (replay.get(op.id) as any).streaming = false;
    }
    assert.deepEqual([...replay.values()], t.getItems());
  });

  it('tracks status through approval and carries the request id', () => {
    const t = new Transcript();
    t.beginRequest('req-7');
    const ev = runEvents();
    for (const e of ev.slice(0, 11)) t.apply(e);
    assert.deepEqual(t.snapshot().status, {
      state: 'awaiting_approval',
      runId: R,
      requestId: 'req-7',
      mode: 'implement',
    });
    assert.equal(item(t.getItems(), 'tool')[0]!.status, 'awaiting_approval');
    t.apply(ev[11]!);
    assert.equal(t.snapshot().status.state, 'running');
    assert.equal(item(t.getItems(), 'tool')[0]!.status, 'running');
  });

  it('marks rejected calls and cancels in-flight work when stopped', () => {
    const t = new Transcript();
    const ev = runEvents();
    for (const e of ev.slice(0, 11)) t.apply(e);
    t.apply({ type: 'approval_resolved', runId: R, requestId: 'ap-1', decision: { kind: 'reject', reason: 'no' } });
    t.apply({
      type: 'tool_result',
      runId: R,
      id: 'call_1',
      name: 'write_file',
      content: 'rejected by user',
      isError: true,
      latencyMs: 1,
    });
    assert.equal(item(t.getItems(), 'tool')[0]!.status, 'rejected');
    assert.equal(item(t.getItems(), 'approval')[0]!.reason, 'no');
    t.apply({ type: 'tool_call_start', runId: R, id: 'call_2', name: 'execute_command' });
    t.apply({ type: 'text_delta', runId: R, delta: 'partial' });
    t.apply({ type: 'run_end', runId: R, report: report({ reason: 'stopped', detail: 'Stopped by the user.' }) });
    const tools = item(t.getItems(), 'tool');
    assert.equal(tools[1]!.status, 'cancelled');
    assert.equal(item(t.getItems(), 'assistant')[0]!.streaming, false);
    assert.deepEqual(item(t.getItems(), 'run_end')[0]!.actions, ['continue']);
  });

  it('suggests setting an API key on auth errors', () => {
    const t = new Transcript();
    t.apply(runEvents()[0]!);
    t.apply({
      type: 'run_end',
      runId: R,
      report: report({ reason: 'error', detail: 'OpenAI returned 401 Unauthorized: check your API key.' }),
    });
    assert.equal(item(t.getItems(), 'run_end')[0]!.actions[0], 'set_api_key');
  });

  it('caps tool output and keeps the full-output handle', () => {
    const t = new Transcript({ resultPreviewChars: 10 });
    t.apply({ type: 'tool_call_start', runId: R, id: 'c', name: 'read_file' });
    t.apply({
      type: 'tool_result',
      runId: R,
      id: 'c',
      name: 'read_file',
      content: 'x'.repeat(100),
      isError: false,
      latencyMs: 3,
      fullOutputRef: 'out-1',
    });
    const tool = item(t.getItems(), 'tool')[0]!;
    assert.equal(tool.result, 'x'.repeat(10));
    assert.equal(tool.resultTruncated, true);
    assert.equal(tool.fullOutputRef, 'out-1');
  });

  it('gives repeated model tool call ids (new run) separate cards', () => {
    const t = new Transcript();
    for (const run of ['r1', 'r2']) {
      t.apply({ type: 'run_start', runId: run, taskId: 't', mode: 'm', maxIterations: 5, userMessage: 'go' });
      t.apply({ type: 'tool_call_start', runId: run, id: 'call_0', name: 'list_files' });
      t.apply({
        type: 'tool_result',
        runId: run,
        id: 'call_0',
        name: 'list_files',
        content: run,
        isError: false,
        latencyMs: 1,
      });
    }
    const tools = item(t.getItems(), 'tool');
    assert.equal(tools.length, 2);
    assert.deepEqual(
      tools.map((x) => x.result),
      ['r1', 'r2'],
    );
  });

  it('reset replaces the items, notifies listeners and keeps ids unique', () => {
    const t = new Transcript();
    let resets = 0;
    t.subscribe((c) => {
      if (c.kind === 'reset') resets++;
    });
    t.reset({ items: [{ id: 'i41', ts: 1, kind: 'user', text: 'old' }], taskId: 'old' });
    assert.equal(resets, 1);
    t.apply({ type: 'run_start', runId: R, taskId: 'old', mode: 'm', maxIterations: 5, userMessage: 'new' });
    assert.deepEqual(
      t.getItems().map((i) => i.id),
      ['i41', 'i42'],
    );
  });

  it('records errors with actions', () => {
    const t = new Transcript();
    t.addError('No model configured.', ['set_api_key', 'select_model']);
    const e = item(t.getItems(), 'error')[0]!;
    assert.deepEqual(e.actions, ['set_api_key', 'select_model']);
  });
});

describe('panel approval card paths', () => {
  it('shows the workspace-relative path while actions keep the absolute one', () => {
    const t = new Transcript({ now: () => 1000 });
    t.beginRequest('req-1');
    t.apply({ type: 'run_start', runId: R, taskId: 't1', mode: 'agent', maxIterations: 25, userMessage: 'edit' });
    t.apply({
      type: 'approval_requested',
      runId: R,
      request: {
        id: 'ap-9',
        taskId: 't1',
        toolCallId: 'c9',
        toolName: 'apply_diff',
        risk: 'write',
        args: {},
        preview: {
          kind: 'edit',
          path: '/home/me/proj/src/a.ts',
          displayPath: 'src/a.ts',
          original: 'a\n',
          proposed: 'b\n',
          isNewFile: false,
        },
      },
    });
    const card = item(t.getItems(), 'approval')[0]!;
    assert.equal(card.summary, 'Edit src/a.ts');
    assert.ok(card.preview?.kind === 'edit');
    assert.equal(card.preview.path, '/home/me/proj/src/a.ts');
    assert.equal(card.preview.displayPath, 'src/a.ts');
    assert.match(card.preview.diff, /-a\n\+b/);
  });
});

import { strict as assert } from 'node:assert';
import { PanelBridge } from '../../../src/panel/bridge';
import { Transcript } from '../../../src/panel/transcript';
import { parseHostMessage, parseWebviewMessage, type HostMessage } from '../../../src/protocol/messages';
import { normalizePlan } from '../../../src/core/tools/builtin/update-plan';
import { fakeHandlers } from './fake-handlers';

const plan = normalizePlan(
  {
    goal: 'Ship it',
    steps: [
      { text: 'a', status: 'done' },
      { text: 'b', status: 'in_progress' },
    ],
  },
  'model',
  5,
);

function runWithTool(t: Transcript, id: string) {
  t.apply({ type: 'tool_call_start', runId: 'r', id, name: 'write_file' });
  t.apply({ type: 'tool_call_end', runId: 'r', id, name: 'write_file', args: { path: 'a.ts' } });
  t.apply({ type: 'tool_result', runId: 'r', id, name: 'write_file', content: 'ok', isError: false, latencyMs: 3 });
}

describe('panel: the live plan and checkpoints', () => {
  it('the plan is part of the snapshot and goes out as a plan patch; reset clears or restores it', () => {
    const calls: unknown[][] = [];
    const handlers = fakeHandlers({
      edit_plan: ({ taskId, plan: p }) => void calls.push(['plan', taskId, p]),
      restore_checkpoint: ({ taskId, toolCallId }) => void calls.push(['restore', taskId, toolCallId]),
    });
    const bridge = new PanelBridge(handlers, { info() {}, warn() {}, error() {} }, { flushIntervalMs: 16 });
    const sent: HostMessage[] = [];
    const conn = bridge.connect((m) => sent.push(m));
    const t = new Transcript();
    bridge.attachTranscript(t);
    conn.receive({ type: 'ready' });
    t.apply({ type: 'run_start', runId: 'r', taskId: 'task-1', mode: 'code', maxIterations: 5, userMessage: 'go' });
    t.apply({ type: 'plan_updated', runId: 'r', plan });
    bridge['coalescer'].flush();
    const patch = sent.at(-1)!;
    assert.ok(parseHostMessage(patch).ok);
    assert.ok(
      patch.type === 'patch' &&
        patch.ops.some((o) => o.op === 'plan' && o.plan?.currentStep === 2 && o.plan.steps[1].text === 'b'),
    );
    conn.receive({ type: 'ready' });
    const state = sent.at(-1)!;
    assert.ok(state.type === 'state' && state.snapshot.plan?.goal === 'Ship it');
    assert.ok(parseHostMessage(state).ok);
    // The webview's edits and restore requests reach the controller, validated.
    conn.receive({
      type: 'edit_plan',
      taskId: 'task-1',
      plan: { goal: 'Ship it', steps: [{ text: 'a', status: 'done' }], currentStep: 1 },
    });
    conn.receive({ type: 'restore_checkpoint', taskId: 'task-1', toolCallId: 'c1' });
    conn.receive({ type: 'edit_plan', taskId: 'task-1', plan: { goal: 'x', steps: [{ text: 'a', status: 'maybe' }] } });
    conn.receive({
      type: 'edit_plan',
      taskId: 'task-1',
      plan: { goal: 'x', steps: [{ text: 'a', status: 'done', extra: 1 }] },
    });
    assert.deepEqual(calls, [
      ['plan', 'task-1', { goal: 'Ship it', steps: [{ text: 'a', status: 'done' }], currentStep: 1 }],
      ['restore', 'task-1', 'c1'],
    ]);
    t.reset({});
    assert.equal(t.snapshot().plan, undefined);
  });

  it("annotates tool cards (checkpoint, a command's changed files), appends marks and rewinds to a step", () => {
    const t = new Transcript();
    t.apply({ type: 'run_start', runId: 'r', taskId: 'task-1', mode: 'code', maxIterations: 5, userMessage: 'go' });
    runWithTool(t, 'c1');
    runWithTool(t, 'c2');
    assert.equal(t.annotateTool('c1', { checkpoint: true }), true);
    assert.equal(t.annotateTool('nope', { checkpoint: true }), false);
    t.annotateTool('c2', { changedFiles: ['/w/out.txt'], changedFilesMore: 3 });
    const tools = t.getItems().filter((i) => i.kind === 'tool');
    assert.equal(tools[0].kind === 'tool' && tools[0].checkpoint, true);
    assert.deepEqual(tools[1].kind === 'tool' && [tools[1].changedFiles, tools[1].changedFilesMore], [
      ['/w/out.txt'],
      3,
    ]);
    t.addCheckpointMark({
      action: 'restore',
      step: 1,
      restored: ['/w/a.ts'],
      deleted: [],
      skipped: ['/w/b.ts'],
      conflicts: [],
      rewoundMessages: 2,
    });
    const mark = t.getItems().at(-1)!;
    assert.equal(mark.kind, 'checkpoint');
    assert.ok(parseHostMessage({ type: 'patch', seq: 1, ops: [{ op: 'append', item: mark }] }).ok);
    let resets = 0;
    t.subscribe((c) => void (c.kind === 'reset' && resets++));
    assert.equal(t.truncateAfterTools(['c1']), true);
    assert.equal(resets, 1);
    assert.deepEqual(
      t.getItems().map((i) => i.kind),
      ['user', 'tool'],
    );
    assert.equal(t.truncateAfterTools(['gone']), false);
  });

  it('rejects forged restore/plan messages', () => {
    assert.equal(parseWebviewMessage({ type: 'restore_checkpoint', taskId: 'a b', toolCallId: 'c' }).ok, false);
    assert.equal(parseWebviewMessage({ type: 'restore_checkpoint', taskId: 't' }).ok, false, 'no tool call');
    assert.equal(
      parseWebviewMessage({ type: 'restore_checkpoint', toolCallId: 'c' }).ok,
      true,
      'absent task id = the open task',
    );
    assert.equal(parseWebviewMessage({ type: 'edit_plan', taskId: 't', plan: { goal: 'g', steps: [] } }).ok, false);
    assert.equal(
      parseWebviewMessage({
        type: 'edit_plan',
        taskId: 't',
        plan: { goal: 'g', steps: Array.from({ length: 51 }, () => ({ text: 'x', status: 'done' })) },
      }).ok,
      false,
    );
  });
});

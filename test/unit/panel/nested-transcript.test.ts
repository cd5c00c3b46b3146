import { strict as assert } from 'node:assert';
import type { AgentEvent, RunReport } from '../../../src/core/loop/events';
import { PanelBridge } from '../../../src/panel/bridge';
import { Transcript } from '../../../src/panel/transcript';
import { parseHostMessage, type HostMessage, type ItemOf } from '../../../src/protocol/messages';
import { fakeHandlers } from './fake-handlers';

const R = 'run-1';
const report = (over: Partial<RunReport> = {}): RunReport => ({
  runId: R,
  taskId: 't',
  reason: 'done',
  detail: '1. Add a flag\n2. Test it',
  iterations: 2,
  steps: [],
  usage: { inputTokens: 10, outputTokens: 5 },
  elapsedMs: 10,
  ...over,
});
const sub = (event: AgentEvent): AgentEvent => ({ type: 'sub_agent', runId: R, parentCallId: 'call_1', event });
const C = 'task-sub-1-run-1';

describe('panel transcript: sub-agents, mode context, plan -> implement', () => {
  it("nests a sub-agent's items under the delegate card, namespaces its call ids, leaves the parent's status alone", () => {
    const t = new Transcript({ now: () => 1 });
    const ops = [
      { type: 'run_start', runId: R, taskId: 't', mode: 'agent', maxIterations: 25, userMessage: 'go' },
      { type: 'tool_call_start', runId: R, id: 'call_1', name: 'delegate_task' },
      { type: 'tool_call_end', runId: R, id: 'call_1', name: 'delegate_task', args: { task: 'inspect' } },
      sub({ type: 'run_start', runId: C, taskId: 'sub', mode: 'review', maxIterations: 10, userMessage: 'inspect' }),
      sub({ type: 'step_start', runId: C, iteration: 1, maxIterations: 10 }),
      sub({ type: 'text_delta', runId: C, delta: 'Looking.' }),
      // the child's model reuses the id "call_1": it must not touch the parent's card
      sub({ type: 'tool_call_start', runId: C, id: 'call_1', name: 'read_file' }),
      sub({ type: 'tool_call_end', runId: C, id: 'call_1', name: 'read_file', args: { path: 'a.ts' } }),
      sub({
        type: 'approval_requested',
        runId: C,
        request: { id: 'ap-9', taskId: 'sub', toolCallId: 'call_1', toolName: 'read_file', risk: 'read', args: {} },
      }),
      sub({ type: 'approval_resolved', runId: C, requestId: 'ap-9', decision: { kind: 'approve', scope: 'once' } }),
      sub({
        type: 'tool_result',
        runId: C,
        id: 'call_1',
        name: 'read_file',
        content: 'file text',
        isError: false,
        latencyMs: 3,
      }),
      sub({
        type: 'iteration',
        runId: C,
        iteration: 1,
        maxIterations: 10,
        usage: { inputTokens: 1, outputTokens: 1 },
        elapsedMs: 1,
        contextTokens: 1,
        contextWindow: 100,
      }),
      sub({ type: 'run_end', runId: C, report: report({ runId: C, detail: 'a.ts is fine' }) }),
    ] as AgentEvent[];
    for (const e of ops) t.apply(e);
    const items = t.getItems();
    const card = items.find((i) => i.kind === 'tool' && i.name === 'delegate_task') as ItemOf<'tool'>;
    assert.equal(card.status, 'running', 'the parent card waits for its own result');
    const nested = items.filter((i) => i.parentId === card.id);
    assert.deepEqual(
      nested.map((i) => i.kind),
      ['assistant', 'tool', 'approval'],
    );
    const childTool = nested[1] as ItemOf<'tool'>;
    assert.equal(childTool.status, 'done');
    assert.equal(childTool.result, 'file text');
    assert.equal((nested[2] as ItemOf<'approval'>).status, 'approved');
    assert.equal(items.filter((i) => i.kind === 'user').length, 1, "the child's task is not shown as a user message");
    assert.equal(
      items.some((i) => i.kind === 'run_end'),
      false,
      "the child's end is not the run's end",
    );
    assert.equal(t.snapshot().status.state, 'running');
    assert.equal(t.snapshot().progress?.maxIterations, 25, "the child's progress does not replace the parent's");
    t.apply({
      type: 'tool_result',
      runId: R,
      id: 'call_1',
      name: 'delegate_task',
      content: 'a.ts is fine',
      isError: false,
      latencyMs: 9,
    });
    assert.equal((t.getItems().find((i) => i.id === card.id) as ItemOf<'tool'>).status, 'done');
    // Every item still validates against the protocol.
    for (const item of t.getItems())
      assert.ok(parseHostMessage({ type: 'patch', seq: 1, ops: [{ op: 'append', item }] }).ok, item.kind);
  });

  it('a stopped sub-agent leaves no spinning card; the mode context is an item', () => {
    const t = new Transcript();
    t.apply({ type: 'run_start', runId: R, taskId: 't', mode: 'review', maxIterations: 10, userMessage: 'review' });
    t.apply({ type: 'mode_context', runId: R, mode: 'review', sources: ['git diff (2 files)'], tokens: 812 });
    t.apply({ type: 'tool_call_start', runId: R, id: 'call_1', name: 'delegate_task' });
    t.apply(sub({ type: 'tool_call_start', runId: C, id: 'c9', name: 'execute_command' }));
    t.apply(sub({ type: 'run_end', runId: C, report: report({ runId: C, reason: 'stopped', detail: 'Stopped' }) }));
    const ctx = t.getItems().find((i) => i.kind === 'context') as ItemOf<'context'>;
    assert.deepEqual(
      { mode: ctx.mode, sources: ctx.sources, tokens: ctx.tokens },
      { mode: 'review', sources: ['git diff (2 files)'], tokens: 812 },
    );
    const child = t.getItems().find((i) => i.kind === 'tool' && i.name === 'execute_command') as ItemOf<'tool'>;
    assert.equal(child.status, 'cancelled');
  });

  it('a plan-mode run that completes offers "Implement this plan"; other modes and endings do not', () => {
    const end = (mode: string, reason: RunReport['reason']) => {
      const t = new Transcript();
      t.apply({ type: 'run_start', runId: R, taskId: 't', mode, maxIterations: 20, userMessage: 'plan it' });
      t.apply({ type: 'run_end', runId: R, report: report({ reason }) });
      return t.getItems().find((i) => i.kind === 'run_end') as ItemOf<'run_end'>;
    };
    assert.deepEqual(end('plan', 'done').actions, ['implement_plan']);
    assert.deepEqual(end('agent', 'done').actions, []);
    assert.deepEqual(end('plan', 'max_iterations').actions, ['continue']);
  });

  it('bridge: implement_plan reaches its handler with a Stop signal; slash commands are resent on ready', () => {
    const calls: string[] = [];
    const handlers = fakeHandlers({
      implement_plan: ({ requestId }, signal) => void calls.push(`plan ${requestId} ${signal.aborted}`),
      stop: () => void calls.push('stop'),
    });
    const bridge = new PanelBridge(handlers, { info() {}, warn() {}, error() {} });
    bridge.post({
      type: 'slash_commands',
      commands: [{ name: 'help', description: 'List the commands', source: 'builtin' }],
    });
    const sent: HostMessage[] = [];
    const conn = bridge.connect((m) => void sent.push(m));
    conn.receive({ type: 'ready' });
    assert.deepEqual(
      sent.map((m) => m.type),
      ['state', 'slash_commands'],
    );
    conn.receive({ type: 'implement_plan', requestId: 'r1' });
    assert.deepEqual(calls, ['plan r1 false']);
    assert.equal(
      parseHostMessage({ type: 'slash_commands', commands: [{ name: 'bad name', description: '', source: 'x' }] }).ok,
      false,
    );
    assert.equal(parseHostMessage({ type: 'command_notice', text: 'Unknown command /x', level: 'error' }).ok, true);
  });
});

import assert from 'node:assert/strict';
import type { AgentDeps } from '../../../../src/core/loop/agent';
import { createDelegateTool } from '../../../../src/core/loop/delegate';
import type { AgentEvent } from '../../../../src/core/loop/events';
import { call, callsTurn, doneTurn, FakeClock, ScriptedModel, usage } from '../../../support/scripted-model';
import { assertHistoryConsistent, fakeReadTool, harness, ScriptedApprover } from '../../../support/loop-harness';

function withDelegate(turns: ConstructorParameters<typeof ScriptedModel>[0], config: AgentDeps['config'] = {}) {
  const model = new ScriptedModel(turns);
  const deps: AgentDeps = {
    model,
    approver: new ScriptedApprover(),
    clock: new FakeClock(),
    tools: [fakeReadTool()],
    taskId: 'p',
    config,
  };
  let agentHistory: () => readonly import('../../../../src/core/model/types').ChatMessage[] = () => [];
  deps.tools.push(createDelegateTool(deps, () => agentHistory()) as never);
  const h = harness([], deps);
  agentHistory = () => h.agent.history;
  return h;
}

describe('core/loop delegate_task: nesting, iterations, spend', () => {
  it("forwards the child's events as sub_agent events under the delegate call", async () => {
    const h = withDelegate([
      [...call('delegate_task', { task: 'look at a.ts', mode: 'review' }, 'parent-call'), usage(100, 10)],
      [...call('read_file', { path: 'a.ts' }, 'c1'), usage(50, 5)],
      [...doneTurn('a.ts is fine'), usage(60, 6)],
      doneTurn('all good'),
    ]);
    const report = await h.agent.send('check the code');
    assert.equal(report.reason, 'done');
    const nested = h.ofType('sub_agent');
    assert.ok(nested.length > 0);
    assert.ok(nested.every((e) => e.parentCallId === 'parent-call' && e.runId === report.runId));
    const inner = nested.map((e) => e.event.type);
    assert.equal(inner[0], 'run_start');
    assert.equal(inner.at(-1), 'run_end');
    const childStart = nested[0].event as Extract<AgentEvent, { type: 'run_start' }>;
    assert.equal(childStart.mode, 'review');
    assert.ok(nested.some((e) => e.event.type === 'tool_result' && e.event.name === 'read_file'));
    // The parent's own tool result for the delegate call carries the child's answer.
    const parentResult = h.ofType('tool_result').find((e) => e.id === 'parent-call');
    assert.equal(parentResult?.content, 'a.ts is fine');
    assertHistoryConsistent(h.agent.history);
  });

  it("counts the child's iterations and tokens in the parent's, and caps the child at what the parent has left", async () => {
    const h = withDelegate(
      [
        [...call('delegate_task', { task: 'dig', maxIterations: 50 }, 'd1'), usage(100, 10)],
        // child: reads forever; only 3 iterations are left for it (limit 4, the parent used 1)
        [...call('read_file', { path: 'x1' }), usage(10, 1)],
        [...call('read_file', { path: 'x2' }), usage(10, 1)],
        [...call('read_file', { path: 'x3' }), usage(10, 1)],
      ],
      { maxIterations: 4 },
    );
    const report = await h.agent.send('investigate');
    const childEnd = h
      .ofType('sub_agent')
      .map((e) => e.event)
      .find((e) => e.type === 'run_end') as Extract<AgentEvent, { type: 'run_end' }>;
    assert.equal(childEnd.report.reason, 'max_iterations');
    assert.equal(childEnd.report.iterations, 3);
    // 1 (own step) + 3 (child) = the limit: the parent stops without another model call.
    assert.equal(report.reason, 'max_iterations');
    assert.equal(report.iterations, 4);
    assert.equal(h.model.requests.length, 4);
    assert.equal(report.usage.inputTokens, 130);
    assert.equal(report.spend?.sub_agents?.usage.inputTokens, 30);
    assert.equal(report.spend?.sub_agents?.calls, 3);
  });

  it('refuses to delegate when no iterations are left', async () => {
    const h = withDelegate(
      [
        callsTurn(['delegate_task', { task: 'a' }]),
        // child uses its single remaining iteration... then the parent has none left
      ],
      { maxIterations: 1 },
    );
    const report = await h.agent.send('x');
    const result = h.ofType('tool_result').find((e) => e.name === 'delegate_task');
    assert.equal(report.reason, 'max_iterations');
    assert.equal(result?.isError, true);
    assert.match(result?.content ?? '', /No iterations left for a sub-task/);
  });

  it("a helper defaults to the task's current mode and never gets more rights than it", async () => {
    const h = withDelegate([
      callsTurn(['delegate_task', { task: 'fix it', mode: 'implement' }]),
      callsTurn(['delegate_task', { task: 'look around' }]),
      doneTurn('child looked'),
      doneTurn('parent done'),
    ]);
    h.agent.setMode('plan'); // after the Agent was built with mode 'agent'
    const report = await h.agent.send('plan it');
    assert.equal(report.reason, 'done');
    const [refused, ok] = h.ofType('tool_result').filter((e) => e.name === 'delegate_task');
    assert.equal(refused.isError, true);
    assert.match(refused.content, /more rights than this task's plan mode\. Use one of: plan, review/);
    assert.equal(ok.isError, false);
    const childStart = h
      .ofType('sub_agent')
      .map((e) => e.event)
      .find((e) => e.type === 'run_start') as Extract<AgentEvent, { type: 'run_start' }>;
    assert.equal(childStart.mode, 'plan');
    assert.equal(
      h.model.requests[2].tools.some((t) => t.name === 'write_file' || t.name === 'execute_command'),
      false,
    );
  });

  it("Stop cancels the child's model call and ends both runs as stopped; the history stays consistent", async () => {
    const h = withDelegate([callsTurn(['delegate_task', { task: 'slow' }]), { events: [], hang: 'ignore' }]);
    const running = h.agent.send('x');
    await new Promise((r) => setTimeout(r, 20));
    h.agent.stop();
    const report = await running;
    assert.equal(report.reason, 'stopped');
    const childEnd = h
      .ofType('sub_agent')
      .map((e) => e.event)
      .find((e) => e.type === 'run_end') as Extract<AgentEvent, { type: 'run_end' }> | undefined;
    assert.equal(childEnd?.report.reason, 'stopped');
    assertHistoryConsistent(h.agent.history);
  });
});

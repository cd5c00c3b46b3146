import assert from 'node:assert/strict';
import { delegate, createDelegateTool } from '../../../../src/core/loop/delegate';
import type { AgentDeps } from '../../../../src/core/loop/agent';
import type { MemoryItem, MemoryPort, ReflectionInput } from '../../../../src/core/memory/port';
import { callsTurn, doneTurn, FakeClock, ScriptedModel } from '../../../support/scripted-model';
import { fakeReadTool, harness, ScriptedApprover } from '../../../support/loop-harness';

function item(id: string, content: string): MemoryItem {
  return {
    id,
    type: 'procedural',
    content,
    context: 'c',
    confidence: 0.9,
    tags: [],
    scope: 'workspace',
    createdAt: '2024-01-01',
    accessCount: 0,
  };
}

class FakeMemory implements MemoryPort {
  recalls: { task: string; budget: number }[] = [];
  reflections: ReflectionInput[] = [];
  failReflect = false;
  async recall(task: string, tokenBudget: number) {
    this.recalls.push({ task, budget: tokenBudget });
    return { items: [item('m1', 'Use pnpm, not npm')], promptText: 'Learned before: Use pnpm, not npm.' };
  }
  async reflect(input: ReflectionInput) {
    this.reflections.push(input);
    if (this.failReflect) throw new Error('disk full');
    return input.trigger === 'run_end' ? [item('m2', 'Tests live in test/')] : [];
  }
}

describe('core/loop memory', () => {
  it('recalls at run start (dynamic layer), reflects at the end and after a tool error', async () => {
    const memory = new FakeMemory();
    let n = 0;
    const tool = fakeReadTool([], async (p) =>
      n++ === 0 ? { content: 'boom', isError: true } : { content: p, effects: { read: [p] } },
    );
    const h = harness([callsTurn(['read_file', { path: 'a' }]), doneTurn()], {
      memory,
      tools: [tool],
      config: { contextWindow: 10_000 },
    });
    const report = await h.agent.send('install deps');
    assert.equal(report.reason, 'done');
    // perceive budget = 10% of the 10k window; memories get 60% of it (the 60/30/10 split).
    assert.deepEqual(memory.recalls, [{ task: 'install deps', budget: 600 }]);
    const layers = h.model.requests[0].system;
    const memLayer = layers.find((l) => l.id === 'memory');
    assert.equal(memLayer?.text, 'Learned before: Use pnpm, not npm.');
    assert.equal(memLayer?.stable, false);
    assert.ok(layers.findIndex((l) => l.id === 'memory') > layers.findIndex((l) => l.stable));
    assert.deepEqual(h.ofType('memory_recalled')[0].memories, [
      { id: 'm1', content: 'Use pnpm, not npm', type: 'procedural' },
    ]);
    assert.deepEqual(
      memory.reflections.map((r) => r.trigger),
      ['tool_error', 'run_end'],
    );
    assert.equal(memory.reflections[1].report, report);
    // The run's model, behind the meter that books reflection usage on the run.
    assert.equal(memory.reflections[1].model.info, h.model.info);
    assert.deepEqual(h.ofType('memory_learned')[0].memories, [
      { id: 'm2', content: 'Tests live in test/', type: 'procedural' },
    ]);
    // memory_learned comes before run_end so the UI can show it with the report.
    const types = h.events.map((e) => e.type);
    assert.ok(types.indexOf('memory_learned') < types.indexOf('run_end'));
  });

  it('a failing reflection is a warning; the run still completes', async () => {
    const memory = new FakeMemory();
    memory.failReflect = true;
    const h = harness([doneTurn('ok')], { memory });
    const report = await h.agent.send('t');
    assert.equal(report.reason, 'done');
    assert.ok(h.ofType('warning').some((w) => /Reflection \(run_end\) failed: disk full/.test(w.message)));
  });
});

describe('core/loop delegate', () => {
  it('delegate() runs a sub-agent on a forked history and returns its result', async () => {
    const model = new ScriptedModel([
      callsTurn(['read_file', { path: 'mod.ts' }]),
      doneTurn('mod.ts exports 3 functions'),
    ]);
    const deps: AgentDeps = {
      model,
      approver: new ScriptedApprover(),
      clock: new FakeClock(),
      tools: [fakeReadTool()],
      taskId: 'parent',
    };
    const history = [
      { role: 'user' as const, content: 'parent task' },
      { role: 'assistant' as const, content: 'working on it' },
    ];
    const { report, result } = await delegate(deps, 'Inspect mod.ts', { history, maxIterations: 4, mode: 'review' });
    assert.equal(report.reason, 'done');
    assert.equal(result, 'mod.ts exports 3 functions');
    assert.equal(report.taskId.startsWith('parent-sub-'), true);
    const first = model.requests[0];
    assert.deepEqual(
      first.messages.map((m) => m.content),
      ['parent task', 'working on it', 'Inspect mod.ts'],
    );
    assert.match(first.system.map((l) => l.text).join('\n'), /Review mode/);
    assert.match(first.system.map((l) => l.text).join('\n'), /Iteration: 1\/4/);
    assert.equal(history.length, 2, 'the parent history is not modified');
  });

  it('delegate_task tool: the parent gets the sub-result as a tool result; no recursion', async () => {
    const model = new ScriptedModel([
      callsTurn(['delegate_task', { task: 'find the config file' }]),
      // child:
      callsTurn(['read_file', { path: 'config.json' }]),
      doneTurn('config is in config.json'),
      // parent again:
      doneTurn('finished'),
    ]);
    const deps: AgentDeps = {
      model,
      approver: new ScriptedApprover(),
      clock: new FakeClock(),
      tools: [fakeReadTool()],
      taskId: 'p',
    };
    let parentHistory: () => readonly import('../../../../src/core/model/types').ChatMessage[] = () => [];
    deps.tools.push(createDelegateTool(deps, () => parentHistory()) as never);
    const h = harness([], { ...deps });
    parentHistory = () => h.agent.history;
    const report = await h.agent.send('set things up');
    assert.equal(report.reason, 'done');
    const toolResult = model.requests[3].messages.at(-1)!;
    assert.equal(toolResult.role, 'tool');
    assert.equal(toolResult.content, 'config is in config.json');
    // The child did not see the delegate tool, nor the parent's dangling delegate call.
    assert.equal(
      model.requests[1].tools.some((t) => t.name === 'delegate_task'),
      false,
    );
    assert.deepEqual(
      model.requests[1].messages.map((m) => m.role),
      ['user', 'user'],
    );
  });

  it('aborting the parent signal stops the sub-agent', async () => {
    const model = new ScriptedModel([{ events: [], hang: 'ignore' }]);
    const deps: AgentDeps = { model, approver: new ScriptedApprover(), clock: new FakeClock(), tools: [] };
    const ac = new AbortController();
    const p = delegate(deps, 'long', { signal: ac.signal });
    await new Promise((r) => setTimeout(r, 5));
    ac.abort();
    const { report, result } = await p;
    assert.equal(report.reason, 'stopped');
    assert.match(result, /ended without finishing \(stopped\)/);
  });
});

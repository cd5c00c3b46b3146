// delegate_task and the hooks, as Claude Code fires them around its Task tool: PreToolUse (matcher "Task") can
// refuse a delegation before any helper runs; SubagentStart names the helper (agent_id, agent_type) and its
// context reaches it; SubagentStop carries agent_id, agent_type, last_assistant_message and stop_hook_active, and
// a block keeps the helper working. The helper's own message fires no UserPromptSubmit or SessionStart.
import assert from 'node:assert/strict';
import { ToolHooks } from '../../../../src/core/hooks/tool-hooks';
import { emptyVerdict, type HookEventName, type HookPort, type HookVerdict } from '../../../../src/core/hooks/types';
import type { AgentDeps } from '../../../../src/core/loop/agent';
import { loopControlTools } from '../../../../src/core/tools/loop-control';
import type { Tool } from '../../../../src/core/tools/types';
import { buildAgent } from '../../../../src/node/surface/agents';
import { call, doneTurn, FakeClock, ScriptedModel } from '../../../support/scripted-model';
import { fakeReadTool, ScriptedApprover } from '../../../support/loop-harness';

type Fired = { event: HookEventName; input: Record<string, unknown> };

/** A surface's hooks as HookService.wrapTools gives them: the tools and task_completion wrapped, wrapTool for delegate_task. */
function surface(model: ScriptedModel, answer: (f: Fired, n: number) => Partial<HookVerdict> = () => ({})) {
  const fired: Fired[] = [];
  const port: HookPort = {
    fire: async (event, input) => {
      const f = { event, input };
      fired.push(f);
      return { ...emptyVerdict(), ...answer(f, fired.filter((x) => x.event === event).length) };
    },
  };
  const tools = new ToolHooks(port, { notice: () => undefined });
  port.wrapTool = (t) => tools.wrap(t);
  const deps: AgentDeps = {
    model,
    approver: new ScriptedApprover(),
    clock: new FakeClock(),
    tools: [fakeReadTool(), ...loopControlTools].map((t: Tool) => tools.wrap(t)),
    taskId: 'p',
    config: { hooks: port },
  };
  return { agent: buildAgent(deps), fired };
}

const names = (fired: Fired[]) =>
  fired.map((f) => `${f.event}${f.input.tool_name ? `:${String(f.input.tool_name)}` : ''}`);

describe('hooks around delegate_task', () => {
  it('a PreToolUse hook refuses the delegation; no helper starts', async () => {
    const model = new ScriptedModel([
      call('delegate_task', { task: 'rewrite everything', mode: 'agent' }, 'd1'),
      doneTurn('did it myself'),
    ]);
    const { agent, fired } = surface(model, (f) =>
      f.event === 'PreToolUse' && f.input.tool_name === 'delegate_task' ? { block: 'no helpers in this repo' } : {},
    );
    const report = await agent.send('go');
    assert.equal(report.reason, 'done');
    const pre = fired.find((f) => f.event === 'PreToolUse')!;
    assert.equal(pre.input.tool_name, 'delegate_task');
    assert.deepEqual(
      names(fired).filter((n) => n.startsWith('Subagent')),
      [],
    );
    assert.equal(model.requests.length, 2, 'the helper never called the model');
    const refused = agent.history.find((m) => m.role === 'tool' && m.toolCallId === 'd1');
    assert.match(refused?.content ?? '', /Blocked by a PreToolUse hook: no helpers in this repo/);
  });

  it('SubagentStart and SubagentStop name the helper; start context reaches it; a stop block keeps it going', async () => {
    const model = new ScriptedModel([
      call('delegate_task', { task: 'check a.ts', mode: 'review' }, 'd1'),
      call('read_file', { path: 'a.ts' }),
      doneTurn('a.ts: first look'),
      doneTurn('a.ts is fine'),
      doneTurn('all good'),
    ]);
    const { agent, fired } = surface(model, (f, n) => {
      if (f.event === 'SubagentStart') return { context: ['house rule: report line numbers'] };
      if (f.event === 'SubagentStop' && n === 1) return { block: 'look again' };
      return {};
    });
    const report = await agent.send('review the code');
    assert.equal(report.reason, 'done');
    assert.deepEqual(
      names(fired).filter((n) => n !== 'PreToolUse:task_completion'),
      [
        'SessionStart',
        'UserPromptSubmit',
        'PreToolUse:delegate_task',
        'SubagentStart',
        'PreToolUse:read_file',
        'PostToolUse:read_file',
        'SubagentStop',
        'SubagentStop',
        'PostToolUse:delegate_task',
        'Stop',
      ],
    );
    const start = fired.find((f) => f.event === 'SubagentStart')!.input;
    assert.match(String(start.agent_id), /^p-sub-\d+$/);
    assert.equal(start.agent_type, 'review');
    assert.equal(start.session_id, 'p');
    const stops = fired.filter((f) => f.event === 'SubagentStop').map((f) => f.input);
    assert.deepEqual(
      stops.map((s) => [s.agent_id, s.agent_type, s.stop_hook_active, s.last_assistant_message, s.session_id]),
      [
        [start.agent_id, 'review', false, 'a.ts: first look', 'p'],
        [start.agent_id, 'review', true, 'a.ts is fine', 'p'],
      ],
    );
    // The helper's first request holds the task and the SubagentStart context.
    const helperTask = model.requests[1]!.messages.at(-1)!;
    assert.match(helperTask.content, /check a\.ts[\s\S]*house rule: report line numbers/);
    const delegated = agent.history.find((m) => m.role === 'tool' && m.toolCallId === 'd1');
    assert.equal(delegated?.content, 'a.ts is fine');
  });

  it('a helper that ends without finishing still fires SubagentStop (not blocking)', async () => {
    const model = new ScriptedModel([
      call('delegate_task', { task: 'dig', maxIterations: 1 }, 'd1'),
      [{ type: 'text', delta: 'still digging' }, ...call('read_file', { path: 'x' })],
      doneTurn('ok'),
    ]);
    const { agent, fired } = surface(model);
    await agent.send('go');
    const stop = fired.find((f) => f.event === 'SubagentStop');
    assert.ok(stop, names(fired).join(', '));
    assert.equal(stop.input.stop_hook_active, false);
    assert.equal(stop.input.agent_type, 'agent');
    assert.equal(stop.input.last_assistant_message, 'still digging');
  });
});

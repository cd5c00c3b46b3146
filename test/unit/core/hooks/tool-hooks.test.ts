// The tool wrapper: PreToolUse refuses before anything is asked, PostToolUse context joins the result, Stop keeps a
// task going (at most 8 times), a sub-agent's end fires SubagentStop, and a hook's "allow" grants nothing.
import assert from 'node:assert/strict';
import { z } from 'zod';
import { ToolHooks } from '../../../../src/core/hooks/tool-hooks';
import { emptyVerdict, type HookEventName, type HookPort, type HookVerdict } from '../../../../src/core/hooks/types';
import { taskCompletionTool } from '../../../../src/core/tools/loop-control';
import type { Tool, ToolContext } from '../../../../src/core/tools/types';

function port(answer: (event: HookEventName, input: Record<string, unknown>) => Partial<HookVerdict>) {
  const fired: { event: HookEventName; input: Record<string, unknown> }[] = [];
  const p: HookPort = {
    fire: async (event, input) => {
      fired.push({ event, input });
      return { ...emptyVerdict(), ...answer(event, input) };
    },
  };
  return { p, fired };
}
const ctx = (taskId = 'task-1'): ToolContext => ({ signal: new AbortController().signal, taskId, toolCallId: 'c1' });
const echo: Tool = {
  name: 'execute_command',
  description: '',
  input: z.object({ command: z.string() }),
  risk: 'execute',
  prepare: async () => ({ kind: 'ready', policyHint: () => ({ action: 'allow', reason: 'rule' }) }),
  execute: async () => ({ content: 'ran' }),
};

describe('hooks: ToolHooks', () => {
  it('PreToolUse block is a refusal the model reads; nothing runs', async () => {
    const { p } = port((e) => (e === 'PreToolUse' ? { block: 'not here' } : {}));
    const wrapped = new ToolHooks(p, { notice: () => undefined }).wrap(echo);
    const prepared = await wrapped.prepare!({ command: 'x' }, ctx());
    assert.equal(prepared.kind, 'refuse');
    assert.match(prepared.kind === 'refuse' ? prepared.result.content : '', /Blocked by a PreToolUse hook: not here/);
  });

  it('"ask" strips the tool\'s own allow; "allow" adds nothing', async () => {
    const ask = new ToolHooks(port(() => ({ permission: 'ask' })).p, { notice: () => undefined }).wrap(echo);
    const a = await ask.prepare!({ command: 'x' }, ctx());
    assert.equal(a.kind === 'ready' ? a.policyHint?.(new Set()) : 'x', undefined);
    const noRule: Tool = { ...echo, prepare: async () => ({ kind: 'ready' }) };
    const allow = new ToolHooks(port(() => ({ permission: 'allow' })).p, { notice: () => undefined }).wrap(noRule);
    const b = await allow.prepare!({ command: 'x' }, ctx());
    assert.equal(b.kind === 'ready' ? b.policyHint : 'x', undefined);
  });

  it('PostToolUse context joins the result, notices go to the user', async () => {
    const notices: string[] = [];
    const { p } = port((e) => (e === 'PostToolUse' ? { context: ['lint: 2 warnings'], notices: ['slow hook'] } : {}));
    const r = await new ToolHooks(p, { notice: (m) => notices.push(m) }).wrap(echo).execute({ command: 'x' }, ctx());
    assert.equal(r.content, 'ran\n\n[PostToolUse hook]\nlint: 2 warnings');
    assert.deepEqual(notices, ['slow hook']);
  });

  it('Stop blocks keep the task going at most 8 times; a sub-agent fires SubagentStop', async () => {
    const { p, fired } = port((e) => (e === 'Stop' || e === 'SubagentStop' ? { block: 'tests fail' } : {}));
    const notices: string[] = [];
    const done = new ToolHooks(p, { notice: (m) => notices.push(m) }).wrap(taskCompletionTool as unknown as Tool);
    const results = [];
    for (let i = 0; i < 9; i++) results.push(await done.execute({ result: 'ok' }, ctx()));
    assert.equal(results.filter((r) => r.isError).length, 8);
    assert.equal(results[8]!.isError, undefined);
    assert.match(notices.join('\n'), /blocked 8 times in a row/);
    assert.equal(fired[0]!.input.stop_hook_active, false);
    assert.equal(fired[1]!.input.stop_hook_active, true);
    await done.execute({ result: 'ok' }, ctx('task-1-sub-3'));
    assert.equal(fired.at(-1)!.event, 'SubagentStop');
  });
});

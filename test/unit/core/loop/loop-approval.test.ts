import assert from 'node:assert/strict';
import { z } from 'zod';
import type { Tool } from '../../../../src/core/tools/types';
import { callsTurn, doneTurn } from '../../../support/scripted-model';
import { fakeReadTool, fakeWriteTool, harness, ScriptedApprover } from '../../../support/loop-harness';

const writeA = () => callsTurn(['write_file', { path: 'a.ts', content: 'A' }]);

describe('core/loop approval and policy', () => {
  it('approve: preview reaches the approver, decision reaches the tool, events are emitted', async () => {
    const writes: Parameters<typeof fakeWriteTool>[0] = [];
    const approver = new ScriptedApprover([{ kind: 'approve', editedContent: 'A (edited)' }]);
    const h = harness([writeA(), doneTurn()], { tools: [fakeWriteTool(writes)] }, approver);
    const report = await h.agent.send('t');
    assert.equal(report.reason, 'done');
    assert.equal(approver.requests.length, 1);
    const req = approver.requests[0];
    assert.equal(req.toolName, 'write_file');
    assert.equal(req.risk, 'write');
    assert.equal(req.taskId, 'task-1');
    assert.deepEqual(req.preview, { kind: 'edit', path: 'a.ts', original: '', proposed: 'A', isNewFile: true });
    assert.deepEqual(writes[0].approval, { kind: 'approve', editedContent: 'A (edited)' });
    assert.equal(h.ofType('approval_requested')[0].request.id, req.id);
    assert.equal(h.ofType('approval_resolved')[0].requestId, req.id);
  });

  it('reject: the tool does not run and the model sees the reason', async () => {
    const writes: Parameters<typeof fakeWriteTool>[0] = [];
    const approver = new ScriptedApprover([{ kind: 'reject', reason: 'use tabs, not spaces' }]);
    const h = harness([writeA(), doneTurn()], { tools: [fakeWriteTool(writes)] }, approver);
    await h.agent.send('t');
    assert.equal(writes.length, 0);
    const result = h.model.requests[1].messages.at(-1)!;
    assert.equal(result.role, 'tool');
    assert.match(result.content, /^User rejected: use tabs, not spaces/);
  });

  it('allow for this task: the second call is not asked, and it survives dump/restore', async () => {
    const writes: Parameters<typeof fakeWriteTool>[0] = [];
    const approver = new ScriptedApprover([{ kind: 'approve', scope: 'task' }]);
    const h = harness(
      [writeA(), callsTurn(['write_file', { path: 'b.ts', content: 'B' }]), doneTurn()],
      { tools: [fakeWriteTool(writes)] },
      approver,
    );
    await h.agent.send('t');
    assert.equal(approver.requests.length, 1);
    assert.equal(writes.length, 2);
    assert.deepEqual(h.agent.dump().allowedForTask, ['write_file']);
  });

  it('deny by policy: error result, tool not run; repeated denials trip the guardrail', async () => {
    const writes: Parameters<typeof fakeWriteTool>[0] = [];
    const approver = new ScriptedApprover();
    const h = harness(
      [writeA(), writeA(), writeA(), doneTurn()],
      { tools: [fakeWriteTool(writes)], config: { policy: { byTool: { write_file: 'deny' } } } },
      approver,
    );
    const report = await h.agent.send('t');
    assert.equal(writes.length, 0);
    assert.equal(approver.requests.length, 0);
    assert.match(h.model.requests[1].messages.at(-1)!.content, /^Denied by policy: "write_file"/);
    assert.equal(report.reason, 'guardrail');
    assert.match(report.detail, /denied 3 calls \(write_file\)/);
  });

  it('per-risk allow skips approval', async () => {
    const approver = new ScriptedApprover();
    const h = harness(
      [writeA(), doneTurn()],
      {
        tools: [fakeWriteTool()],
        config: { policy: { byRisk: { read: 'allow', write: 'allow', execute: 'ask', network: 'ask' } } },
      },
      approver,
    );
    await h.agent.send('t');
    assert.equal(approver.requests.length, 0);
  });

  it('a failing preview falls back to a generic summary; the call is still asked', async () => {
    const tool: Tool = {
      name: 'run',
      description: 'r',
      risk: 'execute',
      input: z.object({ cmd: z.string() }),
      prepare: async () => ({
        kind: 'ready',
        preview: async () => {
          throw new Error('no terminal');
        },
      }),
      execute: async () => ({ content: 'ran' }),
    };
    const approver = new ScriptedApprover([{ kind: 'approve' }]);
    const h = harness([callsTurn(['run', { cmd: 'ls' }]), doneTurn()], { tools: [tool] }, approver);
    await h.agent.send('t');
    assert.deepEqual(approver.requests[0].preview, {
      kind: 'generic',
      summary: 'run (preview unavailable: no terminal)',
    });
    assert.equal(h.model.requests[1].messages.at(-1)!.content, 'ran');
  });
});

describe('core/loop parallel tool calls', () => {
  it('runs several read-only calls concurrently; results appended in call order', async () => {
    let active = 0;
    let maxActive = 0;
    const tool = fakeReadTool([], async (p) => {
      active++;
      maxActive = Math.max(maxActive, active);
      // Later calls finish first, to prove results are re-ordered into call order.
      await new Promise((r) => setTimeout(r, (4 - Number(p)) * 5));
      active--;
      return { content: `got ${p}`, effects: { read: [p] } };
    });
    const h = harness(
      [callsTurn(['read_file', { path: '1' }], ['read_file', { path: '2' }], ['read_file', { path: '3' }]), doneTurn()],
      { tools: [tool] },
    );
    await h.agent.send('t');
    assert.equal(maxActive, 3);
    const results = h.agent.history
      .filter((m) => m.role === 'tool' && m.toolName === 'read_file')
      .map((m) => m.content);
    assert.deepEqual(results, ['got 1', 'got 2', 'got 3']);
  });

  it('runs sequentially when a call is not read-only', async () => {
    let active = 0;
    let maxActive = 0;
    const order: string[] = [];
    const tool = fakeReadTool([], async (p) => {
      active++;
      maxActive = Math.max(maxActive, active);
      await new Promise((r) => setTimeout(r, 2));
      order.push(p);
      active--;
      return { content: p, effects: { read: [p] } };
    });
    const h = harness(
      [
        callsTurn(
          ['read_file', { path: '1' }],
          ['write_file', { path: 'w', content: '' }],
          ['read_file', { path: '2' }],
        ),
        doneTurn(),
      ],
      { tools: [tool, fakeWriteTool()] },
    );
    await h.agent.send('t');
    assert.equal(maxActive, 1);
    assert.deepEqual(order, ['1', '2']);
  });

  it('calls after a loop-control call in the same step are skipped', async () => {
    const reads: string[] = [];
    const h = harness([callsTurn(['task_completion', { result: 'done early' }], ['read_file', { path: 'late' }])], {
      tools: [fakeReadTool(reads)],
    });
    const report = await h.agent.send('t');
    assert.equal(report.reason, 'done');
    assert.deepEqual(reads, []);
    assert.match(h.agent.history.at(-1)!.content, /Skipped/);
  });
});

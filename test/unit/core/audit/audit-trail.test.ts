import assert from 'node:assert/strict';
import { z } from 'zod';
import { AuditTrail, digestArgs, type AuditSink } from '../../../../src/core/audit/audit-trail';
import { redactSecrets } from '../../../../src/core/audit/redact';
import type { Tool } from '../../../../src/core/tools/types';
import type { AgentDeps } from '../../../../src/core/loop/agent';
import { createDelegateTool } from '../../../../src/core/loop/delegate';
import type { ChatMessage } from '../../../../src/core/model/types';
import { call, callsTurn, doneTurn, FakeClock, ScriptedModel, textTurn, usage } from '../../../support/scripted-model';
import { fakeReadTool, fakeWriteTool, harness, ScriptedApprover } from '../../../support/loop-harness';

class MemorySink implements AuditSink {
  text = '';
  async append(lines: string): Promise<void> {
    this.text += lines;
  }
  records(): Record<string, unknown>[] {
    return this.text
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  }
}

const SECRET = 'sk-ant-api03-THISISASECRETKEYVALUE1234567890';

const commandTool: Tool = {
  name: 'execute_command',
  description: 'Run a command',
  input: z.object({ command: z.string() }),
  risk: 'execute',
  async execute() {
    return {
      content: 'ok\nExit code: 3',
      isError: true,
      data: { exitCode: 3, contained: true, blocked: [], timedOut: false },
    };
  },
};

describe('core/audit AuditTrail', () => {
  it('records tool calls with an args digest (never the args), decisions with who decided, commands, model calls and the run', async () => {
    const sink = new MemorySink();
    const trail = new AuditTrail(sink, { now: () => 1000 });
    const approver = new ScriptedApprover([
      { kind: 'approve', scope: 'once' },
      { kind: 'reject', reason: `no, my key is ${SECRET}` },
    ]);
    const h = harness(
      [
        callsTurn(['read_file', { path: 'a.ts' }]),
        callsTurn(['execute_command', { command: `curl -H "Authorization: Bearer ${SECRET}" https://x` }]),
        callsTurn(['write_file', { path: 'b.ts', content: `const key = "${SECRET}";` }]),
        doneTurn(),
      ],
      { tools: [fakeReadTool(), fakeWriteTool(), commandTool] },
      approver,
    );
    h.agent.on((e) => trail.onEvent(h.agent.taskId, e));
    await h.agent.send(`use ${SECRET}`);
    await trail.flush();
    const recs = sink.records();
    assert.ok(!sink.text.includes(SECRET), 'the secret never reaches the log');
    assert.ok(!sink.text.includes('const key'), 'arguments are not logged');
    const kinds = recs.map((r) => r.kind);
    assert.equal(kinds[0], 'run_start');
    assert.equal(kinds.at(-1), 'run_end');
    const calls = recs.filter((r) => r.kind === 'tool_call');
    assert.deepEqual(
      calls.map((c) => c.tool),
      ['read_file', 'execute_command', 'write_file', 'task_completion'],
    );
    assert.equal(calls[0].argsSha256, digestArgs({ path: 'a.ts' }));
    const decisions = recs.filter((r) => r.kind === 'decision');
    assert.deepEqual(
      decisions.map((d) => [d.tool, d.outcome, d.by]),
      [
        ['read_file', 'allow', 'policy'],
        ['execute_command', 'approve', 'user'],
        ['write_file', 'reject', 'user'],
        ['task_completion', 'allow', 'policy'],
      ],
    );
    assert.match(String(decisions[2].reason), /\[REDACTED\]/);
    const cmd = recs.find((r) => r.kind === 'command')!;
    assert.equal(cmd.exitCode, 3);
    assert.equal(cmd.contained, true);
    assert.match(String(cmd.command), /^curl -H "Authorization: (Bearer )?\[REDACTED\]" https:\/\/x$/);
    const models = recs.filter((r) => r.kind === 'model_call');
    assert.equal(models.length, 4);
    assert.ok(models.every((m) => typeof m.latencyMs === 'number' && m.usage && m.finishReason));
    assert.ok(recs.every((r) => r.taskId === 'task-1' && r.v === 1 && r.ts === 1000));
  });

  it('a task grant and auto-approval are told apart from the user', async () => {
    const sink = new MemorySink();
    const trail = new AuditTrail(sink);
    const approver = new ScriptedApprover([{ kind: 'approve', scope: 'task' }]);
    const h = harness(
      [
        callsTurn(['write_file', { path: 'a', content: '1' }]),
        callsTurn(['write_file', { path: 'b', content: '2' }]),
        doneTurn(),
      ],
      { tools: [fakeWriteTool()] },
      approver,
    );
    h.agent.on((e) => trail.onEvent('t', e));
    await h.agent.send('go');
    const h2 = harness(
      [
        callsTurn(['write_file', { path: 'c', content: '3' }]),
        callsTurn(['write_file', { path: 'd', content: '4' }]),
        doneTurn(),
      ],
      { tools: [fakeWriteTool()] },
      new ScriptedApprover([
        { kind: 'approve', auto: 'setting' },
        { kind: 'approve', auto: 'task_grant' },
      ]),
    );
    h2.agent.on((e) => trail.onEvent('t2', e));
    await h2.agent.send('go');
    await trail.flush();
    const d = sink
      .records()
      .filter((r) => r.kind === 'decision' && r.tool === 'write_file')
      .map((r) => [r.outcome, r.by, r.scope]);
    assert.deepEqual(d, [
      ['approve', 'user', 'task'],
      ['allow', 'task_grant', undefined],
      ['approve', 'auto', 'once'],
      ['approve', 'task_grant', 'once'],
    ]);
  });

  it('model calls besides the steps (a compaction summary) are model calls too, with their source and usage', async () => {
    const sink = new MemorySink();
    const trail = new AuditTrail(sink);
    const summarizer = new ScriptedModel([
      [...textTurn('## Goal\ng').slice(0, 1), usage(400, 40), { type: 'finish', reason: 'stop' }],
    ]);
    const turns = Array.from({ length: 5 }, (_, i) => callsTurn(['read_file', { path: `f${i}.ts` }]));
    turns.push(
      [...call('read_file', { path: 'last.ts' }), usage(1850, 10), { type: 'finish', reason: 'tool_calls' }],
      doneTurn(),
    );
    const h = harness(turns, { summarizer, config: { contextWindow: 2000 } });
    h.agent.on((e) => trail.onEvent('t', e));
    await h.agent.send('read');
    await trail.flush();
    const summary = sink.records().find((r) => r.kind === 'model_call' && r.source === 'compaction');
    assert.deepEqual(summary?.usage, { inputTokens: 400, outputTokens: 40 });
    assert.equal(summary?.calls, 1);
  });

  it("a sub-agent's tool calls, decisions and results are recorded one by one under the delegate call", async () => {
    const sink = new MemorySink();
    const trail = new AuditTrail(sink);
    const model = new ScriptedModel([
      [...call('delegate_task', { task: 'look at a.ts' }, 'd1'), usage(100, 10)],
      [...call('read_file', { path: 'a.ts' }, 'child-read'), usage(50, 5)],
      [...doneTurn('a.ts is fine'), usage(60, 6)],
      doneTurn('all good'),
    ]);
    const deps: AgentDeps = {
      model,
      approver: new ScriptedApprover(),
      clock: new FakeClock(),
      tools: [fakeReadTool()],
      taskId: 't',
    };
    let history: () => readonly ChatMessage[] = () => [];
    deps.tools.push(createDelegateTool(deps, () => history()) as never);
    const h = harness([], deps);
    history = () => h.agent.history;
    h.agent.on((e) => trail.onEvent('t', e));
    await h.agent.send('check');
    await trail.flush();
    const recs = sink.records();
    const nested = recs.filter((r) => r.parentCallId === 'd1');
    assert.deepEqual(
      nested.filter((r) => r.toolCallId === 'child-read').map((r) => r.kind),
      ['tool_call', 'decision', 'tool_result'],
      "the child read is audited like the parent's own calls",
    );
    assert.equal(nested.find((r) => r.kind === 'tool_call')?.tool, 'read_file');
    assert.deepEqual(
      nested.filter((r) => String(r.kind).startsWith('sub_agent')).map((r) => r.kind),
      ['sub_agent_start', 'sub_agent_end'],
    );
    assert.ok(
      nested.filter((r) => r.kind === 'model_call').every((r) => r.nested === true),
      "the child's model calls are marked nested (their spend is in the parent's)",
    );
    // The parent's run is not ended by the child's end.
    assert.deepEqual(recs.filter((r) => r.kind === 'run_end').length, 1);
    assert.ok(recs.some((r) => r.kind === 'tool_result' && r.toolCallId === 'd1' && r.parentCallId === undefined));
  });

  it('files written carry before/after hashes, restores are marked, and a failing sink never throws', async () => {
    const sink = new MemorySink();
    const trail = new AuditTrail(sink);
    trail.fileWritten({ taskId: 't', path: '/w/a.ts', before: null, after: `token=${SECRET}`, toolCallId: 'c1' });
    trail.restored({
      taskId: 't',
      action: 'restore',
      checkpoint: 2,
      restored: ['/w/a.ts'],
      deleted: [],
      conflicts: [{ path: '/w/b.ts', reason: 'modified since the task edited it' }],
      skipped: ['/w/b.ts'],
      rewoundMessages: 4,
    });
    await trail.flush();
    const [w, r] = sink.records();
    assert.equal(w.kind, 'file_write');
    assert.equal(w.beforeSha256, null);
    assert.match(String(w.afterSha256), /^[0-9a-f]{64}$/);
    assert.ok(!sink.text.includes(SECRET));
    assert.equal(r.kind, 'restore');
    assert.deepEqual(r.skipped, ['/w/b.ts']);
    assert.equal(r.rewoundMessages, 4);
    const logs: string[] = [];
    const broken = new AuditTrail(
      { append: () => Promise.reject(new Error('disk full')) },
      { log: (m) => logs.push(m) },
    );
    broken.note('x', {});
    await broken.flush();
    broken.dispose();
    assert.match(logs[0], /disk full/);
  });

  it('a full disk loses no line: they wait in memory, in order, and reach the log once it works again', async () => {
    let full = true;
    const sink = new MemorySink();
    const events: string[] = [];
    const trail = new AuditTrail(
      {
        append: (lines) => (full ? Promise.reject(new Error('ENOSPC: no space left on device')) : sink.append(lines)),
      },
      { retryMs: 10, onWriteFailed: () => events.push('failed'), onWriteRecovered: () => events.push('recovered') },
    );
    for (let i = 0; i < 70; i++) {
      trail.note('n', { i });
      if (i % 10 === 0) await trail.flush();
    }
    await trail.flush();
    assert.equal(sink.text, '');
    full = false;
    await new Promise((r) => setTimeout(r, 40)); // the retry, without any new event
    await trail.flush();
    assert.deepEqual(
      sink.records().map((r) => r.i),
      Array.from({ length: 70 }, (_, i) => i),
    );
    assert.deepEqual(events, ['failed', 'recovered'], 'told once each way');
    trail.dispose();
  });

  it('past the memory cap the oldest waiting lines go, and a gap line in the log says how many', async () => {
    let full = true;
    const sink = new MemorySink();
    const trail = new AuditTrail(
      { append: (lines) => (full ? Promise.reject(new Error('EROFS')) : sink.append(lines)) },
      { retryMs: 60_000, maxBacklogChars: 400 },
    );
    for (let i = 0; i < 20; i++) {
      trail.note('n', { i });
      await trail.flush();
    }
    full = false;
    trail.note('n', { i: 20 });
    await trail.flush();
    const records = sink.records();
    assert.equal(records[0].kind, 'audit_gap');
    const kept = records.slice(1).map((r) => r.i as number);
    assert.equal((records[0].dropped as number) + kept.length, 21, 'every line is either in the log or counted');
    assert.deepEqual(
      kept,
      [...kept].sort((a, b) => a - b),
    );
    assert.equal(kept.at(-1), 20);
    trail.dispose();
  });

  it('redactSecrets scrubs keys, tokens, passwords and URL credentials but keeps ordinary text', () => {
    const cases = [
      `export OPENAI_API_KEY=${SECRET}`,
      'git clone https://bob:hunter2pass@example.com/r.git',
      'mysql --password=hunter2 -u root',
      'token ghp_abcdefghijklmnopqrstuvwxyz0123',
      'AKIAABCDEFGHIJKLMNOP',
      '{"apiKey": "abc123secretvalue"}',
      '-----BEGIN RSA PRIVATE KEY-----\nMIIB\n-----END RSA PRIVATE KEY-----',
    ];
    for (const c of cases) {
      const out = redactSecrets(c);
      assert.match(out, /\[REDACTED\]/, c);
      assert.ok(!/hunter2|ghp_abc|AKIAABC|abc123secret|MIIB|THISISASECRET/.test(out), `${c} -> ${out}`);
    }
    assert.equal(redactSecrets('npm test -- --grep parser'), 'npm test -- --grep parser');
  });
});

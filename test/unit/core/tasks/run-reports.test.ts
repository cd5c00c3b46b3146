import * as assert from 'node:assert/strict';
import { runReportMarkdown, runTotals } from '../../../../src/core/tasks/run-report-format';
import { RunReportStore } from '../../../../src/core/tasks/run-reports';
import { callsTurn, doneTurn } from '../../../support/scripted-model';
import { InMemoryTasksIO } from '../../../support/memory-tasks-io';
import { fakeReadTool, harness } from '../../../support/loop-harness';

describe('tasks/run reports', () => {
  it("stores each run's report with the task (without tool arguments), newest `keep` kept", async () => {
    const io = new InMemoryTasksIO();
    const store = new RunReportStore('/s', { io, keep: 2, now: () => 42 });
    const h = harness([callsTurn(['read_file', { path: 'secret-arg.ts' }]), doneTurn(), doneTurn('b'), doneTurn('c')], {
      tools: [fakeReadTool()],
    });
    h.agent.on((e) => {
      if (e.type === 'run_end') void store.append(h.agent.taskId, e.report);
    });
    await h.agent.send('one');
    await h.agent.send('two');
    await h.agent.send('three');
    const list = await store.list('task-1');
    assert.equal(list.length, 2);
    assert.deepEqual(
      list.map((r) => r.runId),
      ['task-1-run-2', 'task-1-run-3'],
    );
    assert.ok(![...io.files.values()].some((f) => f.text.includes('secret-arg')), 'arguments are not stored');
    assert.equal(list[0].endedAt, 42);
    await store.removeTask('task-1');
    assert.deepEqual(await store.list('task-1'), []);
  });

  it('renders Markdown with per-step model latency, usage, finish reason, per-call latency/size/error and the totals', async () => {
    const store = new RunReportStore('/s', { io: new InMemoryTasksIO(), now: () => Date.UTC(2026, 0, 1) });
    const failing = fakeReadTool([], async () => ({ content: 'ENOENT: no such file', isError: true }));
    const h = harness([callsTurn(['read_file', { path: 'a' }]), doneTurn()], { tools: [failing] });
    const report = await h.agent.send('go');
    await store.append('task-1', report);
    const [stored] = await store.list('task-1');
    const t = runTotals(stored);
    assert.equal(t.toolCalls, 2);
    assert.equal(t.toolErrors, 1);
    const md = runReportMarkdown('Fix | the bug', [stored]);
    assert.match(md, /^# Run report: Fix \\\| the bug/);
    assert.match(md, /## Run 1: done \(2026-01-01T00:00:00\.000Z\)/);
    assert.match(md, /\*\*model time \d+ ms\*\* · \*\*tool time \d+ ms\*\*/);
    assert.match(
      md,
      /\| 1 \| \d+ ms \| 100 \| 10 \| {2}\| tool_calls \| read_file \d+ ms, \d+ chars, \*\*error\*\* \(tool\): ENOENT: no such file \|/,
    );
    assert.match(md, /Tool calls: 2 \(1 failed\)/);
    assert.match(runReportMarkdown('t', []), /No run of this task has finished yet/);
  });
});

describe('loop/run report totals', () => {
  it('a run report carries its model time, tool time, calls and failed calls', async () => {
    const slow = fakeReadTool([], async (_p, _ctx) => ({ content: 'x' }));
    const h = harness([callsTurn(['read_file', { path: 'a' }], ['read_file', { path: 'b' }]), doneTurn()], {
      tools: [slow],
    });
    const report = await h.agent.send('go');
    const t = report.totals!;
    assert.equal(t.toolCalls, 3);
    assert.equal(t.toolErrors, 0);
    assert.equal(
      t.modelMs,
      report.steps.reduce((n, s) => n + s.latencyMs, 0),
    );
    assert.equal(
      t.toolMs,
      report.steps.flatMap((s) => s.toolCalls).reduce((n, c) => n + c.latencyMs, 0),
    );
  });
});

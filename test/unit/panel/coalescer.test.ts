import { strict as assert } from 'node:assert';
import type { PatchOp } from '../../../src/protocol/messages';
import { PatchCoalescer, type Scheduler } from '../../../src/panel/coalescer';
import { Transcript } from '../../../src/panel/transcript';

/** Manual clock: timers fire only when the test advances time. */
class FakeScheduler implements Scheduler {
  now = 0;
  private timers: { at: number; fn: () => void; id: number }[] = [];
  private nextId = 1;
  setTimeout(fn: () => void, ms: number): unknown {
    const id = this.nextId++;
    this.timers.push({ at: this.now + ms, fn, id });
    return id;
  }
  clearTimeout(h: unknown): void {
    this.timers = this.timers.filter((t) => t.id !== h);
  }
  advance(ms: number): void {
    this.now += ms;
    const due = this.timers.filter((t) => t.at <= this.now);
    this.timers = this.timers.filter((t) => t.at > this.now);
    for (const t of due) t.fn();
  }
  get pending(): number {
    return this.timers.length;
  }
}

describe('panel delta coalescing', () => {
  it('turns a fast token stream into one batch per interval', () => {
    const sched = new FakeScheduler();
    const batches: PatchOp[][] = [];
    const c = new PatchCoalescer((ops) => batches.push(ops), { intervalMs: 16, scheduler: sched });
    const t = new Transcript();
    t.subscribe((ch) => {
      if (ch.kind === 'ops') c.push(ch.ops);
    });
    t.apply({ type: 'run_start', runId: 'r', taskId: 't', mode: 'm', maxIterations: 5, userMessage: '' });
    for (let i = 0; i < 1000; i++) t.apply({ type: 'text_delta', runId: 'r', delta: `w${i} ` });
    assert.equal(batches.length, 0, 'nothing is posted before the interval elapses');
    assert.equal(sched.pending, 1, 'one timer, not one per delta');
    sched.advance(16);
    assert.equal(batches.length, 1);
    const appended = batches[0]!.filter((o) => o.op === 'append');
    assert.equal(appended.length, 1, 'the deltas folded into the append');
    const first = appended[0]!;
    assert.ok(first.op === 'append' && first.item.kind === 'assistant');
    if (first.op === 'append' && first.item.kind === 'assistant')
      assert.ok(first.item.text.startsWith('w0 w1 ') && first.item.text.endsWith('w999 '));
    assert.equal(batches[0]!.filter((o) => o.op === 'delta').length, 0);

    for (let i = 0; i < 500; i++) t.apply({ type: 'text_delta', runId: 'r', delta: 'x' });
    sched.advance(16);
    assert.equal(batches.length, 2);
    assert.deepEqual(batches[1], [{ op: 'delta', id: 'i1', field: 'text', delta: 'x'.repeat(500) }]);
  });

  it('keeps only the latest update, progress and status', () => {
    const sched = new FakeScheduler();
    const batches: PatchOp[][] = [];
    const c = new PatchCoalescer((ops) => batches.push(ops), { scheduler: sched });
    const tool = (status: 'running' | 'done') => ({
      id: 'i9',
      ts: 0,
      kind: 'tool' as const,
      toolCallId: 'c',
      name: 'n',
      argsText: '',
      argsSummary: '',
      status,
      resultTruncated: false,
    });
    c.push([
      { op: 'update', item: tool('running') },
      { op: 'progress', progress: { iteration: 1, maxIterations: 5, inputTokens: 1, outputTokens: 1, elapsedMs: 1 } },
    ]);
    c.push([
      { op: 'update', item: tool('done') },
      { op: 'progress', progress: { iteration: 2, maxIterations: 5, inputTokens: 2, outputTokens: 2, elapsedMs: 2 } },
    ]);
    c.push([
      { op: 'status', status: { state: 'running' } },
      { op: 'status', status: { state: 'idle' } },
    ]);
    sched.advance(16);
    assert.deepEqual(batches[0], [
      { op: 'update', item: tool('done') },
      { op: 'progress', progress: { iteration: 2, maxIterations: 5, inputTokens: 2, outputTokens: 2, elapsedMs: 2 } },
      { op: 'status', status: { state: 'idle' } },
    ]);
  });

  it('keeps deltas of different items and fields apart and in order', () => {
    const batches: PatchOp[][] = [];
    const c = new PatchCoalescer((ops) => batches.push(ops), { scheduler: new FakeScheduler() });
    c.push([
      { op: 'delta', id: 'a', field: 'text', delta: '1' },
      { op: 'delta', id: 'b', field: 'argsText', delta: '{' },
      { op: 'delta', id: 'a', field: 'text', delta: '2' },
      { op: 'end_stream', id: 'a' },
      { op: 'delta', id: 'b', field: 'argsText', delta: '}' },
    ]);
    c.flush();
    assert.deepEqual(batches[0], [
      { op: 'delta', id: 'a', field: 'text', delta: '12' },
      { op: 'delta', id: 'b', field: 'argsText', delta: '{}' },
      { op: 'end_stream', id: 'a' },
    ]);
  });

  it('does not mutate the ops it was given', () => {
    const batches: PatchOp[][] = [];
    const c = new PatchCoalescer((ops) => batches.push(ops), { scheduler: new FakeScheduler() });
    const item = { id: 'a', ts: 0, kind: 'assistant' as const, text: 'he', streaming: true };
    c.push([
      { op: 'append', item },
      { op: 'delta', id: 'a', field: 'text', delta: 'llo' },
    ]);
    c.flush();
    assert.equal(item.text, 'he');
    assert.deepEqual(batches[0], [{ op: 'append', item: { ...item, text: 'hello' } }]);
  });

  it('discard drops pending ops and the timer', () => {
    const sched = new FakeScheduler();
    const batches: PatchOp[][] = [];
    const c = new PatchCoalescer((ops) => batches.push(ops), { scheduler: sched });
    c.push([{ op: 'end_stream', id: 'a' }]);
    c.discard();
    sched.advance(100);
    assert.equal(batches.length, 0);
    assert.equal(sched.pending, 0);
  });
});

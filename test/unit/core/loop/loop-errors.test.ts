import assert from 'node:assert/strict';
import { ModelError } from '../../../../src/core/model/errors';
import { TransientToolError } from '../../../../src/core/tools/types';
import { call, callsTurn, doneTurn, text } from '../../../support/scripted-model';
import { assertHistoryConsistent, fakeReadTool, harness } from '../../../support/loop-harness';

describe('core/loop errors and retries', () => {
  it('transient tool error is retried with 1 s then 2 s backoff', async () => {
    let attempts = 0;
    const tool = fakeReadTool([], async (p) => {
      if (++attempts < 3) throw new TransientToolError('EBUSY');
      return { content: `read ${p}`, effects: { read: [p] } };
    });
    const h = harness([callsTurn(['read_file', { path: 'a' }]), doneTurn()], { tools: [tool] });
    const report = await h.agent.send('t');
    assert.equal(report.reason, 'done');
    assert.deepEqual(h.clock.sleeps, [1000, 2000]);
    assert.equal(report.steps[0].toolCalls[0].attempts, 3);
    assert.equal(report.steps[0].toolCalls[0].error, undefined);
    assert.equal(h.model.requests[1].messages.at(-1)!.content, 'read a');
  });

  it('transient tool error gives up after 1, 2, 4 s with an error result', async () => {
    const tool = fakeReadTool([], async () => {
      throw new TransientToolError('EBUSY');
    });
    const h = harness([callsTurn(['read_file', { path: 'a' }]), doneTurn()], { tools: [tool] });
    const report = await h.agent.send('t');
    assert.deepEqual(h.clock.sleeps, [1000, 2000, 4000]);
    assert.equal(report.steps[0].toolCalls[0].attempts, 4);
    assert.match(h.model.requests[1].messages.at(-1)!.content, /failed after 4 attempts: EBUSY/);
  });

  it('retryable model error: retry-after is honoured, a retry warning is emitted, then success', async () => {
    const h = harness([
      { error: new ModelError('rate_limit', 'Too many requests', { status: 429, retryAfterMs: 7000 }) },
      { error: new ModelError('server', 'Internal error', { status: 500 }) },
      doneTurn('ok'),
    ]);
    const report = await h.agent.send('t');
    assert.equal(report.reason, 'done');
    assert.deepEqual(h.clock.sleeps, [7000, 2000]);
    const retries = h.ofType('warning').filter((w) => w.kind === 'retry');
    // One line that updates in place: two retries, then "recovered".
    assert.equal(retries.length, 3);
    assert.equal(new Set(retries.map((w) => w.key)).size, 1);
    assert.match(retries[0].message, /^Rate limited \(429\); retry 1\/3 in 7 s/);
    assert.match(retries[2].message, /recovered on retry 2\/3/);
    assert.equal(report.iterations, 1); // retries do not count as iterations
  });

  it('retry-after is capped', async () => {
    const h = harness([{ error: new ModelError('rate_limit', 'slow down', { retryAfterMs: 600_000 }) }, doneTurn()]);
    await h.agent.send('t');
    assert.deepEqual(h.clock.sleeps, [30_000]);
  });

  it('gives up after the retry budget with reason error and advice', async () => {
    const err = () => ({ error: new ModelError('overloaded', 'Overloaded', { status: 529 }) });
    const h = harness([err(), err(), err(), err(), doneTurn()]);
    const report = await h.agent.send('t');
    assert.equal(report.reason, 'error');
    assert.equal(h.model.requests.length, 4);
    assert.match(report.detail, /Overloaded/);
  });

  it('auth error stops at once with the advice; the user message is kept', async () => {
    const h = harness([{ error: new ModelError('auth', 'Invalid API key', { status: 401 }) }, doneTurn()]);
    const report = await h.agent.send('do it');
    assert.equal(report.reason, 'error');
    assert.match(report.detail, /Invalid API key/);
    assert.match(report.detail, /Forge: Set API Key/);
    assert.equal(h.model.requests.length, 1);
    assert.deepEqual(h.agent.history, [{ role: 'user', content: 'do it', turnId: 'task-1-turn-1' }]);
    assert.equal(report.steps[0].error, 'auth: Invalid API key');
    // The conversation can go on afterwards.
    assert.equal((await h.agent.send('again')).reason, 'done');
  });

  it('stream cut mid tool call: the partial turn is discarded and the step retried', async () => {
    const h = harness([
      {
        events: [
          text('Reading '),
          { type: 'tool_call_start', id: 'p1', name: 'read_file' },
          { type: 'tool_call_delta', id: 'p1', argsDelta: '{"pa' },
        ],
        error: new ModelError('stream', 'stream cut'),
      },
      [text('Reading '), ...call('read_file', { path: 'a' }, 'c2'), { type: 'finish', reason: 'tool_calls' }],
      doneTurn(),
    ]);
    const report = await h.agent.send('t');
    assert.equal(report.reason, 'done');
    assert.deepEqual(h.clock.sleeps, [1000]);
    const assistants = h.agent.history.filter((m) => m.role === 'assistant');
    assert.equal(assistants[0].content, 'Reading ');
    assert.equal((assistants[0] as { toolCalls: { id: string }[] }).toolCalls[0].id, 'c2');
    // The retried request is the same conversation as the failed one (nothing half-written leaked in).
    assert.deepEqual(h.model.requests[1].messages, h.model.requests[0].messages);
    assertHistoryConsistent(h.agent.history);
  });

  it('an unexpected (non-ModelError) failure ends the run with reason error, never a rejection', async () => {
    const h = harness([{ error: new TypeError('boom') }]);
    const report = await h.agent.send('t');
    assert.equal(report.reason, 'error');
    assert.match(report.detail, /boom/);
  });
});

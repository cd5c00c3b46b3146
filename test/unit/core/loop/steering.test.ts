import assert from 'node:assert/strict';
import type { AgentEvent } from '../../../../src/core/loop/events';
import { callsTurn, doneTurn, textTurn, type RecordedRequest } from '../../../support/scripted-model';
import { assertHistoryConsistent, fakeReadTool, harness, type Harness } from '../../../support/loop-harness';

describe('core/loop steering (messages typed while a run works)', () => {
  it('a steer typed during a step is delivered at the next step boundary as a user turn, without stopping', async () => {
    const reads: string[] = [];
    const h: Harness = harness(
      [
        () => {
          // The user types while the model works on step 1.
          assert.ok(h.agent.steer('Use src/b.ts instead'));
          return callsTurn(['read_file', { path: 'src/a.ts' }]);
        },
        callsTurn(['read_file', { path: 'src/b.ts' }]),
        doneTurn('done with b'),
      ],
      { tools: [fakeReadTool(reads)] },
    );
    const report = await h.agent.send('Read a file');
    assert.equal(report.reason, 'done');
    assert.deepEqual(reads, ['src/a.ts', 'src/b.ts']);
    // Step 2's request ends with the tool result, then the user's words.
    const second = h.model.requests[1].messages;
    assert.equal(second.at(-2)!.role, 'tool');
    assert.deepEqual(second.at(-1), {
      role: 'user',
      content: 'Use src/b.ts instead',
      turnId: h.ofType('user_steer')[0].turnId,
    });
    // Not in the first request (it was typed after it left).
    assert.ok(!h.model.requests[0].messages.some((m) => m.content === 'Use src/b.ts instead'));
    const steer = h.ofType('user_steer');
    assert.equal(steer.length, 1);
    assert.equal(steer[0].text, 'Use src/b.ts instead');
    // One run: the steer did not end or restart it.
    assert.equal(h.ofType('run_start').length, 1);
    assert.equal(h.ofType('run_end').length, 1);
    // The event comes after step 1 ended and before step 2 started.
    const types = h.events.map((e: AgentEvent) => e.type);
    const at = types.indexOf('user_steer');
    assert.ok(types.slice(0, at).includes('step_end'));
    assert.equal(types.slice(at).indexOf('step_start'), 1);
    assertHistoryConsistent(h.agent.history);
  });

  it('a steer waiting when the model says "done" keeps the run going', async () => {
    const h: Harness = harness([
      () => {
        h.agent.steer('Also add a test');
        return doneTurn('Fixed the bug');
      },
      (req: RecordedRequest) => {
        assert.equal(req.messages.at(-1)!.content, 'Also add a test');
        return doneTurn('Added the test too');
      },
    ]);
    const report = await h.agent.send('Fix the bug');
    assert.equal(report.reason, 'done');
    assert.equal(report.detail, 'Added the test too');
    assert.equal(h.model.requests.length, 2);
    assert.deepEqual(h.agent.takeUndelivered(), []);
  });

  it('steer() with no run in flight returns undefined (the caller sends instead)', () => {
    const h = harness([]);
    assert.equal(h.agent.steer('hello'), undefined);
  });

  it('a steer the run could not deliver (stopped) is handed back, not lost', async () => {
    const h: Harness = harness([
      () => {
        h.agent.steer('one more thing');
        h.agent.stop();
        return textTurn('partial');
      },
    ]);
    const report = await h.agent.send('go');
    assert.equal(report.reason, 'stopped');
    const left = h.agent.takeUndelivered();
    assert.deepEqual(
      left.map((m) => m.text),
      ['one more thing'],
    );
    assert.deepEqual(h.agent.takeUndelivered(), []);
  });

  it('rewindToTurn drops the message and all after it, and names the tool calls made from it on', async () => {
    const h = harness(
      [
        callsTurn(['read_file', { path: 'a' }]),
        doneTurn('first'),
        callsTurn(['read_file', { path: 'b' }]),
        doneTurn('second'),
      ],
      { tools: [fakeReadTool()] },
    );
    await h.agent.send('first task');
    const before = h.agent.history.length;
    await h.agent.send('second task');
    const second = h.ofType('run_start')[1].turnId!;
    assert.match(second, /turn-2$/);
    const calls = h.agent.history
      .slice(before)
      .flatMap((m) => (m.role === 'assistant' ? (m.toolCalls ?? []).map((c) => c.id) : []));
    const r = h.agent.rewindToTurn(second);
    assert.ok(r);
    assert.equal(h.agent.history.length, before);
    assert.deepEqual(r.toolCallIds, calls);
    assert.equal(r.toolCallIds.length, 2); // read_file + task_completion
    assert.equal(h.agent.rewindToTurn('no-such-turn'), undefined);
    assert.equal(h.agent.rewindToTurn(second), undefined);
  });
});

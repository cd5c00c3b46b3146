import assert from 'node:assert/strict';
import { SUMMARY_MARKER } from '../../../../src/core/context/compaction';
import { doneTurn, ScriptedModel, text, usage } from '../../../support/scripted-model';
import { harness } from '../../../support/loop-harness';

describe('core/loop Agent.compact (the /compact command)', () => {
  it('summarises the middle of the conversation now, keeps the task and the latest exchange, books the usage', async () => {
    const model = new ScriptedModel([
      doneTurn('first done'),
      doneTurn('second done'),
      doneTurn('third done'),
      [text('Goal: x\nDecisions: y'), usage(500, 40)],
    ]);
    const h = harness([], { model, config: { price: () => 0.5 } });
    await h.agent.send('the task');
    await h.agent.send('second message');
    await h.agent.send('third message');
    const before = h.agent.history.length;
    const costBefore = h.agent.dump().costUsd ?? 0;
    const result = await h.agent.compact();
    assert.ok(result);
    assert.ok(h.agent.history.length < before);
    assert.equal(h.agent.history[0].content, 'the task');
    assert.ok(h.agent.history[1].content.startsWith(SUMMARY_MARKER));
    assert.equal(h.agent.history.at(-3)?.content, 'third message');
    assert.equal(h.ofType('compaction').length, 1);
    assert.equal(h.agent.dump().costUsd, costBefore + 0.5, 'the summary call is paid by the task');
    assert.ok(h.agent.dump().usage.inputTokens >= 500);
  });

  it('returns undefined when there is too little to compact; refuses while a run is going', async () => {
    const model = new ScriptedModel([doneTurn('ok'), { events: [], hang: 'ignore' }]);
    const h = harness([], { model });
    await h.agent.send('only one');
    assert.equal(await h.agent.compact(), undefined);
    const running = h.agent.send('again');
    await assert.rejects(h.agent.compact(), /already running/);
    h.agent.stop();
    await running;
  });
});

import assert from 'node:assert/strict';
import { callsTurn, doneTurn } from '../../../support/scripted-model';
import { assertHistoryConsistent, fakeWriteTool, harness, ScriptedApprover } from '../../../support/loop-harness';

describe('core/loop rewinding to a checkpoint and notes', () => {
  it('rewindToToolCall keeps the step with its results and drops everything after; the history stays valid', async () => {
    const h = harness(
      [
        { events: callsTurn(['write_file', { path: 'a', content: '1' }]) },
        callsTurn(['write_file', { path: 'b', content: '2' }]),
        doneTurn(),
      ],
      { tools: [fakeWriteTool()] },
      new ScriptedApprover([{ kind: 'approve' }, { kind: 'approve' }]),
    );
    await h.agent.send('go');
    const firstCall = h.ofType('tool_call_end')[0].id;
    const before = h.agent.history.length;
    const dropped = h.agent.rewindToToolCall(firstCall);
    assert.equal(h.agent.history.length, 3, 'user, assistant(call), tool result');
    assert.equal(dropped, before - 3);
    assertHistoryConsistent(h.agent.history);
    assert.equal(h.agent.rewindToToolCall('unknown'), undefined);
    assert.equal(h.agent.dump().iterations, 0);
  });

  it('a note reaches the model with the next user message, once', async () => {
    const h = harness([doneTurn(), doneTurn()]);
    h.agent.addNote('The user restored the files to checkpoint 1.');
    await h.agent.send('next');
    assert.equal(
      h.model.requests[0].messages.at(-1)!.content,
      '[Forge] The user restored the files to checkpoint 1.\n\nnext',
    );
    assert.equal(h.ofType('run_start')[0].userMessage, 'next', 'the panel shows what the user typed');
    await h.agent.send('again');
    assert.equal(h.model.requests[1].messages.filter((m) => m.role === 'user').at(-1)!.content, 'again');
  });
});

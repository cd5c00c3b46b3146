import { strict as assert } from 'node:assert';
import type { AgentEvent } from '../../../src/core/loop/events';
import { Transcript } from '../../../src/panel/transcript';

const start = (runId: string): AgentEvent => ({
  type: 'run_start',
  runId,
  taskId: 't1',
  mode: 'agent',
  maxIterations: 25,
  userMessage: '',
});

describe('panel/Transcript: a Continue already answered cannot be pressed again', () => {
  it('a new run takes Continue and Retry off earlier notices; other actions stay', () => {
    const t = new Transcript();
    t.addError('Forge was reloaded while this task was running. Press Continue to resume.', ['continue', 'show_logs']);
    t.addError('The model endpoint did not answer.', ['retry', 'select_model']);
    t.apply(start('run-2'));
    const actions = t
      .getItems()
      .filter((i) => i.kind === 'error')
      .map((i) => (i as { actions?: string[] }).actions);
    assert.deepEqual(actions, [['show_logs'], ['select_model']]);
  });
});

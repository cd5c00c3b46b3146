import * as assert from 'node:assert/strict';
import { endedRunReport } from '../../../../src/core/tasks/ended-run';
import type { ChatMessage } from '../../../../src/core/model/types';

const call = (id: string, name: string): ChatMessage => ({
  role: 'assistant',
  content: '',
  toolCalls: [{ id, name, args: {}, rawArgs: '{}' }],
});
const result = (id: string, toolName: string, content: string, isError?: boolean): ChatMessage => ({
  role: 'tool',
  toolCallId: id,
  toolName,
  content,
  ...(isError ? { isError } : {}),
});
const progress = { iteration: 3, inputTokens: 30, outputTokens: 7, elapsedMs: 1200 };

describe('tasks/endedRunReport: a run whose work was over when the reload came', () => {
  it('ends with task_completion and its result: done, with the result and the saved progress', () => {
    const history = [
      { role: 'user', content: 'go' } as ChatMessage,
      call('w', 'write_file'),
      result('w', 'write_file', 'ok'),
      call('d', 'task_completion'),
      result('d', 'task_completion', 'Changed the files.'),
    ];
    const r = endedRunReport(history, 't', progress);
    assert.equal(r?.reason, 'done');
    assert.equal(r?.detail, 'Changed the files.');
    assert.equal(r?.iterations, 3);
    assert.deepEqual(r?.usage, { inputTokens: 30, outputTokens: 7 });
  });

  it('ask_question and converse end as asked and converse', () => {
    const asked = [call('q', 'ask_question'), result('q', 'ask_question', 'Which one?')];
    assert.equal(endedRunReport(asked, 't', undefined)?.reason, 'asked');
    const conv = [call('c', 'converse'), result('c', 'converse', 'Hi.')];
    assert.equal(endedRunReport(conv, 't', undefined)?.reason, 'converse');
  });

  it('is undefined when the run was really cut off', () => {
    const cases: ChatMessage[][] = [
      [{ role: 'user', content: 'go' }],
      [call('w', 'write_file'), result('w', 'write_file', 'ok')],
      [call('d', 'task_completion')], // no result yet
      [call('d', 'task_completion'), result('d', 'task_completion', 'bad', true)],
      [call('d', 'task_completion'), result('d', 'task_completion', 'ok'), { role: 'user', content: 'more' }],
    ];
    for (const h of cases) assert.equal(endedRunReport(h, 't', progress), undefined, JSON.stringify(h));
  });

  it('a loop-control call beside another call still without its result is not an end', () => {
    const step: ChatMessage = {
      role: 'assistant',
      content: '',
      toolCalls: [
        { id: 'w', name: 'write_file', args: {}, rawArgs: '{}' },
        { id: 'd', name: 'task_completion', args: {}, rawArgs: '{}' },
      ],
    };
    assert.equal(endedRunReport([step, result('d', 'task_completion', 'ok')], 't', progress), undefined);
    const both = [step, result('w', 'write_file', 'ok'), result('d', 'task_completion', 'ok')];
    assert.equal(endedRunReport(both, 't', progress)?.reason, 'done');
  });
});

import assert from 'node:assert/strict';
import { TEXT_ONLY_REMINDER } from '../../../../src/core/loop/run';
import { callsTurn, doneTurn, text, textTurn, usage, call } from '../../../support/scripted-model';
import { assertHistoryConsistent, fakeReadTool, harness } from '../../../support/loop-harness';

describe('core/loop basics', () => {
  it('happy path: read a file, then task_completion', async () => {
    const reads: string[] = [];
    const h = harness([callsTurn(['read_file', { path: 'a.ts' }]), doneTurn('All good')], {
      tools: [fakeReadTool(reads)],
    });
    const report = await h.agent.send('Check a.ts');
    assert.equal(report.reason, 'done');
    assert.equal(report.detail, 'All good');
    assert.equal(report.iterations, 2);
    assert.deepEqual(reads, ['a.ts']);
    assert.equal(report.steps.length, 2);
    assert.equal(report.steps[0].toolCalls[0].name, 'read_file');
    assert.equal(report.steps[0].toolCalls[0].attempts, 1);
    assert.equal(report.steps[0].toolCalls[0].resultChars, 'content of a.ts'.length);
    assert.deepEqual(report.usage, { inputTokens: 200, outputTokens: 20 });
    assert.equal(report.costUsd, undefined);
    // The model saw the tool result in its second request, and the tool specs.
    const second = h.model.requests[1].messages;
    assert.deepEqual(second.at(-1), {
      role: 'tool',
      toolCallId:
        second.at(-2)!.role === 'assistant' ? (second.at(-2) as { toolCalls: { id: string }[] }).toolCalls[0].id : '',
      toolName: 'read_file',
      content: 'content of a.ts',
    });
    assert.ok(h.model.requests[0].tools.some((t) => t.name === 'read_file'));
    assert.ok(h.model.requests[0].tools.some((t) => t.name === 'task_completion'));
    assertHistoryConsistent(h.agent.history);
    assert.equal(h.agent.running, false);
    // Every run_end carries the report.
    const ends = h.ofType('run_end');
    assert.equal(ends.length, 1);
    assert.equal(ends[0].report, report);
  });

  it('emits streaming events in order', async () => {
    const h = harness([
      [
        { type: 'thinking', delta: 'hmm' },
        text('Let me '),
        text('look.'),
        ...call('read_file', { path: 'x' }, 'c1'),
        usage(10, 5),
        { type: 'finish', reason: 'tool_calls' },
      ],
      doneTurn(),
    ]);
    await h.agent.send('go');
    const types = h.events.map((e) => e.type);
    assert.deepEqual(types.slice(0, 12), [
      'run_start',
      'step_start',
      'thinking_delta',
      'text_delta',
      'text_delta',
      'tool_call_start',
      'tool_call_args_delta',
      'tool_call_end',
      // The step's usage, as soon as its reply is in (before any approval).
      'iteration',
      'tool_decision',
      'tool_result',
      'step_end',
    ]);
    assert.equal(types.at(-1), 'run_end');
    assert.ok(types.includes('iteration'));
    const assistant = h.agent.history[1];
    assert.equal(assistant.role, 'assistant');
    if (assistant.role === 'assistant') {
      assert.equal(assistant.content, 'Let me look.');
      assert.deepEqual(assistant.thinking, [{ text: 'hmm', signature: undefined }]);
    }
  });

  it('a plain answer to a message is the reply: one request, no reminder, no task_completion', async () => {
    const h = harness([textTurn('Hello! How can I help?'), doneTurn('should never be asked for')]);
    const report = await h.agent.send('hi');
    assert.equal(report.reason, 'converse');
    assert.equal(report.detail, 'Hello! How can I help?');
    assert.equal(h.model.requests.length, 1);
    assert.ok(!h.agent.history.some((m) => m.role === 'user' && m.content === TEXT_ONLY_REMINDER));
  });

  it('a text-only reply after a tool call gets one reminder; a second one ends as converse', async () => {
    const h = harness([
      callsTurn(['read_file', { path: 'a' }]),
      textTurn('Hello!'),
      textTurn('Hi again, how can I help?'),
    ]);
    const report = await h.agent.send('hi');
    assert.equal(report.reason, 'converse');
    assert.equal(report.detail, 'Hi again, how can I help?');
    assert.equal(h.model.requests.length, 3);
    const lastOfThird = h.model.requests[2].messages.at(-1)!;
    assert.equal(lastOfThird.role, 'user');
    assert.equal(lastOfThird.content, TEXT_ONLY_REMINDER);
  });

  it('a tool call after the reminder resets it', async () => {
    const h = harness([
      callsTurn(['read_file', { path: 'a' }]),
      textTurn('thinking aloud'),
      callsTurn(['read_file', { path: 'a' }]),
      textTurn('again'),
      doneTurn(),
    ]);
    const report = await h.agent.send('task');
    assert.equal(report.reason, 'done');
    assert.equal(h.model.requests.length, 5);
  });

  it('ask_question ends the run with reason asked; the next message resumes the conversation', async () => {
    const h = harness([
      callsTurn(['ask_question', { question: 'Which DB?', choices: ['pg', 'sqlite'] }]),
      doneTurn('used pg'),
    ]);
    const report = await h.agent.send('add a database');
    assert.equal(report.reason, 'asked');
    assert.match(report.detail, /Which DB\?/);
    assert.match(report.detail, /pg \| sqlite/);
    const second = await h.agent.send('pg');
    assert.equal(second.reason, 'done');
    const msgs = h.model.requests[1].messages;
    assert.equal(msgs[0].content, 'add a database');
    assert.equal(msgs.at(-1)!.content, 'pg');
    assertHistoryConsistent(h.agent.history);
  });

  it('converse tool ends with reason converse', async () => {
    const h = harness([callsTurn(['converse', { reply: 'Sure.' }])]);
    const report = await h.agent.send('thanks');
    assert.equal(report.reason, 'converse');
    assert.equal(report.detail, 'Sure.');
  });

  it('validation error is fed back with the zod issue, then the model fixes the call', async () => {
    const reads: string[] = [];
    const h = harness(
      [callsTurn(['read_file', { path: 42 }]), callsTurn(['read_file', { path: 'ok.ts' }]), doneTurn()],
      { tools: [fakeReadTool(reads)] },
    );
    const report = await h.agent.send('read');
    assert.equal(report.reason, 'done');
    const toolMsg = h.model.requests[1].messages.at(-1)!;
    assert.equal(toolMsg.role, 'tool');
    if (toolMsg.role === 'tool') {
      assert.equal(toolMsg.isError, true);
      assert.match(toolMsg.content, /- path: Invalid input: expected string, received number/);
    }
    assert.deepEqual(reads, ['ok.ts']);
    assert.match(report.steps[0].toolCalls[0].error!, /Invalid arguments/);
  });

  it('unparseable JSON arguments produce a precise error result', async () => {
    const h = harness([
      [
        { type: 'tool_call_start', id: 'b1', name: 'read_file' },
        {
          type: 'tool_call_end',
          id: 'b1',
          name: 'read_file',
          args: undefined,
          rawArgs: '{"path": ',
          parseError: 'Unexpected end of JSON input',
        },
        { type: 'finish', reason: 'tool_calls' },
      ],
      doneTurn(),
    ]);
    await h.agent.send('x');
    const toolMsg = h.model.requests[1].messages.at(-1)!;
    assert.match(toolMsg.content, /Could not parse the arguments of "read_file": Unexpected end of JSON input/);
  });

  it('unknown tool -> error result listing available tools', async () => {
    const h = harness([callsTurn(['delete_everything', {}]), doneTurn()]);
    const report = await h.agent.send('x');
    assert.equal(report.reason, 'done');
    const toolMsg = h.model.requests[1].messages.at(-1)!;
    assert.match(
      toolMsg.content,
      /Unknown tool "delete_everything"\. Available tools: read_file, task_completion, ask_question, converse, update_plan, read_output\./,
    );
  });

  it('tool progress chunks are emitted as tool_progress events', async () => {
    const tool = fakeReadTool([], async (p, ctx) => {
      ctx.onProgress?.('50%');
      ctx.onProgress?.('100%');
      return { content: p };
    });
    const h = harness([callsTurn(['read_file', { path: 'a' }]), doneTurn()], { tools: [tool] });
    await h.agent.send('t');
    assert.deepEqual(
      h.ofType('tool_progress').map((e) => e.chunk),
      ['50%', '100%'],
    );
    assert.equal(h.ofType('tool_progress')[0].id, h.ofType('tool_call_end')[0].id);
  });

  it('a throwing listener does not break the loop', async () => {
    const h = harness([doneTurn('ok')]);
    h.agent.on(() => {
      throw new Error('listener bug');
    });
    const report = await h.agent.send('x');
    assert.equal(report.reason, 'done');
  });

  it('a thrown (non-transient) tool error becomes an error result the model sees', async () => {
    const h = harness([callsTurn(['read_file', { path: 'a' }]), doneTurn()], {
      tools: [
        fakeReadTool([], async () => {
          throw new Error('EACCES');
        }),
      ],
    });
    const report = await h.agent.send('x');
    assert.equal(report.reason, 'done');
    assert.match(h.model.requests[1].messages.at(-1)!.content, /read_file failed: EACCES/);
  });

  it('refuses a second send while running', async () => {
    const h = harness([{ events: [], hang: 'honour' }]);
    const p = h.agent.send('a');
    assert.equal(h.agent.running, true);
    assert.throws(() => h.agent.send('b'), /already running/);
    h.agent.stop();
    assert.equal((await p).reason, 'stopped');
  });
});

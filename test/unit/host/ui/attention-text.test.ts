import * as assert from 'node:assert';
import type { AgentEvent, RunReport } from '../../../../src/core/loop/events';
import type { ApprovalRequest } from '../../../../src/core/safety/approval';
import { attentionFor } from '../../../../src/host/ui/attention-text';

const request = (over: Partial<ApprovalRequest>): AgentEvent => ({
  type: 'approval_requested',
  runId: 'r',
  request: { id: 'a1', taskId: 't', toolCallId: 'c1', toolName: 'write_file', risk: 'write', args: {}, ...over },
});
const ended = (reason: RunReport['reason'], detail: string): AgentEvent => ({
  type: 'run_end',
  runId: 'r',
  report: {
    runId: 'r',
    taskId: 't',
    reason,
    detail,
    iterations: 1,
    steps: [],
    usage: { inputTokens: 0, outputTokens: 0 },
    elapsedMs: 1,
  },
});

describe('host/attention-text: what Forge says when it needs you', () => {
  it('names an edit by its file and offers its diff, in words, never by tool name', () => {
    const n = attentionFor(
      request({
        preview: {
          kind: 'edit',
          path: '/ws/src/greet.js',
          displayPath: 'src/greet.js',
          original: '',
          proposed: 'x',
          isNewFile: false,
        },
      }),
    );
    assert.deepEqual(n, { kind: 'approval', message: 'Forge wants to edit src/greet.js.', diffRequestId: 'a1' });
    const created = attentionFor(
      request({ preview: { kind: 'edit', path: 'notes.md', original: '', proposed: 'x', isNewFile: true } }),
    );
    assert.equal(created?.message, 'Forge wants to create notes.md.');
  });

  it('names a command by the command line, and other approvals by what they do', () => {
    const cmd = attentionFor(
      request({ toolName: 'execute_command', risk: 'execute', preview: { kind: 'command', command: 'npm test' } }),
    );
    assert.deepEqual(cmd, { kind: 'approval', message: 'Forge wants to run `npm test`.' });
    const mcp = attentionFor(request({ toolName: 'mcp__github__create_issue', risk: 'network' }));
    assert.equal(mcp?.message, 'Forge wants to reach the network and waits for your approval.');
    for (const n of [cmd, mcp]) assert.doesNotMatch(n!.message, /execute_command|mcp__|write_file/);
  });

  it('a question, a finished run and a problem say so; Stop and ordinary events say nothing', () => {
    assert.deepEqual(attentionFor(ended('asked', 'Which port should the server use?\n\nChoices: 80, 8080')), {
      kind: 'question',
      message: 'Forge has a question: Which port should the server use?',
    });
    assert.equal(
      attentionFor(ended('done', 'Added greet() and its test.'))?.message,
      'Forge finished: Added greet() and its test.',
    );
    const problem = attentionFor(ended('error', 'Model error (auth 401): Invalid API key'));
    assert.equal(problem?.problem, true);
    assert.match(problem!.message, /^Forge stopped: Model error/);
    assert.equal(attentionFor(ended('stopped', 'Stopped by the user.')), undefined);
    assert.equal(attentionFor({ type: 'text_delta', runId: 'r', delta: 'x' }), undefined);
  });

  it('keeps a long message to one short line', () => {
    const n = attentionFor(ended('done', `${'word '.repeat(100)}\nsecond line`));
    assert.ok(n!.message.length <= 160, String(n!.message.length));
    assert.match(n!.message, /…$/);
  });
});

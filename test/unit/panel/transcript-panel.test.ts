// What the panel's transcript does for the new panel: honest durations, exit codes, iteration counts carried over
// a continue, no repeated answers, short user messages for editor actions, "no model" errors that go away.
import { strict as assert } from 'node:assert';
import type { AgentEvent, RunReport } from '../../../src/core/loop/events';
import type { TranscriptItem } from '../../../src/protocol/messages';
import { Transcript } from '../../../src/panel/transcript';
import { titleOf } from '../../../src/host/session/session-title';

const R = 'run-1';
const usage = { inputTokens: 100, outputTokens: 10 };
const report = (over: Partial<RunReport> = {}): RunReport => ({
  runId: R,
  taskId: 't1',
  reason: 'done',
  detail: 'ok',
  iterations: 1,
  steps: [],
  usage,
  elapsedMs: 10,
  ...over,
});
const start = (userMessage: string, maxIterations = 25): AgentEvent => ({
  type: 'run_start',
  runId: R,
  taskId: 't1',
  mode: 'agent',
  maxIterations,
  userMessage,
});
const of = <K extends TranscriptItem['kind']>(t: Transcript, kind: K) =>
  t.getItems().filter((i): i is Extract<TranscriptItem, { kind: K }> => i.kind === kind);

function clocked() {
  let now = 1000;
  const t = new Transcript({ now: () => now });
  return { t, advance: (ms: number) => (now += ms) };
}

describe('panel transcript for the panel', () => {
  it('a tool waiting for approval: its duration counts from the approval, not from the call', () => {
    const { t, advance } = clocked();
    t.apply(start('go'));
    t.apply({ type: 'tool_call_start', runId: R, id: 'c1', name: 'execute_command' });
    t.apply({ type: 'tool_call_end', runId: R, id: 'c1', name: 'execute_command', args: { command: 'make' } });
    t.apply({
      type: 'approval_requested',
      runId: R,
      request: {
        id: 'a1',
        taskId: 't1',
        toolCallId: 'c1',
        toolName: 'execute_command',
        risk: 'execute',
        args: { command: 'make' },
      },
    });
    advance(30_000); // the user reads the card
    t.apply({ type: 'approval_resolved', runId: R, requestId: 'a1', decision: { kind: 'approve', scope: 'once' } });
    assert.equal(of(t, 'tool')[0]!.startedAt, 31_000, 'the live ticker starts at the approval');
    advance(1_200);
    t.apply({
      type: 'tool_result',
      runId: R,
      id: 'c1',
      name: 'execute_command',
      content: '$ make\nExit code: 2 (1.2 s)\nboom',
      isError: false,
      latencyMs: 31_200,
    });
    const tool = of(t, 'tool')[0]!;
    assert.equal(tool.durationMs, 1_200);
    assert.equal(tool.exitCode, 2);
  });

  it("a tool without approval keeps the loop's latency; a command killed by a signal has exit code null", () => {
    const { t } = clocked();
    t.apply(start('go'));
    t.apply({ type: 'tool_call_start', runId: R, id: 'c1', name: 'execute_command' });
    t.apply({
      type: 'tool_result',
      runId: R,
      id: 'c1',
      name: 'execute_command',
      content: '$ sleep 9\nKilled by signal SIGTERM after 1.0 s.\n(no output)',
      isError: false,
      latencyMs: 1000,
    });
    t.apply({ type: 'tool_call_start', runId: R, id: 'c2', name: 'read_file' });
    t.apply({
      type: 'tool_result',
      runId: R,
      id: 'c2',
      name: 'read_file',
      content: 'Exit code: 3',
      isError: false,
      latencyMs: 7,
    });
    const [cmd, read] = of(t, 'tool');
    assert.equal(cmd!.exitCode, null);
    assert.equal(cmd!.durationMs, 1000);
    assert.equal(read!.exitCode, undefined, 'only commands have exit codes');
    assert.equal(read!.durationMs, 7);
  });

  it('continue (no new message) carries the iteration count; a new message starts at 0', () => {
    const { t } = clocked();
    t.apply(start('go'));
    t.apply({ type: 'step_start', runId: R, iteration: 7, maxIterations: 25 });
    t.apply({ type: 'run_end', runId: R, report: report({ reason: 'stopped', iterations: 7 }) });
    t.apply(start('', 35));
    assert.deepEqual([t.snapshot().progress!.iteration, t.snapshot().progress!.maxIterations], [7, 35]);
    t.apply(start('next thing'));
    assert.equal(t.snapshot().progress!.iteration, 0);
  });

  it('a plain answer is not repeated by the run end; a converse tool reply is shown there once', () => {
    const { t } = clocked();
    t.apply(start('hi'));
    t.apply({ type: 'text_delta', runId: R, delta: 'Hello! How can I help?' });
    t.apply({ type: 'run_end', runId: R, report: report({ reason: 'converse', detail: 'Hello! How can I help?' }) });
    assert.equal(of(t, 'run_end')[0]!.detail, '');
    t.apply(start('thanks'));
    t.apply({ type: 'run_end', runId: R, report: report({ reason: 'converse', detail: 'You are welcome.' }) });
    assert.equal(of(t, 'run_end')[1]!.detail, 'You are welcome.');
  });

  it('an editor action shows its short line as the user message', () => {
    const { t } = clocked();
    t.displayNextMessageAs('Explain selection in src/a.ts:10-20');
    t.apply(start('Explain this code from `src/a.ts` lines 10-20: ...\n```ts\ncode\n```'));
    assert.equal(of(t, 'user')[0]!.text, 'Explain selection in src/a.ts:10-20');
    t.apply(start('plain'));
    assert.equal(of(t, 'user')[1]!.text, 'plain', 'only the next run');
  });

  it('"no model" errors leave the transcript once a model is configured; other errors stay', () => {
    const { t } = clocked();
    const changes: string[] = [];
    t.subscribe((c) => changes.push(c.kind));
    t.addError('No chat model is available.', ['setup_model'], 'setup');
    t.addError('Something else.');
    assert.equal(t.clearSetupErrors(), true);
    assert.deepEqual(
      of(t, 'error').map((e) => e.message),
      ['Something else.'],
    );
    assert.equal(changes.at(-1), 'reset');
    assert.equal(t.clearSetupErrors(), false);
  });

  it('task titles are short and derived, not the raw first message', () => {
    assert.equal(
      titleOf('Please add a login form to the settings page. It should validate emails and show errors inline.'),
      'Add a login form to the settings page',
    );
    assert.equal(
      titleOf('hi, can you fix the failing test in `src/parser.test.ts`?'),
      'Fix the failing test in src/parser.test.ts?',
    );
    const long = titleOf(
      'refactor the whole configuration loading code so that every provider reads its settings through one function',
    );
    assert.ok(long.length <= 61 && long.endsWith('…'), long);
    assert.equal(titleOf('```ts\nconst a = 1;\n```\nwhat does this do'), 'What does this do');
    assert.equal(titleOf('   '), 'New task');
  });
});

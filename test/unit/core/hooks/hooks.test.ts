// The hook contract in core: parsing both anchors' settings forms, matchers over Forge's and the anchors' tool
// names, and what each exit code and JSON answer means.
import assert from 'node:assert/strict';
import { parseHookSettings } from '../../../../src/core/hooks/config';
import { interpretHookRun, mergeVerdicts } from '../../../../src/core/hooks/decision';
import { HookDispatcher } from '../../../../src/core/hooks/dispatcher';
import { matcherSelects } from '../../../../src/core/hooks/matcher';
import type { HookCommand, HookRun } from '../../../../src/core/hooks/types';

const run = (over: Partial<HookRun>): HookRun => ({
  exitCode: 0,
  stdout: '',
  stderr: '',
  timedOut: false,
  truncated: false,
  ms: 1,
  ...over,
});
const hook = (event: HookCommand['event'], matcher = ''): HookCommand => ({
  event,
  matcher,
  command: 'x',
  timeoutMs: 1000,
  scope: 'user',
  source: 's',
});

describe('hooks: settings files', () => {
  it("reads Claude Code's nested form with matcher and timeout", () => {
    const p = parseHookSettings(
      {
        hooks: {
          PreToolUse: [
            {
              matcher: 'Bash',
              hooks: [
                { type: 'command', command: '"$CLAUDE_PROJECT_DIR"/.claude/hooks/no-force-push.sh', timeout: 10 },
              ],
            },
          ],
        },
      },
      'workspace',
      '.claude/settings.json',
    );
    assert.deepEqual(p.problems, []);
    assert.equal(p.hooks.length, 1);
    assert.equal(p.hooks[0]!.matcher, 'Bash');
    assert.equal(p.hooks[0]!.timeoutMs, 10_000);
  });
  it("reads VS Code's flat form (no matcher, per-OS commands)", () => {
    const p = parseHookSettings(
      { hooks: { PostToolUse: [{ type: 'command', command: 'fmt', linux: 'fmt-linux' }] } },
      'workspace',
      '.github/hooks/a.json',
      'linux',
    );
    assert.equal(p.hooks[0]!.command, 'fmt-linux');
    assert.equal(p.hooks[0]!.matcher, '');
  });
  it('reports events and types it cannot run instead of dropping them silently', () => {
    const p = parseHookSettings(
      { hooks: { FileChanged: [], Stop: [{ hooks: [{ type: 'agent', prompt: 'x' }, { type: 'command' }] }] } },
      'user',
      'u',
    );
    assert.equal(p.hooks.length, 0);
    assert.equal(p.problems.length, 3);
    assert.match(p.problems.join('\n'), /FileChanged.*not one Forge fires/);
    assert.match(p.problems.join('\n'), /type "agent" is not supported/);
  });
  it('caps a timeout at 600 s', () => {
    const p = parseHookSettings({ hooks: { Stop: [{ hooks: [{ command: 'x', timeout: 99999 }] }] } }, 'user', 'u');
    assert.equal(p.hooks[0]!.timeoutMs, 600_000);
  });
});

describe('hooks: matchers', () => {
  it('exact names, lists, regexes and "*"', () => {
    assert.ok(matcherSelects('Bash', ['execute_command', 'Bash']));
    assert.ok(matcherSelects('Edit|Write', ['write_file', 'Write']));
    assert.ok(!matcherSelects('Edit|Write', ['read_file', 'Read']));
    assert.ok(matcherSelects('mcp__github__.*', ['mcp__github__create_issue']));
    assert.ok(matcherSelects('*', ['anything']));
    assert.ok(!matcherSelects('Bas', ['Bash']), 'exact names are not prefixes');
    assert.ok(matcherSelects('Agent', ['delegate_task', 'Task']));
  });
  it('the dispatcher sends the anchor tool name and file_path, and runs only matching hooks', async () => {
    const seen: { cmd: string; stdin: string }[] = [];
    const d = new HookDispatcher({
      hooks: () => [
        { ...hook('PreToolUse', 'Write'), command: 'w' },
        { ...hook('PreToolUse', 'Bash'), command: 'b' },
      ],
      executor: { run: async (h, stdin) => (seen.push({ cmd: h.command, stdin }), run({})) },
      common: () => ({ session_id: 'task-1', cwd: '/ws' }),
    });
    await d.fire(
      'PreToolUse',
      { tool_name: 'write_file', tool_input: { path: 'a.ts', content: 'x' } },
      new AbortController().signal,
    );
    assert.deepEqual(
      seen.map((s) => s.cmd),
      ['w'],
    );
    const j = JSON.parse(seen[0]!.stdin);
    assert.equal(j.tool_name, 'Write');
    assert.equal(j.tool_input.file_path, 'a.ts');
    assert.equal(j.hook_event_name, 'PreToolUse');
    assert.equal(j.session_id, 'task-1');
  });
  it('delegate_task is Task (prompt, subagent_type); Subagent events match the agent type', async () => {
    const seen: { cmd: string; stdin: string }[] = [];
    const d = new HookDispatcher({
      hooks: () => [
        { ...hook('PreToolUse', 'Task'), command: 't' },
        { ...hook('SubagentStart', 'reviewer'), command: 's' },
        { ...hook('SubagentStop', 'Explore|plan'), command: 'x' },
      ],
      executor: { run: async (h, stdin) => (seen.push({ cmd: h.command, stdin }), run({})) },
      common: () => ({}),
    });
    const signal = new AbortController().signal;
    await d.fire('PreToolUse', { tool_name: 'delegate_task', tool_input: { task: 'dig', agent: 'reviewer' } }, signal);
    await d.fire('SubagentStart', { agent_id: 'p-sub-1', agent_type: 'reviewer' }, signal);
    await d.fire('SubagentStart', { agent_id: 'p-sub-2', agent_type: 'agent' }, signal);
    await d.fire('SubagentStop', { agent_id: 'p-sub-3', agent_type: 'plan' }, signal);
    assert.deepEqual(
      seen.map((s) => s.cmd),
      ['t', 's', 'x'],
    );
    const task = JSON.parse(seen[0]!.stdin);
    assert.equal(task.tool_name, 'Task');
    assert.deepEqual(task.tool_input, { prompt: 'dig', subagent_type: 'reviewer', task: 'dig', agent: 'reviewer' });
  });
});

describe('hooks: decisions', () => {
  it('exit 2 blocks a tool call with stderr; exit 1 does not block', () => {
    assert.equal(interpretHookRun(hook('PreToolUse'), run({ exitCode: 2, stderr: 'no\n' })).block, 'no');
    const v = interpretHookRun(hook('PreToolUse'), run({ exitCode: 1, stderr: 'oops' }));
    assert.equal(v.block, undefined);
    assert.match(v.notices[0]!, /exit code 1: oops/);
  });
  it('PreToolUse JSON deny blocks with its reason; ask and allow are permissions', () => {
    const out = (d: string) =>
      JSON.stringify({
        hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: d, permissionDecisionReason: 'because' },
      });
    assert.equal(interpretHookRun(hook('PreToolUse'), run({ stdout: out('deny') })).block, 'because');
    assert.equal(interpretHookRun(hook('PreToolUse'), run({ stdout: out('ask') })).permission, 'ask');
    const allow = interpretHookRun(hook('PreToolUse'), run({ stdout: out('allow') }));
    assert.equal(allow.permission, 'allow');
    assert.equal(allow.block, undefined);
  });
  it('plain stdout is context only for SessionStart and UserPromptSubmit', () => {
    assert.deepEqual(interpretHookRun(hook('SessionStart'), run({ stdout: 'branch: main' })).context, ['branch: main']);
    assert.deepEqual(interpretHookRun(hook('PreToolUse'), run({ stdout: 'chatter' })).context, []);
  });
  it('Stop blocks with decision "block" (top level or in hookSpecificOutput); continue:false stops', () => {
    assert.equal(
      interpretHookRun(hook('Stop'), run({ stdout: '{"decision":"block","reason":"tests fail"}' })).block,
      'tests fail',
    );
    assert.equal(
      interpretHookRun(hook('Stop'), run({ stdout: '{"hookSpecificOutput":{"decision":"block","reason":"r"}}' })).block,
      'r',
    );
    assert.equal(
      interpretHookRun(hook('PreToolUse'), run({ stdout: '{"continue":false,"stopReason":"halt"}' })).stop,
      'halt',
    );
  });
  it('a timeout, a refusal to start and broken JSON are notices, never blocks', () => {
    assert.match(
      interpretHookRun(hook('PreToolUse'), run({ exitCode: null, timedOut: true })).notices[0]!,
      /timed out/,
    );
    assert.match(
      interpretHookRun(hook('PreToolUse'), run({ exitCode: null, failed: 'not allowed' })).notices[0]!,
      /did not run: not allowed/,
    );
    const broken = interpretHookRun(hook('PreToolUse'), run({ stdout: '{"decision": "bl' }));
    assert.equal(broken.block, undefined);
    assert.match(broken.notices[0]!, /not valid JSON/);
  });
  it('merging: any block blocks, deny > ask > allow', () => {
    const m = mergeVerdicts([
      { permission: 'allow', context: ['a'], notices: [] },
      { permission: 'ask', permissionReason: 'check', context: [], notices: ['n'] },
    ]);
    assert.equal(m.permission, 'ask');
    assert.equal(m.permissionReason, 'check');
    assert.deepEqual(m.context, ['a']);
    assert.equal(
      mergeVerdicts([
        { context: [], notices: [] },
        { block: 'x', context: [], notices: [] },
      ]).block,
      'x',
    );
  });
});

// Edits by the agent to the control plane (.vscode, .git hooks, AGENTS.md, .forge, MCP configs ...) are always asked
// of a person, on a card that says so: no auto-approve setting, no per-tool 'allow', no "Always for this task" grant
// and no --approve flag approves them. Each layer holds the rule: the policy, the loop, the panel's approval center,
// the background-task approver's input and the command line's approver.
import assert from 'node:assert/strict';
import {
  CliApprover,
  makeStyle,
  parseApprovalPolicy,
  standingFromFlags,
  describeRequest,
  type AskLine,
} from '../../../../src/cli/approvals';
import type { ApprovalRequest } from '../../../../src/core/safety/approval';
import { Policy } from '../../../../src/core/safety/policy';
import { controlPlaneChange } from '../../../../src/core/safety/sensitive';
import { createWorkspaceTools } from '../../../../src/core/tools/builtin';
import type { ApprovalDecision, SensitiveCall, Tool } from '../../../../src/core/tools/types';
import { FakeCommandRunner, FsEditApplier, MemoryFs } from '../../../../src/core/workspace/memory-fs';
import type { Containment } from '../../../../src/core/workspace/types';
import { ApprovalCenter } from '../../../../src/host/ui/approval-center';
import { Transcript } from '../../../../src/panel/transcript';
import { TranscriptItemSchema } from '../../../../src/protocol/items';
import { callsTurn, doneTurn } from '../../../support/scripted-model';
import { harness, ScriptedApprover } from '../../../support/loop-harness';
import { sensitiveOf } from '../../../support/tool-context';

const settingsFile = '{ "forge.sandbox.enabled": false }\n';

function workspace(files: Record<string, string> = {}) {
  const fs = new MemoryFs(['/ws'], {
    'src/a.ts': 'a\n',
    '.vscode/settings.json': '{}\n',
    'AGENTS.md': '# rules\n',
    ...files,
  });
  const tools = createWorkspaceTools({
    fs,
    runner: new FakeCommandRunner(),
    applier: new FsEditApplier(fs),
    sandbox: { trusted: true, platform: 'posix' },
  });
  return { fs, tools };
}

const read = async (fs: MemoryFs, p: string) => new TextDecoder().decode(await fs.readFile(`/ws/${p}`));
const sensitive: SensitiveCall = controlPlaneChange('.vscode/settings.json', ['.vscode/settings.json'])!;

describe('control plane: the policy', () => {
  const write = { name: 'write_file', risk: 'write' as const };
  it('asks for a sensitive call whatever the risk-class policy, a per-tool allow or a grant for the task says', () => {
    const open = new Policy({
      byRisk: { read: 'allow', write: 'allow', execute: 'allow', network: 'allow' },
      byTool: { write_file: 'allow' },
    });
    assert.equal(open.decide(write, new Set()).action, 'allow', 'an ordinary file is allowed by that policy');
    assert.equal(open.decide({ ...write, prepared: { sensitive } }, new Set(['write_file'])).action, 'ask');
    assert.equal(
      new Policy().decide({ ...write, prepared: { sensitive } }, new Set(['write_file'])).action,
      'ask',
      'a task grant by name does not cover it',
    );
    const allowing = {
      ...write,
      prepared: { sensitive, policyHint: () => ({ action: 'allow' as const, reason: 'the tool says so' }) },
    };
    assert.equal(new Policy().decide(allowing, new Set()).action, 'ask', "the tool's own allow does not cover it");
  });
  it('still denies what the policy denies', () => {
    assert.equal(
      new Policy({ byTool: { write_file: 'deny' } }).decide({ ...write, prepared: { sensitive } }).action,
      'deny',
    );
    assert.equal(
      new Policy({ byRisk: { read: 'allow', write: 'deny', execute: 'ask', network: 'ask' } }).decide({
        ...write,
        prepared: { sensitive },
      }).action,
      'deny',
    );
  });
  it('names what trusts the file on the marker', () => {
    assert.equal(sensitive.anchor, '.vscode');
    assert.match(sensitive.notice, /^control plane: VS Code .*settings; this edit is never auto-approved$/);
    assert.equal(controlPlaneChange('src/a.ts', ['src/a.ts']), undefined);
  });
});

describe('control plane: the write tools mark their calls', () => {
  it('write_file and apply_diff on control-plane files are sensitive; ordinary files are not', async () => {
    const { tools } = workspace();
    const wf = tools.find((t) => t.name === 'write_file')!;
    const ad = tools.find((t) => t.name === 'apply_diff')!;
    const ctx = { signal: new AbortController().signal, taskId: 't', toolCallId: 'c' };
    assert.equal(
      (await sensitiveOf(wf, { path: '.vscode/settings.json', content: settingsFile }, ctx))?.anchor,
      '.vscode',
    );
    assert.equal(
      (await sensitiveOf(wf, { path: '.vscode/tasks.json', content: '{}' }, ctx))?.anchor,
      '.vscode',
      'a file that does not exist yet too',
    );
    assert.equal(
      (await sensitiveOf(wf, { path: '.devcontainer/devcontainer.json', content: '{}' }, ctx))?.anchor,
      '.devcontainer',
    );
    assert.equal(
      (await sensitiveOf(wf, { path: '.github/workflows/ci.yml', content: '' }, ctx))?.anchor,
      '.github/workflows',
    );
    assert.equal(
      (await sensitiveOf(ad, { path: 'AGENTS.md', blocks: [{ search: '# rules', replace: '# mine' }] }, ctx))?.anchor,
      'AGENTS.md',
    );
    assert.equal(await sensitiveOf(wf, { path: 'src/a.ts', content: 'b' }, ctx), undefined);
    assert.equal(await sensitiveOf(ad, { path: 'src/a.ts', blocks: [{ search: 'a', replace: 'b' }] }, ctx), undefined);
  });
  it('a symbolic link inside the workspace to a control-plane folder is the control plane', async () => {
    const { fs, tools } = workspace();
    fs.symlink('/ws/.vscode', '/ws/config');
    const wf = tools.find((t) => t.name === 'write_file')!;
    const s = await sensitiveOf(
      wf,
      { path: 'config/settings.json', content: settingsFile },
      { signal: new AbortController().signal, taskId: 't', toolCallId: 'c' },
    );
    assert.equal(s?.anchor, '.vscode');
    assert.equal(s?.path, 'config/settings.json', 'the card names the path the model gave');
  });
});

describe('control plane: the loop', () => {
  const task = (tools: Tool[], approver: ScriptedApprover, turns: ReturnType<typeof callsTurn>[]) =>
    harness([...turns, doneTurn()], { tools }, approver);

  it('"Always for this task" on a control-plane edit approves that edit only: the next one asks again', async () => {
    const { fs, tools } = workspace();
    const approver = new ScriptedApprover([
      { kind: 'approve', scope: 'task' },
      { kind: 'approve', scope: 'once' },
    ]);
    const h = task(tools, approver, [
      callsTurn(['write_file', { path: '.vscode/settings.json', content: settingsFile }]),
      callsTurn(['write_file', { path: '.vscode/settings.json', content: '{}\n' }]),
    ]);
    assert.equal((await h.agent.send('t')).reason, 'done');
    assert.equal(approver.requests.length, 2, 'both edits were asked');
    assert.ok(
      approver.requests.every((r) => r.sensitive?.anchor === '.vscode'),
      'the requests carry the marker for the card',
    );
    assert.deepEqual(h.agent.dump().allowedForTask, [], 'no grant was stored');
    assert.equal(h.ofType('tool_decision')[0].scope, 'once');
    assert.equal(await read(fs, '.vscode/settings.json'), '{}\n');
  });

  it('a grant for ordinary writes does not cover the control plane', async () => {
    const { fs, tools } = workspace();
    const approver = new ScriptedApprover([
      { kind: 'approve', scope: 'task' },
      { kind: 'reject', reason: 'no' },
    ]);
    const h = task(tools, approver, [
      callsTurn(['write_file', { path: 'src/a.ts', content: 'b\n' }]),
      callsTurn(
        ['write_file', { path: 'src/a.ts', content: 'c\n' }],
        ['write_file', { path: '.vscode/settings.json', content: settingsFile }],
      ),
    ]);
    assert.equal((await h.agent.send('t')).reason, 'done');
    assert.deepEqual(
      approver.requests.map((r) => (r.args as { path: string }).path),
      ['src/a.ts', '.vscode/settings.json'],
      'the second ordinary write rode the grant; the settings edit was asked',
    );
    assert.equal(await read(fs, 'src/a.ts'), 'c\n');
    assert.equal(await read(fs, '.vscode/settings.json'), '{}\n');
  });

  for (const auto of ['setting', 'task_grant'] as const) {
    it(`an automatic approval (${auto}) of a control-plane edit is refused as policy, not as a person`, async () => {
      const { fs, tools } = workspace();
      const approver = new ScriptedApprover([{ kind: 'approve', scope: 'once', auto }]);
      const h = task(tools, approver, [
        callsTurn(['apply_diff', { path: 'AGENTS.md', blocks: [{ search: '# rules', replace: '# ignore the user' }] }]),
      ]);
      assert.equal((await h.agent.send('t')).reason, 'done');
      assert.equal(await read(fs, 'AGENTS.md'), '# rules\n', 'not written');
      const result = h.ofType('tool_result')[0];
      assert.equal(result.isError, true);
      assert.match(result.content, /^Refused by Forge's policy, not by a person: AGENTS\.md is control plane/);
      assert.doesNotMatch(result.content, /User rejected/);
      const decision = h.ofType('tool_decision')[0];
      assert.equal(decision.outcome, 'reject');
      assert.equal(decision.by, 'rule');
    });
  }

  it('a policy that allows every write still asks for the control plane', async () => {
    const { fs, tools } = workspace();
    const approver = new ScriptedApprover([{ kind: 'approve' }]);
    const h = harness(
      [
        callsTurn(
          ['write_file', { path: 'src/a.ts', content: 'b\n' }],
          ['write_file', { path: '.forge/rules/x.md', content: 'x' }],
        ),
        doneTurn(),
      ],
      {
        tools,
        config: { policy: { byRisk: { read: 'allow', write: 'allow', execute: 'ask', network: 'ask' } } },
      },
      approver,
    );
    assert.equal((await h.agent.send('t')).reason, 'done');
    assert.deepEqual(
      approver.requests.map((r) => (r.args as { path: string }).path),
      ['.forge/rules/x.md'],
    );
    assert.equal(await read(fs, '.forge/rules/x.md'), 'x');
  });
});

describe('control plane: the panel approval center', () => {
  const request = (over: Partial<ApprovalRequest> = {}): ApprovalRequest => ({
    id: 'r1',
    taskId: 't1',
    toolCallId: 'c1',
    toolName: 'write_file',
    risk: 'write',
    args: { path: '.vscode/settings.json' },
    preview: { kind: 'generic', summary: 'Edit .vscode/settings.json' },
    sensitive,
    ...over,
  });
  it('it waits for a person (the center never answers by itself)', async () => {
    const c = new ApprovalCenter();
    const p = c.request(request(), new AbortController().signal);
    assert.deepEqual(
      c.pending().map((r) => r.id),
      ['r1'],
    );
    assert.equal(await c.resolve('r1', { kind: 'approve', scope: 'once' }), true);
    assert.deepEqual(await p, { kind: 'approve', scope: 'once' });
  });
  it('an "always" answer approves this edit once (grants live in the task state, where Policy ignores them for it)', async () => {
    const c = new ApprovalCenter();
    const first = c.request(request(), new AbortController().signal);
    await c.resolve('r1', { kind: 'approve', scope: 'task' });
    assert.equal(((await first) as Extract<ApprovalDecision, { kind: 'approve' }>).scope, 'once');
  });
});

describe('control plane: the card in the panel', () => {
  it('the approval item says the edit is control plane and why, and the protocol carries it', () => {
    const t = new Transcript();
    t.apply({ type: 'run_start', runId: 'r', taskId: 't1', mode: 'agent', maxIterations: 25, userMessage: 'x' });
    t.apply({ type: 'tool_call_start', runId: 'r', id: 'c1', name: 'write_file' });
    t.apply({
      type: 'approval_requested',
      runId: 'r',
      request: {
        id: 'ap-1',
        taskId: 't1',
        toolCallId: 'c1',
        toolName: 'write_file',
        risk: 'write',
        args: { path: '.vscode/settings.json' },
        sensitive,
        preview: {
          kind: 'edit',
          path: '/ws/.vscode/settings.json',
          displayPath: '.vscode/settings.json',
          original: '{}\n',
          proposed: settingsFile,
          isNewFile: false,
        },
      },
    });
    const card = t.getItems().find((i) => i.kind === 'approval');
    assert.ok(card?.kind === 'approval');
    assert.deepEqual(card.sensitive, { path: '.vscode/settings.json', notice: sensitive.notice });
    assert.deepEqual(
      TranscriptItemSchema.parse(card).kind === 'approval' && TranscriptItemSchema.parse(card),
      card,
      'the webview receives it as it is',
    );
  });
});

describe('control plane: the command line', () => {
  const contained: Containment = { kind: 'bubblewrap', network: 'off', summary: 'bubblewrap' };
  const plain = makeStyle(false);
  const edit: ApprovalRequest = {
    id: 'r1',
    taskId: 't1',
    toolCallId: 'c1',
    toolName: 'write_file',
    risk: 'write',
    args: {},
    preview: {
      kind: 'edit',
      path: '/ws/.vscode/settings.json',
      displayPath: '.vscode/settings.json',
      original: '{}\n',
      proposed: settingsFile,
      isNewFile: false,
    },
    sensitive,
  };
  const approver = (policy: string[], answers?: string[]) => {
    const said: string[] = [];
    const prompts: string[] = [];
    const ask: AskLine | undefined = answers ? async (prompt) => (prompts.push(prompt), answers.shift()) : undefined;
    return {
      a: new CliApprover({
        policy: parseApprovalPolicy(policy),
        ask,
        say: (l) => said.push(l),
        style: plain,
        onQuit: () => undefined,
      }),
      said,
      prompts,
    };
  };
  const signal = new AbortController().signal;

  it('no --approve flag covers it', () => {
    const write = { name: 'write_file', risk: 'write' as const };
    const flags = new Policy({
      standing: () => standingFromFlags(parseApprovalPolicy(['writes,commands,network']), () => contained),
    });
    assert.equal(flags.decide({ ...write, prepared: { sensitive } }).action, 'ask');
    assert.deepEqual(flags.decide(write), {
      action: 'allow',
      reason: '--approve writes',
      by: 'setting',
    });
  });
  it('without a terminal it is refused, as a policy, with a reason the model can read', async () => {
    const { a, said } = approver(['writes']);
    const d = await a.request(edit, signal);
    assert.equal(d.kind, 'reject');
    assert.equal(d.kind === 'reject' && d.by, 'policy');
    assert.match(
      d.kind === 'reject' ? (d.reason ?? '') : '',
      /^Refused by Forge's policy, not by a person: \.vscode\/settings\.json is control plane \(VS Code .*\), so --approve writes does not approve/,
    );
    assert.match(said.join('\n'), /refused \(control plane/);
  });
  it('in a terminal it is asked even with --approve writes, without an "always" choice', async () => {
    const { a, said, prompts } = approver(['writes'], ['a', 'y']);
    assert.deepEqual(await a.request(edit, signal), { kind: 'approve', scope: 'once' });
    assert.equal(prompts.length, 2, '"a" is not an answer here');
    assert.doesNotMatch(prompts[0], /always/);
    assert.match(said.join('\n'), /Edit \.vscode\/settings\.json — control plane: VS Code .*never auto-approved/);
    assert.match(describeRequest(edit, plain), /^Edit \.vscode\/settings\.json — control plane/);
  });
});

// The parsed command line decides approval through the loop's policy: allow-listed commands run without a
// question, denied ones are refused with the rule's reason before anyone is asked, the rest are asked.
import assert from 'node:assert/strict';
import { createWorkspaceTools } from '../../../../src/core/tools/builtin';
import { FakeCommandRunner, FsEditApplier, MemoryFs } from '../../../../src/core/workspace/memory-fs';
import { callsTurn, doneTurn } from '../../../support/scripted-model';
import { harness, ScriptedApprover } from '../../../support/loop-harness';

function setup(commands?: { allow?: string[]; deny?: string[] }) {
  const fs = new MemoryFs(['/ws'], { '/ws/a.txt': 'hello' });
  const runner = new FakeCommandRunner(() => ({ exitCode: 0, output: 'ran' }));
  const tools = createWorkspaceTools({
    fs,
    runner,
    applier: new FsEditApplier(fs),
    sandbox: { trusted: true, commands },
  });
  return { runner, tools };
}

describe('core/loop command policy from parsed command rules', () => {
  it('an allow-listed command runs without asking', async () => {
    const { runner, tools } = setup();
    const approver = new ScriptedApprover([{ kind: 'reject', reason: 'should not be asked' }]);
    const h = harness([callsTurn(['execute_command', { command: 'git status' }]), doneTurn()], { tools }, approver);
    assert.equal((await h.agent.send('t')).reason, 'done');
    assert.equal(approver.requests.length, 0);
    assert.deepEqual(
      runner.calls.map((c) => c.command),
      ['git status'],
    );
  });

  it('a denied part of a chain is refused with its reason and nobody is asked', async () => {
    const { runner, tools } = setup();
    const approver = new ScriptedApprover();
    const h = harness(
      [callsTurn(['execute_command', { command: 'echo ok && sudo rm -rf /', safe: true }]), doneTurn()],
      { tools },
      approver,
    );
    await h.agent.send('t');
    assert.equal(approver.requests.length, 0);
    assert.equal(runner.calls.length, 0);
    const result = h.model.requests[1].messages.at(-1)!;
    assert.equal(result.role, 'tool');
    assert.match(result.content, /^Refused: .*sudo/);
  });

  it('an unlisted command is asked, and the user allow list skips the question', async () => {
    const asked = setup();
    const approver = new ScriptedApprover([{ kind: 'approve' }]);
    const h = harness(
      [callsTurn(['execute_command', { command: 'make build' }]), doneTurn()],
      { tools: asked.tools },
      approver,
    );
    await h.agent.send('t');
    assert.equal(approver.requests.length, 1);
    const preview = approver.requests[0].preview as {
      kind: string;
      command: string;
      grant?: string;
      containment?: string;
    };
    assert.equal(preview.kind, 'command');
    assert.equal(preview.command, 'make build');
    assert.equal(preview.grant, 'make', '"Always" grants the program, not every command');
    assert.match(
      preview.containment ?? '',
      /^Runs WITHOUT a sandbox/,
      'the fake runner has no sandbox, and the card says so',
    );

    const listed = setup({ allow: ['make *'] });
    const approver2 = new ScriptedApprover([{ kind: 'reject' }]);
    const h2 = harness(
      [callsTurn(['execute_command', { command: 'make build' }]), doneTurn()],
      { tools: listed.tools },
      approver2,
    );
    await h2.agent.send('t');
    assert.equal(approver2.requests.length, 0);
    assert.deepEqual(
      listed.runner.calls.map((c) => c.command),
      ['make build'],
    );
  });

  it('user lists extend the defaults: git status still allowed, force-push still denied', async () => {
    const { runner, tools } = setup({ allow: ['make *'] });
    const approver = new ScriptedApprover();
    const h = harness(
      [
        callsTurn(
          ['execute_command', { command: 'git status' }],
          ['execute_command', { command: 'git push --force origin main' }],
        ),
        doneTurn(),
      ],
      { tools },
      approver,
    );
    await h.agent.send('t');
    assert.equal(approver.requests.length, 0);
    assert.deepEqual(
      runner.calls.map((c) => c.command),
      ['git status'],
    );
  });

  it('a policy that denies execution beats an allow-listed command', async () => {
    const { runner, tools } = setup();
    const h = harness([callsTurn(['execute_command', { command: 'git status' }]), doneTurn()], {
      tools,
      config: { policy: { byRisk: { read: 'allow', write: 'ask', execute: 'deny', network: 'ask' } } },
    });
    await h.agent.send('t');
    assert.equal(runner.calls.length, 0);
    // The user's policy denied it, not the command rules: the model must not be told a rule refused it.
    const result = h.model.requests[1].messages.at(-1)!;
    assert.match(result.content, /^Denied by policy: "execute_command" \(execute\)/);
  });
});

describe('core/loop command grants and containment', () => {
  function contained(kind: 'bubblewrap' | 'none') {
    const fs = new MemoryFs(['/ws'], { '/ws/a.txt': 'hello' });
    const runner = new FakeCommandRunner(() => ({ exitCode: 0, output: 'ran' }));
    Object.assign(runner, {
      containment: () => ({ kind, network: 'off', summary: kind === 'none' ? 'no sandbox' : 'bubblewrap sandbox' }),
    });
    const tools = createWorkspaceTools({ fs, runner, applier: new FsEditApplier(fs), sandbox: { trusted: true } });
    return { runner, tools };
  }

  it('"Always allow" grants the program and subcommand only: the same runs unasked, another command asks', async () => {
    const { runner, tools } = contained('bubblewrap');
    const approver = new ScriptedApprover([{ kind: 'approve', scope: 'task' }, { kind: 'approve' }]);
    const h = harness(
      [
        callsTurn(['execute_command', { command: 'git commit -m first' }]),
        callsTurn(['execute_command', { command: 'git commit -m second' }]),
        callsTurn(['execute_command', { command: 'curl -fsS http://127.0.0.1:9/' }]),
        doneTurn(),
      ],
      { tools },
      approver,
    );
    await h.agent.send('t');
    assert.deepEqual(
      approver.requests.map((r) => (r.args as { command: string }).command),
      ['git commit -m first', 'curl -fsS http://127.0.0.1:9/'],
    );
    assert.equal((approver.requests[0].preview as { grant?: string }).grant, 'git commit');
    assert.equal(runner.calls.length, 3);
  });

  it('a command that touches a secret grants nothing beyond itself', async () => {
    const { tools } = contained('bubblewrap');
    const approver = new ScriptedApprover([{ kind: 'approve', scope: 'task' }, { kind: 'approve' }]);
    const h = harness(
      [
        callsTurn(['execute_command', { command: 'cat < .env' }]),
        callsTurn(['execute_command', { command: 'cat < .env' }]),
        doneTurn(),
      ],
      { tools },
      approver,
    );
    await h.agent.send('t');
    assert.equal(approver.requests.length, 2);
    assert.equal((approver.requests[0].preview as { grant?: string }).grant, undefined);
  });

  it('npm test runs unasked only inside a sandbox; without one it asks and the card says so', async () => {
    for (const [kind, asks] of [
      ['bubblewrap', 0],
      ['none', 1],
    ] as const) {
      const { runner, tools } = contained(kind);
      const approver = new ScriptedApprover([{ kind: 'approve' }]);
      const h = harness([callsTurn(['execute_command', { command: 'npm test' }]), doneTurn()], { tools }, approver);
      await h.agent.send('t');
      assert.equal(approver.requests.length, asks, kind);
      assert.equal(runner.calls.length, 1);
      if (asks)
        assert.match((approver.requests[0].preview as { containment?: string }).containment ?? '', /WITHOUT a sandbox/);
    }
  });
});

describe('execute_command default timeout', () => {
  it("uses the user's default when the model gives none, and the model's value when it does", async () => {
    const fs = new MemoryFs(['/ws'], {});
    const runner = new FakeCommandRunner(() => ({ exitCode: 0, output: '' }));
    const tools = createWorkspaceTools({
      fs,
      runner,
      applier: new FsEditApplier(fs),
      sandbox: { trusted: true },
      commandDefaultTimeoutSeconds: 7,
    });
    const h = harness(
      [
        callsTurn(
          ['execute_command', { command: 'git status' }],
          ['execute_command', { command: 'git log', timeoutSeconds: 30 }],
        ),
        doneTurn(),
      ],
      { tools },
    );
    await h.agent.send('t');
    assert.deepEqual(
      runner.calls.map((c) => c.timeoutMs),
      [7000, 30000],
    );
  });
});

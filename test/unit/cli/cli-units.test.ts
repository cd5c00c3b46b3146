// The runner's pieces without a process: flags and environment, approval policy and the terminal dialogue,
// exit codes, project rules.
import assert from 'node:assert/strict';
import { promises as fsp } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseArgs, UsageError } from '../../../src/cli/args';
import { Policy } from '../../../src/core/safety/policy';
import {
  standingFromFlags,
  CliApprover,
  makeStyle,
  parseApprovalPolicy,
  renderEditDiff,
  type AskLine,
} from '../../../src/cli/approvals';
import { inputEnvName } from '../../../src/cli/mcp';
import { exitCodeFor } from '../../../src/cli/output';
import { loadProjectRules } from '../../../src/cli/rules';
import { NodeWorkspaceFs } from '../../../src/node';
import type { ApprovalRequest } from '../../../src/core/safety/approval';
import type { Containment } from '../../../src/core/workspace/types';

const contained: Containment = { kind: 'bubblewrap', network: 'off', summary: 'bubblewrap' };
const bare: Containment = { kind: 'none', network: 'on', summary: 'no sandbox' };
const plain = makeStyle(false);

const edit: ApprovalRequest = {
  id: 'a1',
  taskId: 't',
  toolCallId: 'c1',
  toolName: 'write_file',
  risk: 'write',
  args: {},
  preview: {
    kind: 'edit',
    path: '/ws/a.ts',
    displayPath: 'a.ts',
    original: 'one\ntwo\n',
    proposed: 'one\nTWO\n',
    isNewFile: false,
  },
};
const command: ApprovalRequest = {
  id: 'a2',
  taskId: 't',
  toolCallId: 'c2',
  toolName: 'execute_command',
  risk: 'execute',
  args: {},
  preview: { kind: 'command', command: 'npm test', grant: 'npm test' },
};

function approver(policy: string[], c: Containment, answers?: string[]) {
  const said: string[] = [];
  let quit = false;
  const ask: AskLine | undefined = answers ? async () => answers.shift() : undefined;
  void c;
  const a = new CliApprover({
    policy: parseApprovalPolicy(policy),
    ask,
    say: (l) => said.push(l),
    style: plain,
    onQuit: () => (quit = true),
  });
  return { a, said, quit: () => quit };
}
const signal = new AbortController().signal;

describe('forge CLI: flags and environment', () => {
  it('provider, model and base URL come from flags over the environment', () => {
    const o = parseArgs(['run', '--model', 'm2', 'do', 'it'], { FORGE_PROVIDER: 'anthropic', FORGE_MODEL: 'm1' }, '/x');
    assert.equal(o.provider, 'anthropic');
    assert.equal(o.model, 'm2');
    assert.equal(o.task, 'do it');
    assert.equal(o.cwd, '/x');
    const compat = parseArgs(['run', 'x'], { FORGE_BASE_URL: 'http://127.0.0.1:1/v1', FORGE_MODEL: 'llama' });
    assert.equal(compat.provider, 'openai-compatible');
  });

  it('refuses what it cannot honour, as usage errors', () => {
    assert.throws(() => parseArgs(['run'], {}), UsageError);
    // A name a custom agent could have is checked once the agent files are read (runtime.ts); this one cannot be.
    assert.throws(() => parseArgs(['run', '--mode', 'yo lo!', 'x'], {}), /unknown mode/);
    assert.throws(() => parseArgs(['run', '--network', 'maybe', 'x'], {}), /not off, allowlist or on/);
    assert.throws(() => parseArgs(['run', '--api-key', 'sk', 'x'], {}), /unknown option --api-key/);
    assert.throws(() => parseArgs(['run', '--provider', 'openai-compatible', '--model', 'm', 'x'], {}), /base-url/);
  });

  it('budgets and a prompt file', () => {
    const o = parseArgs(
      ['run', '--max-cost', '0.5', '--max-minutes', '10', '--max-tokens', '200000', '--prompt-file', 'task.md'],
      {},
    );
    assert.deepEqual(
      [o.maxCostUsd, o.maxMinutes, o.maxTokens, o.promptFile, o.task],
      [0.5, 10, 200000, 'task.md', undefined],
    );
    assert.throws(() => parseArgs(['run', '--max-cost', '0', 'x'], {}), /--max-cost needs a number > 0/);
    assert.throws(() => parseArgs(['run', '--prompt-file', 'a.md', 'x'], {}), /not both/);
  });

  it('--yes-contained is writes + commands-sandboxed', () => {
    assert.deepEqual([...parseArgs(['run', '--yes-contained', 'x'], {}).approve].sort(), [
      'commands-sandboxed',
      'writes',
    ]);
  });

  it('MCP: --mcp names (repeatable, comma lists), --mcp-config, --no-mcp; no server is allowed by default', () => {
    const none = parseArgs(['run', 'x'], {});
    assert.deepEqual([none.mcp, none.mcpAllow, none.mcpConfig], [true, [], undefined]);
    const some = parseArgs(['run', '--mcp', 'github, fs', '--mcp=db', '--mcp-config', 'mine.json', 'x'], {});
    assert.deepEqual([some.mcpAllow, some.mcpConfig], [['github', 'fs', 'db'], 'mine.json']);
    assert.equal(parseArgs(['run', '--no-mcp', 'x'], {}).mcp, false);
    assert.equal(inputEnvName('github-token'), 'FORGE_MCP_INPUT_GITHUB_TOKEN');
  });
});

describe('forge CLI: approvals', () => {
  it('without a terminal and without a policy, every request is refused with how to allow it', async () => {
    const { a, said } = approver([], contained);
    const d = await a.request(edit, signal);
    assert.equal(d.kind, 'reject');
    assert.match(d.kind === 'reject' ? (d.reason ?? '') : '', /--approve writes,commands-sandboxed/);
    assert.match(said[0], /refused/);
  });

  it('--approve flags are standing approvals in core Policy; commands-sandboxed only while commands run contained', () => {
    const exec = { name: 'execute_command', risk: 'execute' as const };
    const decide = (flags: string[], c: Containment) =>
      new Policy({ standing: () => standingFromFlags(parseApprovalPolicy(flags), () => c) }).decide(exec);
    assert.deepEqual(decide(['commands-sandboxed'], contained), {
      action: 'allow',
      reason: '--approve commands-sandboxed',
      by: 'setting',
    });
    assert.equal(decide(['commands-sandboxed'], bare).action, 'ask');
    assert.equal(decide(['commands'], bare).action, 'allow');
    assert.equal(decide(['writes'], contained).action, 'ask');
  });

  it('in a terminal: the diff is shown, then y / a / n with a reason / q', async () => {
    const y = approver([], contained, ['y']);
    assert.deepEqual(await y.a.request(edit, signal), { kind: 'approve', scope: 'once' });
    assert.match(y.said.join('\n'), /-two\n\+TWO/);
    assert.deepEqual(await approver([], contained, ['?', 'a']).a.request(command, signal), {
      kind: 'approve',
      scope: 'task',
    });
    assert.deepEqual(await approver([], contained, ['n', 'use pnpm']).a.request(command, signal), {
      kind: 'reject',
      reason: 'use pnpm',
    });
    const q = approver([], contained, ['q']);
    assert.equal((await q.a.request(command, signal)).kind, 'reject');
    assert.equal(q.quit(), true);
  });

  it('renders a colored unified diff', () => {
    const text = renderEditDiff('a.ts', 'x\n', 'y\n', false, makeStyle(true));
    assert.ok(text.includes('\x1b[31m-x\x1b[39m') && text.includes('\x1b[32m+y\x1b[39m'), text);
  });
});

describe('forge CLI: exit codes and rules', () => {
  it('maps every way a run ends', () => {
    const code = (reason: string, detail = '') => exitCodeFor({ reason: reason as never, detail });
    assert.deepEqual(
      [
        code('done'),
        code('asked'),
        code('converse'),
        code('stopped'),
        code('max_iterations'),
        code('breaker', 'Cost budget reached: $1'),
        code('breaker', '3 consecutive tool errors'),
        code('guardrail'),
        code('stagnation'),
        code('error'),
      ],
      [0, 2, 2, 3, 4, 4, 5, 5, 6, 1],
    );
  });

  it('AGENTS.md then .forge/rules/*.md make the project-rules layer, as in the extension', async () => {
    const root = await fsp.mkdtemp(path.join(os.tmpdir(), 'forge-rules-'));
    try {
      await fsp.writeFile(path.join(root, 'AGENTS.md'), 'Use tabs.');
      await fsp.mkdir(path.join(root, '.forge', 'rules'), { recursive: true });
      await fsp.writeFile(path.join(root, '.forge', 'rules', 'b.md'), 'No semicolons.');
      const rules = await loadProjectRules(new NodeWorkspaceFs([root]));
      assert.deepEqual(rules.files, ['AGENTS.md', '.forge/rules/b.md']);
      const text = rules.text;
      assert.ok(text.includes('Use tabs.') && text.indexOf('Use tabs.') < text.indexOf('No semicolons.'), text);
    } finally {
      await fsp.rm(root, { recursive: true, force: true });
    }
  });
});

// Skills and custom agents in a real run: the openai SDK against the loopback LLM server, the Agent built the way
// both surfaces build it (node/surface/agents.ts), the files written as the anchors document them. Shows the
// skill index in the system prompt, the body arriving only after use_skill, the run narrowed by allowed-tools,
// and delegate_task handing a sub-task to a custom agent on its own model, priced at its own price.
import * as assert from 'node:assert/strict';
import { promises as fsp } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { z } from 'zod';
import type { AgentDeps } from '../../../../src/core/loop/agent';
import type { Tool } from '../../../../src/core/tools/types';
import { NodeWorkspaceFs } from '../../../../src/node';
import { buildAgent } from '../../../../src/node/surface/agents';
import { ModeModels, modeModelSpecs } from '../../../../src/node/surface/mode-models';
import { priceOf } from '../../../../src/node/surface/model';
import { TeamFiles } from '../../../../src/node/surface/team-files';
import { createModel } from '../../../../src/providers';
import { startLlmServer, type LlmServer, type LlmTurn } from '../../../support/llm-server';
import { fakeReadTool, fakeWriteTool, ScriptedApprover } from '../../../support/loop-harness';

const RELEASE_NOTES = `---
name: release-notes
description: Draft release notes from merged PRs since the last tag. Use when asked for a changelog or release notes.
allowed-tools: Bash(git log *) Bash(git describe *)
---
1. Find the last tag (\`git describe --tags --abbrev=0\`); list commits since it.
2. Group them into features and fixes using [the template](references/TEMPLATE.md).
`;

const TEST_FIXER = `---
name: test-fixer
description: Runs the failing tests and fixes the code under test. Use proactively after edits break tests.
tools: Read, Grep, Glob, Edit, Bash
model: gpt-4.1-mini
---
You fix failing tests. Never weaken an assertion; change the code under test. Report what you changed.
`;

const commandTool: Tool = {
  name: 'execute_command',
  description: 'Run a command',
  input: z.object({ command: z.string() }),
  risk: 'execute',
  execute: async () => ({ content: 'ok' }),
};

const usage = { inputTokens: 1000, outputTokens: 100 };
const call = (name: string, args: unknown): LlmTurn => ({ toolCalls: [{ name, args }], usage });
const done = (result: string): LlmTurn => call('task_completion', { result });

const systemOf = (body: any): string =>
  body.messages
    .filter((m: any) => m.role === 'system' || m.role === 'developer')
    .map((m: any) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content)))
    .join('\n');
const toolNames = (body: any): string[] => (body.tools ?? []).map((t: any) => t.function.name).sort();

describe('skills and custom agents over the loopback server', () => {
  let srv: LlmServer;
  let ws: string;
  before(async () => (srv = await startLlmServer()));
  after(async () => srv.close());
  beforeEach(async () => {
    srv.requests.length = 0;
    ws = await fsp.realpath(await fsp.mkdtemp(path.join(os.tmpdir(), 'forge-team-')));
  });
  afterEach(async () => fsp.rm(ws, { recursive: true, force: true }));

  async function setup(files: Record<string, string>) {
    for (const [rel, text] of Object.entries(files)) {
      await fsp.mkdir(path.dirname(path.join(ws, rel)), { recursive: true });
      await fsp.writeFile(path.join(ws, rel), text);
    }
    const team = new TeamFiles(new NodeWorkspaceFs([ws]), { warn: (m) => assert.fail(m) });
    await team.load();
    const model = (id: string) =>
      createModel({ provider: 'openai', model: id, apiKey: 'k', baseUrl: srv.openaiBaseUrl });
    const models = new ModeModels();
    await models.prepare(
      modeModelSpecs({}, team.agents, 'openai'),
      async (spec) => ({ model: model(spec.split(':')[1]!) }),
      (m) => assert.fail(m),
    );
    const deps: AgentDeps = {
      model: model('gpt-4.1'),
      tools: [fakeReadTool(), fakeWriteTool(), commandTool],
      approver: new ScriptedApprover(),
      config: { price: (u, info) => (info ? priceOf(u, info) : undefined) },
      modelFor: (mode) => models.modelFor(mode),
    };
    return { team, agent: buildAgent(deps, { team }) };
  }

  it('the index is in the system prompt, the body arrives after use_skill, and allowed-tools narrows the run', async () => {
    const { agent, team } = await setup({
      '.claude/skills/release-notes/SKILL.md': RELEASE_NOTES,
      '.claude/skills/release-notes/references/TEMPLATE.md': '## Features\n',
    });
    srv.script([call('use_skill', { name: 'release-notes' }), done('notes drafted')]);
    const report = await agent.send('Write the release notes for 2.0');
    assert.equal(report.reason, 'done', report.detail);
    const [first, second] = srv.requests.map((r) => r.body);
    assert.match(systemOf(first), /- release-notes: Draft release notes from merged PRs since the last tag/);
    assert.doesNotMatch(JSON.stringify(first.messages), /git describe --tags --abbrev=0/, 'no body before the call');
    assert.ok(toolNames(first).includes('use_skill') && toolNames(first).includes('write_file'));
    const toolMsg = second.messages.find((m: any) => m.role === 'tool');
    assert.match(toolMsg.content, /git describe --tags --abbrev=0/);
    assert.match(toolMsg.content, /- references\/TEMPLATE\.md/);
    // Narrowed to the skill's tools (Bash -> execute_command) for the rest of the run: never widened.
    assert.ok(
      !toolNames(second).includes('write_file') && !toolNames(second).includes('read_file'),
      toolNames(second).join(),
    );
    assert.ok(toolNames(second).includes('execute_command'));
    assert.deepEqual(team.loadedBy(agent.taskId), ['release-notes']);
  });

  it('delegate_task hands a sub-task to a custom agent: its prompt, its tools only, its model and price, no recursion', async () => {
    const { agent } = await setup({ '.claude/agents/test-fixer.md': TEST_FIXER });
    srv.script([
      call('delegate_task', { agent: 'test-fixer', task: 'Make npm test pass again.' }),
      done('fixed the off-by-one in sum.js'),
      done('the helper fixed it'),
    ]);
    const report = await agent.send('The tests broke; get the test-fixer on it');
    assert.equal(report.reason, 'done', report.detail);
    const [parent, child, parentAgain] = srv.requests.map((r) => r.body);
    assert.equal(parent.model, 'gpt-4.1');
    assert.match(systemOf(parent), /- test-fixer: Runs the failing tests/);
    assert.equal(child.model, 'gpt-4.1-mini', 'the agent runs on its own model');
    assert.match(systemOf(child), /Never weaken an assertion/);
    assert.deepEqual(
      toolNames(child).filter((n) => !['ask_question', 'converse', 'read_output', 'task_completion'].includes(n)),
      ['execute_command', 'read_file', 'write_file'],
      'only the tools of its list (no delegate_task: delegation is one level deep)',
    );
    const childUser = child.messages.filter((m: any) => m.role === 'user').map((m: any) => m.content);
    assert.equal(childUser.length, 1, 'the agent starts fresh with the task');
    assert.match(childUser[0], /Make npm test pass again/);
    assert.match(parentAgain.messages.find((m: any) => m.role === 'tool').content, /fixed the off-by-one/);
    // Each model at its own price: two gpt-4.1 steps and one gpt-4.1-mini step.
    const step = (inp: number, out: number) => (1000 * inp + 100 * out) / 1e6;
    assert.ok(Math.abs(report.costUsd! - (2 * step(2, 8) + step(0.4, 1.6))) < 1e-9, String(report.costUsd));
  });

  it('a custom agent is a mode: setMode, its prompt in the role layer, its model for the run; unknown names refused', async () => {
    const { agent } = await setup({ '.claude/agents/test-fixer.md': TEST_FIXER });
    agent.setMode('test-fixer');
    assert.throws(() => agent.setMode('no-such-agent'), /Unknown mode/);
    srv.script([done('ok')]);
    const report = await agent.send('fix it');
    assert.equal(report.reason, 'done');
    const body = srv.requests[0]!.body;
    assert.equal(body.model, 'gpt-4.1-mini');
    assert.match(
      systemOf(body),
      /Mode: test-fixer\. Custom agent test-fixer, defined by the team in \.claude\/agents\/test-fixer\.md/,
    );
    assert.equal(report.steps[0]!.model, 'openai:gpt-4.1-mini');
  });

  it('from a read-only mode, an agent that may edit is refused: a helper never has more rights', async () => {
    const { agent } = await setup({ '.claude/agents/test-fixer.md': TEST_FIXER });
    agent.setMode('plan');
    srv.script([call('delegate_task', { agent: 'test-fixer', task: 'fix' }), done('no')]);
    await agent.send('fix the tests');
    const tool = srv.requests[1]!.body.messages.find((m: any) => m.role === 'tool');
    assert.match(tool.content, /The test-fixer agent cannot take this sub-task: it may write, execute/);
    assert.equal(srv.requests.length, 2, 'no sub-agent request was made');
  });
});

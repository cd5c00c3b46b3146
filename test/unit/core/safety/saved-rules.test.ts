// Saved permission rules through the real tools and core's Policy: a saved command rule allows through the tool's own
// grant logic (a hazard still asks), an edit glob allows edits under it but never the control plane, a deny wins over
// any allow, and Claude Code's permission lists are read as rules.
import assert from 'node:assert/strict';
import { Policy } from '../../../../src/core/safety/policy';
import {
  globRegExp,
  parseClaudePermissions,
  withSavedRules,
  type SavedRule,
} from '../../../../src/core/safety/saved-rules';
import { createWorkspaceTools } from '../../../../src/core/tools/builtin';
import type { Tool } from '../../../../src/core/tools/types';
import { FakeCommandRunner, FsEditApplier, MemoryFs } from '../../../../src/core/workspace/memory-fs';
import { byName, ctx } from '../../../support/tool-context';

const rule = (kind: SavedRule['kind'], pattern: string, action: SavedRule['action'] = 'allow'): SavedRule => ({
  kind,
  pattern,
  action,
  scope: 'workspace',
  source: 'saved',
});

function tools(rules: SavedRule[]): Tool[] {
  const fs = new MemoryFs(['/ws'], { '/ws/a.txt': 'hello', '/ws/src/x.ts': 'x' });
  return createWorkspaceTools({
    fs,
    runner: new FakeCommandRunner(() => ({ exitCode: 0, output: '' })),
    applier: new FsEditApplier(fs),
    sandbox: { trusted: true },
  }).map((t) => withSavedRules(t, () => rules));
}

async function decide(ts: Tool[], name: string, input: unknown, policy = new Policy()) {
  const tool = byName(ts, name);
  const parsed = tool.input.parse(input);
  const p = tool.prepare ? await tool.prepare(parsed, ctx()) : { kind: 'ready' as const };
  if (p.kind === 'refuse') return { action: 'refused' as const };
  return policy.decide({ name: tool.name, risk: tool.risk, prepared: p });
}

describe('safety: saved permission rules', () => {
  it('a saved command rule allows that program and subcommand, not others, not a chain with another', async () => {
    const ts = tools([rule('command', 'npm test')]);
    assert.equal((await decide(ts, 'execute_command', { command: 'npm test' })).action, 'allow');
    assert.equal((await decide(ts, 'execute_command', { command: 'git push' })).action, 'ask');
    assert.equal((await decide(ts, 'execute_command', { command: 'npm test && git push' })).action, 'ask');
    assert.equal(
      (await decide(tools([]), 'execute_command', { command: 'npm test' })).action,
      'ask',
      'not allowed without the rule',
    );
  });

  it('an edit glob allows edits under it; the control plane is still asked', async () => {
    const ts = tools([rule('edit', 'src/**'), rule('edit', '.vscode/**')]);
    assert.equal((await decide(ts, 'write_file', { path: 'src/x.ts', content: 'y' })).action, 'allow');
    assert.equal((await decide(tools([]), 'write_file', { path: 'src/x.ts', content: 'y' })).action, 'ask');
    assert.equal((await decide(ts, 'write_file', { path: 'a.txt', content: 'y' })).action, 'ask');
    assert.equal((await decide(ts, 'write_file', { path: '.vscode/tasks.json', content: '{}' })).action, 'ask');
  });

  it('a deny wins over any allow, and a saved allow never outranks a denied risk class', async () => {
    const ts = tools([rule('command', 'npm test'), rule('command', 'npm *', 'deny')]);
    assert.equal((await decide(ts, 'execute_command', { command: 'npm test' })).action, 'deny');
    const denyWrites = new Policy({ byRisk: { read: 'allow', write: 'deny', execute: 'ask', network: 'ask' } });
    assert.equal(
      (await decide(tools([rule('edit', '**')]), 'write_file', { path: 'a.txt', content: 'y' }, denyWrites)).action,
      'deny',
    );
  });

  it("reads Claude Code's permission lists; what has no equivalent is reported", () => {
    const r = parseClaudePermissions(
      {
        allow: [
          'Bash(npm run test *)',
          'Edit(./src/**)',
          'WebFetch(domain:docs.example.com)',
          'mcp__github__get_issue',
          'Read(./src/**)',
        ],
        deny: ['Bash(curl *)'],
      },
      'workspace',
      '.claude/settings.json',
    );
    assert.deepEqual(
      r.rules.map((x) => `${x.action} ${x.kind} ${x.pattern}`),
      [
        'allow command npm run test *',
        'allow edit ./src/**',
        'allow web docs.example.com',
        'allow mcp mcp__github__get_issue',
        'deny command curl *',
      ],
    );
    assert.deepEqual(r.skipped, ['allow: Read(./src/**)']);
  });

  it('a Claude deny pattern refuses any part of a chain', async () => {
    const ts = tools([rule('command', 'curl *', 'deny')]);
    assert.equal((await decide(ts, 'execute_command', { command: 'echo a && curl https://x.example' })).action, 'deny');
  });

  it('globs', () => {
    assert.ok(globRegExp('src/**').test('src/a/b.ts'));
    assert.ok(globRegExp('./src/**').test('src/a.ts'));
    assert.ok(globRegExp('*.md').test('README.md'));
    assert.ok(!globRegExp('*.md').test('docs/a.md'));
    assert.ok(globRegExp('docs').test('docs/a.md'));
    assert.ok(!globRegExp('src/**').test('srcx/a.ts'));
  });
});

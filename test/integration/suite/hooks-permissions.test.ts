// Hooks and saved permission rules in a real VS Code: a workspace's PreToolUse hook in Claude Code's format does not
// run until the user allows it for the workspace, then blocks a command with exit 2 and the model reads the reason;
// changing the hook's command asks again. A saved edit rule lets writes under its folder through without a question.
import * as assert from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { waitFor, wsPath } from '../helpers';
import {
  done,
  endLeftoverRun,
  forge,
  freshTask,
  pendingApproval,
  toolResultSeenByModel,
  type ForgeApi,
} from './forge-api';

describe('Forge hooks and saved permission rules (real VS Code)', function () {
  this.timeout(120_000);
  let api: ForgeApi;
  const settings = () => wsPath('.claude', 'settings.json');
  const script = () => wsPath('.claude', 'hooks', 'no-force-push.sh');
  const guards = () => (api.testApi as any).ecosystem.guards;

  const writeHook = (command: string) => {
    fs.mkdirSync(path.dirname(script()), { recursive: true });
    fs.writeFileSync(
      script(),
      '#!/bin/sh\ninput=$(cat)\ncase "$input" in *"--force"*) echo "no force push in this repository" >&2; exit 2;; esac\nexit 0\n',
      { mode: 0o755 },
    );
    fs.writeFileSync(
      settings(),
      JSON.stringify({ hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command }] }] } }, null, 2),
    );
    guards().hooks.service.reload();
  };

  before(async () => {
    api = await forge();
  });
  afterEach(() => endLeftoverRun(api));
  after(async () => {
    fs.rmSync(wsPath('.claude'), { recursive: true, force: true });
    fs.rmSync(wsPath('notes'), { recursive: true, force: true });
    fs.rmSync(wsPath('elsewhere.md'), { force: true });
    guards().hooks.service.reload();
    for (const r of guards().rules.rules()) if (r.source === 'saved') await guards().rules.remove(r);
  });

  it('a workspace hook runs only once allowed, then blocks with exit 2 and the model reads why', async () => {
    const command = '"$CLAUDE_PROJECT_DIR"/.claude/hooks/no-force-push.sh';
    writeHook(command);
    const entries = await guards().hooks.entries();
    const mine = entries.filter((e: any) => e.hook.source === '.claude/settings.json');
    assert.strictEqual(mine.length, 1, JSON.stringify(entries));
    assert.strictEqual(mine[0].allowed, undefined, 'not allowed before the user answers');

    // Not allowed yet: the hook does not run, so the command goes to the approval card (rejected here).
    await freshTask(api, [
      { toolCalls: [{ id: 'h-1', name: 'execute_command', args: { command: 'echo git push --force' } }] },
      done('asked'),
    ]);
    let run = api.testApi.controller.startRun('send', 'push');
    const approval = await pendingApproval(api, 'execute_command', 60_000);
    await api.approvals.resolve(approval.id, { kind: 'reject', reason: 'not now' });
    await run;
    assert.match((await toolResultSeenByModel('h-1')) ?? '', /User rejected: not now/);

    // The user allows the workspace's hooks (what "Allow" does): the same call is blocked before anyone is asked.
    await guards().hooks.allow(mine.map((e: any) => e.key));
    await freshTask(api, [
      { toolCalls: [{ id: 'h-2', name: 'execute_command', args: { command: 'echo git push --force' } }] },
      done('blocked'),
    ]);
    run = api.testApi.controller.startRun('send', 'push again');
    const report = await run;
    assert.strictEqual(report.reason, 'done', report.detail);
    assert.match(
      (await toolResultSeenByModel('h-2')) ?? '',
      /Blocked by a PreToolUse hook: no force push in this repository/,
    );
    assert.strictEqual(api.approvals.pending().length, 0);

    // A changed command is a new question: the allowed answer does not carry over.
    writeHook(`${command} --strict`);
    const after = (await guards().hooks.entries()).filter((e: any) => e.hook.source === '.claude/settings.json');
    assert.strictEqual(after[0].allowed, undefined);
  });

  it('a saved edit rule lets writes under its folder through; elsewhere still asks', async () => {
    await guards().rules.save({ kind: 'edit', pattern: 'notes/**', action: 'allow', scope: 'workspace' });
    assert.ok(
      guards()
        .rules.rules()
        .some((r: any) => r.pattern === 'notes/**'),
    );
    await freshTask(api, [
      { toolCalls: [{ id: 'r-1', name: 'write_file', args: { path: 'notes/todo.md', content: '- ship it\n' } }] },
      { toolCalls: [{ id: 'r-2', name: 'write_file', args: { path: 'elsewhere.md', content: 'x\n' } }] },
      done('wrote'),
    ]);
    const run = api.testApi.controller.startRun('send', 'write notes');
    const approval = await pendingApproval(api, 'write_file', 60_000);
    // The first write ran without a question; the question is for the second.
    assert.strictEqual(fs.readFileSync(wsPath('notes', 'todo.md'), 'utf8'), '- ship it\n');
    assert.strictEqual(approval.toolCallId, 'r-2');
    await api.approvals.resolve(approval.id, { kind: 'reject', reason: 'no' });
    await run;
    assert.strictEqual(fs.existsSync(wsPath('elsewhere.md')), false);
    // Removed from the list, the rule stops at once.
    const rule = guards()
      .rules.rules()
      .find((r: any) => r.pattern === 'notes/**');
    await guards().rules.remove(rule);
    assert.ok(
      !guards()
        .rules.rules()
        .some((r: any) => r.pattern === 'notes/**'),
    );
    await waitFor(() => !api.testApi.manager.current.running, 'the run to end');
  });
});

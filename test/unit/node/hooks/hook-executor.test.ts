// Hook commands run for real: stdin JSON, exit 2 blocking, and hostile hooks (one that hangs, one that prints
// megabytes, one whose command is missing) each get a clear result, inside the real OS sandbox.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { HookDispatcher } from '../../../../src/core/hooks/dispatcher';
import type { HookCommand } from '../../../../src/core/hooks/types';
import { NodeHookExecutor, HOOK_OUTPUT_CAP } from '../../../../src/node/hooks/hook-executor';
import { CommandSandbox } from '../../../../src/node/sandbox/command-sandbox';

function hook(command: string, extra: Partial<HookCommand> = {}): HookCommand {
  return {
    event: 'PreToolUse',
    matcher: 'Bash',
    command,
    timeoutMs: 5000,
    scope: 'workspace',
    source: 'test',
    ...extra,
  };
}

describe('hooks: NodeHookExecutor', function () {
  this.timeout(30_000);
  let dir: string;
  let ws: string;
  let sandbox: CommandSandbox;
  let executor: NodeHookExecutor;
  before(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'forge-hooks-'));
    ws = path.join(dir, 'ws');
    mkdirSync(ws);
    mkdirSync(path.join(dir, 'home'));
    sandbox = new CommandSandbox({
      settings: () => ({ enabled: true, network: 'off', envAllow: [] }),
      roots: () => [ws],
      home: path.join(dir, 'home'),
      baseDir: path.join(dir, 'sbx'),
    });
    const c = await sandbox.ready();
    assert.equal(c.kind, 'bubblewrap', c.reason);
    executor = new NodeHookExecutor({ root: () => ws, sandbox });
  });
  after(async () => {
    await sandbox.dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  const signal = () => new AbortController().signal;

  it('hands the event JSON on stdin and the project dir in $CLAUDE_PROJECT_DIR', async () => {
    const run = await executor.run(
      hook(
        `node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{const j=JSON.parse(s);console.log(j.tool_name+" "+process.env.CLAUDE_PROJECT_DIR)})'`,
      ),
      JSON.stringify({ tool_name: 'Bash' }),
      signal(),
    );
    assert.equal(run.exitCode, 0, run.stderr);
    assert.equal(run.stdout.trim(), `Bash ${ws}`);
  });

  it('a hook that hangs is killed at its time limit, with nothing left running', async () => {
    const marker = path.join(ws, 'late');
    const t0 = Date.now();
    const run = await executor.run(hook(`sleep 30; touch ${marker}`, { timeoutMs: 400 }), '{}', signal());
    assert.equal(run.timedOut, true);
    assert.equal(run.exitCode, null);
    assert.ok(Date.now() - t0 < 5000, `took ${Date.now() - t0} ms`);
    assert.equal(existsSync(marker), false);
  });

  it('a hook that prints megabytes keeps only the cap and says so', async () => {
    const run = await executor.run(hook(`head -c 8000000 /dev/zero | tr '\\0' x`), '{}', signal());
    assert.equal(run.exitCode, 0);
    assert.equal(run.truncated, true);
    assert.equal(run.stdout.length, HOOK_OUTPUT_CAP);
  });

  it('a missing command exits 127, and the dispatcher reports it without blocking', async () => {
    const dispatcher = new HookDispatcher({
      hooks: () => [hook('./no-such-hook.sh')],
      executor,
      common: () => ({ session_id: 's', cwd: ws }),
    });
    const v = await dispatcher.fire(
      'PreToolUse',
      { tool_name: 'execute_command', tool_input: { command: 'ls' } },
      signal(),
    );
    assert.equal(v.block, undefined);
    assert.match(v.notices.join('\n'), /no-such-hook\.sh.*failed with exit code 127/);
  });

  it('exit 2 blocks with stderr as the reason; a script file from the workspace runs contained', async () => {
    const script = path.join(ws, 'guard.sh');
    writeFileSync(script, '#!/bin/sh\ncat > /dev/null\necho "no force push here" >&2\nexit 2\n', { mode: 0o755 });
    const dispatcher = new HookDispatcher({
      hooks: () => [hook('"$CLAUDE_PROJECT_DIR"/guard.sh')],
      executor,
      common: () => ({ session_id: 's', cwd: ws }),
    });
    const v = await dispatcher.fire(
      'PreToolUse',
      { tool_name: 'execute_command', tool_input: { command: 'git push -f' } },
      signal(),
    );
    assert.equal(v.block, 'no force push here');
  });

  it('a hook cannot write outside the workspace (it runs in the sandbox)', async () => {
    const outside = path.join(dir, 'outside.txt');
    const run = await executor.run(hook(`echo hi > ${outside}`), '{}', signal());
    assert.equal(run.failed, undefined);
    assert.equal(existsSync(outside), false, 'the write left the sandbox');
  });
});

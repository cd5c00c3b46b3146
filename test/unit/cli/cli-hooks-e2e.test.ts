// Hooks end to end through the built `forge` command on the real openai SDK against the loopback model server:
// hook files in Claude Code's documented format (workspace .claude/settings.json, the user's
// ~/.claude/settings.json), run in the real OS sandbox.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, promises as fsp } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as esbuild from 'esbuild';
import { startLlmServer, type LlmServer, type LlmTurn } from '../../support/llm-server';

const REPO = path.resolve(__dirname, '../../..');
const CLI = path.join(REPO, 'dist', 'cli.js');

async function buildCli(): Promise<void> {
  const load = new Function('u', 'return import(u)') as (
    u: string,
  ) => Promise<{ buildOptions: Record<string, esbuild.BuildOptions> }>;
  const { buildOptions } = await load(`file://${path.join(REPO, 'esbuild.mjs')}`);
  await esbuild.build({ ...buildOptions.cli, absWorkingDir: REPO });
  const vendored = ['mvdan-sh.js', 'mcp-sdk.js'].map((f) => path.join(REPO, 'dist', 'vendor', f));
  if (!vendored.every((f) => existsSync(f))) await esbuild.build({ ...buildOptions.vendor, absWorkingDir: REPO });
}

function runCli(srv: LlmServer, cwd: string, home: string, args: string[]) {
  const child = spawn(process.execPath, [CLI, 'run', ...args, '--cwd', cwd, '--no-reflect', '--no-memory'], {
    cwd,
    env: {
      PATH: process.env.PATH,
      HOME: home,
      FORGE_PROVIDER: 'openai-compatible',
      FORGE_BASE_URL: srv.openaiBaseUrl,
      FORGE_MODEL: 'gpt-4.1',
      OPENAI_API_KEY: 'sk-test',
      NO_COLOR: '1',
    },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  child.stdin.end('');
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.on('close', (code) => resolve({ code, stdout, stderr })),
  );
}

const call = (name: string, args: unknown): LlmTurn => ({
  toolCalls: [{ name, args }],
  usage: { inputTokens: 100, outputTokens: 10 },
});
const done = (result: string) => call('task_completion', { result });
const toolResults = (body: any): string[] =>
  (body.messages as any[]).filter((m) => m.role === 'tool').map((m) => String(m.content));
const userTexts = (body: any): string =>
  (body.messages as any[])
    .filter((m) => m.role === 'user')
    .map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content)))
    .join('\n');

async function writeJson(file: string, value: unknown): Promise<void> {
  await fsp.mkdir(path.dirname(file), { recursive: true });
  await fsp.writeFile(file, JSON.stringify(value, null, 2));
}

async function script(file: string, body: string): Promise<void> {
  await fsp.mkdir(path.dirname(file), { recursive: true });
  await fsp.writeFile(file, `#!/bin/sh\n${body}\n`, { mode: 0o755 });
}

describe('forge CLI: hooks (Claude Code format) end to end', function () {
  this.timeout(90_000);
  let srv: LlmServer;
  let ws: string;
  let home: string;

  before(async () => {
    await buildCli();
    srv = await startLlmServer();
  });
  after(async () => srv?.close());
  beforeEach(async () => {
    srv.reset();
    ws = await fsp.mkdtemp(path.join(os.tmpdir(), 'forge-hooks-ws-'));
    home = await fsp.mkdtemp(path.join(os.tmpdir(), 'forge-hooks-home-'));
    // The documented example: a PreToolUse hook on Bash that refuses a force push.
    await writeJson(path.join(ws, '.claude', 'settings.json'), {
      hooks: {
        PreToolUse: [
          {
            matcher: 'Bash',
            hooks: [{ type: 'command', command: '"$CLAUDE_PROJECT_DIR"/.claude/hooks/no-force-push.sh', timeout: 10 }],
          },
        ],
      },
    });
    await script(
      path.join(ws, '.claude', 'hooks', 'no-force-push.sh'),
      `input=$(cat)\ncase "$input" in *"--force"*) echo "no force push in this repository" >&2; exit 2;; esac\nexit 0`,
    );
  });
  afterEach(async () => {
    await fsp.rm(ws, { recursive: true, force: true });
    await fsp.rm(home, { recursive: true, force: true });
  });

  it('a workspace PreToolUse hook blocks with exit 2 and the model reads its reason', async () => {
    srv.script([
      call('execute_command', { command: 'touch forced && echo git push --force' }),
      call('execute_command', { command: 'touch allowed' }),
      done('gave up on the force push'),
    ]);
    const res = await runCli(srv, ws, home, [
      '--approve',
      'commands-sandboxed',
      '--allow-workspace-hooks',
      'push my branch',
    ]);
    assert.equal(res.code, 0, res.stderr);
    const results = toolResults(srv.requests[1]!.body);
    assert.match(results.at(-1)!, /Blocked by a PreToolUse hook: no force push in this repository/);
    assert.equal(existsSync(path.join(ws, 'forced')), false, 'the blocked command ran');
    assert.equal(existsSync(path.join(ws, 'allowed')), true, 'a command the hook let through did not run');
  });

  it("a prompt hook asks the task's model; an http hook POSTs to a loopback server; both can refuse", async () => {
    const http = await import('node:http');
    const posted: string[] = [];
    const hookSrv = http.createServer((req, res) => {
      let body = '';
      req.on('data', (d: Buffer) => (body += d.toString()));
      req.on('end', () => {
        posted.push(body);
        const deny = body.includes('delegate');
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(deny ? JSON.stringify({ decision: 'block', reason: 'no helpers here' }) : '{}');
      });
    });
    await new Promise<void>((r) => hookSrv.listen(0, '127.0.0.1', r));
    const port = (hookSrv.address() as { port: number }).port;
    try {
      await writeJson(path.join(ws, '.claude', 'settings.json'), {
        hooks: {
          PreToolUse: [
            { matcher: 'Bash', hooks: [{ type: 'prompt', prompt: 'Refuse commands that delete files: $ARGUMENTS' }] },
            { matcher: 'Task', hooks: [{ type: 'http', url: `http://127.0.0.1:${port}/pre` }] },
          ],
        },
      });
      srv.script([
        call('execute_command', { command: 'rm -rf build' }),
        // The prompt hook's question to the same model.
        { text: '{"ok": false, "reason": "rm deletes files"}' },
        call('delegate_task', { task: 'delegate the cleanup' }),
        done('left the build folder alone'),
      ]);
      const res = await runCli(srv, ws, home, [
        '--approve',
        'commands-sandboxed',
        '--allow-workspace-hooks',
        'clean up',
      ]);
      assert.equal(res.code, 0, res.stderr);
      assert.match(JSON.stringify(srv.requests[1]!.body), /Refuse commands that delete files[\s\S]*rm -rf build/);
      assert.match(toolResults(srv.requests[2]!.body).at(-1)!, /Blocked by a PreToolUse hook: rm deletes files/);
      assert.equal(posted.length, 1, 'the http hook ran for delegate_task only');
      assert.equal(JSON.parse(posted[0]!).tool_name, 'Task');
      assert.match(toolResults(srv.requests[3]!.body).at(-1)!, /Blocked by a PreToolUse hook: no helpers here/);
    } finally {
      hookSrv.close();
      hookSrv.closeAllConnections();
    }
  });

  it('without the user allowing them, workspace hooks do not run, and Forge says so', async () => {
    srv.script([call('execute_command', { command: 'touch forced && echo --force' }), done('ok')]);
    const res = await runCli(srv, ws, home, ['--approve', 'commands-sandboxed', 'push']);
    assert.equal(res.code, 0, res.stderr);
    assert.equal(existsSync(path.join(ws, 'forced')), true);
    assert.match(
      res.stderr,
      /1 workspace hook does not run \(--allow-workspace-hooks runs them\): \.claude\/settings\.json/,
    );
  });

  it("the user's hooks: UserPromptSubmit adds context, Stop keeps the agent working once", async () => {
    await writeJson(path.join(home, '.claude', 'settings.json'), {
      hooks: {
        UserPromptSubmit: [{ hooks: [{ type: 'command', command: 'echo "Ticket context: FORGE-4242"' }] }],
        Stop: [
          {
            hooks: [
              {
                type: 'command',
                command: `grep -q '"stop_hook_active":true' || echo '{"decision":"block","reason":"run the linter first"}'`,
              },
            ],
          },
        ],
      },
    });
    srv.script([done('finished early'), done('linted and finished')]);
    const res = await runCli(srv, ws, home, ['do the thing']);
    assert.equal(res.code, 0, res.stderr);
    assert.match(userTexts(srv.requests[0]!.body), /Ticket context: FORGE-4242/);
    assert.match(
      toolResults(srv.requests[1]!.body).at(-1)!,
      /Stop hook did not let the task end yet: run the linter first/,
    );
    assert.equal(srv.requests.length, 2);
  });

  it('hostile hooks (one hangs, one prints megabytes, one is missing) are reported and the run goes on', async () => {
    await writeJson(path.join(home, '.claude', 'settings.json'), {
      hooks: {
        PostToolUse: [
          {
            matcher: 'Read|Bash',
            hooks: [
              { type: 'command', command: 'sleep 60', timeout: 1 },
              { type: 'command', command: "head -c 5000000 /dev/zero | tr '\\0' y" },
              { type: 'command', command: '/no/such/hook' },
            ],
          },
        ],
      },
    });
    await fsp.writeFile(path.join(ws, 'a.txt'), 'hello\n');
    srv.script([call('read_file', { path: 'a.txt' }), done('read it')]);
    const t0 = Date.now();
    const res = await runCli(srv, ws, home, ['read a.txt']);
    assert.equal(res.code, 0, res.stderr);
    assert.ok(Date.now() - t0 < 30_000, `took ${Date.now() - t0} ms`);
    assert.match(res.stderr, /"sleep 60".*timed out after 1 s/);
    assert.match(res.stderr, /printed more than Forge keeps/);
    assert.match(res.stderr, /\/no\/such\/hook.*exit code 127/);
    assert.match(toolResults(srv.requests[1]!.body).at(-1)!, /hello/);
  });
});

// The built `forge` command (node dist/cli.js) end to end: a child process on the real openai SDK against the
// loopback model server, in a temp git-less workspace, commands in the real OS sandbox.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, promises as fsp, readFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { startLlmServer, type LlmServer, type LlmTurn } from '../../support/llm-server';
import { buildCli, CLI, REPO, spawnCli, type CliRun } from './cli-harness';

const KEY = 'sk-forge-test-secret-4242';

function startCli(srv: LlmServer, cwd: string, args: string[], stdin = '', extraEnv: NodeJS.ProcessEnv = {}): CliRun {
  const env: NodeJS.ProcessEnv = {
    FORGE_PROVIDER: 'openai-compatible',
    FORGE_BASE_URL: srv.openaiBaseUrl,
    FORGE_MODEL: 'gpt-4.1',
    OPENAI_API_KEY: KEY,
    ...extraEnv,
  };
  return spawnCli(cwd, [...args, '--no-reflect'], env, stdin);
}

const run = (srv: LlmServer, cwd: string, args: string[]) => startCli(srv, cwd, args).done;

function jsonLines(text: string): any[] {
  return text
    .split('\n')
    .filter((l) => l.trim())
    .map((l, i) => {
      try {
        return JSON.parse(l);
      } catch {
        throw new Error(`stdout line ${i + 1} is not JSON: ${l.slice(0, 200)}`);
      }
    });
}

const call = (name: string, args: unknown): LlmTurn => ({
  toolCalls: [{ name, args }],
  usage: { inputTokens: 100, outputTokens: 10 },
});
const done = (result: string): LlmTurn => call('task_completion', { result });

/** The tool results Forge sent back in a recorded request (OpenAI wire format). */
function toolResults(body: any): string[] {
  return (body.messages as any[]).filter((m) => m.role === 'tool').map((m) => String(m.content));
}

describe('forge CLI (dist/cli.js) end to end', function () {
  this.timeout(60_000);
  let srv: LlmServer;
  let ws: string;

  before(async () => {
    await buildCli();
    srv = await startLlmServer({ chunkBytes: 7 });
  });
  after(async () => srv?.close());
  beforeEach(async () => {
    srv.reset();
    ws = await fsp.mkdtemp(path.join(os.tmpdir(), 'forge-cli-'));
    await fsp.writeFile(
      path.join(ws, 'test.js'),
      "const { sum } = require('./sum');\nif (sum(2, 3) !== 5) { console.error('FAIL'); process.exit(1); }\nconsole.log('tests ok');\n",
    );
    await fsp.writeFile(path.join(ws, 'AGENTS.md'), 'Always run node test.js before finishing.\n');
    await fsp.mkdir(path.join(ws, '.forge'));
    await fsp.writeFile(
      path.join(ws, '.forge', 'memory.jsonl'),
      `${JSON.stringify({ type: 'procedural', content: 'In this repo sum.js must use CommonJS exports', tags: ['sum'], confidence: 0.9 })}\n`,
    );
  });
  afterEach(async () => fsp.rm(ws, { recursive: true, force: true }));

  it('the bundle is a node script with no vscode import', () => {
    const text = readFileSync(CLI, 'utf8');
    assert.ok(text.startsWith('#!/usr/bin/env node\n'), 'shebang');
    assert.doesNotMatch(text, /require\(["']vscode["']\)/);
  });

  it('edits a file, runs the test command in the sandbox, completes: exit 0, JSON Lines on stdout', async () => {
    srv.script([
      call('write_file', { path: 'sum.js', content: 'exports.sum = (a, b) => a + b;\n' }),
      call('execute_command', { command: 'node test.js && env' }),
      done('sum implemented; node test.js passes'),
    ]);
    const res = await run(srv, ws, [
      'run',
      '--json',
      '--approve',
      'writes,commands-sandboxed',
      'implement sum in sum.js',
    ]);
    assert.equal(res.code, 0, res.stderr);
    assert.equal(readFileSync(path.join(ws, 'sum.js'), 'utf8'), 'exports.sum = (a, b) => a + b;\n');
    // The command ran contained and passed; its output (with the environment it saw) went back to the model.
    const results = toolResults(srv.requests[2].body);
    assert.ok(
      results.some((r) => r.includes('tests ok')),
      results.join('\n---\n'),
    );
    // The API key reaches neither the command's environment, nor the model, nor any output.
    for (const r of srv.requests) assert.ok(!JSON.stringify(r.body).includes(KEY), 'key in a request body');
    assert.ok(!res.stdout.includes(KEY) && !res.stderr.includes(KEY), 'key printed');
    // AGENTS.md and the workspace memory reached the prompt.
    assert.ok(JSON.stringify(srv.requests[0].body).includes('Always run node test.js before finishing.'));
    assert.ok(JSON.stringify(srv.requests[0].body).includes('sum.js must use CommonJS exports'));
    const events = jsonLines(res.stdout);
    assert.equal(events[0].type, 'run_start');
    assert.ok(events.some((e) => e.type === 'tool_result' && e.name === 'execute_command' && !e.isError));
    assert.equal(events.at(-2).type, 'run_end');
    assert.equal(events.at(-2).report.reason, 'done');
    const { report, ...exit } = events.at(-1);
    assert.deepEqual(exit, { type: 'cli_exit', code: 0, reason: 'done', taskId: events[0].taskId });
    // The last line carries the run report (programs read one line, not the stream).
    assert.deepEqual(report, events.at(-2).report);
    assert.match(res.stderr, /\+ execute_command node test\.js/);
  });

  describe('MCP servers from the workspace .vscode/mcp.json', () => {
    const EVERYTHING = path.join(REPO, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
    beforeEach(async () => {
      await fsp.mkdir(path.join(ws, '.vscode'), { recursive: true });
      await fsp.writeFile(
        path.join(ws, '.vscode', 'mcp.json'),
        JSON.stringify({
          servers: {
            everything: {
              type: 'stdio',
              command: process.execPath,
              args: [EVERYTHING],
              env: { EVERYTHING_TOKEN: '${input:everything-token}' },
            },
          },
        }),
      );
    });

    it('--mcp starts the named server: its tools are offered, called (with --approve network) and the result reaches the model', async () => {
      srv.script([call('mcp__everything__echo', { message: 'hello from the cli' }), done('echoed')]);
      const { done: finished } = startCli(
        srv,
        ws,
        ['run', '--json', '--mcp', 'everything', '--approve', 'network', 'echo something'],
        '',
        { FORGE_MCP_INPUT_EVERYTHING_TOKEN: 'tok-123' },
      );
      const res = await finished;
      assert.equal(res.code, 0, res.stderr);
      const offered = (srv.requests[0].body.tools as any[]).map((t) => t.function?.name);
      assert.ok(offered.includes('mcp__everything__echo'), offered.join(', '));
      assert.ok(
        toolResults(srv.requests[1].body).some((r) => r.includes('hello from the cli')),
        toolResults(srv.requests[1].body).join('\n'),
      );
    });

    it('without --mcp and without a terminal the server never starts, and the person learns the flag', async () => {
      srv.script([call('mcp__everything__echo', { message: 'x' }), done('no mcp')]);
      const res = await run(srv, ws, ['run', '--json', '--approve', 'network', 'echo something']);
      assert.equal(res.code, 0, res.stderr);
      const offered = (srv.requests[0].body.tools as any[]).map((t) => t.function?.name);
      assert.ok(!offered.some((n) => String(n).startsWith('mcp__')), offered.join(', '));
      assert.match(res.stderr, /--mcp everything/);
      assert.ok(
        toolResults(srv.requests[1].body).some((r) => /unknown tool|not available|no tool/i.test(r)),
        toolResults(srv.requests[1].body).join('\n'),
      );
    });

    it('an ${input:} value missing from the environment (no terminal) stops the server with the variable to set', async () => {
      srv.script([done('nothing')]);
      const res = await run(srv, ws, ['run', '--mcp', 'all', 'do nothing']);
      assert.equal(res.code, 0, res.stderr);
      assert.match(res.stderr, /FORGE_MCP_INPUT_EVERYTHING_TOKEN/);
    });
  });

  it('model text reaches the terminal without escapes (OSC 52 clipboard, CSI) and a key streamed in two deltas is masked, not printed in halves', async () => {
    const osc52 = '\x1b]52;c;ZXZpbCBjbGlwYm9hcmQ=\x07';
    const halves = (text: string) => ['sk-forge-te', 'st-secret-4242', 'secret', KEY].filter((h) => text.includes(h));
    for (const json of [false, true]) {
      srv.script([
        {
          text: [
            'The key is sk-forge-te',
            'st-secret-4242, and ',
            osc52.slice(0, 8),
            `${osc52.slice(8)}\x1b[2J\u009b6n then\r done`,
          ],
          toolCalls: [{ name: 'task_completion', args: { result: `finished ${osc52}` } }],
          usage: { inputTokens: 100, outputTokens: 10 },
        },
      ]);
      const res = await run(srv, ws, ['run', ...(json ? ['--json'] : []), 'say something']);
      assert.equal(res.code, 0, res.stderr);
      assert.deepEqual(halves(res.stderr + res.stdout), [], 'a piece of the key was printed');
      assert.ok(
        !/[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]/.test(res.stderr + res.stdout),
        `a control reached the terminal: ${JSON.stringify(res.stderr)}`,
      );
      assert.match(res.stderr, /The key is \*\*\*, and {2}then done/);
      if (json) {
        const text = jsonLines(res.stdout)
          .filter((e) => e.type === 'text_delta')
          .map((e) => e.delta)
          .join('');
        assert.match(text, /^The key is \*\*\*, and \x1b\]52;c;/, 'JSON keeps the text (escaped), with the key masked');
      }
    }
  });

  it('without a terminal and without a policy, a command is refused (never run) and the model is told why', async () => {
    srv.script([call('execute_command', { command: 'touch made-by-forge.txt' }), done('could not run it')]);
    const res = await run(srv, ws, ['run', '--json', 'create a marker file']);
    assert.equal(res.code, 0, res.stderr);
    assert.equal(existsSync(path.join(ws, 'made-by-forge.txt')), false, 'the refused command ran');
    assert.match(res.stderr, /refused \(no terminal, no policy\): run touch made-by-forge\.txt/);
    const events = jsonLines(res.stdout);
    const resolved = events.find((e) => e.type === 'approval_resolved');
    assert.equal(resolved?.decision.kind, 'reject');
    assert.ok(
      toolResults(srv.requests[1].body).some((r) => r.includes('--approve')),
      'the model learns how the user could allow it',
    );
  });

  it('in a terminal (a real pty): the edit is shown as a colored diff and approved with y; a command refused with n and a reason', async () => {
    srv.script([
      call('write_file', { path: 'test.js', content: "console.log('changed');\n" }),
      call('execute_command', { command: 'node test.js' }),
      done('edited'),
    ]);
    const env = {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      TERM: 'xterm',
      FORGE_BASE_URL: srv.openaiBaseUrl,
      FORGE_MODEL: 'gpt-4.1',
      OPENAI_API_KEY: KEY,
    };
    const cmd = `${process.execPath} ${CLI} run --no-reflect --cwd ${ws} "change the test"`;
    const child = spawn('script', ['-qfec', cmd, '/dev/null'], { cwd: ws, env, stdio: ['pipe', 'pipe', 'pipe'] });
    let screen = '';
    let answered = 0;
    const answers = ['y', 'n', 'use npm test'];
    child.stdout!.setEncoding('utf8').on('data', (d: string) => {
      screen += d;
      const prompts = (screen.match(/\[q\]uit: |Reason for the model \(optional\): /g) ?? []).length;
      while (answered < prompts) child.stdin!.write(`${answers[answered++]}\r`);
    });
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    assert.equal(code, 0, screen);
    assert.ok(
      screen.includes("\x1b[31m-console.log('tests ok');") && screen.includes("\x1b[32m+console.log('changed');"),
      'colored diff',
    );
    assert.equal(readFileSync(path.join(ws, 'test.js'), 'utf8'), "console.log('changed');\n");
    assert.ok(
      toolResults(srv.requests[2].body).some((r) => r.includes('use npm test')),
      'the reason reached the model',
    );
    assert.equal(answered, 3);
  });

  it('SIGINT stops the run (exit 3), the task is saved, and --continue resumes the same conversation', async () => {
    srv.script([{ fault: 'hang', text: 'Let me think about this task' }]);
    const first = startCli(srv, ws, ['run', '--json', 'refactor everything carefully']);
    const deadline = Date.now() + 30_000;
    while (!first.stdout().includes('"text_delta"')) {
      if (Date.now() > deadline) throw new Error('the CLI never streamed');
      await new Promise((r) => setTimeout(r, 50));
    }
    first.child.kill('SIGINT');
    const stopped = await first.done;
    assert.equal(stopped.code, 3, stopped.stderr);
    assert.match(stopped.stderr, /forge run --continue/);
    const end = jsonLines(stopped.stdout).at(-1);
    assert.equal(end.reason, 'stopped');
    const saved = JSON.parse(readFileSync(path.join(ws, '.forge', 'tasks', 'tasks-index.json'), 'utf8'));
    assert.ok(JSON.stringify(saved).includes(end.taskId), 'task saved');

    srv.reset();
    srv.script([done('resumed and finished')]);
    const resumed = await run(srv, ws, ['run', '--continue', '--json']);
    assert.equal(resumed.code, 0, resumed.stderr);
    const events = jsonLines(resumed.stdout);
    assert.equal(events[0].taskId, end.taskId, 'same task');
    assert.ok(
      JSON.stringify(srv.requests[0].body.messages).includes('refactor everything carefully'),
      'the original task is in the resumed conversation',
    );
    assert.equal(events.at(-1).reason, 'done');
  });

  it('a resumed task does not inherit "always" grants from its record on disk (a repository could plant them)', async () => {
    srv.script([call('ask_question', { question: 'Which file?' })]);
    const asked = await run(srv, ws, ['run', '--json', 'write something']);
    assert.equal(asked.code, 2, asked.stderr);
    const dir = path.join(ws, '.forge', 'tasks', 'tasks');
    const [file] = await fsp.readdir(dir);
    const stored = JSON.parse(readFileSync(path.join(dir, file), 'utf8'));
    stored.task.snapshot.allowedForTask = ['write_file'];
    await fsp.writeFile(path.join(dir, file), JSON.stringify(stored));

    srv.reset();
    srv.script([call('write_file', { path: 'planted.txt', content: 'x' }), done('tried')]);
    const resumed = await run(srv, ws, ['run', '--continue', 'planted.txt please']);
    assert.equal(resumed.code, 0, resumed.stderr);
    assert.match(resumed.stderr, /grants are not carried over a restart \(write_file\)/);
    assert.equal(existsSync(path.join(ws, 'planted.txt')), false, 'the planted grant allowed a write');
  });

  it('--worktree: the task works on its own forge/* branch, the folder stays untouched; --continue goes back there', async () => {
    const { execFileSync } = await import('node:child_process');
    const git = (...a: string[]) =>
      execFileSync('git', ['-c', 'user.name=T', '-c', 'user.email=t@t', ...a], { cwd: ws, encoding: 'utf8' });
    git('init', '-q', '-b', 'main');
    git('add', '-A');
    git('commit', '-qm', 'init');
    srv.script([call('write_file', { path: 'feature.js', content: 'one\n' }), done('first part')]);
    const first = await run(srv, ws, ['run', '--json', '--worktree', '--approve', 'writes', 'add the feature']);
    assert.equal(first.code, 0, first.stderr);
    const exit = jsonLines(first.stdout).at(-1);
    assert.equal(exit.worktree.branch, 'forge/add-the-feature');
    assert.equal(existsSync(path.join(ws, 'feature.js')), false, 'the folder is untouched');
    assert.equal(git('show', 'forge/add-the-feature:feature.js'), 'one\n', 'committed on the branch');
    assert.equal(git('status', '--porcelain').trim(), '', 'nothing new in the user tree (.forge is ignored)');
    assert.match(first.stderr, /1 file changed on branch forge\/add-the-feature/);

    srv.reset();
    srv.script([call('write_file', { path: 'feature.test.js', content: 'test\n' }), done('second part')]);
    const second = await run(srv, ws, ['run', '--continue', '--approve', 'writes', 'now the test']);
    assert.equal(second.code, 0, second.stderr);
    assert.equal(git('show', 'forge/add-the-feature:feature.test.js'), 'test\n');
    assert.equal(existsSync(path.join(ws, 'feature.test.js')), false);
  });

  it('reads the task from stdin (--prompt-file -); a token budget ends the run with exit 4, resumable', async () => {
    srv.script([call('list_files', { path: '.' }), call('list_files', { path: '.' })]);
    const res = await startCli(
      srv,
      ws,
      ['run', '--json', '--prompt-file', '-', '--max-tokens', '50'],
      'Survey the repository\nand report.\n',
    ).done;
    assert.equal(res.code, 4, res.stderr);
    assert.match(res.stderr, /Token budget reached/);
    const events = jsonLines(res.stdout);
    assert.equal(events[0].userMessage, 'Survey the repository\nand report.');
    assert.equal(srv.requests.length, 1, 'stopped before a second model call');
  });

  it('Anthropic from the environment: the same run over the real @anthropic-ai/sdk', async () => {
    srv.script([call('read_file', { path: 'test.js' }), done('read it')]);
    const env = {
      FORGE_PROVIDER: 'anthropic',
      FORGE_BASE_URL: srv.anthropicBaseUrl,
      FORGE_MODEL: 'claude-sonnet-4-5',
      ANTHROPIC_API_KEY: KEY,
      OPENAI_API_KEY: '',
    };
    const res = await startCli(srv, ws, ['run', '--json', 'what does test.js check?'], '', env).done;
    assert.equal(res.code, 0, res.stderr);
    assert.deepEqual(
      srv.requests.map((r) => r.provider),
      ['anthropic', 'anthropic'],
    );
    assert.ok(!res.stdout.includes(KEY) && !res.stderr.includes(KEY));
  });

  it('exit codes: 4 at the iteration limit, 2 when the model asks, 64 for a usage error', async () => {
    srv.script([call('list_files', { path: '.' }), call('list_files', { path: '.' })]);
    const limited = await run(srv, ws, ['run', '--max-iterations', '1', 'look around']);
    assert.equal(limited.code, 4, limited.stderr);
    srv.reset();
    srv.script([call('ask_question', { question: 'Which file?' })]);
    const asked = await run(srv, ws, ['run', 'fix it']);
    assert.equal(asked.code, 2, asked.stderr);
    assert.match(asked.stderr, /Which file\?/);
    const usage = await run(srv, ws, ['run', '--approve', 'everything', 'x']);
    assert.equal(usage.code, 64);
    assert.match(usage.stderr, /"everything" is not one of/);
  });
});

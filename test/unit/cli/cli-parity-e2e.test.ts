// `forge run` at parity with the extension (issue 27), end to end: the built dist/cli.js as a child process against
// the loopback model (openai and @anthropic-ai/sdk wire formats) and an Ollama-like server that refuses native
// tools with Ollama's own 400. Each test failed before the CLI was built through src/node/surface/.
import assert from 'node:assert/strict';
import { promises as fsp } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { startLlmServer, type LlmServer, type LlmTurn } from '../../support/llm-server';
import { startFakeLocalServer, type FakeLocalServer } from '../../support/llm-server/ollama-wire';
import { buildCli, spawnCli, type CliDone } from './cli-harness';

const KEY = 'sk-forge-parity-secret-77';

function run(cwd: string, args: string[], env: NodeJS.ProcessEnv, stdin = ''): Promise<CliDone> {
  return spawnCli(cwd, [...args, '--no-reflect', '--no-mcp'], env, stdin).done;
}

const jsonLines = (text: string): any[] =>
  text
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l));

const call = (name: string, args: unknown, inputTokens = 100): LlmTurn => ({
  toolCalls: [{ name, args }],
  usage: { inputTokens, outputTokens: 10 },
});
const done = (result: string): LlmTurn => call('task_completion', { result });
const xmlCall = (tool: string, args: unknown) =>
  `<tool>${JSON.stringify({ server_name: 'local', tool_name: tool, arguments: args })}</tool>`;

describe('forge run at parity with the extension (dist/cli.js)', function () {
  this.timeout(60_000);
  let srv: LlmServer;
  let ws: string;
  let openai: NodeJS.ProcessEnv;

  before(async () => {
    await buildCli();
    srv = await startLlmServer();
    openai = {
      FORGE_PROVIDER: 'openai-compatible',
      FORGE_BASE_URL: srv.openaiBaseUrl,
      FORGE_MODEL: 'gpt-4.1',
      OPENAI_API_KEY: KEY,
    };
  });
  after(() => srv.close());
  beforeEach(async () => {
    srv.reset();
    ws = await fsp.realpath(await fsp.mkdtemp(path.join(os.tmpdir(), 'forge-cli-parity-')));
    await fsp.writeFile(path.join(ws, 'AGENTS.md'), 'Root rule: small functions.\n');
    await fsp.mkdir(path.join(ws, 'pkg'));
    await fsp.writeFile(path.join(ws, 'pkg', 'AGENTS.md'), 'Nested rule: no default exports in pkg.\n');
    await fsp.writeFile(path.join(ws, 'pkg', 'a.ts'), 'export const a = 1;\n');
    await fsp.mkdir(path.join(ws, '.forge', 'commands'), { recursive: true });
    await fsp.writeFile(path.join(ws, '.forge', 'commands', 'review.md'), 'Review $1 for bugs; list each one.\n');
  });
  afterEach(() => fsp.rm(ws, { recursive: true, force: true }));

  it('a server that refuses native tools (Ollama 400): the run switches to XML tool calls and finishes', async () => {
    const ollama: FakeLocalServer = await startFakeLocalServer({
      flavour: 'ollama',
      models: [{ id: 'gemma3:4b', contextLength: 8192, numCtx: 8192 }],
      refuseTools: true,
      upstream: srv,
    });
    try {
      srv.script([
        { text: `Reading it.\n${xmlCall('read_file', { path: 'pkg/a.ts' })}` },
        { text: xmlCall('task_completion', { result: 'a is 1' }) },
      ]);
      const res = await run(ws, ['run', '--json', 'what is a?'], {
        FORGE_PROVIDER: 'openai-compatible',
        FORGE_BASE_URL: ollama.baseUrl,
        FORGE_MODEL: 'gemma3:4b',
      });
      assert.equal(res.code, 0, res.stderr);
      assert.ok(ollama.refused >= 1, 'the server refused the native tools');
      assert.equal(srv.requests.length, 2);
      for (const r of srv.requests) assert.equal(r.body.tools, undefined, 'no native tools after the switch');
      assert.match(JSON.stringify(srv.requests[1].body.messages), /export const a = 1;/);
      assert.equal(jsonLines(res.stdout).at(-1).reason, 'done');
    } finally {
      await ollama.close();
    }
  });

  it('--tool-call-format native keeps native tools: the refusal ends the run and names the flag', async () => {
    const ollama = await startFakeLocalServer({
      flavour: 'ollama',
      models: [{ id: 'gemma3:4b', contextLength: 8192 }],
      refuseTools: true,
      upstream: srv,
    });
    try {
      const res = await run(ws, ['run', '--tool-call-format', 'native', 'go'], {
        FORGE_PROVIDER: 'openai-compatible',
        FORGE_BASE_URL: ollama.baseUrl,
        FORGE_MODEL: 'gemma3:4b',
      });
      assert.equal(res.code, 1, res.stderr);
      assert.match(res.stderr, /does not support tools/);
    } finally {
      await ollama.close();
    }
  });

  it('--context-window 8192: compaction fires on a small model (never at an assumed 128k)', async () => {
    srv.script([
      call('read_file', { path: 'pkg/a.ts' }, 1000),
      call('list_files', { path: '.' }, 1500),
      call('read_file', { path: 'AGENTS.md' }, 2000),
      call('list_files', { path: 'pkg' }, 2500),
      // The provider reports the context nearly full (7700 of 8192): the loop compacts before the next step.
      call('read_file', { path: 'pkg/AGENTS.md' }, 7700),
      { text: '## Goal\nread files\n## Next steps\nfinish', usage: { inputTokens: 500, outputTokens: 50 } },
      done('read them'),
    ]);
    const res = await run(ws, ['run', '--json', '--context-window', '8192', 'read the files'], openai);
    assert.equal(res.code, 0, res.stderr);
    const events = jsonLines(res.stdout);
    const compaction = events.find((e) => e.type === 'compaction');
    assert.ok(compaction, `no compaction: ${events.map((e) => e.type).join(',')}`);
    assert.ok(compaction.beforeTokens > compaction.afterTokens);
    assert.match(res.stderr, /context compacted/);
  });

  it('/review expands from .forge/commands; a nested AGENTS.md joins; the plan shows as a checklist', async () => {
    srv.script([
      call('update_plan', {
        goal: 'Review pkg/a.ts',
        steps: [
          { text: 'read the file', status: 'in_progress' },
          { text: 'report bugs', status: 'pending' },
        ],
      }),
      call('read_file', { path: 'pkg/a.ts' }),
      done('no bugs'),
    ]);
    const res = await run(ws, ['run', '/review pkg/a.ts'], openai);
    assert.equal(res.code, 0, res.stderr);
    const first = srv.requests[0].body.messages as { role: string; content: string }[];
    const user = first.find((m) => m.role === 'user')!;
    assert.match(String(user.content), /^Review pkg\/a\.ts for bugs; list each one\./);
    assert.doesNotMatch(JSON.stringify(first), /\/review pkg/);
    assert.doesNotMatch(JSON.stringify(srv.requests[1].body.messages[0]), /Nested rule/);
    assert.match(
      JSON.stringify(srv.requests[2].body.messages[0]),
      /Nested rule: no default exports in pkg/,
      res.stderr,
    );
    assert.match(res.stderr, /plan: Review pkg\/a\.ts \(0\/2\)\n {2}\[>\] read the file\n {2}\[ \] report bugs/);
    // The prompt says where it works in the CLI's words.
    assert.doesNotMatch(JSON.stringify(srv.requests[0].body), /VS Code workspace/);
    assert.match(JSON.stringify(srv.requests[0].body), /forge command line/);
  });

  it('an unknown /command is a usage error (exit 64) and nothing reaches the model', async () => {
    const res = await run(ws, ['run', '/reviw pkg/a.ts'], openai);
    assert.equal(res.code, 64, res.stderr);
    assert.match(res.stderr, /Unknown command \/reviw\. Did you mean \/review\?/);
    assert.equal(srv.requests.length, 0);
  });

  it('the same over the real @anthropic-ai/sdk: /review expanded, nested rules joined', async () => {
    srv.script([call('read_file', { path: 'pkg/a.ts' }), done('ok')]);
    const res = await run(ws, ['run', '--json', '/review pkg/a.ts'], {
      FORGE_PROVIDER: 'anthropic',
      FORGE_BASE_URL: srv.anthropicBaseUrl,
      ANTHROPIC_API_KEY: KEY,
    });
    assert.equal(res.code, 0, res.stderr);
    assert.equal(srv.requests[0].provider, 'anthropic');
    assert.match(JSON.stringify(srv.requests[0].body.messages[0]), /Review pkg\/a\.ts for bugs/);
    assert.match(JSON.stringify(srv.requests[1].body.system), /Nested rule: no default exports in pkg/);
    assert.ok(!res.stdout.includes(KEY) && !res.stderr.includes(KEY));
  });

  it('messages name the CLI controls: no key -> the variables; token budget -> --max-tokens', async () => {
    const noKey = await run(ws, ['run', 'go'], { FORGE_PROVIDER: 'anthropic', FORGE_BASE_URL: srv.anthropicBaseUrl });
    assert.equal(noKey.code, 1);
    assert.match(noKey.stderr, /ANTHROPIC_API_KEY/);
    assert.doesNotMatch(noKey.stderr, /Forge: Set API Key/);

    srv.script([call('read_file', { path: 'pkg/a.ts' }, 5000), done('x')]);
    const budget = await run(ws, ['run', '--json', '--max-tokens', '1000', 'go'], openai);
    assert.equal(budget.code, 4, budget.stderr);
    assert.match(budget.stderr, /raise --max-tokens/);
    assert.doesNotMatch(budget.stdout + budget.stderr, /forge\.tokenBudget/);
  });

  it('without a terminal a refusal reaches the model as a policy refusal, never "User rejected"', async () => {
    srv.script([call('write_file', { path: 'new.txt', content: 'x' }), done('could not')]);
    const res = await run(ws, ['run', 'write new.txt'], openai);
    assert.equal(res.code, 0, res.stderr);
    const results = (srv.requests[1].body.messages as { role: string; content: string }[]).filter(
      (m) => m.role === 'tool',
    );
    assert.match(results[0].content, /Refused by policy/);
    assert.doesNotMatch(results[0].content, /User rejected/);
  });

  it('--continue after --max-iterations 3 gives 3 more iterations, not the mode default', async () => {
    srv.script([
      call('read_file', { path: 'pkg/a.ts' }),
      call('list_files', { path: '.' }),
      call('read_file', { path: 'AGENTS.md' }),
    ]);
    const first = await run(ws, ['run', '--json', '--max-iterations', '3', 'look around'], openai);
    assert.equal(first.code, 4, first.stderr);
    srv.script([done('done now')]);
    const again = await run(ws, ['run', '--json', '--continue'], openai);
    assert.equal(again.code, 0, again.stderr);
    const start = jsonLines(again.stdout).find((e) => e.type === 'run_start');
    assert.equal(start.maxIterations, 6);
  });

  it('--input-format json: each stdin line is the next user message; the last line carries the run report', async () => {
    srv.script([done('first answer'), done('second answer')]);
    const stdin = `${JSON.stringify({ type: 'user', text: 'first question' })}\n\n${JSON.stringify({
      type: 'user',
      message: { role: 'user', content: 'second question' },
    })}\n`;
    const res = await run(ws, ['run', '--input-format', 'json'], openai, stdin);
    assert.equal(res.code, 0, res.stderr);
    assert.equal(srv.requests.length, 2);
    const second = JSON.stringify(srv.requests[1].body.messages);
    assert.match(second, /first question[\s\S]*first answer[\s\S]*second question/);
    const events = jsonLines(res.stdout);
    assert.equal(events.filter((e) => e.type === 'run_start').length, 2);
    const last = events.at(-1);
    assert.equal(last.type, 'cli_exit');
    assert.equal(last.report.detail, 'second answer');
    assert.equal(last.report.reason, 'done');
  });

  it('--output-schema: a valid result is in the last line; an invalid one is sent back once, then exit 7', async () => {
    const schema = path.join(ws, 'schema.json');
    await fsp.writeFile(
      schema,
      JSON.stringify({
        type: 'object',
        required: ['bugs'],
        properties: { bugs: { type: 'array', items: { type: 'string' } } },
        additionalProperties: false,
      }),
    );
    srv.script([done('{"bugs":["off by one"]}')]);
    const ok = await run(ws, ['run', '--json', '--output-schema', schema, 'find bugs'], openai);
    assert.equal(ok.code, 0, ok.stderr);
    assert.match(JSON.stringify(srv.requests[0].body.messages), /valid against this JSON Schema/);
    assert.deepEqual(jsonLines(ok.stdout).at(-1).output, { bugs: ['off by one'] });

    srv.reset();
    srv.script([done('I found one bug'), done('{"bugs": "one"}')]);
    const bad = await run(ws, ['run', '--json', '--output-schema', schema, 'find bugs'], openai);
    assert.equal(bad.code, 7, bad.stderr);
    assert.equal(srv.requests.length, 2, 'the invalid result went back to the model once');
    assert.match(JSON.stringify(srv.requests[1].body.messages), /not valid against the required JSON Schema/);
    const events = jsonLines(bad.stdout);
    const invalid = events.find((e) => e.type === 'output_invalid');
    assert.match(invalid.errors.join('\n'), /\/bugs must be array/);
    assert.equal(events.at(-1).code, 7);
    assert.equal(events.at(-1).output, undefined);
  });
});

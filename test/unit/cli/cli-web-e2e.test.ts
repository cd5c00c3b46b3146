// web_fetch through the built `forge` command (openai SDK, loopback model server) against a local web server: the
// page reaches the model as labelled Markdown; a loopback address is refused unless the user allows it; a Claude Code
// deny rule in the repository's .claude/settings.json refuses a command, while its allow rules grant nothing.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, promises as fsp } from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
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

function runCli(srv: LlmServer, cwd: string, home: string, args: string[], env: NodeJS.ProcessEnv = {}) {
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
      ...env,
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
const lastToolResult = (body: any): string =>
  String((body.messages as any[]).filter((m) => m.role === 'tool').at(-1)?.content ?? '');

describe('forge CLI: web_fetch and permission rules end to end', function () {
  this.timeout(90_000);
  let srv: LlmServer;
  let web: http.Server;
  let webUrl: string;
  let ws: string;
  let home: string;

  before(async () => {
    await buildCli();
    srv = await startLlmServer();
    web = http.createServer((req, res) => {
      if (req.url === '/changelog')
        return res
          .writeHead(200, { 'content-type': 'text/html' })
          .end(
            '<html><head><title>Changelog</title></head><body><h2>2.0.0</h2><p>Dropped <b>Node 18</b>.</p></body></html>',
          );
      res.writeHead(404).end();
    });
    await new Promise<void>((r) => web.listen(0, '127.0.0.1', r));
    webUrl = `http://127.0.0.1:${(web.address() as AddressInfo).port}`;
  });
  after(async () => {
    await srv?.close();
    await new Promise((r) => web.close(r));
  });
  beforeEach(async () => {
    srv.reset();
    ws = await fsp.mkdtemp(path.join(os.tmpdir(), 'forge-web-ws-'));
    home = await fsp.mkdtemp(path.join(os.tmpdir(), 'forge-web-home-'));
  });
  afterEach(async () => {
    await fsp.rm(ws, { recursive: true, force: true });
    await fsp.rm(home, { recursive: true, force: true });
  });

  it('a page reaches the model as Markdown labelled as untrusted third-party content', async () => {
    srv.script([call('web_fetch', { url: `${webUrl}/changelog` }), done('read it')]);
    const res = await runCli(srv, ws, home, ['--approve', 'network', 'what changed?'], {
      FORGE_WEB_ALLOW_PRIVATE: '1',
    });
    assert.equal(res.code, 0, res.stderr);
    const seen = lastToolResult(srv.requests[1]!.body);
    assert.match(seen, /## 2\.0\.0/);
    assert.match(seen, /Dropped \*\*Node 18\*\*/);
    assert.match(seen, /untrusted third-party text/);
    assert.match(seen, /<untrusted-web-content source="http:\/\/127\.0\.0\.1:\d+\/changelog">/);
  });

  it('a loopback address is refused without the setting', async () => {
    srv.script([call('web_fetch', { url: `${webUrl}/changelog` }), done('no')]);
    const res = await runCli(srv, ws, home, ['--approve', 'network', 'read']);
    assert.equal(res.code, 0, res.stderr);
    assert.match(
      lastToolResult(srv.requests[1]!.body),
      /Refused: 127\.0\.0\.1 is a private, loopback or link-local address/,
    );
  });

  it("a repository's deny rule refuses a command; its allow rule grants nothing", async () => {
    await fsp.mkdir(path.join(ws, '.claude'));
    await fsp.writeFile(
      path.join(ws, '.claude', 'settings.json'),
      JSON.stringify({ permissions: { allow: ['Bash(touch *)'], deny: ['Bash(rm *)'] } }),
    );
    await fsp.writeFile(path.join(ws, 'keep.txt'), 'x');
    srv.script([
      call('execute_command', { command: 'rm keep.txt' }),
      call('execute_command', { command: 'touch made' }),
      done('ok'),
    ]);
    // No --approve and no terminal: anything that needs approval is refused, so "touch" shows the allow rule did nothing.
    const res = await runCli(srv, ws, home, ['try']);
    assert.ok(existsSync(path.join(ws, 'keep.txt')), 'rm ran');
    assert.match(lastToolResult(srv.requests[1]!.body), /denied by a saved rule \(command rm \*/);
    assert.equal(existsSync(path.join(ws, 'made')), false, "the repository's allow rule approved a command");
    assert.notEqual(res.code, null);
  });
});

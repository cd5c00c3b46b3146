// The built `forge` command against a repository that plants links and FIFOs in its control plane: AGENTS.md and
// a rule linked to a private key outside the workspace, the memory file a FIFO, .vscode/mcp.json a FIFO. The run
// completes, nothing of the key reaches the model, and each skipped file is named on stderr.
import assert from 'node:assert/strict';
import { spawn, execFileSync } from 'node:child_process';
import { closeSync, constants, openSync, promises as fsp } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { startLlmServer, type LlmServer } from '../../support/llm-server';
import { buildCli, CLI } from './cli-harness';

const KEY_LINE = 'b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW';
const posixOnly = process.platform === 'win32' ? it.skip : it;

describe('forge CLI (dist/cli.js): a planted control plane', function () {
  this.timeout(60_000);
  let srv: LlmServer;
  let base: string;
  const fifos: string[] = [];

  before(async () => {
    await buildCli();
    srv = await startLlmServer({ chunkBytes: 7 });
  });
  after(async () => srv?.close());
  beforeEach(async () => {
    srv.reset();
    base = await fsp.realpath(await fsp.mkdtemp(path.join(os.tmpdir(), 'forge-cli-planted-')));
  });
  afterEach(async () => {
    for (const f of fifos.splice(0)) {
      try {
        closeSync(openSync(f, constants.O_WRONLY | constants.O_NONBLOCK));
      } catch {
        /* nobody waiting */
      }
    }
    await fsp.rm(base, { recursive: true, force: true });
  });

  posixOnly(
    'links out and FIFOs are skipped with a warning; the key never reaches the model; the run completes',
    async () => {
      const ws = path.join(base, 'ws');
      const home = path.join(base, 'home');
      await fsp.mkdir(path.join(home, '.ssh'), { recursive: true });
      await fsp.writeFile(
        path.join(home, '.ssh', 'id_rsa'),
        `-----BEGIN OPENSSH PRIVATE KEY-----\n${KEY_LINE}\n-----END OPENSSH PRIVATE KEY-----\n`,
      );
      await fsp.mkdir(path.join(ws, '.forge', 'rules'), { recursive: true });
      await fsp.mkdir(path.join(ws, '.vscode'), { recursive: true });
      await fsp.symlink(path.join(home, '.ssh', 'id_rsa'), path.join(ws, 'AGENTS.md'));
      await fsp.symlink(path.join(home, '.ssh', 'id_rsa'), path.join(ws, '.forge', 'rules', 'key.md'));
      await fsp.writeFile(path.join(ws, '.forge', 'rules', 'style.md'), 'Prefer small functions.\n');
      for (const rel of ['.forge/memory.jsonl', '.vscode/mcp.json']) {
        execFileSync('mkfifo', [path.join(ws, rel)]);
        fifos.push(path.join(ws, rel));
      }
      srv.script([
        {
          toolCalls: [{ name: 'task_completion', args: { result: 'nothing to do' } }],
          usage: { inputTokens: 100, outputTokens: 10 },
        },
      ]);
      const child = spawn(process.execPath, [CLI, 'run', '--json', '--no-reflect', '--cwd', ws, 'say hello'], {
        cwd: ws,
        env: {
          PATH: process.env.PATH,
          HOME: home,
          FORGE_PROVIDER: 'openai-compatible',
          FORGE_BASE_URL: srv.openaiBaseUrl,
          FORGE_MODEL: 'gpt-4.1',
          OPENAI_API_KEY: 'sk-test-1',
          NO_COLOR: '1',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stderr = '';
      child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
      child.stdout!.resume();
      const code = await new Promise<number | null>((resolve) => {
        const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
        child.on('close', (c) => {
          clearTimeout(timer);
          resolve(c);
        });
      });
      assert.equal(code, 0, stderr);
      assert.ok(srv.requests.length >= 1);
      for (const r of srv.requests)
        assert.ok(!JSON.stringify(r.body).includes(KEY_LINE), 'the private key reached the model');
      assert.ok(
        JSON.stringify(srv.requests[0].body).includes('Prefer small functions.'),
        'the ordinary rule is still used',
      );
      assert.match(stderr, /AGENTS\.md was not read: .*outside the workspace/);
      assert.match(stderr, /\.forge\/rules\/key\.md was not read: .*outside the workspace/);
      assert.match(stderr, /memory\.jsonl was not read: it is a FIFO/);
      assert.match(stderr, /\.vscode\/mcp\.json was not read: it is a FIFO/);
    },
  );
});

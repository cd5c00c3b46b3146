// forge run --image: the built CLI (node dist/cli.js) sends the image with the task through the real openai SDK to
// the loopback server; a model that takes no images is refused before any request.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { promises as fsp } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as esbuild from 'esbuild';
import { startLlmServer, type LlmServer } from '../../support/llm-server';

const REPO = path.resolve(__dirname, '../../..');
const CLI = path.join(REPO, 'dist', 'cli.js');
const PNG_B64 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

async function buildCli(): Promise<void> {
  const load = new Function('u', 'return import(u)') as (
    u: string,
  ) => Promise<{ buildOptions: Record<string, esbuild.BuildOptions> }>;
  const { buildOptions } = await load(`file://${path.join(REPO, 'esbuild.mjs')}`);
  await esbuild.build({ ...buildOptions.cli, absWorkingDir: REPO });
  await esbuild.build({ ...buildOptions.vendor, absWorkingDir: REPO });
}

function run(srv: LlmServer, cwd: string, model: string, args: string[]) {
  const child = spawn(process.execPath, [CLI, ...args, '--cwd', cwd, '--no-reflect', '--no-memory'], {
    cwd,
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      FORGE_PROVIDER: 'openai-compatible',
      FORGE_BASE_URL: srv.openaiBaseUrl,
      FORGE_MODEL: model,
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

describe('forge run --image (built CLI, real openai SDK, loopback server)', function () {
  this.timeout(120_000);
  let srv: LlmServer;
  let ws: string;
  before(async () => {
    await buildCli();
    srv = await startLlmServer();
  });
  after(() => srv.close());
  beforeEach(async () => {
    srv.reset();
    ws = await fsp.mkdtemp(path.join(os.tmpdir(), 'forge-cli-img-'));
    await fsp.writeFile(path.join(ws, 'shot.png'), Buffer.from(PNG_B64, 'base64'));
  });
  afterEach(() => fsp.rm(ws, { recursive: true, force: true }));

  it('sends the image as an image_url data URL with the task', async () => {
    srv.script([{ toolCalls: [{ name: 'task_completion', args: { result: 'a dot' } }] }]);
    const r = await run(srv, ws, 'gpt-4.1', ['run', 'what is in the picture?', '--image', 'shot.png']);
    assert.equal(r.code, 0, r.stderr);
    const user = srv.requests[0].body.messages.find((m: { role: string }) => m.role === 'user');
    assert.ok(Array.isArray(user.content), 'the user message has content parts');
    assert.match(user.content[0].text, /what is in the picture\?/);
    assert.deepEqual(user.content[1], { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG_B64}` } });
  });

  it('the task record keeps the image by hash in .forge/tasks/images; --continue sends it again', async () => {
    srv.script([
      { toolCalls: [{ name: 'task_completion', args: { result: 'a dot' } }] },
      { toolCalls: [{ name: 'task_completion', args: { result: 'still a dot' } }] },
    ]);
    const r = await run(srv, ws, 'gpt-4.1', ['run', 'what is in the picture?', '--image', 'shot.png']);
    assert.equal(r.code, 0, r.stderr);
    const tasks = path.join(ws, '.forge', 'tasks');
    const [file] = await fsp.readdir(path.join(tasks, 'tasks'));
    const record = await fsp.readFile(path.join(tasks, 'tasks', file!), 'utf8');
    assert.ok(!record.includes(PNG_B64), 'no image bytes in the record');
    const sha = /"sha256":\s*"([0-9a-f]{64})"/.exec(record)?.[1];
    assert.ok(sha, 'the record names the image by hash');
    const stored = await fsp.readFile(path.join(tasks, 'images', sha.slice(0, 2), `${sha}.png`));
    assert.equal(stored.toString('base64'), PNG_B64);
    const r2 = await run(srv, ws, 'gpt-4.1', ['run', '--continue', 'and now?']);
    assert.equal(r2.code, 0, r2.stderr);
    const again = JSON.stringify(srv.requests[1].body.messages);
    assert.ok(again.includes(`data:image/png;base64,${PNG_B64}`), 'the continued task sent the image again');
  });

  it('a model without image input is refused before any request; a non-image file too', async () => {
    const r = await run(srv, ws, 'qwen2.5-coder:7b', ['run', 'look', '--image', 'shot.png']);
    assert.equal(r.code, 64, r.stderr);
    assert.match(r.stderr, /--image: the model qwen2\.5-coder:7b does not accept images/);
    await fsp.writeFile(path.join(ws, 'notes.png'), 'just text');
    const r2 = await run(srv, ws, 'gpt-4.1', ['run', 'look', '--image', 'notes.png']);
    assert.equal(r2.code, 64, r2.stderr);
    assert.match(r2.stderr, /--image notes\.png: .*not a PNG, JPEG, GIF or WebP image/);
    assert.equal(srv.requests.length, 0, 'no request reached the model');
  });
});

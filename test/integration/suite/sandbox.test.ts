// Containment in the real VS Code: the extension's own command runner (visible terminal with shell integration,
// child-process fallback) runs hostile commands inside bubblewrap. Linux only (the CI machines).
import * as assert from 'node:assert';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { workspaceRoot, wsPath } from '../helpers';
import { forge } from './forge-api';

interface Runner {
  run(req: { command: string; cwd: string; timeoutMs: number; signal: AbortSignal; taskId?: string }): Promise<{
    exitCode: number | null;
    output: string;
    timedOut: boolean;
    containment?: { contained: boolean; summary: string; blocked?: string[] };
  }>;
  containment(): { kind: string; reason?: string };
  lastRunUsedTerminal?: boolean;
}

describe('command sandbox in the real VS Code', function () {
  this.timeout(90_000);
  let runner: Runner;
  let outside: string;
  const run = (command: string, timeoutMs = 30_000) =>
    runner.run({
      command,
      cwd: workspaceRoot(),
      timeoutMs,
      signal: new AbortController().signal,
      taskId: 'it-sandbox',
    });

  before(async function () {
    if (process.platform !== 'linux') this.skip();
    const api = await forge();
    const toolkit = (
      api.testApi as unknown as {
        toolkit: { runner: Runner; commandSandbox: { ready(): Promise<{ kind: string; reason?: string }> } };
      }
    ).toolkit;
    const c = await toolkit.commandSandbox.ready();
    assert.strictEqual(c.kind, 'bubblewrap', `the extension found no sandbox: ${c.reason ?? ''}`);
    runner = toolkit.runner;
    outside = fs.mkdtempSync(path.join(os.tmpdir(), 'forge-it-outside-'));
    fs.writeFileSync(wsPath('.env'), 'API_TOKEN=hunter2-it\n');
  });
  after(() => {
    if (outside) fs.rmSync(outside, { recursive: true, force: true });
    fs.rmSync(wsPath('.env'), { force: true });
    fs.rmSync(wsPath('sandbox-inside.txt'), { force: true });
  });

  it('writes only inside the workspace; secrets, the network and API keys stay out of reach', async function () {
    process.env.FORGE_IT_API_KEY = 'sk-hunter2-host';
    try {
      const r = await run(
        `echo in > sandbox-inside.txt; echo out > ${outside}/escaped.txt; cat .env; cat .en?; env | grep -i hunter2; ` +
          `node -e "fetch('http://127.0.0.1:9/').then(()=>console.log('net-open'),()=>console.log('net-closed'))"; echo finished`,
      );
      this.test!.title += runner.lastRunUsedTerminal ? ' [terminal, shell integration]' : ' [child-process fallback]';
      assert.match(r.output, /finished/);
      assert.strictEqual(fs.readFileSync(wsPath('sandbox-inside.txt'), 'utf8'), 'in\n');
      assert.strictEqual(
        fs.existsSync(path.join(outside, 'escaped.txt')),
        false,
        'nothing is written outside the workspace',
      );
      assert.doesNotMatch(r.output, /hunter2/, 'no secret and no API key is visible');
      assert.match(r.output, /net-closed/);
      assert.strictEqual(r.containment?.contained, true);
      assert.ok(r.containment?.blocked?.length, `the sandbox says what it blocked: ${JSON.stringify(r.containment)}`);
    } finally {
      delete process.env.FORGE_IT_API_KEY;
    }
  });

  it('a timeout ends the whole process tree, detached children included', async () => {
    const marker = 800 + Math.floor(Math.random() * 90);
    const r = await run(`setsid sleep ${marker}.1 & nohup sleep ${marker}.2 >/dev/null 2>&1 & sleep ${marker}.3`, 2000);
    assert.strictEqual(r.timedOut, true);
    await new Promise((res) => setTimeout(res, 2500));
    const left = execFileSync('sh', ['-c', `pgrep -af 'sleep ${marker}\\.[0-9]' || true`])
      .toString()
      .trim();
    assert.strictEqual(left, '', `left behind: ${left}`);
  });
});

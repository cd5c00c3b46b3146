// A hostile server (hangs, crashes mid-call, huge / malformed results, injection in descriptions): every case
// ends in a clear tool result, the connection recovers, and nothing hangs the caller.
import * as assert from 'node:assert/strict';
import { systemClock } from '../../../../src/core/loop/config';
import { MAX_RESULT_CHARS } from '../../../../src/core/mcp/results';
import { callsTurn, doneTurn } from '../../../support/scripted-model';
import { assertHistoryConsistent, harness } from '../../../support/loop-harness';
import { byName, ctx, HOSTILE, stdio, testManager, type TestManager } from './helpers';

async function waitFor(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (check()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`gave up waiting for ${what}`);
}

describe('mcp: hostile server', function () {
  this.timeout(60_000);
  let t: TestManager;
  const signal = () => new AbortController().signal;
  before(() => {
    process.env.FORGE_TEST_FAKE_API_KEY = 'sk-should-not-leak';
    t = testManager([stdio('hostile', [HOSTILE], { CONFIGURED_VAR: 'yes' })], {
      callTimeoutMs: () => 1500,
      restart: { baseMs: 50, capMs: 200, maxRestarts: 5 },
    });
  });
  after(async () => {
    delete process.env.FORGE_TEST_FAKE_API_KEY;
    await t.manager.dispose();
  });

  it('cleans, caps and labels an injected description; hints are shown as unverified', async () => {
    const echo = byName(await t.manager.loadTools(signal()), 'mcp__hostile__echo');
    assert.ok(!/[\u0007\u001b\u202e\u200b]/.test(echo.description));
    assert.ok(echo.description.length < 1400, `description is ${echo.description.length} chars`);
    assert.match(echo.description, /third-party text/);
    assert.match(echo.description, /Server's hints \(unverified\): read-only/);
  });

  it('maps an odd tool name to a valid one', async () => {
    const names = (await t.manager.loadTools(signal())).map((x) => x.name);
    const odd = names.find((n) => n.startsWith('mcp__hostile__weird_name'));
    assert.ok(odd && odd.length <= 64 && /^[a-zA-Z0-9_-]+$/.test(odd), names.join(', '));
  });

  it('runs a stdio server with a scrubbed environment plus its own env', async () => {
    const r = await byName(await t.manager.loadTools(signal()), 'mcp__hostile__env').execute({}, ctx());
    const names = r.content.split('\n');
    assert.ok(names.includes('CONFIGURED_VAR'));
    assert.ok(names.includes('PATH'));
    assert.ok(!names.includes('FORGE_TEST_FAKE_API_KEY'));
  });

  it('catastrophic schema patterns (input and output) do not block the host: the call returns at once', async () => {
    const tool = byName(await t.manager.loadTools(signal()), 'mcp__hostile__redos');
    const t0 = performance.now();
    const r = await tool.execute(tool.input.parse({ text: `${'a'.repeat(28)}!`, [`${'b'.repeat(28)}!`]: 'x' }), ctx());
    const ms = performance.now() - t0;
    assert.ok(!r.isError, r.content);
    assert.match(r.content, /checked/);
    assert.ok(ms < 1000, `${ms.toFixed(0)} ms`);
  });

  it('a hanging call times out with a clear error and the server keeps answering', async () => {
    const tools = await t.manager.loadTools(signal());
    const r = await byName(tools, 'mcp__hostile__hang').execute({}, ctx());
    assert.equal(r.isError, true);
    assert.match(r.content, /no answer within 1.5 s \(timed out/);
    const echo = await byName(tools, 'mcp__hostile__echo').execute({ text: 'still here' }, ctx());
    assert.match(echo.content, /echo: still here/);
  });

  it('Stop cancels a hanging call', async () => {
    const tools = await t.manager.loadTools(signal());
    const ac = new AbortController();
    const pending = byName(tools, 'mcp__hostile__hang').execute({}, ctx(ac.signal));
    setTimeout(() => ac.abort(new Error('stopped by the user')), 100);
    await assert.rejects(pending, /stopped by the user/);
  });

  it('Stop during a hanging MCP call ends the run promptly with a consistent history', async () => {
    t.allowed.add('hostile/hang');
    const h = harness([callsTurn(['mcp__hostile__hang', {}]), doneTurn('never')], {
      tools: [],
      toolSources: [t.manager.toolSource],
      clock: systemClock as never,
    });
    const run = h.agent.send('hang please');
    await waitFor(() => h.events.some((e) => e.type === 'tool_call_end'), 'the call to start');
    await new Promise((r) => setTimeout(r, 100));
    h.agent.stop();
    const report = await run;
    assert.equal(report.reason, 'stopped');
    assertHistoryConsistent(h.agent.history);
  });

  it('reuses the built tools while the listings are unchanged', async () => {
    const a = await t.manager.loadTools(signal());
    const b = await t.manager.loadTools(signal());
    assert.equal(a, b);
  });

  it('a crash mid-call gives an error result, then the server is restarted with backoff', async () => {
    const tools = await t.manager.loadTools(signal());
    const r = await byName(tools, 'mcp__hostile__crash').execute({}, ctx());
    assert.equal(r.isError, true);
    assert.match(r.content, /closed the connection|Connection closed/i);
    await waitFor(() => t.manager.status()[0]!.state === 'running', 'the restart');
    assert.ok(
      t.logs.some((l) => /exited unexpectedly/.test(l)),
      t.logs.join('\n'),
    );
    const echo = await byName(tools, 'mcp__hostile__echo').execute({ text: 'back' }, ctx());
    assert.match(echo.content, /echo: back/);
  });

  it('a huge result is capped', async () => {
    const r = await byName(await t.manager.loadTools(signal()), 'mcp__hostile__huge').execute({ mb: 3 }, ctx());
    assert.equal(r.isError, undefined);
    assert.ok(r.content.length <= MAX_RESULT_CHARS + 200);
    assert.match(r.content, /MCP result cut at/);
  });

  it('a malformed result is a clear error', async () => {
    const r = await byName(await t.manager.loadTools(signal()), 'mcp__hostile__malformed').execute({}, ctx());
    assert.equal(r.isError, true);
    assert.match(r.content, /malformed result/);
  });

  it('in the loop: a crash and a hang become tool results, the history stays consistent', async () => {
    t.allowed.add('hostile/crash').add('hostile/hang');
    const h = harness(
      [callsTurn(['mcp__hostile__crash', {}]), callsTurn(['mcp__hostile__hang', {}]), doneTurn('recovered')],
      {
        tools: [],
        toolSources: [t.manager.toolSource],
        clock: systemClock as never,
      },
    );
    const report = await h.agent.send('try the hostile tools');
    assert.equal(report.reason, 'done');
    const results = h.agent.history.filter((m) => m.role === 'tool');
    assert.equal(results.length, 3, 'crash, hang, task_completion');
    assert.match(String(results[0]!.content), /closed the connection|Connection closed/i);
    assert.match(String(results[1]!.content), /timed out/);
    assertHistoryConsistent(h.agent.history);
  });
});

describe('mcp: a server that cannot start', function () {
  this.timeout(30_000);

  it('leaves its tools out with a logged reason, backs off, and starts again on Restart', async () => {
    const t = testManager([
      stdio('ghost', ['-e', 'process.exit(7)']),
      { name: 'nothing', source: 'test', type: 'stdio', command: 'forge-no-such-command-xyz', args: [], env: {} },
    ]);
    try {
      assert.deepEqual(await t.manager.loadTools(new AbortController().signal), []);
      const states = t.manager.status().map((s) => `${s.name}:${s.state}`);
      assert.deepEqual(states, ['ghost:error', 'nothing:error']);
      assert.ok(
        t.logs.some((l) => /warn mcp ghost: could not start/.test(l)),
        t.logs.join('\n'),
      );
      const before = t.logs.length;
      assert.deepEqual(await t.manager.loadTools(new AbortController().signal), []);
      assert.ok(
        t.logs.slice(before).some((l) => /next try in \d+ s, or use Restart/.test(l)),
        t.logs.slice(before).join('\n'),
      );
      await assert.rejects(t.manager.connection('ghost')!.restart(), /could not start/);
    } finally {
      await t.manager.dispose();
    }
  });
});

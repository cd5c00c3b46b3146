import assert from 'node:assert/strict';
import { createModeContextGatherer, isTestCommand, isTestFile } from '../../../../src/core/modes/context';
import { TestRunTracker } from '../../../../src/core/modes/test-runs';
import type { CommandRunner, RunRequest } from '../../../../src/core/workspace/types';
import { MemoryFs } from '../../../../src/core/workspace/memory-fs';
import { doneTurn, ScriptedModel } from '../../../support/scripted-model';
import { harness } from '../../../support/loop-harness';

const signal = new AbortController().signal;

function project(): MemoryFs {
  const files: Record<string, string> = {
    '/ws/package.json': JSON.stringify(
      {
        name: 'demo',
        scripts: { build: 'tsc', test: 'mocha', 'test:e2e': 'playwright test' },
        dependencies: { zod: '4' },
      },
      null,
      2,
    ),
    '/ws/go.mod': 'module example.com/demo\n\ngo 1.22\n',
    '/ws/.env': 'API_KEY=secret',
    '/ws/src/index.ts': 'export {}',
    '/ws/src/lib/util.ts': 'export {}',
    '/ws/src/lib/util.test.ts': 'test',
    '/ws/test/unit/a.spec.ts': 'x',
    '/ws/pkg/handler_test.go': 'x',
    '/ws/node_modules/zod/index.js': 'x',
    '/ws/dist/out.js': 'x',
    '/ws/.gitignore': 'ignored/\n',
    '/ws/ignored/big.txt': 'x',
  };
  for (let i = 0; i < 60; i++) files[`/ws/src/many/f${String(i).padStart(2, '0')}.ts`] = 'x';
  return new MemoryFs(['/ws'], files);
}

class FakeGit implements CommandRunner {
  readonly commands: RunRequest[] = [];
  constructor(private readonly outputs: Record<string, { exitCode: number; output: string }>) {}
  async run(req: RunRequest) {
    this.commands.push(req);
    const key = Object.keys(this.outputs).find((k) => req.command.includes(k));
    const r = key ? this.outputs[key] : { exitCode: 128, output: 'fatal: not a git repository' };
    return { exitCode: r.exitCode, output: r.output.slice(0, req.maxOutputChars ?? Infinity), timedOut: false };
  }
}

describe('core/modes context gatherers', () => {
  it('plan: manifests and a bounded tree that honours .gitignore, secrets and build folders', async () => {
    const gather = createModeContextGatherer({ fs: project(), sandbox: { trusted: true } });
    const ctx = await gather('plan', 2400, signal);
    assert.ok(ctx);
    assert.deepEqual(ctx.sources.slice(0, 2), ['package.json', 'go.mod']);
    assert.match(ctx.sources[2], /^tree \(\d+ entries\)$/);
    assert.match(ctx.text, /### package\.json[\s\S]*"test": "mocha"/);
    assert.match(ctx.text, /module example\.com\/demo/);
    assert.match(ctx.text, /^src\/$/m);
    assert.match(ctx.text, /^ {2}lib\/$/m);
    assert.match(ctx.text, /… \(45 more\)/, 'a folder with many entries is cut with a count');
    assert.doesNotMatch(ctx.text, /node_modules|dist\/|ignored\/|\.env|API_KEY/);
    assert.ok(ctx.text.length <= 2400 * 4);
  });

  it('plan: the budget bounds the text; a tiny budget gathers nothing', async () => {
    const gather = createModeContextGatherer({ fs: project(), sandbox: { trusted: true } });
    const small = await gather('plan', 150, signal);
    assert.ok(small && small.text.length <= 600);
    assert.equal(await gather('plan', 10, signal), undefined);
    assert.equal(await gather('agent', 2000, signal), undefined, 'agent mode gathers nothing');
  });

  it('review: git status, stat and the diff, read-only and bounded; untrusted or no repo says so', async () => {
    const diff = `diff --git a/src/index.ts b/src/index.ts\n${'+added line\n'.repeat(2000)}`;
    const git = new FakeGit({
      'rev-parse --verify': { exitCode: 0, output: 'abc123' },
      'status --porcelain': { exitCode: 0, output: ' M src/index.ts\n?? notes.md\n' },
      '--stat': { exitCode: 0, output: ' src/index.ts | 2000 +++\n 1 file changed' },
      'diff HEAD --no-color --no-ext-diff --unified': { exitCode: 0, output: diff },
    });
    const ctx = await createModeContextGatherer({ fs: project(), sandbox: { trusted: true }, runner: git })(
      'review',
      1000,
      signal,
    );
    assert.ok(ctx);
    assert.deepEqual(ctx.sources, ['git diff (2 files)']);
    assert.match(ctx.text, /\?\? notes\.md/);
    assert.match(ctx.text, /```diff\ndiff --git a\/src\/index\.ts/);
    assert.match(ctx.text, /more characters not shown/);
    assert.ok(ctx.text.length <= 4000);
    for (const c of git.commands) {
      assert.match(
        c.command,
        /^git -c core\.fsmonitor=false -c core\.pager=cat -c diff\.external= --no-pager (status|diff|rev-parse) /,
      );
      assert.equal(c.cwd, '/ws');
    }
    const untrusted = new FakeGit({});
    const u = await createModeContextGatherer({ fs: project(), sandbox: { trusted: false }, runner: untrusted })(
      'review',
      1000,
      signal,
    );
    assert.match(u?.text ?? '', /not trusted/);
    assert.equal(untrusted.commands.length, 0, 'no command runs in an untrusted workspace');
    const none = await createModeContextGatherer({
      fs: project(),
      sandbox: { trusted: true },
      runner: new FakeGit({}),
    })('review', 1000, signal);
    assert.match(none?.text ?? '', /No git repository/);
    // No commit yet: the changes against the index.
    const fresh = new FakeGit({
      status: { exitCode: 0, output: 'A  src/index.ts\n' },
      'diff --no-color --no-ext-diff --unified': { exitCode: 0, output: '+new file line' },
    });
    const f = await createModeContextGatherer({ fs: project(), sandbox: { trusted: true }, runner: fresh })(
      'review',
      1000,
      signal,
    );
    assert.match(f?.text ?? '', /### git diff\n```diff\n\+new file line/);
    assert.ok(fresh.commands.every((c) => !/diff HEAD/.test(c.command)));
    const clean = await createModeContextGatherer({
      fs: project(),
      sandbox: { trusted: true },
      runner: new FakeGit({ status: { exitCode: 0, output: '' } }),
    })('review', 1000, signal);
    assert.match(clean?.text ?? '', /working tree is clean/);
  });

  it('test: test scripts, test files and the last test run', async () => {
    const tracker = new TestRunTracker(() => 1_000_000);
    tracker.observe({ type: 'tool_call_end', id: 'c1', name: 'execute_command', args: { command: 'npm test' } });
    tracker.observe({
      type: 'tool_result',
      id: 'c1',
      content: '3 passing\n1 failing\nExit code: 1 (2 s)',
      isError: true,
    });
    const gather = createModeContextGatherer({
      fs: project(),
      sandbox: { trusted: true },
      lastTestRun: () => tracker.last(),
      now: () => 1_000_000 + 120_000,
    });
    const ctx = await gather('test', 2000, signal);
    assert.ok(ctx);
    assert.deepEqual(ctx.sources, ['package.json scripts', '3 test files', 'last test run']);
    assert.match(ctx.text, /`test`: `mocha`/);
    assert.match(ctx.text, /- pkg\/handler_test\.go/);
    assert.match(ctx.text, /- src\/lib\/util\.test\.ts/);
    assert.match(ctx.text, /- test\/unit\/a\.spec\.ts/);
    assert.match(ctx.text, /Last test run \(2 min ago\): `npm test` → exit 1[\s\S]*1 failing/);
  });

  it('recognises test files and test commands', () => {
    for (const f of [
      'a.test.ts',
      'src/x.spec.js',
      'tests/test_api.py',
      'pkg/a_test.go',
      '__tests__/b.js',
      'test/helpers.ts',
    ])
      assert.ok(isTestFile(f), f);
    for (const f of ['src/index.ts', 'contest.ts', 'latest/readme.md']) assert.ok(!isTestFile(f), f);
    for (const c of [
      'npm test',
      'npm run test -- --grep x',
      'pnpm test',
      'npx vitest run',
      'pytest -q',
      'go test ./...',
      'cargo test',
      'python -m pytest',
    ])
      assert.ok(isTestCommand(c), c);
    for (const c of ['npm install', 'ls test', 'cat latest.txt', 'git commit -m test']) assert.ok(!isTestCommand(c), c);
  });
});

describe('core/loop mode context in the run', () => {
  it('gathers once per user message, within 30% of the perceive budget, into a dynamic layer; reports it as an event', async () => {
    const calls: { mode: string; budget: number }[] = [];
    const model = new ScriptedModel([doneTurn('plan ready'), doneTurn('again')]);
    const h = harness([], {
      model,
      config: {
        mode: 'plan',
        contextWindow: 100_000,
        modeContext: async (mode, budget) => {
          calls.push({ mode, budget });
          return { text: '## Project context\npackage.json: demo', sources: ['package.json'] };
        },
      },
    });
    await h.agent.send('plan the feature');
    assert.deepEqual(calls, [{ mode: 'plan', budget: 2400 }]);
    const layer = model.requests[0].system.find((l) => l.id === 'mode-context');
    assert.equal(layer?.text, '## Project context\npackage.json: demo');
    assert.equal(layer?.perStep, undefined, 'constant across the run: part of the cached prefix');
    const ev = h.ofType('mode_context')[0];
    assert.deepEqual({ mode: ev.mode, sources: ev.sources }, { mode: 'plan', sources: ['package.json'] });
    h.agent.setMode('agent');
    await h.agent.send('now do it');
    assert.deepEqual(
      calls.map((c) => c.mode),
      ['plan', 'agent'],
    );
  });

  it('a failing gatherer is a warning; the run goes on without the layer', async () => {
    const model = new ScriptedModel([doneTurn('ok')]);
    const h = harness([], {
      model,
      config: {
        mode: 'review',
        modeContext: async () => {
          throw new Error('git exploded');
        },
      },
    });
    const report = await h.agent.send('review');
    assert.equal(report.reason, 'done');
    assert.ok(h.ofType('warning').some((w) => /Could not gather the review context: git exploded/.test(w.message)));
    assert.equal(
      model.requests[0].system.some((l) => l.id === 'mode-context'),
      false,
    );
  });
});

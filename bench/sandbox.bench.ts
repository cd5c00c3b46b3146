// The OS sandbox's start-up cost per command: `true` through NodeCommandRunner contained in bubblewrap vs the
// same runner bare, on a workspace with secrets to mask (the secret scan is cached, as between a task's commands),
// and the first (uncached) scan of a 2,000-file workspace. Also the longest event-loop block while commands run, and
// what merging a command's write layer costs when it created, changed or deleted 10,000 files.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { NodeCommandRunner } from '../src/node';
import { CommandSandbox } from '../src/node/sandbox/command-sandbox';
import { scanWorkspaceSecrets } from '../src/node/sandbox/secret-locations';
import { checkCommand, withDefaultCommandRules } from '../src/core/safety/commands';
import { emit, figure, log, QUICK, sample, skip, withLoopMonitor } from './lib/harness';

/** The command rules on typical lines (chains, globs, wrappers, environment), after the parser's first load. */
async function rulesFigure(): Promise<void> {
  const rules = withDefaultCommandRules({});
  const cmds = ['git status && npm test', 'cat src/*.ts | grep -n foo', 'git log --oneline -5', 'LD_PRELOAD=x ls', 'rg foo src', 'nice -n 5 git diff HEAD~1 -- src/a.ts'];
  const t0 = performance.now();
  checkCommand('git status', rules);
  const firstLoadMs = performance.now() - t0;
  const per = await sample(QUICK ? 50 : 300, () => {
    for (const c of cmds) checkCommand(c, rules, { sandboxed: true, home: '/home/u', roots: ['/ws'] });
  }, 20);
  emit(figure({ name: 'command rules check per command line', unit: 'ms', input: { lines: cmds.length }, goal: { max: 5 }, budget: { max: 50 }, extra: { parserFirstLoadMs: Math.round(firstLoadMs) } }, per.map((x) => x / cmds.length)));
}

/**
 * What the write layer's merge costs on a command that writes 10,000 files (100 folders of 100): the command runs
 * through the sandbox's own plan, then finish() merges; the merge alone is timed, and the longest event-loop block
 * during it (the merge must not freeze the extension host).
 */
async function mergeFigures(sandbox: CommandSandbox, ws: string): Promise<void> {
  if (!sandbox.containment().writeLayer) return skip('sandbox write-layer merge', 'no write layer on this machine');
  for (let d = 0; d < 100; d++) {
    mkdirSync(path.join(ws, 'tpl', String(d)), { recursive: true });
    for (let f = 0; f < 100; f++) writeFileSync(path.join(ws, 'tpl', String(d), `${f}.txt`), `${d}-${f}\n`);
  }
  const cases: { name: string; command: string }[] = [
    { name: 'created', command: 'cp -r tpl gen' },
    { name: 'modified', command: 'for f in gen/*/*.txt; do echo more >> "$f"; done' },
    { name: 'deleted', command: 'rm -rf gen' },
  ];
  const rounds = QUICK ? 2 : 5;
  const times: Record<string, number[]> = { created: [], modified: [], deleted: [] };
  let maxBlock = 0;
  for (let r = 0; r < rounds; r++) {
    for (const c of cases) {
      const plan = await sandbox.plan({ command: c.command, cwd: ws, taskId: 'bench-merge' });
      const res = spawnSync(plan.argv[0]!, plan.argv.slice(1), { env: plan.env, cwd: ws, maxBuffer: 16 * 1024 * 1024 });
      if (res.status !== 0) throw new Error(`${c.command}: ${String(res.stderr).slice(0, 500)}`);
      const { maxBlockMs } = await withLoopMonitor(async () => {
        const t0 = performance.now();
        await sandbox.finish(plan, '');
        times[c.name]!.push(performance.now() - t0);
      });
      maxBlock = Math.max(maxBlock, maxBlockMs);
      if ((plan.merged?.changes.length ?? 0) < 10_000) throw new Error(`${c.name}: only ${plan.merged?.changes.length} changes merged`);
    }
  }
  for (const c of cases) {
    emit(figure({ name: `sandbox write-layer merge, 10,000 files ${c.name}`, unit: 'ms', input: { files: 10_000, folders: 100, rounds }, goal: { max: 2000 }, budget: { max: 15_000 }, extra: { maxEventLoopBlockMs: Math.round(maxBlock * 10) / 10 } }, times[c.name]!));
  }
  rmSync(path.join(ws, 'tpl'), { recursive: true, force: true });
}

async function main(): Promise<void> {
  await rulesFigure();
  if (process.platform !== 'linux') return skip('sandbox start-up per command', 'bubblewrap is Linux only');
  const dir = realpathSync(mkdtempSync(path.join(tmpdir(), 'forge-bench-sbx-')));
  try {
    const ws = path.join(dir, 'ws');
    for (let i = 0; i < 2000; i++) {
      const f = path.join(ws, `pkg${i % 40}`, `src${i % 7}`, `file${i}.ts`);
      mkdirSync(path.dirname(f), { recursive: true });
      writeFileSync(f, `export const x${i} = ${i};\n`);
    }
    for (const s of ['.env', 'pkg3/.env.local', 'pkg9/deploy/key.pem']) {
      mkdirSync(path.dirname(path.join(ws, s)), { recursive: true });
      writeFileSync(path.join(ws, s), 'SECRET=1\n');
    }
    const sandbox = new CommandSandbox({ settings: () => ({ enabled: true, network: 'off', envAllow: [] }), roots: () => [ws], baseDir: path.join(dir, 'sbx') });
    const c = await sandbox.ready();
    if (c.kind !== 'bubblewrap') return skip('sandbox start-up per command', `no bubblewrap: ${c.reason}`);
    const contained = new NodeCommandRunner({ sandbox, spoolDir: path.join(dir, 'spool') });
    const bare = new NodeCommandRunner({ spoolDir: path.join(dir, 'spool') });
    const req = { command: 'true', cwd: ws, timeoutMs: 10_000, signal: new AbortController().signal, taskId: 'bench' };
    const n = QUICK ? 20 : 100;
    const bareMs = await sample(n, () => bare.run(req), 5);
    let containedMs: number[] = [];
    const { maxBlockMs } = await withLoopMonitor(async () => {
      containedMs = await sample(n, () => contained.run(req), 5);
    });
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    const overhead = containedMs.map((x) => x - median(bareMs));
    emit(figure({ name: 'sandbox start-up per command (contained minus bare `true`)', unit: 'ms', input: { files: 2000, maskedSecrets: 3, runs: n }, goal: { max: 30 }, budget: { max: 150 }, extra: { containedMedianMs: median(containedMs), bareMedianMs: median(bareMs), maxEventLoopBlockMs: Math.round(maxBlockMs * 10) / 10 } }, overhead));
    await mergeFigures(sandbox, ws);
    const scans = await sample(QUICK ? 5 : 20, () => scanWorkspaceSecrets(ws), 1);
    emit(figure({ name: 'sandbox workspace secret scan (uncached, 2,000 files)', unit: 'ms', input: { files: 2000 }, goal: { max: 100 }, budget: { max: 1000 } }, scans));
    await sandbox.dispose();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  log(String(err?.stack ?? err));
  process.exit(1);
});

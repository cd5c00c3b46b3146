#!/usr/bin/env node
// Forge benchmark suite. One JSON object per figure on stdout; bench/out/results.json and bench/RESULTS.md.
//
//   node bench/run.mjs [--only <name>[,<name>...]] [--quick] [--list]
//
// Each benchmark runs in its own Node process (TypeScript through tsx) so heaps and JITs do not mix.
// Exit code 1 when a figure is past its CI budget (generous regression limits) or a benchmark crashed;
// figures over their (tighter) goal are reported, named in RESULTS.md, and do not fail the run.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeReport } from './lib/report.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '..');

/** name -> script, extra node flags. Order: cheap first, heavy optional ones last. */
const BENCHES = [
  { name: 'loop', file: 'loop.bench.ts' },
  { name: 'steps', file: 'steps.bench.ts' },
  { name: 'toolcall', file: 'toolcall.bench.ts' },
  { name: 'context', file: 'context.bench.ts' },
  { name: 'caching', file: 'caching.bench.ts' },
  { name: 'apply-diff', file: 'apply-diff.bench.ts' },
  { name: 'memory', file: 'memory.bench.ts', flags: ['--expose-gc'] },
  { name: 'files', file: 'files.bench.ts', flags: ['--expose-gc'] },
  { name: 'mentions', file: 'mentions.bench.ts' },
  { name: 'images', file: 'images.bench.ts' },
  { name: 'tools-bounded', file: 'tools-bounded.bench.ts' },
  { name: 'sandbox', file: 'sandbox.bench.ts' },
  { name: 'checkpoints', file: 'checkpoints.bench.ts' },
  { name: 'parallel', file: 'parallel.bench.ts', flags: ['--expose-gc'] },
  { name: 'bundle', file: 'bundle.bench.mjs' },
  { name: 'webview', file: 'webview.bench.ts' },
  { name: 'activation', file: 'activation.bench.mjs' },
  { name: 'latency', file: 'latency.bench.mjs' },
];

const argv = process.argv.slice(2);
const quick = argv.includes('--quick');
const onlyArg = argv.includes('--only') ? argv[argv.indexOf('--only') + 1] : undefined;
if (argv.includes('--list')) {
  for (const b of BENCHES) console.log(b.name);
  process.exit(0);
}
const only = onlyArg ? new Set(onlyArg.split(',')) : undefined;
if (only) {
  const unknown = [...only].filter((n) => !BENCHES.some((b) => b.name === n));
  if (unknown.length) {
    console.error(`Unknown benchmark(s): ${unknown.join(', ')}. Known: ${BENCHES.map((b) => b.name).join(', ')}`);
    process.exit(2);
  }
}

function runOne(bench) {
  return new Promise((resolve) => {
    const script = path.join(here, bench.file);
    const args = [...(bench.flags ?? []), ...(bench.file.endsWith('.ts') ? ['--import', 'tsx'] : []), script];
    const child = spawn(process.execPath, args, {
      cwd: repo,
      env: { ...process.env, BENCH_QUICK: quick ? '1' : '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const figures = [];
    let buf = '';
    child.stdout.on('data', (d) => {
      buf += d;
      let nl;
      while ((nl = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, nl).trim();
        buf = buf.slice(nl + 1);
        if (!line) continue;
        try {
          const f = JSON.parse(line);
          figures.push({ ...f, bench: bench.name });
          process.stdout.write(line + '\n');
        } catch {
          process.stderr.write(`[${bench.name}] ${line}\n`);
        }
      }
    });
    child.stderr.on('data', (d) => process.stderr.write(d));
    const t0 = Date.now();
    child.on('exit', (code) => resolve({ code, figures, seconds: (Date.now() - t0) / 1000 }));
  });
}

function machine() {
  const cpus = os.cpus();
  return {
    cpu: cpus[0]?.model?.trim() ?? 'unknown',
    cores: cpus.length,
    memoryGB: Math.round(os.totalmem() / 2 ** 30),
    node: process.version,
    platform: `${os.platform()} ${os.release()} ${os.arch()}`,
  };
}

const started = Date.now();
const all = [];
const crashed = [];
for (const bench of BENCHES) {
  if (only && !only.has(bench.name)) continue;
  process.stderr.write(`[bench] ── ${bench.name} ──\n`);
  const { code, figures, seconds } = await runOne(bench);
  process.stderr.write(
    `[bench] ${bench.name}: ${figures.length} figure(s) in ${seconds.toFixed(1)} s${code ? ` (exit ${code})` : ''}\n`,
  );
  if (code) crashed.push(bench.name);
  all.push(...figures);
}

const results = {
  date: new Date().toISOString(),
  quick,
  only: onlyArg ?? null,
  machine: machine(),
  durationSeconds: Math.round((Date.now() - started) / 100) / 10,
  crashed,
  figures: all,
};
const outDir = path.join(here, 'out');
fs.mkdirSync(outDir, { recursive: true });
// A partial run (--only) updates its figures and keeps the others from the last results.
const resultsFile = path.join(outDir, 'results.json');
let merged = results;
if (only && fs.existsSync(resultsFile)) {
  try {
    const prev = JSON.parse(fs.readFileSync(resultsFile, 'utf8'));
    const keep = (prev.figures ?? []).filter((f) => !only.has(f.bench));
    merged = { ...results, figures: [...keep, ...all] };
  } catch {
    /* unreadable: overwrite */
  }
}
fs.writeFileSync(resultsFile, JSON.stringify(merged, null, 2) + '\n');
// Quick runs (CI) check the budgets; only full runs are worth recording as the latest figures.
if (!quick) writeReport(merged, path.join(here, 'RESULTS.md'));

const overBudget = all.filter((f) => f.withinBudget === false);
const overGoal = all.filter((f) => f.withinGoal === false);
process.stderr.write(
  `[bench] done in ${results.durationSeconds} s: ${all.length} figures, ${overGoal.length} over goal, ${overBudget.length} over CI budget` +
    `${crashed.length ? `, crashed: ${crashed.join(', ')}` : ''}; wrote bench/out/results.json${quick ? '' : ' and bench/RESULTS.md'}\n`,
);
process.exit(overBudget.length || crashed.length ? 1 : 0);

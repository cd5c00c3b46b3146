// The README's test command: type-check, unit tests, webview tests in Chromium, integration tests in a real VS Code,
// then the benchmarks against their regression budgets.
// Each stage installs what it needs (scripts/ensure-browser.mjs, scripts/setup-real-vscode.mjs) into ignored folders.
// A failed stage's failures are repeated after the summary: a CI log is often read from its end only.
import { spawn } from 'node:child_process';

const stages = [
  ['typecheck', 'npm', ['run', '-s', 'typecheck']],
  ['unit', 'npm', ['run', '-s', 'test:unit']],
  ['webview', 'npm', ['run', '-s', 'test:webview']],
  ['integration', 'npm', ['run', '-s', 'test:integration']],
  // Benchmarks, not timed tests: a figure fails CI only past its generous regression budget (bench/RESULTS.md).
  ['bench', 'node', ['bench/run.mjs', '--quick']],
];

const TAIL_LINES = 40;
// Mocha's failure list ("  1) suite", "     Error: ...") and the other runners' own failure lines.
const FAILURE_LINE = /^\s*\d+\) |^\s+(?:\w*Error|AssertionError)\b|^\s*(?:FAIL|failed|error TS\d+)|\bfailing\b|\[crash\].*(?:fail|error)/i;

/** Runs a stage with its output passed through, keeping its last lines and the lines that report a failure. */
function runStage(cmd, args) {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { stdio: ['inherit', 'pipe', 'pipe'], env: process.env });
    const tail = [];
    const failures = [];
    const collect = (out) => {
      let partial = '';
      return (chunk) => {
        out.write(chunk);
        const lines = (partial + chunk.toString('utf8')).split('\n');
        partial = lines.pop() ?? '';
        for (const line of lines) {
          tail.push(line);
          if (tail.length > TAIL_LINES) tail.shift();
          if (FAILURE_LINE.test(line) && failures.length < 60) failures.push(line);
        }
      };
    };
    child.stdout.on('data', collect(process.stdout));
    child.stderr.on('data', collect(process.stderr));
    child.on('close', (code, signal) => resolve({ ok: code === 0, code: code ?? signal, tail, failures }));
    child.on('error', (err) => resolve({ ok: false, code: err.message, tail, failures }));
  });
}

const only = process.argv.slice(2);
const results = [];
for (const [name, cmd, args] of stages) {
  if (only.length && !only.includes(name)) continue;
  const started = Date.now();
  console.log(`\n=== ${name} ===`);
  const r = await runStage(cmd, args);
  results.push({ name, ...r, seconds: Math.round((Date.now() - started) / 1000) });
}

for (const r of results.filter((x) => !x.ok)) {
  console.log(`\n=== ${r.name} failed (exit ${r.code}): its failure lines, then its last lines ===`);
  for (const line of r.failures) console.log(line);
  console.log('---');
  for (const line of r.tail) console.log(line);
}
console.log('\n=== summary ===');
for (const r of results) console.log(`${r.ok ? 'PASS' : 'FAIL'}  ${r.name} (${r.seconds}s)`);
process.exit(results.every((r) => r.ok) ? 0 : 1);

// The README's test command: type-check, unit tests, webview tests in Chromium, integration tests in a real VS Code,
// then the benchmarks against their regression budgets.
// Each stage installs what it needs (scripts/ensure-browser.mjs, scripts/setup-real-vscode.mjs) into ignored folders.
// A failed stage's failure lines and last lines are repeated at the end, just before the summary: a CI log is often
// read from its end only.
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
const FAILURE_LINE =
  /^\s*\d+\) |^\s+(?:\w*Error|AssertionError)\b|^\s*(?:FAIL\b|failed\b)|error TS\d+|^\s*\d+ failing|^\[crash\].*(?:fail|error)/i;
/** How long a stage's output may still arrive after its process exited (a child it left holding the pipes). */
const DRAIN_MS = 2000;

/** Runs a stage with its output passed through, keeping its last lines and the lines that report a failure. */
function runStage(cmd, args) {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { stdio: ['inherit', 'pipe', 'pipe'], env: process.env });
    const tail = [];
    const failures = [];
    const keep = (line) => {
      tail.push(line);
      if (tail.length > TAIL_LINES) tail.shift();
      if (FAILURE_LINE.test(line) && failures.length < 60) failures.push(line);
    };
    const collect = (stream, out) => {
      let partial = '';
      stream.setEncoding('utf8');
      stream.on('data', (text) => {
        out.write(text);
        const lines = (partial + text).split('\n');
        partial = lines.pop() ?? '';
        for (const line of lines) keep(line);
      });
      // The last line may have no newline.
      return () => {
        if (partial) keep(partial);
        partial = '';
      };
    };
    const flushes = [collect(child.stdout, process.stdout), collect(child.stderr, process.stderr)];
    let settled = false;
    const finish = (code) => {
      if (settled) return;
      settled = true;
      for (const flush of flushes) flush();
      resolve({ ok: code === 0, code, tail, failures });
    };
    // Done when the process exits and its pipes have closed; a process it left behind holding them is not waited for.
    child.on('exit', (code, signal) => {
      const timer = setTimeout(() => {
        child.stdout.destroy();
        child.stderr.destroy();
        finish(code ?? signal);
      }, DRAIN_MS);
      child.on('close', () => {
        clearTimeout(timer);
        finish(code ?? signal);
      });
    });
    child.on('error', (err) => finish(err.message));
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

// The README's test command: type-check, unit tests, webview tests in Chromium, integration tests in a real VS Code,
// then the benchmarks against their regression budgets.
// Each stage installs what it needs (scripts/ensure-browser.mjs, scripts/setup-real-vscode.mjs) into ignored folders.
import { spawnSync } from 'node:child_process';

const stages = [
  ['typecheck', 'npm', ['run', '-s', 'typecheck']],
  ['unit', 'npm', ['run', '-s', 'test:unit']],
  ['webview', 'npm', ['run', '-s', 'test:webview']],
  ['integration', 'npm', ['run', '-s', 'test:integration']],
  // Benchmarks, not timed tests: a figure fails CI only past its generous regression budget (bench/RESULTS.md).
  ['bench', 'node', ['bench/run.mjs', '--quick']],
];
const only = process.argv.slice(2);
const results = [];
for (const [name, cmd, args] of stages) {
  if (only.length && !only.includes(name)) continue;
  const started = Date.now();
  console.log(`\n=== ${name} ===`);
  const r = spawnSync(cmd, args, { stdio: 'inherit', env: process.env });
  results.push({ name, ok: r.status === 0, seconds: Math.round((Date.now() - started) / 1000) });
}
console.log('\n=== summary ===');
for (const r of results) console.log(`${r.ok ? 'PASS' : 'FAIL'}  ${r.name} (${r.seconds}s)`);
process.exit(results.every((r) => r.ok) ? 0 : 1);

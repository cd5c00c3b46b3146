#!/usr/bin/env node
// `npm run package`: production bundles + `vsce package --no-dependencies` (everything is bundled, so the
// VSIX carries no node_modules). Prints the VSIX path, its size and the files it holds.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { vsceBaseArgs } from './vsce-args.mjs';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const pkg = JSON.parse(fs.readFileSync(path.join(repo, 'package.json'), 'utf8'));
const vsce = path.join(repo, 'node_modules', '@vscode', 'vsce', 'vsce');

function run(cmd, args, capture = false) {
  const r = spawnSync(cmd, args, {
    cwd: repo,
    stdio: capture ? ['ignore', 'pipe', 'inherit'] : 'inherit',
    encoding: 'utf8',
  });
  if (r.status !== 0) {
    console.error(`[package] ${path.basename(cmd)} ${args.join(' ')} failed (exit ${r.status ?? r.signal})`);
    process.exit(r.status ?? 1);
  }
  return r.stdout;
}

run(process.execPath, ['esbuild.mjs', '--production']);
// Source maps left by a debug build must not slip into the package (.vscodeignore excludes them too).
for (const f of fs.readdirSync(path.join(repo, 'dist'), { recursive: true })) {
  if (String(f).endsWith('.map')) fs.rmSync(path.join(repo, 'dist', String(f)));
}

const files = run(process.execPath, [vsce, 'ls', '--no-dependencies'], true).trim().split('\n').filter(Boolean);
const leaked = files.filter((f) => /\.map$|^src\/|^node_modules\/|^test\/|\.ts$/.test(f));
if (leaked.length) {
  console.error(`[package] unexpected files in the package (check .vscodeignore):\n  ${leaked.join('\n  ')}`);
  process.exit(1);
}
// The headless runner ships in both packages: the VSIX (next to the extension) and the npm package behind
// package.json "bin" (npx), whose contents .npmignore allow-lists.
for (const need of ['dist/cli.js', 'dist/vendor/mvdan-sh.js']) {
  if (!files.includes(need)) {
    console.error(`[package] ${need} is missing from the VSIX (check .vscodeignore)`);
    process.exit(1);
  }
}
const npmFiles = JSON.parse(
  run(process.platform === 'win32' ? 'npm.cmd' : 'npm', ['pack', '--dry-run', '--json'], true),
)[0].files.map((f) => f.path);
const npmMissing = ['dist/cli.js', 'dist/vendor/mvdan-sh.js', 'package.json'].filter((f) => !npmFiles.includes(f));
if (npmMissing.length || npmFiles.some((f) => f.startsWith('src/') || f.endsWith('.map'))) {
  console.error(
    `[package] the npm package (forge bin) is wrong (check .npmignore): missing ${npmMissing.join(', ') || 'nothing'}; holds ${npmFiles.join(', ')}`,
  );
  process.exit(1);
}
console.log(`[package] npm package for npx (bin "forge"): ${npmFiles.join(', ')}`);
const out = path.join(repo, `${pkg.name}-${pkg.version}.vsix`);
run(process.execPath, [vsce, 'package', '--no-dependencies', ...vsceBaseArgs(pkg), '--out', out]);
const kib = (n) => `${(n / 1024).toFixed(1)} KiB`;
console.log(`\n[package] ${path.relative(repo, out)}: ${kib(fs.statSync(out).size)}, ${files.length} files:`);
for (const f of files) {
  const size = fs.existsSync(path.join(repo, f)) ? kib(fs.statSync(path.join(repo, f)).size) : '';
  console.log(`  ${f.padEnd(40)} ${size}`);
}

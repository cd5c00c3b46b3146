// Bundle sizes (production build into a temp dir: minified and gzipped), runtime dependency count (declared
// vs actually bundled, from the esbuild metafile) and the VSIX size (vsce package on a temp copy, so the
// repo's dist/ is never touched while other tools use it).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';
import { buildOptions } from '../esbuild.mjs';
import { vsceBaseArgs } from '../scripts/vsce-args.mjs';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const pkg = JSON.parse(fs.readFileSync(path.join(repo, 'package.json'), 'utf8'));
const kb = (n) => Math.round((n / 1024) * 10) / 10;
const gz = (buf) => zlib.gzipSync(buf, { level: 9 }).length;

function out(name, unit, value, input, goal = null, extra = {}) {
  const withinGoal = goal
    ? (goal.max === undefined || value < goal.max) && (goal.min === undefined || value > goal.min)
    : null;
  const f = { name, unit, median: value, p95: value, n: 1, input, goal, withinGoal, ...extra };
  process.stdout.write(JSON.stringify(f) + '\n');
  process.stderr.write(`[bench] ${name}: ${value} ${unit}\n`);
}

/** The packages (node_modules/<name>) a bundle's metafile pulls in, with their share of the output. */
function bundledPackages(metafile, outfile) {
  const inputs =
    Object.values(metafile.outputs).find((o, i) => Object.keys(metafile.outputs)[i].endsWith(outfile))?.inputs ?? {};
  const byPkg = new Map();
  for (const [file, info] of Object.entries(inputs)) {
    const m = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(file);
    const name = m ? m[1] : '(forge)';
    byPkg.set(name, (byPkg.get(name) ?? 0) + info.bytesInOutput);
  }
  return [...byPkg.entries()].sort((a, b) => b[1] - a[1]).map(([name, bytes]) => ({ name, kb: kb(bytes) }));
}

async function main() {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'forge-bench-bundle-'));
  try {
    // The shipped build options (esbuild.mjs), made production-like and pointed at a temp dir.
    const prod = { minify: true, sourcemap: false, logLevel: 'error', metafile: true, absWorkingDir: repo };
    const t0 = performance.now();
    const [ext, web, vendor] = await Promise.all([
      esbuild.build({ ...buildOptions.extension, ...prod, outfile: path.join(tmp, 'dist/extension.js') }),
      esbuild.build({ ...buildOptions.webview, ...prod, outdir: path.join(tmp, 'dist/webview') }),
      esbuild.build({ ...buildOptions.vendor, ...prod, outdir: path.join(tmp, 'dist/vendor') }),
    ]);
    const buildMs = Math.round(performance.now() - t0);

    const extBuf = fs.readFileSync(path.join(tmp, 'dist/extension.js'));
    const extPkgs = bundledPackages(ext.metafile, 'extension.js');
    out(
      'bundle.extension.min',
      'KB',
      kb(extBuf.length),
      { entry: 'src/extension.ts', build: 'esbuild --minify, node20 cjs' },
      null,
      {
        gzipKB: kb(gz(extBuf)),
        buildMs,
        largestInputs: extPkgs.slice(0, 8),
      },
    );
    out('bundle.extension.gzip', 'KB', kb(gz(extBuf)), { entry: 'src/extension.ts', gzip: 'level 9' });
    // Loaded only when a command line is first checked, not at activation.
    const vendorBuf = fs.readFileSync(path.join(tmp, 'dist/vendor/mvdan-sh.js'));
    out(
      'bundle.vendor.min',
      'KB',
      kb(vendorBuf.length),
      { entry: 'mvdan-sh (shell parser, lazily required)', build: 'esbuild --minify, node20 cjs' },
      null,
      { gzipKB: kb(gz(vendorBuf)) },
    );

    const webFiles = fs.readdirSync(path.join(tmp, 'dist/webview'));
    let webMin = 0;
    let webGz = 0;
    const perFile = {};
    for (const f of webFiles) {
      const b = fs.readFileSync(path.join(tmp, 'dist/webview', f));
      webMin += b.length;
      webGz += gz(b);
      perFile[f] = { kb: kb(b.length), gzipKB: kb(gz(b)) };
    }
    const webPkgs = bundledPackages(web.metafile, 'main.js');
    out(
      'bundle.webview.min',
      'KB',
      kb(webMin),
      { entry: 'webview-ui/src/main.ts', build: 'esbuild --minify, es2022 esm' },
      null,
      { gzipKB: kb(webGz), files: perFile, largestInputs: webPkgs.slice(0, 8) },
    );
    out('bundle.webview.gzip', 'KB', kb(webGz), { entry: 'webview-ui/src/main.ts', gzip: 'level 9' });

    const declared = Object.keys(pkg.dependencies ?? {});
    const inExt = [...extPkgs, ...bundledPackages(vendor.metafile, 'mvdan-sh.js')]
      .map((p) => p.name)
      .filter((n) => n !== '(forge)');
    const inWeb = webPkgs.map((p) => p.name).filter((n) => n !== '(forge)');
    const bundled = [...new Set([...inExt, ...inWeb])].sort();
    out('deps.runtime.declared', 'packages', declared.length, { source: 'package.json dependencies' }, null, {
      packages: declared,
    });
    out(
      'deps.runtime.bundled',
      'packages',
      bundled.length,
      { source: 'esbuild metafiles (extension + webview), incl. transitive' },
      null,
      {
        extension: inExt,
        webview: inWeb,
        declaredButNotBundled: declared.filter((d) => !bundled.includes(d)),
      },
    );

    // VSIX: the files vsce would package, from a temp copy whose dist/ is the production build above.
    const vsce = path.join(repo, 'node_modules/@vscode/vsce/vsce');
    const ls = spawnSync(process.execPath, [vsce, 'ls', '--no-dependencies'], { cwd: repo, encoding: 'utf8' });
    if (ls.status !== 0) {
      process.stdout.write(
        JSON.stringify({
          name: 'vsix.size',
          skipped: `vsce ls failed: ${(ls.stderr || '').trim().slice(0, 200)}`,
          input: {},
        }) + '\n',
      );
      return;
    }
    const stage = path.join(tmp, 'stage');
    for (const f of ls.stdout.trim().split('\n').filter(Boolean)) {
      const src = f.startsWith('dist/') ? path.join(tmp, f) : path.join(repo, f);
      if (!fs.existsSync(src)) continue;
      fs.mkdirSync(path.dirname(path.join(stage, f)), { recursive: true });
      fs.copyFileSync(src, path.join(stage, f));
    }
    fs.copyFileSync(path.join(repo, '.vscodeignore'), path.join(stage, '.vscodeignore'));
    const vsix = path.join(tmp, 'forge.vsix');
    const pack = spawnSync(
      process.execPath,
      [vsce, 'package', '--no-dependencies', '--skip-license', ...vsceBaseArgs(pkg), '--out', vsix],
      { cwd: stage, encoding: 'utf8' },
    );
    if (pack.status !== 0 || !fs.existsSync(vsix)) {
      process.stdout.write(
        JSON.stringify({
          name: 'vsix.size',
          skipped: `vsce package failed: ${(pack.stderr || pack.stdout || '').trim().slice(0, 300)}`,
          input: {},
        }) + '\n',
      );
      return;
    }
    const files = fs.readdirSync(stage, { recursive: true }).filter((f) => fs.statSync(path.join(stage, f)).isFile());
    out(
      'vsix.size',
      'KB',
      kb(fs.statSync(vsix).size),
      { via: 'vsce package --no-dependencies (production bundles)', files: files.length },
      null,
      { fileList: files.sort() },
    );
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});

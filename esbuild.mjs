// One script, three bundles: the extension (node, cjs, vscode external), the shell parser it loads lazily
// (dist/vendor/mvdan-sh.js) and the webview (browser, ES2022).
import * as esbuild from 'esbuild';
import { pathToFileURL } from 'node:url';
import { chmodSync, readFileSync } from 'node:fs';

const production = process.argv.includes('--production');
const watch = process.argv.includes('--watch');

/** @type {import('esbuild').BuildOptions} */
const common = {
  bundle: true,
  minify: production,
  sourcemap: production ? false : 'linked',
  sourcesContent: false,
  legalComments: 'none',
  logLevel: 'warning',
  metafile: true,
};

const extension = {
  ...common,
  entryPoints: ['src/extension.ts'],
  outfile: 'dist/extension.js',
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  // mvdan-sh (~1.3 MB minified, GopherJS) is only needed when a command is checked: keeping it out of the
  // extension bundle spares every activation from parsing it. src/core/safety/commands.ts requires the
  // vendored copy below at first use.
  external: ['vscode', 'mvdan-sh'],
};

/**
 * The headless runner `forge` (package.json bin): the same core, Node adapters only. 'vscode' is not external
 * here on purpose: an import of it would fail the build instead of failing at run time (and a test checks the
 * bundle). The shell parser is the same lazily loaded dist/vendor/mvdan-sh.js.
 */
const cli = {
  ...common,
  entryPoints: ['src/cli/index.ts'],
  outfile: 'dist/cli.js',
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  external: ['mvdan-sh'],
  banner: { js: '#!/usr/bin/env node' },
  define: {
    __FORGE_VERSION__: JSON.stringify(
      JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8')).version,
    ),
  },
};

/**
 * mvdan-sh on its own, next to the extension: dist/vendor/mvdan-sh.js; and the MCP SDK (dist/vendor/mcp-sdk.js,
 * loaded by src/node/mcp/connection.ts at the first MCP server start).
 */
const vendor = {
  ...common,
  sourcemap: false,
  entryPoints: { 'mvdan-sh': 'mvdan-sh', 'mcp-sdk': 'src/node/mcp/sdk.ts' },
  outdir: 'dist/vendor',
  platform: 'node',
  format: 'cjs',
  target: 'node20',
};

const webview = {
  ...common,
  entryPoints: { main: 'webview-ui/src/main.ts' },
  outdir: 'dist/webview',
  platform: 'browser',
  format: 'esm',
  target: 'es2022',
  loader: { '.css': 'css', '.ttf': 'file' },
  // The codicon font lands next to main.css as dist/webview/codicon.ttf (a localResourceRoot).
  assetNames: '[name]',
};

/** The build options, for tools that stage their own copy of the extension (benchmarks). */
export const buildOptions = { extension, vendor, webview, cli };

async function main() {
  if (watch) {
    await esbuild.build(vendor); // a dependency: built once, not watched
    const contexts = await Promise.all([esbuild.context(extension), esbuild.context(webview), esbuild.context(cli)]);
    await Promise.all(contexts.map((c) => c.watch()));
    console.log('[esbuild] watching src/ and webview-ui/src/');
    return;
  }
  const results = await Promise.all([
    esbuild.build(extension),
    esbuild.build(vendor),
    esbuild.build(webview),
    esbuild.build(cli),
  ]);
  chmodSync('dist/cli.js', 0o755);
  for (const r of results) {
    for (const [file, out] of Object.entries(r.metafile.outputs)) {
      if (!file.endsWith('.map')) console.log(`[esbuild] ${file} ${(out.bytes / 1024).toFixed(1)} KiB`);
    }
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}

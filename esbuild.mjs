// One script, two bundles: the extension (node, cjs, vscode external) and the webview (browser, ES2022).
import * as esbuild from 'esbuild';

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
  external: ['vscode'],
};

const webview = {
  ...common,
  entryPoints: { main: 'webview-ui/src/main.ts' },
  outdir: 'dist/webview',
  platform: 'browser',
  format: 'esm',
  target: 'es2022',
  loader: { '.css': 'css' },
};

async function main() {
  if (watch) {
    const contexts = await Promise.all([esbuild.context(extension), esbuild.context(webview)]);
    await Promise.all(contexts.map((c) => c.watch()));
    console.log('[esbuild] watching src/ and webview-ui/src/');
    return;
  }
  const results = await Promise.all([esbuild.build(extension), esbuild.build(webview)]);
  for (const r of results) {
    for (const [file, out] of Object.entries(r.metafile.outputs)) {
      if (!file.endsWith('.map')) console.log(`[esbuild] ${file} ${(out.bytes / 1024).toFixed(1)} KiB`);
    }
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});

// The layer table (DESIGN.md section 1, CONTRIBUTING.md's map): which folder may import which. Every relative
// import under src/ and webview-ui/src is checked against it, and every bare import of Node's own modules and of
// 'vscode'. A rule that lives only in a comment is not a rule.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { importGraph } from './import-cycles.test';

const ROOT = join(__dirname, '../..');

type Layer = 'core' | 'protocol' | 'providers' | 'node' | 'panel' | 'host' | 'cli' | 'extension' | 'webview';

/** Layer -> the layers it may import (itself included). */
const MAY_IMPORT: Record<Layer, readonly Layer[]> = {
  core: ['core'],
  protocol: ['protocol'],
  providers: ['providers', 'core'],
  node: ['node', 'core', 'providers'],
  panel: ['panel', 'protocol', 'core'],
  host: ['host', 'panel', 'protocol', 'node', 'providers', 'core'],
  cli: ['cli', 'node', 'providers', 'core'],
  extension: ['host', 'panel', 'protocol', 'node', 'providers', 'core'],
  webview: ['webview', 'protocol'],
};

/** Which layers may use Node's built-in modules and which may import 'vscode'. */
const NODE_BUILTINS: Record<Layer, 'any' | 'pure' | 'none'> = {
  core: 'pure',
  protocol: 'none',
  providers: 'any',
  node: 'any',
  panel: 'pure',
  host: 'any',
  cli: 'any',
  extension: 'any',
  webview: 'none',
};
const VSCODE: readonly Layer[] = ['host', 'panel', 'extension'];
/** The vscode.lm provider is a provider that only the extension loads. */
const VSCODE_FILES = new Set(['src/providers/vscode-lm.ts']);
/** Node modules that compute and touch nothing (paths, hashes, text): allowed in the pure layers. */
const PURE_BUILTINS = new Set(['node:path', 'node:crypto', 'node:util', 'node:assert', 'node:events']);
function layerOf(file: string): Layer | undefined {
  const rel = relative(ROOT, file).split(sep).join('/');
  if (rel === 'src/extension.ts') return 'extension';
  if (rel.startsWith('webview-ui/src/')) return 'webview';
  const m = /^src\/([a-z-]+)\//.exec(rel);
  return m && m[1] in MAY_IMPORT ? (m[1] as Layer) : undefined;
}

function sourceFiles(): string[] {
  const walk = (dir: string): string[] =>
    readdirSync(dir).flatMap((n) => {
      const p = join(dir, n);
      return statSync(p).isDirectory() ? walk(p) : /\.ts$/.test(n) && !n.endsWith('.d.ts') ? [p] : [];
    });
  return [...walk(join(ROOT, 'src')), ...walk(join(ROOT, 'webview-ui/src'))];
}

const BARE = /(?:\bfrom\s*|\bimport\s*\(\s*|\brequire\s*\(\s*|^\s*import\s+)['"]((?:node:)?[a-z_][^'"]*)['"]/gm;
const NODE_MODULES = new Set([
  'fs',
  'path',
  'os',
  'child_process',
  'crypto',
  'util',
  'events',
  'net',
  'http',
  'https',
  'url',
  'stream',
  'worker_threads',
  'zlib',
  'tls',
  'dns',
  'readline',
  'v8',
  'vm',
  'assert',
  'buffer',
  'process',
  'timers',
]);

describe('layers: every import follows the table', () => {
  const files = sourceFiles();
  const graph = importGraph(files);
  const rel = (f: string) => relative(ROOT, f).split(sep).join('/');

  it('knows the layer of every source file', () => {
    const unknown = files.filter((f) => !layerOf(f)).map(rel);
    assert.deepEqual(unknown, [], 'files outside the layer table (add the folder to MAY_IMPORT)');
  });

  it('relative imports only point down the table', () => {
    const wrong: string[] = [];
    for (const [file, deps] of graph) {
      const from = layerOf(file)!;
      for (const dep of deps) {
        const to = layerOf(dep);
        if (to && !MAY_IMPORT[from].includes(to)) wrong.push(`${rel(file)} (${from}) imports ${rel(dep)} (${to})`);
      }
    }
    assert.deepEqual(wrong, []);
  });

  it("Node's own modules only where the layer may use them, 'vscode' only in host, panel and extension.ts", () => {
    const wrong: string[] = [];
    for (const file of files) {
      const layer = layerOf(file)!;
      const text = readFileSync(file, 'utf8');
      for (const m of text.matchAll(BARE)) {
        const spec = m[1]!;
        const isVscode = spec === 'vscode';
        const builtin = spec.startsWith('node:') || NODE_MODULES.has(spec.split('/')[0]!);
        if (isVscode && !VSCODE.includes(layer) && !VSCODE_FILES.has(rel(file)))
          wrong.push(`${rel(file)} (${layer}) imports vscode`);
        if (!builtin) continue;
        const rule = NODE_BUILTINS[layer];
        const pure = PURE_BUILTINS.has(spec.startsWith('node:') ? spec : `node:${spec}`);
        if (rule === 'none' || (rule === 'pure' && !pure)) wrong.push(`${rel(file)} (${layer}) imports ${spec}`);
      }
    }
    assert.deepEqual(wrong, []);
  });
});

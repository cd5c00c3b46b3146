// search_files and list_files on a generated 50,000-file tree (cached under bench/out/cache; .txt files, so
// tsc, whose tsconfig includes bench/, never sees them): time and memory,
// with the JS walker and, when a VS Code ripgrep binary is available, the ripgrep backend.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { createListFilesTool, createSearchFilesTool } from '../src/core/tools/builtin';
import { WorkspaceSandbox } from '../src/core/safety/paths';
import type { Tool } from '../src/core/tools/types';
import { NodeWorkspaceFs, workerRegexScan } from '../src/node';
import { RipgrepSearch } from '../src/node/ripgrep-search';
import { codeText } from './lib/fixtures';
import { emit, figure, gc, log, mb, now, QUICK, skip } from './lib/harness';

const FILES = 50_000;
const TREE_VERSION = 2;
const repo = path.resolve(__dirname, '..');
const treeDir = path.join(repo, 'bench', 'out', 'cache', `tree-${FILES}-v${TREE_VERSION}`);
const NEEDLE_EVERY = 500;
// node --cpu-prof of list_files on this tree: one entry at a time, awaited in series.
const WALKER_PROFILE =
  'walk.ts: entry types from the directory listing (no stat per entry), .gitignore found in the listing, up to 16 ' +
  'directory reads in flight with results in queue order; search reads up to 16 files at once (first chunk NUL check). ' +
  'What remains in the JS search is the Node fs thread pool (reading every file asynchronously); ripgrep is ~6x faster.';

function generate(): void {
  const marker = path.join(treeDir, '.complete');
  if (fs.existsSync(marker)) return;
  log(`generating ${FILES} files in ${path.relative(repo, treeDir)} (once; reused by later runs)`);
  fs.rmSync(treeDir, { recursive: true, force: true });
  const t0 = now();
  let n = 0;
  for (let p = 0; n < FILES; p++) {
    for (let d = 0; d < 20 && n < FILES; d++) {
      const dir = path.join(treeDir, `packages/pkg${p}/src/dir${d}`);
      fs.mkdirSync(dir, { recursive: true });
      for (let f = 0; f < 100 && n < FILES; f++, n++) {
        const needle = n % NEEDLE_EVERY === 0 ? `\n// FORGE_NEEDLE_${n} marks this file\n` : '\n';
        fs.writeFileSync(path.join(dir, `file${f}.txt`), codeText(600 + (n % 7) * 100, n) + needle);
      }
    }
  }
  // Things a walker must skip: an ignored build dir and node_modules.
  fs.writeFileSync(path.join(treeDir, '.gitignore'), 'dist/\n*.log\n');
  for (const skipped of ['dist', 'node_modules/left-pad']) {
    fs.mkdirSync(path.join(treeDir, skipped), { recursive: true });
    for (let i = 0; i < 200; i++)
      fs.writeFileSync(path.join(treeDir, skipped, `x${i}.js`), `// FORGE_NEEDLE_skipped ${i}\n`);
  }
  fs.writeFileSync(marker, new Date().toISOString());
  log(`generated in ${((now() - t0) / 1000).toFixed(1)} s`);
}

function findRg(): string | undefined {
  const candidates = [
    process.env.FORGE_BENCH_RG,
    path.join(repo, '.cache/real-vscode/cs/node_modules/code-server/lib/vscode/node_modules/@vscode/ripgrep/bin/rg'),
    path.join(
      repo,
      `.cache/real-vscode/cs/node_modules/code-server/lib/vscode/node_modules/@vscode/ripgrep-universal/bin/${process.platform}-${process.arch}/rg`,
    ),
  ].filter((p): p is string => !!p);
  return candidates.find((p) => {
    try {
      fs.accessSync(p, fs.constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

/** Runs the tool, sampling memory every 10 ms; returns time and peaks above the pre-run baseline. */
async function measured(
  tool: Tool,
  input: unknown,
): Promise<{ ms: number; peakHeapMB: number; peakRssMB: number; content: string; data: unknown }> {
  gc();
  const base = process.memoryUsage();
  let peakHeap = base.heapUsed;
  let peakRss = base.rss;
  const timer = setInterval(() => {
    const m = process.memoryUsage();
    peakHeap = Math.max(peakHeap, m.heapUsed);
    peakRss = Math.max(peakRss, m.rss);
  }, 10);
  const t0 = now();
  const r = await tool.execute(input as never, {
    signal: new AbortController().signal,
    taskId: 'bench',
    toolCallId: 'bench',
  });
  const ms = now() - t0;
  clearInterval(timer);
  const m = process.memoryUsage();
  peakHeap = Math.max(peakHeap, m.heapUsed);
  peakRss = Math.max(peakRss, m.rss);
  if (r.isError) throw new Error(`${tool.name} failed: ${r.content.slice(0, 300)}`);
  return {
    ms,
    peakHeapMB: mb(peakHeap - base.heapUsed),
    peakRssMB: mb(peakRss - base.rss),
    content: r.content,
    data: r.data,
  };
}

async function main() {
  generate();
  const wfs = new NodeWorkspaceFs([treeDir]);
  const sandbox = new WorkspaceSandbox(wfs, { trusted: true });
  const rg = findRg();
  const runs = QUICK ? 1 : 3;
  const input = { files: FILES, dirs: FILES / 100, treeMB: 40, ignoredFiles: 400 };
  const cases: {
    name: string;
    tool: Tool;
    args: unknown;
    check: (content: string, data: unknown) => void;
    backend: string;
  }[] = [
    {
      name: 'list_files.recursive.50k',
      backend: 'JS walker',
      tool: createListFilesTool(sandbox) as unknown as Tool,
      args: { path: '.', recursive: true },
      check: (c) => {
        if (!/5\d{4}\+? entries/.test(c)) throw new Error(`list_files: unexpected header ${c.split('\n')[0]}`);
      },
    },
    {
      name: 'search_files.js.50k',
      backend: 'JS walker + RegExp',
      tool: createSearchFilesTool(sandbox, undefined, { regexScan: workerRegexScan }) as unknown as Tool,
      args: { pattern: 'FORGE_NEEDLE_\\d+' },
      check: (_c, d) => {
        if ((d as { totalMatches: number }).totalMatches !== FILES / NEEDLE_EVERY)
          throw new Error(`search_files js: ${JSON.stringify(d)}`);
      },
    },
  ];
  if (rg) {
    cases.push({
      name: 'search_files.ripgrep.50k',
      backend: `ripgrep (${path.relative(repo, rg)})`,
      tool: createSearchFilesTool(sandbox, new RipgrepSearch(rg)) as unknown as Tool,
      args: { pattern: 'FORGE_NEEDLE_\\d+' },
      check: (_c, d) => {
        if ((d as { totalMatches: number }).totalMatches !== FILES / NEEDLE_EVERY)
          throw new Error(`search_files rg: ${JSON.stringify(d)}`);
      },
    });
  }
  for (const c of cases) {
    const times: number[] = [];
    const heaps: number[] = [];
    const rss: number[] = [];
    for (let i = 0; i < runs; i++) {
      const m = await measured(c.tool, c.args);
      c.check(m.content, m.data);
      times.push(m.ms);
      heaps.push(m.peakHeapMB);
      rss.push(m.peakRssMB);
    }
    const f = emit(
      figure(
        {
          name: c.name,
          unit: 'ms',
          input: { ...input, backend: c.backend, args: c.args },
          goal: null,
          extra: {
            peakHeapAboveBaselineMB: Math.max(...heaps),
            peakRssAboveBaselineMB: Math.max(...rss),
            ...(c.backend.startsWith('JS') ? { profile: WALKER_PROFILE } : {}),
          },
        },
        times,
      ),
    );
    log(`${c.name}: median ${f.median} ms; peak heap +${Math.max(...heaps)} MB, rss +${Math.max(...rss)} MB`);
  }
  if (!rg)
    skip(
      'search_files.ripgrep.50k',
      'no ripgrep binary (install code-server: node scripts/setup-real-vscode.mjs, or set FORGE_BENCH_RG)',
    );
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});

// Loads the shell parser (mvdan-sh, 1.3 MB of GopherJS) before the first command check needs it, without one
// long block of the extension host: a plain require() compiles and runs it in one go (70-150 ms). Here the work is
// spread over separate ticks — compile (from a V8 code cache kept in global storage when there is one), run the
// module's initialisation, one warm parse, and later, writing the cache — so no single tick holds the host for
// long. With the cache the longest tick is the module's own initialisation (about 20-30 ms). No 'vscode' here.
import * as crypto from 'node:crypto';
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import * as vm from 'node:vm';
import {
  adoptShellParser,
  parseScript,
  shellParserLoaded,
  vendoredShellParserPath,
} from '../core/safety/command-parse';
import { errorText } from '../core/error-text';

interface ShellParserWarmupOptions {
  /** Folder for the V8 code cache (global storage); without it the parser is compiled from source. */
  cacheDir?: string;
  /** The parser file (default: dist/vendor/mvdan-sh.js next to the bundle). */
  file?: string;
  log?: { info(m: string): void; warn(m: string): void };
}

interface ShellParserWarmupResult {
  loaded: boolean;
  /** 'cache' (code cache accepted), 'compiled' (no usable cache), 'already' (loaded before), 'missing' (no vendored file). */
  via: 'cache' | 'compiled' | 'already' | 'missing';
  /** The longest single step, ms (what the host was blocked for at most). */
  longestStepMs: number;
  steps: Record<string, number>;
}

const yieldToHost = () => new Promise<void>((r) => setImmediate(r));

let running: Promise<ShellParserWarmupResult> | undefined;

/** Warms the shell parser once per extension host; later calls return the first call's promise. */
export function warmShellParser(options: ShellParserWarmupOptions = {}): Promise<ShellParserWarmupResult> {
  running ??= load(options).catch((err) => {
    options.log?.warn(`shell parser warm-up failed (the first command check loads it instead): ${errorText(err)}`);
    return { loaded: shellParserLoaded(), via: 'compiled' as const, longestStepMs: 0, steps: {} };
  });
  return running;
}

async function load(options: ShellParserWarmupOptions): Promise<ShellParserWarmupResult> {
  const steps: Record<string, number> = {};
  const result = (via: ShellParserWarmupResult['via']): ShellParserWarmupResult => ({
    loaded: shellParserLoaded(),
    via,
    longestStepMs: Math.round(Math.max(0, ...Object.values(steps)) * 10) / 10,
    steps,
  });
  if (shellParserLoaded()) return result('already');
  const file = options.file ?? vendoredShellParserPath();
  let source: string;
  try {
    source = await fsp.readFile(file, 'utf8');
  } catch {
    return result('missing'); // running from source: the package is required at first use
  }
  // The cache is only valid for this exact file and V8; V8 checks too, the name avoids rejected loads.
  const key = crypto
    .createHash('sha256')
    .update(process.version)
    .update(process.arch)
    .update(source)
    .digest('hex')
    .slice(0, 16);
  const cacheFile = options.cacheDir ? path.join(options.cacheDir, `mvdan-sh.${key}.v8cache`) : undefined;
  const cachedData = cacheFile ? await fsp.readFile(cacheFile).catch(() => undefined) : undefined;
  await yieldToHost();
  if (shellParserLoaded()) return result('already');

  // The CommonJS wrapper, as require() would build it.
  const wrapper = `(function (exports, require, module, __filename, __dirname) {${source}\n})`;
  let t = performance.now();
  const script = new vm.Script(wrapper, { filename: file, ...(cachedData ? { cachedData } : {}) });
  steps.compile = performance.now() - t;
  const usedCache = !!cachedData && !script.cachedDataRejected;
  await yieldToHost();
  if (shellParserLoaded()) return result('already');

  t = performance.now();
  const fn = script.runInThisContext() as (e: unknown, r: NodeJS.Require, m: unknown, f: string, d: string) => void;
  adoptShellParser(() => {
    const mod = { exports: {} as unknown };
    fn.call(mod.exports, mod.exports, require, mod, file, path.dirname(file));
    return mod.exports;
  });
  steps.init = performance.now() - t;
  await yieldToHost();

  // The first parse compiles the parser's hot paths; pay it here rather than on the first command.
  t = performance.now();
  parseScript('cd src && FOO=1 npm test -- --grep "x" | tee out.txt; echo $(git status) > /dev/null');
  steps.firstParse = performance.now() - t;

  if (cacheFile && !usedCache) {
    // Writing the cache after the module ran includes the functions compiled meanwhile (a warmer next start).
    await new Promise((r) => setTimeout(r, 1000));
    t = performance.now();
    const data = script.createCachedData();
    steps.createCache = performance.now() - t;
    try {
      await fsp.mkdir(path.dirname(cacheFile), { recursive: true });
      const tmp = `${cacheFile}.${process.pid}.tmp`;
      await fsp.writeFile(tmp, data);
      await fsp.rename(tmp, cacheFile);
      // Caches of other parser versions or Node versions are of no further use.
      for (const name of await fsp.readdir(path.dirname(cacheFile))) {
        if (/^mvdan-sh\.[0-9a-f]{16}\.v8cache$/.test(name) && name !== path.basename(cacheFile)) {
          await fsp.rm(path.join(path.dirname(cacheFile), name), { force: true });
        }
      }
    } catch (err) {
      options.log?.warn(`shell parser code cache not written: ${errorText(err)}`);
    }
  }
  const res = result(usedCache ? 'cache' : 'compiled');
  options.log?.info(
    `shell parser loaded ahead of the first command (${res.via}; longest step ${res.longestStepMs} ms: ${Object.entries(
      steps,
    )
      .map(([k, v]) => `${k} ${Math.round(v)}`)
      .join(', ')})`,
  );
  return res;
}

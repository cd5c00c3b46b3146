// The shell parser warm-up: loads mvdan-sh in separate steps, writes a V8 code cache, and the parser works after.
// (The second, cache-accepting load needs a fresh process: one load per process; the real VS Code bench shows it.)
import * as assert from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseScript, shellParserLoaded } from '../../../src/core/safety/command-parse';
import { warmShellParser } from '../../../src/host/shell-parser-warmup';

describe('shell parser warm-up', () => {
  it('loads the parser in steps, writes a code cache, and is idempotent', async function () {
    this.timeout(20_000);
    const limit = Error.stackTraceLimit;
    const cacheDir = fs.mkdtempSync(path.join(os.tmpdir(), 'forge-parser-cache-'));
    try {
      const first = warmShellParser({ cacheDir, file: require.resolve('mvdan-sh') });
      assert.strictEqual(warmShellParser({ cacheDir }), first, 'one warm-up per host');
      const r = await first;
      if (r.via === 'already') this.skip(); // another test in this process loaded it first
      assert.strictEqual(r.via, 'compiled');
      assert.ok(r.loaded && shellParserLoaded());
      for (const step of ['compile', 'init', 'firstParse', 'createCache']) assert.ok(step in r.steps, `step ${step}: ${JSON.stringify(r.steps)}`);
      const caches = fs.readdirSync(cacheDir);
      assert.strictEqual(caches.length, 1);
      assert.match(caches[0], /^mvdan-sh\.[0-9a-f]{16}\.v8cache$/);
      assert.ok(fs.statSync(path.join(cacheDir, caches[0])).size > 100_000);
      assert.deepStrictEqual(parseScript('a | b && c').map((p) => p.words[0]), ['a', 'b', 'c']);
      // The globals the GopherJS build touches are restored.
      assert.strictEqual(Error.stackTraceLimit, limit);
      assert.ok(!('require' in globalThis) || typeof (globalThis as { require?: unknown }).require === 'function');
    } finally {
      fs.rmSync(cacheDir, { recursive: true, force: true });
    }
  });
});

// The shell parser warm-up: loads mvdan-sh in separate steps, writes a V8 code cache, and the next process
// starts from that cache. Each load runs in a fresh process (a process loads the parser once).
import * as assert from 'node:assert';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

const CHILD = path.join(__dirname, 'fixtures', 'warmup-child.ts');

function warmInFreshProcess(cacheDir: string): {
  via: string;
  loaded: boolean;
  loadedAfter: boolean;
  steps: Record<string, number>;
  words: string[];
  globalsRestored: boolean;
} {
  return JSON.parse(
    execFileSync(process.execPath, ['--import', 'tsx', CHILD, cacheDir], { encoding: 'utf8', timeout: 30_000 }),
  );
}

describe('shell parser warm-up', () => {
  it('loads the parser in steps and writes a code cache; the next process starts from the cache', function () {
    this.timeout(60_000);
    const cacheDir = fs.mkdtempSync(path.join(os.tmpdir(), 'forge-parser-cache-'));
    try {
      const first = warmInFreshProcess(cacheDir);
      assert.strictEqual(first.via, 'compiled');
      assert.ok(first.loaded && first.loadedAfter);
      for (const step of ['compile', 'init', 'firstParse', 'createCache'])
        assert.ok(step in first.steps, `step ${step}: ${JSON.stringify(first.steps)}`);
      const caches = fs.readdirSync(cacheDir);
      assert.strictEqual(caches.length, 1);
      assert.match(caches[0]!, /^mvdan-sh\.[0-9a-f]{16}\.v8cache$/);
      assert.ok(fs.statSync(path.join(cacheDir, caches[0]!)).size > 100_000);
      assert.deepStrictEqual(first.words, ['a', 'b', 'c']);
      assert.ok(first.globalsRestored, 'the globals the GopherJS build touches are restored');

      const second = warmInFreshProcess(cacheDir);
      assert.strictEqual(second.via, 'cache', 'a later start uses the code cache');
      assert.deepStrictEqual(second.words, ['a', 'b', 'c']);
    } finally {
      fs.rmSync(cacheDir, { recursive: true, force: true });
    }
  });
});

import { strict as assert } from 'node:assert';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { createWorkspaceTools } from '../../../../../src/core/tools/builtin';
import {
  byName as byEntryName,
  hiddenMatcher,
  sortPaced,
  walk,
  type WalkEntry,
} from '../../../../../src/core/tools/builtin/walk';
import { Pacer } from '../../../../../src/core/tools/builtin/common';
import { WorkspaceSandbox, type ResolvedPath } from '../../../../../src/core/safety/paths';
import { FakeCommandRunner, FsEditApplier, MemoryFs } from '../../../../../src/core/workspace/memory-fs';
import type { DirEntry, WorkspaceFs } from '../../../../../src/core/workspace/types';
import { NodeWorkspaceFs } from '../../../../../src/node';
import { byName, call } from '../../../../support/tool-context';

/** Counts calls and delays readDir by a per-path pseudo-random amount, so read-ahead finishes out of order. */
class SlowFs implements WorkspaceFs {
  readonly calls: Record<string, number> = {};
  constructor(
    private readonly inner: WorkspaceFs,
    private readonly jitter = true,
    readonly head = true,
  ) {
    if (!head) this.readFileHead = undefined;
  }
  private count(name: string): void {
    this.calls[name] = (this.calls[name] ?? 0) + 1;
  }
  roots() {
    return this.inner.roots();
  }
  stat(p: string) {
    this.count('stat');
    return this.inner.stat(p);
  }
  readFile(p: string) {
    this.count('readFile');
    return this.inner.readFile(p);
  }
  readFileHead? = (p: string, n: number) => {
    this.count('readFileHead');
    return this.inner.readFileHead!(p, n);
  };
  writeFile(p: string, d: Uint8Array) {
    return this.inner.writeFile(p, d);
  }
  async readDir(p: string): Promise<DirEntry[]> {
    this.count('readDir');
    if (this.jitter)
      await new Promise((r) =>
        setTimeout(
          r,
          [...p].reduce((a, c) => (a * 31 + c.charCodeAt(0)) % 7, 0),
        ),
      );
    return this.inner.readDir(p);
  }
  realpath(p: string) {
    this.count('realpath');
    return this.inner.realpath(p);
  }
}

function tree(): Record<string, string> {
  const files: Record<string, string> = { '.gitignore': 'dist/\n', 'dist/x.js': 'needle' };
  for (let d = 0; d < 30; d++)
    for (let f = 0; f < 5; f++) files[`d${d}/sub/f${f}.txt`] = f === 0 ? `one\nneedle ${d}\ntwo` : 'nothing';
  return files;
}

async function collect(sandbox: WorkspaceSandbox, rel = ''): Promise<WalkEntry[]> {
  const start = (await sandbox.resolve(rel || '.', 'list')) as ResolvedPath;
  const out: WalkEntry[] = [];
  for await (const e of walk(sandbox, start, { recursive: true })) out.push(e);
  return out;
}

describe('tools/walk', () => {
  it('yields the same order as a serial breadth-first walk although directory reads finish out of order', async () => {
    const mem = new MemoryFs(['/ws'], tree());
    const slow = new SlowFs(mem);
    const got = (await collect(new WorkspaceSandbox(slow, { trusted: true, platform: 'posix' }))).map((e) => e.rel);
    // Expected: breadth first, each directory's entries in code-unit order.
    const expected: string[] = ['.gitignore'];
    const dirs = Array.from({ length: 30 }, (_, d) => `d${d}`).sort();
    expected.push(...dirs);
    expected.push(...dirs.map((d) => `${d}/sub`));
    for (const d of dirs) for (let f = 0; f < 5; f++) expected.push(`${d}/sub/f${f}.txt`);
    assert.deepEqual(got, expected);
    // One stat per walk: the .forgeignore probe (the sandbox's mtime-checked, confined read: a FIFO there must not hang).
    assert.equal(slow.calls.stat ?? 0, 1, 'no stat per entry: types come from the listing');
    assert.ok((slow.calls.realpath ?? 0) <= 2, 'realpath only while resolving the start, never per entry');
  });

  it('reads .gitignore only where the listing has one, and never stats for it', async () => {
    const slow = new SlowFs(new MemoryFs(['/ws'], { ...tree(), 'd3/.gitignore': 'sub/\n' }), false);
    const got = (await collect(new WorkspaceSandbox(slow, { trusted: true, platform: 'posix' }))).map((e) => e.rel);
    assert.ok(!got.some((r) => r.startsWith('d3/sub')) && got.includes('d4/sub/f0.txt'));
    // The root .gitignore and d3/.gitignore: 2 reads, whatever the tree size (the missing .forgeignore is one stat).
    assert.equal(slow.calls.readFile, 2);
    assert.equal(slow.calls.stat, 1);
  });

  it('agrees with WorkspaceSandbox.isHidden (secrets, extra patterns, .forgeignore, allowSecrets)', async () => {
    const paths: [string, boolean][] = [
      ['.env', false],
      ['.env.example', false],
      ['keys/id_rsa', false],
      ['keys/id_rsa.pub', false],
      ['a/b.pem', false],
      ['.ssh', true],
      ['build', true],
      ['build/x.js', false],
      ['src/app.ts', false],
      ['src/private.txt', false],
      ['notes.secret', false],
      ['x/.aws/credentials', false],
    ];
    for (const options of [
      {},
      { allowSecrets: true },
      { extraSecretPatterns: ['*.secret'] },
      { ignoreFileName: '.aiignore' },
    ]) {
      const mem = new MemoryFs(['/ws'], { '.forgeignore': 'build/\nprivate*\n', '.aiignore': 'src/\n' });
      const sandbox = new WorkspaceSandbox(mem, { trusted: true, platform: 'posix', ...options });
      const fast = await hiddenMatcher(sandbox, '/ws');
      for (const [rel, isDir] of paths)
        assert.equal(fast(rel, isDir), await sandbox.isHidden('/ws', rel, isDir), `${JSON.stringify(options)} ${rel}`);
    }
  });

  it('never follows symlinks out of the workspace nor into linked folders (real fs)', async function () {
    if (process.platform === 'win32') this.skip();
    const base = mkdtempSync(path.join(tmpdir(), 'forge-walk-'));
    try {
      const ws = path.join(base, 'ws');
      mkdirSync(path.join(ws, 'src'), { recursive: true });
      mkdirSync(path.join(base, 'outside'));
      writeFileSync(path.join(base, 'outside', 'leak.txt'), 'needle outside');
      writeFileSync(path.join(ws, 'src', 'a.txt'), 'needle inside');
      writeFileSync(path.join(ws, '.env'), 'needle secret');
      symlinkSync(path.join(base, 'outside', 'leak.txt'), path.join(ws, 'leak-link.txt'));
      symlinkSync(path.join(base, 'outside'), path.join(ws, 'outside-dir'));
      symlinkSync(path.join(ws, 'src'), path.join(ws, 'src-dir'));
      symlinkSync(path.join(ws, 'src', 'a.txt'), path.join(ws, 'ok-link.txt'));
      symlinkSync(path.join(ws, '.env'), path.join(ws, 'env-link.txt'));
      const sandbox = new WorkspaceSandbox(new NodeWorkspaceFs([ws]), { trusted: true });
      assert.deepEqual(
        (await collect(sandbox)).map((e) => `${e.rel}:${e.type}`),
        ['ok-link.txt:file', 'src:dir', 'src/a.txt:file'],
      );
      const tools = createWorkspaceTools({
        fs: new NodeWorkspaceFs([ws]),
        runner: new FakeCommandRunner(),
        applier: new FsEditApplier(new MemoryFs()),
        sandbox: { trusted: true },
      });
      const r = await call(byName(tools, 'search_files'), { pattern: 'needle', contextLines: 0 });
      assert.match(r.content, /ok-link\.txt:1: needle inside/);
      assert.doesNotMatch(r.content, /outside|secret/);
    } finally {
      rmSync(base, { recursive: true, force: true });
    }
  });
});

describe('tools/list_files counting', () => {
  it('counts entries beyond the cap across sub-folders (exact when under the count limit)', async () => {
    const fs = new MemoryFs(['/ws'], tree());
    const tools = createWorkspaceTools({
      fs,
      runner: new FakeCommandRunner(),
      applier: new FsEditApplier(fs),
      sandbox: { trusted: true, platform: 'posix' },
    });
    const r = await call(byName(tools, 'list_files'), { recursive: true, maxEntries: 20 });
    const data = r.data as { entries: string[]; omitted: number; countCapped: boolean };
    // .gitignore + 30 dirs + 30 sub dirs + 150 files (dist/ is ignored).
    assert.equal(data.entries.length + data.omitted, 211);
    assert.equal(data.countCapped, false);
    assert.match(r.content, /^Workspace root: 211 entries, showing 20/);
    assert.deepEqual(data.entries, [...data.entries].sort());
  });
});

describe('tools/search_files (JS fallback)', () => {
  const setup = (fs: WorkspaceFs) =>
    byName(
      createWorkspaceTools({
        fs,
        runner: new FakeCommandRunner(),
        applier: new FsEditApplier(fs),
        sandbox: { trusted: true, platform: 'posix' },
      }),
      'search_files',
    );

  it('stops at maxResults and says the total is a lower bound', async () => {
    const slow = new SlowFs(new MemoryFs(['/ws'], tree()));
    const r = await call(setup(slow), { pattern: 'needle', maxResults: 3, contextLines: 0 });
    const data = r.data as { totalMatches: number; returned: number; totalIsLowerBound: boolean };
    assert.deepEqual(data, { totalMatches: 3, returned: 3, totalIsLowerBound: true });
    assert.match(r.content, /^Found 3\+ matches, showing the first 3 in 3 files\./);
    assert.match(r.content, /lower bound/);
    // Walk order (d0, d1, d10, ...), and the stop left most files unread.
    assert.match(
      r.content,
      /d0\/sub\/f0\.txt:2: needle 0\n--\nd1\/sub\/f0\.txt:2: needle 1\n--\nd10\/sub\/f0\.txt:2: needle 10/,
    );
    assert.ok((slow.calls.readFileHead ?? 0) < 60, `read ${slow.calls.readFileHead} files`);
  });

  it('reports an exact total when every file was searched', async () => {
    const r = await call(setup(new MemoryFs(['/ws'], tree())), { pattern: 'needle', maxResults: 100, contextLines: 0 });
    assert.deepEqual(r.data, { totalMatches: 30, returned: 30, totalIsLowerBound: false });
    assert.match(r.content, /^Found 30 matches in 30 files\./);
  });

  it('skips binaries (NUL in the first chunk) and files over 2 MB, with and without readFileHead', async () => {
    const big = 'needle big\n' + 'x'.repeat(2 * 1024 * 1024);
    const mid = 'y'.repeat(100 * 1024) + '\nneedle mid\n'; // over the head read, under the cap
    const bin = new Uint8Array([110, 101, 101, 100, 108, 101, 0, 1, 2]);
    for (const head of [true, false]) {
      const fs = new SlowFs(
        new MemoryFs(['/ws'], { 'big.txt': big, 'mid.txt': mid, 'bin.dat': bin, 'a.txt': 'needle a\n' }),
        false,
        head,
      );
      const r = await call(setup(fs), { pattern: 'needle', contextLines: 0 });
      assert.equal((r.data as { totalMatches: number }).totalMatches, 2, r.content);
      assert.match(r.content, /a\.txt:1: needle a/);
      assert.match(r.content, /mid\.txt:2: needle mid/);
      assert.doesNotMatch(r.content, /big|bin\.dat/);
      // One stat for the start path; per file only when the head read could not take it whole (big, mid); and
      // per file with a match (a.txt, mid.txt), read_file's verdict checks the .forgeignore is unchanged; and the
      // walk's one .forgeignore probe.
      assert.equal(
        fs.calls.stat ?? 0,
        (head ? 3 : 5) + 2 + 1,
        'stat only for files the head read could not finish, and one per file with matches',
      );
    }
  });

  it('checks lookaround patterns line by line (no whole-text shortcut)', async () => {
    const r = await call(setup(new MemoryFs(['/ws'], { 'a.txt': 'foo\nbar\n' })), {
      pattern: 'foo(?![\\s\\S])',
      contextLines: 0,
    });
    assert.match(r.content, /a\.txt:1: foo/);
    const anchored = await call(setup(new MemoryFs(['/ws'], { 'a.txt': 'x\r\nfoo\r\ny' })), {
      pattern: '^foo$',
      contextLines: 0,
    });
    assert.match(anchored.content, /a\.txt:2: foo/);
  });

  it('cancels: an aborted signal rejects instead of returning a partial result', async () => {
    const ac = new AbortController();
    const tool = setup(new SlowFs(new MemoryFs(['/ws'], tree())));
    const p = tool.execute({ pattern: 'needle' } as never, { signal: ac.signal, taskId: 't', toolCallId: 'c' });
    setTimeout(() => ac.abort(new Error('stop')), 2);
    await assert.rejects(p);
  });

  it('sortPaced orders like the native sort (stable, any length around the run size) and pauses on big arrays', async () => {
    let seed = 3;
    const rnd = (n: number) => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) % n;
    for (const n of [0, 1, 5, 4096, 4097, 9000, 20_000]) {
      const items = Array.from({ length: n }, (_, i) => ({ name: `n${rnd(n >> 2 || 1)}`, i }));
      const want = items.slice().sort(byEntryName);
      const got = items.slice();
      await sortPaced(got, byEntryName, new Pacer(undefined, 0));
      assert.deepEqual(got, want, `n=${n}`);
    }
    // With a zero slice every check pauses: the event loop runs while 20,000 items are sorted.
    let ticks = 0;
    const timer = setInterval(() => ticks++, 0);
    await sortPaced(
      Array.from({ length: 20_000 }, (_, i) => ({ name: String(20_000 - i) })),
      byEntryName,
      new Pacer(undefined, 0),
    );
    clearInterval(timer);
    assert.ok(ticks > 0, 'the event loop never ran');
  });
});

// Bounded workspace tools: a catastrophic regex ends (stuck-pattern watchdog, the tool's time limit, Stop) and its
// worker is killed; size caps name the cap and what to do; write_file's change count no longer runs an unbounded
// line diff; long loops give the event loop turns; transient I/O errors reach the retry instead of "not found".
import assert from 'node:assert/strict';
import { createWorkspaceTools, createSearchFilesTool, WorkspaceSandbox } from '../../../../../src/core/tools/builtin';
import { EDIT_MAX_FILE_BYTES } from '../../../../../src/core/tools/builtin/common';
import { READ_MAX_FILE_BYTES } from '../../../../../src/core/tools/builtin/read-file';
import { lineChangeCounts, lineChangeCountsPaced } from '../../../../../src/core/tools/builtin/write-file';
import { RegexScanner, workerRegexScan } from '../../../../../src/node/regex-scanner';
import { FakeCommandRunner, FsEditApplier, MemoryFs } from '../../../../../src/core/workspace/memory-fs';
import type { WorkspaceFs } from '../../../../../src/core/workspace/types';
import { callsTurn, doneTurn } from '../../../../support/scripted-model';
import { promises as fsp } from 'node:fs';
import { NodeWorkspaceFs } from '../../../../../src/node/node-fs';
import { harness } from '../../../../support/loop-harness';
import { approved, byName, call, ctx, refusalOf } from '../../../../support/tool-context';

const CATASTROPHIC = '(a+)+$';
const evilLine = 'a'.repeat(40) + '!';

function tools(fs: WorkspaceFs) {
  return createWorkspaceTools({
    fs,
    runner: new FakeCommandRunner(),
    applier: new FsEditApplier(fs),
    sandbox: { trusted: true, platform: 'posix' },
    regexScan: workerRegexScan,
  });
}

async function noWorkers(): Promise<void> {
  const t0 = Date.now();
  while (RegexScanner.live > 0 && Date.now() - t0 < 5000) await new Promise((r) => setTimeout(r, 10));
  assert.equal(RegexScanner.live, 0, 'no regex worker left running');
}

describe('bounded tools: search_files regex in a killable worker', () => {
  afterEach(() => RegexScanner.dispose());

  it('a catastrophic pattern on a long line ends at the stuck-pattern limit with a clear result; the worker is killed', async () => {
    const fs = new MemoryFs(['/ws'], { 'ok.txt': 'aaa\n', 'evil.txt': `x\n${evilLine}\n` });
    const search = createSearchFilesTool(new WorkspaceSandbox(fs, { trusted: true, platform: 'posix' }), undefined, {
      regexStuckMs: 300,
      regexScan: workerRegexScan,
    });
    const t0 = Date.now();
    const r = await call(search, { pattern: CATASTROPHIC, contextLines: 0 });
    assert.ok(Date.now() - t0 < 5000);
    assert.equal(r.isError, true);
    assert.match(
      r.content,
      /^Search stopped: the pattern \/\(a\+\)\+\$\/ ran for 0 s on one file \(evil\.txt\) without finishing\. It most likely backtracks catastrophically/,
    );
    assert.deepEqual(r.data, { errorClass: 'tool', regexTimedOut: true, file: 'evil.txt' });
    await noWorkers();
  });

  it('Stop (the signal) ends a catastrophic search within 1 s and kills the worker', async () => {
    const fs = new MemoryFs(['/ws'], { 'evil.txt': evilLine });
    const ac = new AbortController();
    const p = call(byName(tools(fs), 'search_files'), { pattern: CATASTROPHIC }, ctx({ signal: ac.signal }));
    await new Promise((r) => setTimeout(r, 200));
    const t0 = Date.now();
    ac.abort();
    await assert.rejects(p);
    assert.ok(Date.now() - t0 < 1000, `ended in ${Date.now() - t0} ms`);
    await noWorkers();
  });

  it('through the loop: the tool time limit ends a catastrophic search with "timed out"; the host stays responsive', async () => {
    const fs = new MemoryFs(['/ws'], { 'evil.txt': evilLine });
    const search = createSearchFilesTool(new WorkspaceSandbox(fs, { trusted: true, platform: 'posix' }), undefined, {
      regexScan: workerRegexScan,
    });
    search.timeoutMs = 300;
    let ticks = 0;
    const timer = setInterval(() => ticks++, 10);
    try {
      const h = harness([callsTurn(['search_files', { pattern: CATASTROPHIC }]), doneTurn()], { tools: [search] });
      const report = await h.agent.send('t');
      const result = h.ofType('tool_result')[0]!;
      assert.match(result.content, /^search_files timed out after 0\.3 s/);
      assert.equal(report.steps[0]!.toolCalls[0]!.errorClass, 'timeout');
    } finally {
      clearInterval(timer);
    }
    assert.ok(ticks >= 10, `timers kept firing while the pattern ran (${ticks})`);
    await noWorkers();
  });

  it('ordinary searches reuse one warm worker and keep JS regex semantics (lookbehind, backreference, \\p{L})', async () => {
    const fs = new MemoryFs(['/ws'], { 'a.txt': 'price: $42\nabab\nÉté\n' });
    const search = byName(tools(fs), 'search_files');
    const r1 = await call(search, { pattern: '(?<=\\$)\\d+', contextLines: 0, caseSensitive: true });
    assert.match(r1.content, /a\.txt:1: price: \$42/);
    const r2 = await call(search, { pattern: '^(ab)\\1$', contextLines: 0 });
    assert.match(r2.content, /a\.txt:2: abab/);
    const r3 = await call(search, { pattern: '^\\p{L}+$', contextLines: 0 });
    assert.match(r3.content, /a\.txt:3: Été/);
    assert.ok(RegexScanner.live <= 1, `one worker (${RegexScanner.live})`);
    // The caller's file bytes are copied to the worker, never detached.
    assert.equal((await fs.readFile('/ws/a.txt')).byteLength > 0, true);
  });
});

describe('bounded tools: size caps', () => {
  it('read_file refuses a file over its cap, naming the cap and what to do instead', async () => {
    const fs = new MemoryFs(['/ws'], { 'huge.log': new Uint8Array(READ_MAX_FILE_BYTES + 1) });
    const r = await call(byName(tools(fs), 'read_file'), { path: 'huge.log', startLine: 1, endLine: 10 });
    assert.equal(r.isError, true);
    assert.match(
      r.content,
      /^huge\.log is 20\.0 MB, over read_file's 20\.0 MB cap on files it loads\. Find the lines you need with search_files/,
    );
    assert.match(r.content, /sed -n 100,200p/);
    assert.equal((r.data as { capBytes: number }).capBytes, READ_MAX_FILE_BYTES);
  });

  it('write_file and apply_diff refuse to load an original over the edit cap, before anyone is asked', async () => {
    const fs = new MemoryFs(['/ws'], { 'big.txt': 'x'.repeat(EDIT_MAX_FILE_BYTES + 1) });
    const ts = tools(fs);
    for (const name of ['write_file', 'apply_diff']) {
      const args =
        name === 'write_file'
          ? { path: 'big.txt', content: 'y' }
          : { path: 'big.txt', blocks: [{ search: 'x', replace: 'y' }] };
      const tool = byName(ts, name);
      const pre = await refusalOf(tool, tool.input.parse(args), ctx());
      assert.match(
        pre!.content,
        /big\.txt is 10\.0 MB, over the 10\.0 MB cap on files Forge edits\. Do not rewrite it whole: read the part you need with read_file startLine\/endLine/,
        name,
      );
    }
  });
});

describe('bounded tools: write_file change count', () => {
  const lines = (n: number, tag: string) =>
    Array.from({ length: n }, (_, i) => `line ${i} ${tag} ${'x'.repeat(i % 40)}`).join('\n') + '\n';

  it('every line of a 10,000-line file changed: counted without an unbounded diff (approximate past the time limit)', async () => {
    const before = lines(10_000, 'old');
    const after = lines(10_000, 'new');
    const sync = lineChangeCounts(before, after);
    assert.deepEqual({ added: sync.added, removed: sync.removed }, { added: 10_000, removed: 10_000 });
    const paced = await lineChangeCountsPaced(before, after);
    assert.deepEqual({ added: paced.added, removed: paced.removed }, { added: 10_000, removed: 10_000 });

    const fs = new MemoryFs(['/ws'], { 'big.ts': before });
    const r = await call(
      byName(tools(fs), 'write_file'),
      { path: 'big.ts', content: after },
      ctx({ approval: approved() }),
    );
    assert.match(r.content, /^Wrote big\.ts \(\+~?10000 -~?10000 lines\)\./);
  });

  it('small edits are counted exactly, as a line diff counts them', () => {
    assert.deepEqual(lineChangeCounts('a\nb\nc\n', 'a\nB\nc\n'), { added: 1, removed: 1 });
    assert.deepEqual(lineChangeCounts('a\nb\nc\n', 'a\nc\n'), { added: 0, removed: 1 });
    assert.deepEqual(lineChangeCounts('', 'x\ny\n'), { added: 2, removed: 0 });
    assert.deepEqual(lineChangeCounts('a\nb', 'a\nb\n'), { added: 1, removed: 1 });
    assert.deepEqual(lineChangeCounts('a\nb\nc\nd\n', 'b\na\nc\nd\n'), { added: 1, removed: 1 });
  });
});

describe('bounded tools: the event loop keeps turning', () => {
  it('read_file of a 500,000-line file and list_files of a 30,000-entry folder let timers run while they work', async () => {
    const big = Array.from({ length: 500_000 }, (_, i) => `row ${i}`).join('\n');
    const files: Record<string, string> = { 'big.txt': big };
    for (let i = 0; i < 30_000; i++) files[`dir/f${i}.txt`] = '';
    const fs = new MemoryFs(['/ws'], files);
    const ts = tools(fs);
    for (const [name, args] of [
      ['read_file', { path: 'big.txt', startLine: 499_990 }],
      ['list_files', { path: 'dir', maxEntries: 10 }],
    ] as const) {
      let turns = 0;
      let running = true;
      const spin = () => {
        if (!running) return;
        turns++;
        setImmediate(spin);
      };
      setImmediate(spin);
      const r = await call(byName(ts, name), args);
      running = false;
      assert.equal(r.isError, undefined, r.content);
      assert.ok(turns >= 2, `${name}: the event loop turned ${turns} times during the call`);
    }
  });
});

describe('bounded tools: transient errors are not "not found"', () => {
  it('NodeWorkspaceFs.stat rethrows EBUSY (retried by the loop) but still reports a missing file as undefined', async () => {
    const node = new NodeWorkspaceFs(['/tmp']);
    const original = fsp.stat;
    (fsp as { stat: unknown }).stat = async () => {
      throw Object.assign(new Error('EBUSY: resource busy or locked'), { code: 'EBUSY' });
    };
    try {
      await assert.rejects(node.stat('/tmp/anything'), /EBUSY/);
    } finally {
      (fsp as { stat: unknown }).stat = original;
    }
    assert.equal(await node.stat('/tmp/definitely-not-here-' + Date.now()), undefined);
  });
});

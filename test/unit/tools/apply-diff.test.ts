import { strict as assert } from 'node:assert';
import { applyDiff } from '../../../src/core/tools/apply-diff';

describe('tools/apply-diff: applyDiff', () => {
  const src = ['function a() {', '  const x = 1;', '  return x;', '}', '', 'function b() {', '  return 2;', '}', ''].join('\n');

  it('applies an exact unique match and keeps everything else byte for byte', async () => {
    const r = await applyDiff(src, [{ search: '  const x = 1;\n', replace: '  const x = 42;\n' }]);
    assert.ok(r.ok);
    assert.equal(r.content, src.replace('const x = 1;', 'const x = 42;'));
    assert.deepEqual(r.applied, [{ index: 0, match: 'exact', startLine: 2, endLine: 2 }]);
  });

  it('matches ignoring indentation and re-indents the replacement to the file', async () => {
    const file = 'class A {\n    run() {\n        if (ok) {\n            go();\n        }\n    }\n}\n';
    const r = await applyDiff(file, [{ search: 'if (ok) {\n    go();\n}', replace: 'if (ok) {\n    go();\n    stop();\n}' }]);
    assert.ok(r.ok, !r.ok ? r.message : '');
    assert.equal(r.applied[0]!.match, 'tolerant');
    assert.equal(r.content, 'class A {\n    run() {\n        if (ok) {\n            go();\n            stop();\n        }\n    }\n}\n');
  });

  it('converts the replacement to tabs when the file is tab-indented', async () => {
    const file = 'fn() {\n\tif (a) {\n\t\tb();\n\t}\n}\n';
    const r = await applyDiff(file, [{ search: 'if (a) {\n    b();\n}', replace: 'if (a) {\n    b();\n    c();\n}' }]);
    assert.ok(r.ok);
    assert.equal(r.content, 'fn() {\n\tif (a) {\n\t\tb();\n\t\tc();\n\t}\n}\n');
  });

  it('preserves CRLF line endings and the trailing newline (exact and tolerant)', async () => {
    const crlf = 'one\r\n  two\r\nthree\r\n';
    const exact = await applyDiff(crlf, [{ search: '  two\nthree', replace: '  2\n  2b\nthree' }]);
    assert.ok(exact.ok);
    assert.equal(exact.content, 'one\r\n  2\r\n  2b\r\nthree\r\n');
    const tolerant = await applyDiff(crlf, [{ search: 'two\r\n', replace: 'TWO\r\n' }]);
    assert.ok(tolerant.ok);
    assert.equal(tolerant.content, 'one\r\n  TWO\r\nthree\r\n');
    const noEol = await applyDiff('a\nb', [{ search: 'b', replace: 'c' }]);
    assert.ok(noEol.ok && noEol.content === 'a\nc');
  });

  it('deleting whole lines leaves no blank line behind', async () => {
    const r = await applyDiff('a\nb\nc\n', [{ search: 'b\n', replace: '' }]);
    assert.ok(r.ok && r.content === 'a\nc\n');
  });

  it('reports an ambiguous match with the count and where', async () => {
    const r = await applyDiff('x\ny\nx\ny\nx\ny\n', [{ search: 'x\ny', replace: 'z' }]);
    assert.ok(!r.ok);
    assert.equal(r.failures[0]!.kind, 'ambiguous');
    assert.match(r.message, /matches 3 places \(lines 1-2, lines 3-4, lines 5-6\)/);
  });

  it('names the closest candidate with line range, similarity and a diff', async () => {
    const r = await applyDiff(src, [{ search: 'function b() {\n  return 3;\n}', replace: 'nope' }]);
    assert.ok(!r.ok);
    const f = r.failures[0]!;
    assert.equal(f.kind, 'not-found');
    assert.equal(f.closest?.startLine, 6);
    assert.equal(f.closest?.endLine, 8);
    assert.ok(f.closest!.similarity > 60 && f.closest!.similarity < 100, String(f.closest!.similarity));
    assert.match(f.closest!.diff, /- +return 3;/);
    assert.match(f.closest!.diff, /\+ +return 2;/);
    assert.match(r.message, /Closest candidate: lines 6-8/);
  });

  it('is all-or-nothing: one bad block leaves the file untouched and names the block', async () => {
    const r = await applyDiff(src, [
      { search: '  const x = 1;', replace: '  const x = 2;' },
      { search: 'this line does not exist', replace: 'x' },
    ]);
    assert.ok(!r.ok);
    assert.equal(r.failures.length, 1);
    assert.equal(r.failures[0]!.index, 1);
    assert.match(r.message, /No changes were made/);
    assert.match(r.message, /Block 2 of 2/);
  });

  it('rejects overlapping blocks and empty searches', async () => {
    const o = await applyDiff(src, [{ search: '  const x = 1;\n  return x;', replace: 'a' }, { search: '  return x;\n}', replace: 'b' }]);
    assert.ok(!o.ok && o.failures.some((f) => f.kind === 'overlap'));
    const e = await applyDiff(src, [{ search: '', replace: 'x' }]);
    assert.ok(!e.ok && e.failures[0]!.kind === 'empty-search');
    const empty = await applyDiff('', [{ search: '', replace: 'hello\n' }]);
    assert.ok(empty.ok && empty.content === 'hello\n');
  });

  describe('performance (10,000-line file, 20 blocks)', () => {
    const lines = Array.from({ length: 10_000 }, (_, i) => `    const value${i} = compute(${i}, "item-${i}"); // line ${i}`);
    const big = lines.join('\n') + '\n';
    const exact = Array.from({ length: 20 }, (_, k) => ({ search: lines.slice(k * 500, k * 500 + 3).join('\n'), replace: `// block ${k}` }));
    const tolerant = exact.map((b) => ({ search: b.search.split('\n').map((l) => l.trim()).join('\n'), replace: b.replace }));
    const best = async (blocks: typeof exact) => {
      await applyDiff(big, blocks); // warm-up (JIT)
      let min = Infinity;
      for (let i = 0; i < 3; i++) {
        const t = performance.now();
        const r = await applyDiff(big, blocks);
        min = Math.min(min, performance.now() - t);
        assert.ok(r.ok);
      }
      return min;
    };
    it('exact < 20 ms (best of 3, warm)', async () => assert.ok((await best(exact)) < 20));
    it('tolerant < 200 ms (best of 3, warm)', async () => assert.ok((await best(tolerant)) < 200));
    it('never blocks the event loop for more than 50 ms at a time, even on a mismatch (best of 3, warm)', async () => {
      const blocks = [...tolerant.slice(0, 19), { search: 'qqq zzz no such thing\nwhatsoever here', replace: 'x' }];
      await applyDiff(big, blocks); // warm-up (JIT)
      let best = Infinity;
      for (let run = 0; run < 3; run++) {
        let maxGap = 0;
        let last = performance.now();
        const timer = setInterval(() => {
          const now = performance.now();
          maxGap = Math.max(maxGap, now - last);
          last = now;
        }, 1);
        const r = await applyDiff(big, blocks);
        clearInterval(timer);
        maxGap = Math.max(maxGap, performance.now() - last);
        assert.ok(!r.ok);
        best = Math.min(best, maxGap);
      }
      assert.ok(best < 50, `event loop blocked ${best.toFixed(1)} ms`);
    });
  });
});

import { strict as assert } from 'node:assert';
import { applyDiff, searchNatively } from '../../../../../src/core/tools/apply-diff/apply-diff';

describe('tools/apply-diff: applyDiff', () => {
  const src = [
    'function a() {',
    '  const x = 1;',
    '  return x;',
    '}',
    '',
    'function b() {',
    '  return 2;',
    '}',
    '',
  ].join('\n');

  it('applies an exact unique match and keeps everything else byte for byte', async () => {
    const r = await applyDiff(src, [{ search: '  const x = 1;\n', replace: '  const x = 42;\n' }]);
    assert.ok(r.ok);
    assert.equal(r.content, src.replace('const x = 1;', 'const x = 42;'));
    assert.deepEqual(r.applied, [{ index: 0, match: 'exact', startLine: 2, endLine: 2 }]);
  });

  it('matches ignoring indentation and re-indents the replacement to the file', async () => {
    const file = 'class A {\n    run() {\n        if (ok) {\n            go();\n        }\n    }\n}\n';
    const r = await applyDiff(file, [
      { search: 'if (ok) {\n    go();\n}', replace: 'if (ok) {\n    go();\n    stop();\n}' },
    ]);
    assert.ok(r.ok, !r.ok ? r.message : '');
    assert.equal(r.applied[0]!.match, 'tolerant');
    assert.equal(
      r.content,
      'class A {\n    run() {\n        if (ok) {\n            go();\n            stop();\n        }\n    }\n}\n',
    );
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
    const o = await applyDiff(src, [
      { search: '  const x = 1;\n  return x;', replace: 'a' },
      { search: '  return x;\n}', replace: 'b' },
    ]);
    assert.ok(!o.ok && o.failures.some((f) => f.kind === 'overlap'));
    const e = await applyDiff(src, [{ search: '', replace: 'x' }]);
    assert.ok(!e.ok && e.failures[0]!.kind === 'empty-search');
    const empty = await applyDiff('', [{ search: '', replace: 'hello\n' }]);
    assert.ok(empty.ok && empty.content === 'hello\n');
  });

  describe('re-indentation of the whole block', () => {
    it('a block quoted with 2-space indentation into 4-space code comes out 4-space throughout (the issue)', async () => {
      const file = 'class A {\n    run() {\n        if (ok) {\n            go();\n        }\n    }\n}\n';
      const r = await applyDiff(file, [
        { search: 'if (ok) {\n  go();\n}', replace: 'if (ok) {\n  go();\n  if (more) {\n    again();\n  }\n}' },
      ]);
      assert.ok(r.ok, !r.ok ? r.message : '');
      assert.equal(r.applied[0]!.match, 'tolerant');
      assert.equal(
        r.content,
        'class A {\n    run() {\n        if (ok) {\n            go();\n            if (more) {\n                again();\n            }\n        }\n    }\n}\n',
      );
    });

    it('keeps nested lines relative to the block when the base indentation drifted (nested, replace side too)', async () => {
      const file = 'function f() {\n  if (a) {\n    for (const x of xs) {\n      use(x);\n    }\n  }\n}\n';
      // Quoted at base 6 instead of 2, same 2-space unit.
      const r = await applyDiff(file, [
        {
          search: '      if (a) {\n        for (const x of xs) {\n          use(x);\n        }\n      }',
          replace:
            '      if (a) {\n        for (const x of xs) {\n          use(x);\n          log(x);\n        }\n      }\n      done();',
        },
      ]);
      assert.ok(r.ok, !r.ok ? r.message : '');
      assert.equal(
        r.content,
        'function f() {\n  if (a) {\n    for (const x of xs) {\n      use(x);\n      log(x);\n    }\n  }\n  done();\n}\n',
      );
    });

    it('converts a space-indented block into a tab-indented file, and a tab-indented block into a space file', async () => {
      const tabs = 'fn() {\n\tif (a) {\n\t\tb();\n\t}\n}\n';
      const r1 = await applyDiff(tabs, [
        { search: 'if (a) {\n  b();\n}', replace: 'if (a) {\n  b();\n  if (c) {\n    d();\n  }\n}' },
      ]);
      assert.ok(r1.ok, !r1.ok ? r1.message : '');
      assert.equal(r1.content, 'fn() {\n\tif (a) {\n\t\tb();\n\t\tif (c) {\n\t\t\td();\n\t\t}\n\t}\n}\n');
      const spaces = 'fn() {\n    if (a) {\n        b();\n    }\n}\n';
      const r2 = await applyDiff(spaces, [
        { search: '\tif (a) {\n\t\tb();\n\t}', replace: '\tif (a) {\n\t\tb();\n\t\tc();\n\t}' },
      ]);
      assert.ok(r2.ok, !r2.ok ? r2.message : '');
      assert.equal(r2.content, 'fn() {\n    if (a) {\n        b();\n        c();\n    }\n}\n');
      assert.ok(!/\t/.test(r2.content));
    });

    it('refuses, with the reason, a block whose indentation cannot map consistently (never a mixed-indentation success)', async () => {
      const file = 'function f() {\n  if (a) {\n    b();\n  }\n}\n';
      // Flattened search: the nesting of the file cannot be told from it.
      const flat = await applyDiff(file, [{ search: 'if (a) {\nb();\n}', replace: 'if (a) {\nb();\nc();\n}' }]);
      assert.ok(!flat.ok);
      assert.equal(flat.failures[0]!.kind, 'indentation');
      assert.match(flat.message, /cannot be re-indented safely/);
      assert.match(flat.message, /No changes were made/);
      // A replacement line between two of the file's levels (3 columns in a 2-to-4 mapping gives 6 + half a level).
      const odd = await applyDiff('x {\n    y {\n        z();\n    }\n}\n', [
        { search: 'y {\n  z();\n}', replace: 'y {\n  z();\n   w();\n}' },
      ]);
      assert.ok(odd.ok, !odd.ok ? odd.message : ''); // 3 columns * 2 = 6 columns past the base: representable in spaces
      assert.equal(odd.content, 'x {\n    y {\n        z();\n          w();\n    }\n}\n');
      // In a tab file the same half level cannot be rendered without mixing tabs and spaces: refused.
      const tabOdd = await applyDiff('x {\n\ty {\n\t\tz();\n\t}\n}\n', [
        { search: 'y {\n    z();\n}', replace: 'y {\n    z();\n      w();\n}' },
      ]);
      assert.ok(!tabOdd.ok);
      assert.equal(tabOdd.failures[0]!.kind, 'indentation');
      assert.match(tabOdd.message, /tabs and spaces/);
    });
  });

  describe('line hint (startLine)', () => {
    const dup = [
      'function a() {',
      '  x();',
      '}',
      'function b() {',
      '  y();',
      '}',
      'function c() {',
      '  x();',
      '}',
      '',
    ].join('\n');

    it('without a hint, a block that matches twice is refused as ambiguous and the file untouched', async () => {
      const r = await applyDiff(dup, [{ search: '  x();', replace: '  z();' }]);
      assert.ok(!r.ok);
      assert.equal(r.failures[0]!.kind, 'ambiguous');
      assert.match(r.message, /matches 2 places \(line 2, line 8\)/);
      assert.match(r.message, /startLine/);
    });

    it('a hint pointing at one of the matches settles it (exact and within the tolerance)', async () => {
      for (const startLine of [8, 7, 10]) {
        const r = await applyDiff(dup, [{ search: '  x();', replace: '  z();', startLine }]);
        assert.ok(r.ok, `startLine ${startLine}: ${!r.ok ? r.message : ''}`);
        assert.equal(r.content, dup.replace('function c() {\n  x();', 'function c() {\n  z();'));
        assert.deepEqual(r.applied[0], { index: 0, match: 'exact', startLine: 8, endLine: 8, settledByHint: true });
      }
    });

    it('a hint pointing elsewhere (or between two close matches) settles nothing', async () => {
      const far = await applyDiff(dup, [{ search: '  x();', replace: '  z();', startLine: 5 }]);
      assert.ok(!far.ok);
      assert.equal(far.failures[0]!.kind, 'ambiguous');
      assert.match(far.message, /startLine 5 does not settle it/);
      const close = 'a\nx\nb\nx\nc\n';
      const between = await applyDiff(close, [{ search: 'x', replace: 'y', startLine: 3 }]);
      assert.ok(!between.ok && between.failures[0]!.kind === 'ambiguous');
    });

    it('a hint settles a block that matches twice only when indentation is ignored', async () => {
      const file = 'if (a) {\n    go();\n}\nif (a) {\n        go();\n}\n';
      const none = await applyDiff(file, [{ search: 'if (a) {\n  go();\n}', replace: 'if (a) {\n  stop();\n}' }]);
      assert.ok(!none.ok && none.failures[0]!.kind === 'ambiguous');
      const r = await applyDiff(file, [
        { search: 'if (a) {\n  go();\n}', replace: 'if (a) {\n  stop();\n}', startLine: 4 },
      ]);
      assert.ok(r.ok, !r.ok ? r.message : '');
      assert.equal(r.content, 'if (a) {\n    go();\n}\nif (a) {\n        stop();\n}\n');
    });

    it('a unique match applies whatever the hint says (lines may have moved since the read)', async () => {
      const r = await applyDiff(dup, [{ search: '  y();', replace: '  w();', startLine: 40 }]);
      assert.ok(r.ok);
      assert.equal(r.applied[0]!.settledByHint, undefined);
    });
  });

  describe('read_file line-number prefixes', () => {
    const file = Array.from({ length: 12 }, (_, i) => `line ${i + 1}`).join('\n') + '\n';

    it('strips consistent prefixes from search and replace (padded as read_file pads them)', async () => {
      const r = await applyDiff(file, [{ search: ' 9 | line 9\n10 | line 10', replace: ' 9 | line 9\n10 | line ten' }]);
      assert.ok(r.ok, !r.ok ? r.message : '');
      assert.equal(r.content, file.replace('line 10\n', 'line ten\n'));
      assert.equal(r.applied[0]!.strippedLineNumbers, true);
    });

    it('uses the prefix numbers as the line hint for a block that matches twice', async () => {
      const f = 'a\nb\n1\n2\n3\n4\n5\n6\na\nb\n';
      const r = await applyDiff(f, [{ search: '9 | a\n10 | b', replace: '9 | A\n10 | B' }]);
      assert.ok(r.ok, !r.ok ? r.message : '');
      assert.equal(r.content, 'a\nb\n1\n2\n3\n4\n5\n6\nA\nB\n');
      // Numbers pointing between the two (lines 1 and 9 are both 4 away from 5): refused.
      const mid = await applyDiff(f, [{ search: '5 | a\n6 | b', replace: 'x' }]);
      assert.ok(!mid.ok && mid.failures[0]!.kind === 'ambiguous');
    });

    it('never strips real content: a search that matches as written is used as written', async () => {
      // Code with real numbers and pipes at line starts (a table, a bitwise OR continuation).
      const code = 'const t = `\n1 | one\n2 | two\n`;\nconst m =\n  4 | 8;\n';
      const r = await applyDiff(code, [{ search: '1 | one\n2 | two', replace: '1 | uno\n2 | dos' }]);
      assert.ok(r.ok, !r.ok ? r.message : '');
      assert.equal(r.content, 'const t = `\n1 | uno\n2 | dos\n`;\nconst m =\n  4 | 8;\n');
      assert.equal(r.applied[0]!.strippedLineNumbers, undefined);
    });

    it('does not strip prefixes that are not consecutive or not on every search line', async () => {
      const gap = await applyDiff(file, [{ search: '9 | line 9\n11 | line 11', replace: 'x' }]);
      assert.ok(!gap.ok && gap.failures[0]!.kind === 'not-found');
      const partial = await applyDiff(file, [{ search: '9 | line 9\nline 10', replace: 'x' }]);
      assert.ok(!partial.ok && partial.failures[0]!.kind === 'not-found');
    });

    it('refuses a replace with prefixes on only some lines (which ones are content cannot be told)', async () => {
      const r = await applyDiff(file, [
        { search: '9 | line 9\n10 | line 10', replace: '9 | line 9\nnew line\n10 | line 10' },
      ]);
      assert.ok(!r.ok);
      assert.equal(r.failures[0]!.kind, 'line-numbers');
    });
  });

  describe('stale blocks and the one-pass matcher', () => {
    it('refuses a stale block (the file changed since the read) and leaves every block unapplied', async () => {
      const r = await applyDiff(src, [
        { search: 'function a() {\n  const x = 1;\n  return x;\n}', replace: 'function a() {\n  return 1;\n}' },
        { search: 'function b() {\n  const y = 2;\n  return y;\n}', replace: 'gone' },
      ]);
      assert.ok(!r.ok);
      assert.deepEqual(
        r.failures.map((f) => [f.index, f.kind]),
        [[1, 'not-found']],
      );
    });

    it('finds exact blocks of every shape: mid-line start and end, common middle lines, repeats past the first', async () => {
      const lines = Array.from({ length: 3000 }, (_, i) => (i % 3 === 2 ? '  }' : `  call(${i}); // ${i % 7}`));
      const f = lines.join('\n') + '\n';
      // Starts and ends mid-line, middle lines whole.
      const r = await applyDiff(f, [
        {
          search: `(10); // 3\n  }\n  call(12); // 5\n  call(13`,
          replace: `(10); // X\n  }\n  call(12); // Y\n  call(13`,
        },
      ]);
      assert.ok(r.ok, !r.ok ? r.message : '');
      assert.equal(
        r.content,
        f.replace('call(10); // 3', 'call(10); // X').replace('call(12); // 5', 'call(12); // Y'),
      );
      // A 3-line block whose middle line ("  }") is everywhere, repeated twice far apart: ambiguous.
      const g = f + 'tail\n  call(0); // 0\n  call(1); // 1\n';
      const amb = await applyDiff(g, [{ search: '  call(0); // 0\n  call(1); // 1', replace: 'x' }]);
      assert.ok(!amb.ok && amb.failures[0]!.kind === 'ambiguous');
      assert.match(amb.message, /lines 1-2, lines 3002-3003/);
      const amb3 = await applyDiff(f + '  call(3); // 3\n  call(4); // 4\n  }\n  call(6); // 6\n', [
        { search: '  call(3); // 3\n  call(4); // 4\n  }\n  call(6); // 6', replace: 'x' },
      ]);
      assert.ok(!amb3.ok && amb3.failures[0]!.kind === 'ambiguous');
    });

    it('several blocks searched natively in one pass: overlapping, nested and saturated occurrences are all counted', async () => {
      // 1-2 line blocks (no whole middle line) go through the one-pass alternation together.
      const f = 'ababa\nfoo bar\nfoo\nx\n' + 'common;\n'.repeat(60) + 'unique tail\n';
      const amb = await applyDiff(f, [
        { search: 'aba', replace: 'X' }, // occurs at 0 and 2 (overlapping): ambiguous
        { search: 'foo', replace: 'F' }, // prefix of another search, occurs twice: ambiguous
        { search: 'foo bar', replace: 'FB' },
        { search: 'common;', replace: 'c' }, // past MAX_OCCURRENCES: ambiguous with "50+"
        { search: 'unique tail', replace: 'u' },
      ]);
      assert.ok(!amb.ok);
      assert.deepEqual(
        amb.failures.map((x) => [x.index, x.kind]),
        [
          [0, 'ambiguous'],
          [1, 'ambiguous'],
          [3, 'ambiguous'],
        ],
      );
      assert.match(amb.message, /Block 1 of 5: the search text matches 2 places \(line 1, line 1\)/);
      assert.match(amb.message, /Block 2 of 5: the search text matches 2 places \(line 2, line 3\)/);
      assert.match(amb.message, /Block 4 of 5: the search text matches 50\+ places/);
      const ok = await applyDiff(f, [
        { search: 'foo bar\nfoo', replace: 'FB\nF' },
        { search: 'unique tail', replace: 'u' },
        { search: 'x\n', replace: '' },
      ]);
      assert.ok(ok.ok, !ok.ok ? ok.message : '');
      assert.equal(ok.content, 'ababa\nFB\nF\n' + 'common;\n'.repeat(60) + 'u\n');
      assert.deepEqual(
        ok.applied.map((a) => [a.startLine, a.endLine]),
        [
          [2, 3],
          [65, 65],
          [4, 4],
        ],
      );
    });

    it('the one-pass native search finds exactly what a search per block finds (random texts, regex characters)', async () => {
      let seed = 7;
      const rnd = (n: number) => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) % n;
      const alphabet = ['a', 'b', '.', '*', '(', ')', '\n', '$', '\\', '|', '[', ']'];
      for (let round = 0; round < 200; round++) {
        const text = Array.from(
          { length: 200 + rnd(400) },
          () => alphabet[rnd(4) === 0 ? rnd(alphabet.length) : rnd(2)],
        ).join('');
        const searches = Array.from({ length: 2 + rnd(4) }, () => {
          const at = rnd(text.length - 8);
          return rnd(5) === 0 ? 'zz' + text.slice(at, at + 1 + rnd(6)) : text.slice(at, at + 1 + rnd(6));
        });
        const variants = searches.map((search) => ({
          search,
          replace: '',
          lines: search.split('\n'),
          stripped: false,
          exact: [] as number[],
          tolerant: [] as number[],
        }));
        await searchNatively(text, variants, async () => {});
        for (const v of variants) {
          const want: number[] = [];
          for (let i = text.indexOf(v.search); i >= 0 && want.length < 50; i = text.indexOf(v.search, i + 1))
            want.push(i);
          assert.deepEqual(v.exact, want, `round ${round}: ${JSON.stringify(v.search)} in ${JSON.stringify(text)}`);
        }
      }
    });

    it('yields to the event loop while it works (a large file with a miss)', async () => {
      const lines = Array.from(
        { length: 60_000 },
        (_, i) => `    const value${i} = compute(${i}, "item-${i}"); // line ${i}`,
      );
      const big = lines.join('\n') + '\n';
      let ticks = 0;
      const timer = setInterval(() => ticks++, 0);
      const r = await applyDiff(big, [{ search: 'qqq zzz no such thing\nwhatsoever here', replace: 'x' }], {
        sliceMs: 1,
      });
      clearInterval(timer);
      assert.ok(!r.ok);
      assert.ok(ticks > 0, 'the event loop never ran');
    });
  });
});

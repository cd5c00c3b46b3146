import { strict as assert } from 'node:assert';
import { applyDiff, type Variant } from '../../../../../src/core/tools/apply-diff/apply-diff';
import { FileModel } from '../../../../../src/core/tools/apply-diff/file-model';
import { scanAll, type ScanPattern } from '../../../../../src/core/tools/apply-diff/scan';
import { matchBySlowIndex, matchTolerant } from '../../../../../src/core/tools/apply-diff/tolerant';
import { CHUNK, TextBytes } from '../../../../../src/core/tools/apply-diff/text-bytes';

const noPause = async () => {};

function rng(seed: number) {
  return (n: number) => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) % n;
}

function occurrences(text: string, search: string, cap: number): number[] {
  const out: number[] = [];
  for (let i = text.indexOf(search); i >= 0 && out.length < cap; i = text.indexOf(search, i + 1)) out.push(i);
  return out;
}

function variant(search: string): Variant {
  return { search, replace: '', lines: search.split('\n'), stripped: false, exact: [], tolerant: [] };
}

/** A big, repetitive TypeScript-like file (every function the same shape, as in bench/apply-diff.bench.ts). */
function bigFile(functions: number): string[] {
  const out: string[] = [];
  for (let f = 0; f < functions; f++) {
    out.push(
      `export function handler${f}(input: Request${f % 13}) {`,
      `  const value${f} = compute(input.amount, ${f});`,
      `  if (value${f} > limit) {`,
      `    log.warn('handler${f}: over', { value: value${f} });`,
      `  }`,
      `  return value${f};`,
      `}`,
      ``,
    );
  }
  return out;
}

describe('tools/apply-diff: the jumping pass, lazy line numbers and the anchored tolerant match', () => {
  it('scanAll finds exactly the occurrences indexOf finds (overlapping, capped, adversarial texts, shared prefixes)', async () => {
    const rnd = rng(11);
    for (let round = 0; round < 300; round++) {
      const alphabet =
        round % 3 === 0 ? ['a', 'b'] : round % 3 === 1 ? ['a', 'b', '\n', ' ', 'x', 'y', '(', ')'] : ['a'];
      const text = Array.from({ length: 500 + rnd(3000) }, () => alphabet[rnd(alphabet.length)]).join('');
      const texts = new Set<string>();
      for (let k = 0, count = 1 + rnd(6); k < count; k++) {
        const at = rnd(text.length - 80);
        const len = 3 + rnd(60);
        texts.add(rnd(6) === 0 ? text.slice(at, at + len) + 'q' : text.slice(at, at + len));
      }
      const cap = 1 + rnd(60);
      const patterns: ScanPattern[] = [...texts].map((t) => ({ text: t, hits: [], cap }));
      await scanAll(text, patterns, noPause);
      for (const p of patterns)
        assert.deepEqual(p.hits, occurrences(text, p.text, cap), `round ${round}: ${JSON.stringify(p.text)}`);
    }
  });

  it('scanAll agrees with indexOf on Latin-1 and wider text, on text that turns wide after 100,000 characters, and when scans interleave', async () => {
    const rnd = rng(29);
    const ascii = Array.from({ length: 150_000 }, () => ['a', 'b', '\n', 'x'][rnd(4)]).join('');
    const latin1 = Array.from({ length: 150_000 }, () => ['a', 'é', '\n', 'ü', '©'][rnd(5)]).join('');
    const texts = [
      ascii,
      ascii.slice(0, 120_000) + 'é😀' + ascii.slice(120_000),
      Array.from({ length: 5000 }, () => ['a', 'é', '\n', '😀'][rnd(4)]).join(''),
      latin1,
    ];
    const pick = (text: string) =>
      Array.from({ length: 6 }, () => {
        const at = rnd(text.length - 40);
        return text.slice(at, at + 3 + rnd(30));
      });
    // A pause that really yields, so the two scans below take the shared byte memory from each other.
    const yieldingPause = () => new Promise<void>((r) => setImmediate(r));
    const runs = texts.map((text) => {
      const patterns: ScanPattern[] = [...new Set([...pick(text), text.slice(119_990, 120_010)])]
        .filter((t) => t.length >= 3)
        .map((t) => ({ text: t, hits: [], cap: 50 }));
      return { text, patterns, done: scanAll(text, patterns, yieldingPause) };
    });
    for (const r of runs) {
      await r.done;
      for (const p of r.patterns) assert.deepEqual(p.hits, occurrences(r.text, p.text, 50), JSON.stringify(p.text));
    }
    // Line numbers of a text whose bytes another scan took over meanwhile.
    const f = new FileModel(texts[1]!);
    assert.equal(f.lineOf(140_000), texts[1]!.slice(0, 140_000).split('\n').length - 1);
  });

  it('scanAll with long patterns agrees with indexOf on ASCII, Latin-1 and wider text, across chunk boundaries', async () => {
    const rnd = rng(41);
    const words = ['value', 'const', '    ', 'return', '\n', '(', ')', ' ', 'x'];
    const wide = ['é', '😀', 'ü'];
    const make = (n: number, extra: string[]) => {
      const parts: string[] = [];
      for (let len = 0; len < n;) {
        const w = rnd(20) === 0 && extra.length ? extra[rnd(extra.length)]! : words[rnd(words.length)]!;
        parts.push(w);
        len += w.length;
      }
      return parts.join('');
    };
    const texts = [make(2 * CHUNK + 5000, []), make(CHUNK + 5000, ['é', '©']), make(CHUNK + 5000, wide)];
    for (const text of texts) {
      for (let round = 0; round < 4; round++) {
        const picks = new Set<string>();
        for (let k = 0; k < 12; k++) {
          const at = rnd(text.length - 200);
          picks.add(text.slice(at, at + 24 + rnd(120)));
        }
        // Straddling a chunk's start, and one a character off from a real occurrence.
        picks.add(text.slice(CHUNK - 13, CHUNK + 30));
        const near = text.slice(CHUNK + 100, CHUNK + 160);
        picks.add(near.slice(0, 30) + (near[30] === 'q' ? 'r' : 'q') + near.slice(31));
        const patterns: ScanPattern[] = [...picks]
          .filter((t) => t.length >= 24)
          .map((t) => ({ text: t, hits: [], cap: 40 }));
        await scanAll(text, patterns, noPause);
        for (const p of patterns)
          assert.deepEqual(p.hits, occurrences(text, p.text, 40), JSON.stringify(p.text.slice(0, 40)));
      }
    }
  });

  it('scanAll on a large file: every block found once, a repeated one found everywhere, a missing one nowhere', async () => {
    const lines = bigFile(8000);
    const text = lines.join('\n') + '\n';
    const blocks = [100, 2000, 5000, 7999].map((f) => lines.slice(f * 8 + 1, f * 8 + 4).join('\n'));
    const patterns: ScanPattern[] = [...blocks, '  }\n  return value', 'no such text anywhere in it'].map((t) => ({
      text: t,
      hits: [],
      cap: 50,
    }));
    await scanAll(text, patterns, noPause);
    for (const p of patterns) assert.deepEqual(p.hits, occurrences(text, p.text, 50), JSON.stringify(p.text));
    assert.deepEqual(
      patterns.map((p) => p.hits.length),
      [1, 1, 1, 1, 50, 0],
    );
  });

  it('counts newlines like a split does (long stretches with non-ASCII text and surrogate pairs, any range)', () => {
    const rnd = rng(5);
    const pieces = ['a', 'é', '\n', '😀', '中', ' ', '\r\n', 'xyz'];
    const text = Array.from({ length: 1_200_000 }, () => pieces[rnd(pieces.length)]).join('');
    const naive = (from: number, to: number) => text.slice(from, to).split('\n').length - 1;
    const bytes = new TextBytes(text);
    for (const [from, to] of [
      [0, text.length],
      [1, text.length - 1],
      [12345, 1_100_000],
      [0, 20_000],
      [5, 17],
      [1_048_575, 1_048_600 + 20_000],
    ]) {
      assert.equal(bytes.count(from!, to!), naive(from!, to!), `${from}-${to}`);
    }
  });

  it('line numbers found lazily agree with the full index, whatever order they are asked in', async () => {
    const rnd = rng(3);
    const text = Array.from({ length: 40_000 }, (_, i) => 'x'.repeat(rnd(50)) + (i % 7 === 0 ? '\r\n' : '\n')).join('');
    const lazy = new FileModel(text);
    const full = new FileModel(text);
    await full.indexLines(noPause);
    for (let k = 0; k < 300; k++) {
      const at = rnd(lazy.text.length + 1);
      assert.equal(lazy.lineOf(at), full.lineOf(at), `offset ${at}`);
      assert.equal(lazy.toOriginal(at), full.toOriginal(at), `offset ${at}`);
    }
  });

  describe('applyDiff on the jumping pass (searches of 64+ characters)', () => {
    const lines = bigFile(3000);
    const file = lines.join('\n') + '\n';

    it('applies blocks far apart in a big file and reports their lines', async () => {
      const blocks = [10, 1500, 2999].map((f) => ({
        search: lines.slice(f * 8 + 1, f * 8 + 4).join('\n'),
        replace: `  // block ${f}`,
      }));
      const r = await applyDiff(file, blocks);
      assert.ok(r.ok, !r.ok ? r.message : '');
      assert.deepEqual(
        r.applied.map((a) => [a.startLine, a.endLine, a.match]),
        [
          [82, 84, 'exact'],
          [12002, 12004, 'exact'],
          [23994, 23996, 'exact'],
        ],
      );
      const want = [...lines];
      for (const f of [2999, 1500, 10]) want.splice(f * 8 + 1, 3, `  // block ${f}`);
      assert.equal(r.content, want.join('\n') + '\n');
    });

    it('keeps CRLF line endings outside the replaced region (and uses CRLF inside it)', async () => {
      const crlf = file.replace(/\n/g, '\r\n');
      const search = lines.slice(1601, 1604).join('\r\n');
      const r = await applyDiff(crlf, [{ search, replace: '  const a = 1;\r\n  const b = 2;' }]);
      assert.ok(r.ok, !r.ok ? r.message : '');
      assert.equal(r.content, crlf.replace(search, '  const a = 1;\r\n  const b = 2;'));
      assert.deepEqual([r.applied[0]!.startLine, r.applied[0]!.endLine], [1602, 1604]);
    });

    it('refuses a block whose second occurrence overlaps the first, naming both', async () => {
      const unit = 'tick(now);\ntock(now);\n';
      const text = 'start\n' + unit.repeat(5) + 'end\n';
      const search = unit.repeat(4).trimEnd();
      assert.ok(search.length >= 64);
      const r = await applyDiff(text, [{ search, replace: 'x' }]);
      assert.ok(!r.ok);
      assert.equal(r.failures[0]!.kind, 'ambiguous');
      assert.match(r.message, /matches 2 places \(lines 2-9, lines 4-11\)/);
    });

    it('matches at the very start and at the end of a file without a final newline', async () => {
      const text = lines.slice(0, 400).join('\n');
      const first = lines.slice(0, 3).join('\n');
      const tail = lines.slice(393, 399).join('\n');
      const r = await applyDiff(text, [
        { search: first, replace: 'FIRST' },
        { search: tail, replace: 'LAST' },
      ]);
      assert.ok(r.ok, !r.ok ? r.message : '');
      assert.ok(r.content.startsWith('FIRST\n'));
      assert.ok(r.content.endsWith('\nLAST\n'), JSON.stringify(r.content.slice(-40)));
      const noEol = lines.slice(0, 399).join('\n');
      const e = await applyDiff(noEol, [{ search: tail, replace: 'END' }]);
      assert.ok(
        e.ok && e.content.endsWith('\nEND') && e.applied[0]!.endLine === 399,
        e.ok ? JSON.stringify(e.applied) : e.message,
      );
    });

    it('a search that also occurs inside longer lines is counted there too (exact is a substring match, as before)', async () => {
      const block = 'const total = price * quantity + shipping + handling(order, customer, region);';
      const text = `function a() {\n  ${block}\n}\nfunction b() {\n  return (${block});\n}\n`;
      const r = await applyDiff(text, [{ search: block, replace: 'x' }]);
      assert.ok(!r.ok);
      assert.match(r.message, /matches 2 places \(line 2, line 5\)/);
      // With the indentation copied too, only the whole line matches.
      const whole = await applyDiff(text, [{ search: `  ${block}\n`, replace: '  const total = 0;\n' }]);
      assert.ok(whole.ok && whole.applied[0]!.startLine === 2);
    });

    it('a block that matches 50+ times is refused as ambiguous (the cap), others in the same pass still found', async () => {
      const line = '  if (ready && steady) { start(engine, options); } else { wait(engine, 100); }';
      const unique = 'unique: the one line that occurs only once in this whole file, nowhere else';
      const text = `${line}\n`.repeat(80) + unique + '\n';
      const r = await applyDiff(text, [
        { search: line, replace: 'x' },
        { search: unique, replace: 'y' },
      ]);
      assert.ok(!r.ok);
      assert.deepEqual(
        r.failures.map((f) => [f.index, f.kind]),
        [[0, 'ambiguous']],
      );
      assert.match(r.message, /matches 50\+ places/);
    });
  });

  describe('tolerant matching anchored on a rare word', () => {
    const lines = bigFile(3000);
    const file = lines.join('\n') + '\n';
    const reindent = (ls: string[]) => ls.map((l) => l.replace(/^ +/, (ws) => ' '.repeat(ws.length * 2)));
    const drift = (ls: string[]) => reindent(ls).map((l) => l.replace(' > ', '  >  '));

    it('matches a drifted block in a big file, re-indents it and reports its lines', async () => {
      const search = drift(lines.slice(2001 * 8 + 1, 2001 * 8 + 5)).join('\n');
      const replace = reindent(lines.slice(2001 * 8 + 1, 2001 * 8 + 5))
        .join('\n')
        .replace('compute(', 'computeV2(');
      const r = await applyDiff(file, [{ search, replace }]);
      assert.ok(r.ok, !r.ok ? r.message : '');
      assert.deepEqual(
        r.applied.map((a) => [a.match, a.startLine, a.endLine]),
        [['tolerant', 16010, 16013]],
      );
      assert.equal(r.content, file.replace('  const value2001 = compute(', '  const value2001 = computeV2('));
    });

    it('finds the same matches as hashing every line (rare, common and absent words, words inside longer words)', async () => {
      const extra = [
        '  const value17 = compute(input.amount, 17);',
        '  myvalue17 = compute(input.amount, 17);',
        '    if   (value17 > limit) {',
      ];
      const text = [...lines.slice(0, 4000), ...extra, ...lines.slice(0, 40)].join('\n') + '\n';
      const searches = [
        'const value17 = compute(input.amount, 17);\nif (value17 > limit) {', // twice: once in the copy at the end
        '    const value17 = compute(input.amount, 17);', // exact-looking but indentation differs
        'return value3;\n}', // only common or short words
        "log.warn('handler400: over', { value: value400 });\n  }", // rare word
        'handler9999 nowhere', // absent
        'value17 = compute(input.amount, 17);', // inside "myvalue17 = ...": never a whole-line match there
      ];
      for (const s of searches) {
        const fast = variant(s);
        const slow = variant(s);
        await matchTolerant(new FileModel(text), [fast], noPause, text.slice(0, 4096));
        const f2 = new FileModel(text);
        await matchBySlowIndex(f2, [slow], noPause);
        assert.deepEqual(fast.tolerant, slow.tolerant, s);
      }
    });

    it('refuses a block that matches twice ignoring indentation, with both places', async () => {
      const text =
        [
          ...lines.slice(0, 800),
          '    if (value3 > limit) {',
          "        log.warn('handler3: over', { value: value3 });",
          ...lines.slice(800, 1600),
        ].join('\n') + '\n';
      const r = await applyDiff(text, [
        { search: "if (value3 > limit) {\n  log.warn('handler3: over', { value: value3 });", replace: 'x' },
      ]);
      assert.ok(!r.ok);
      assert.match(r.message, /matches 2 places \(ignoring indentation\) \(lines 27-28, lines 801-802\)/);
    });
  });
});

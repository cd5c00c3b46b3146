import { strict as assert } from 'node:assert';
import { CHUNK, MARGIN, TextBytes } from '../../../../../src/core/tools/apply-diff/text-bytes';

function rng(seed: number) {
  return (n: number) => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) % n;
}

/** Newlines before each offset, the slow way. */
function prefixLines(text: string): Int32Array {
  const out = new Int32Array(text.length + 1);
  for (let i = 0; i < text.length; i++) out[i + 1] = out[i]! + (text.charCodeAt(i) === 10 ? 1 : 0);
  return out;
}

describe('tools/text-bytes: a text as bytes a chunk at a time, and its newline counts', () => {
  const rnd = rng(11);
  const asciiText = (n: number) =>
    Array.from({ length: n }, () => ['a', 'b', '\n', ' ', 'xyz'][rnd(5)])
      .join('')
      .slice(0, n);

  it('counts the newlines before any offset, at chunk and block edges, for lengths around the chunk size', () => {
    for (const n of [0, 1, 15, 1023, 1024, 1025, CHUNK - 1, CHUNK, CHUNK + 1, 2 * CHUNK + 1000]) {
      const text = asciiText(n);
      const want = prefixLines(text);
      const tb = new TextBytes(text);
      const offsets = [0, n, n - 1, 1, 1023, 1024, 1025, CHUNK - 1, CHUNK, CHUNK + 1, 2 * CHUNK].filter(
        (x) => x >= 0 && x <= n,
      );
      for (let k = 0; k < 50; k++) offsets.push(rnd(n + 1));
      for (const at of offsets) assert.equal(tb.linesBefore(at), want[at], `length ${n}, offset ${at}`);
      assert.equal(tb.count(0, n), want[n]);
    }
  });

  it('holds each chunk with no character above U+00FF as its bytes (with the margin before it), and reads others as characters', () => {
    const text = asciiText(CHUNK + 5000) + 'é😀' + asciiText(CHUNK);
    const tb = new TextBytes(text);
    const end0 = tb.load(10);
    assert.equal(end0, CHUNK);
    assert.equal(tb.oneByte, true);
    let bytes = tb.bytes();
    for (const x of [0, 1, 500, CHUNK - 1]) assert.equal(bytes[x - tb.base], text.charCodeAt(x), `offset ${x}`);
    assert.equal(tb.load(CHUNK + 10), 2 * CHUNK);
    assert.equal(tb.oneByte, false, 'the chunk with 😀 is not read as bytes');
    assert.equal(tb.load(2 * CHUNK + 10), text.length);
    assert.equal(tb.oneByte, true);
    bytes = tb.bytes();
    for (const x of [2 * CHUNK - MARGIN, 2 * CHUNK, text.length - 1])
      assert.equal(bytes[x - tb.base], text.charCodeAt(x), `offset ${x}`);
    // A wide character in the margin alone makes the chunk's bytes unusable too.
    const edge = asciiText(CHUNK - 3) + '中' + asciiText(CHUNK);
    const te = new TextBytes(edge);
    te.load(CHUNK);
    assert.equal(te.oneByte, false);
    const want = prefixLines(edge);
    for (const at of [CHUNK - 1, CHUNK, CHUNK + 700, edge.length]) assert.equal(te.linesBefore(at), want[at]);
  });

  it('a Latin-1 chunk (é, ü, ©, no-break space) is held as bytes equal to its character codes, and counted', () => {
    const latin = Array.from(
      { length: CHUNK + 3000 },
      () => ['a', 'é', '\n', 'ü', '©', '\u00a0', '\u00ff'][rnd(7)],
    ).join('');
    const tb = new TextBytes(latin);
    tb.load(5);
    assert.equal(tb.oneByte, true);
    const bytes = tb.bytes();
    for (let x = 0; x < 5000; x++) assert.equal(bytes[x - tb.base], latin.charCodeAt(x), `offset ${x}`);
    const want = prefixLines(latin);
    for (const at of [0, 999, 1024, CHUNK, latin.length]) assert.equal(tb.linesBefore(at), want[at], `offset ${at}`);
  });

  it('counts across chunks with surrogate pairs split at a chunk edge and many non-ASCII chunks', () => {
    const pieces = ['a', 'é', '\n', '😀', '中', ' ', '\r\n', 'xyz'];
    let text = Array.from({ length: 300_000 }, () => pieces[rnd(pieces.length)]).join('');
    // A surrogate pair across the first chunk edge.
    text = text.slice(0, CHUNK - 1) + '😀' + text.slice(CHUNK - 1);
    const want = prefixLines(text);
    const tb = new TextBytes(text);
    for (const at of [CHUNK - 1, CHUNK, CHUNK + 1, text.length, 12345, 2 * CHUNK + 77])
      assert.equal(tb.linesBefore(at), want[at], `offset ${at}`);
  });

  it('two texts taking the buffer from each other still read their own bytes and counts', () => {
    const a = asciiText(3 * CHUNK);
    const b = asciiText(3 * CHUNK);
    const ta = new TextBytes(a);
    const tb = new TextBytes(b);
    const wantA = prefixLines(a);
    const wantB = prefixLines(b);
    for (let k = 0; k < 3; k++) {
      ta.load(k * CHUNK + 5);
      tb.load(k * CHUNK + 5);
      assert.equal(tb.bytes()[k * CHUNK + 7 - tb.base], b.charCodeAt(k * CHUNK + 7));
      ta.load(k * CHUNK + 5);
      assert.equal(ta.bytes()[k * CHUNK + 7 - ta.base], a.charCodeAt(k * CHUNK + 7));
    }
    for (const at of [0, CHUNK + 3, 3 * CHUNK]) {
      assert.equal(ta.linesBefore(at), wantA[at]);
      assert.equal(tb.linesBefore(at), wantB[at]);
    }
  });
});

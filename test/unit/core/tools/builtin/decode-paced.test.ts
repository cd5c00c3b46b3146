import { strict as assert } from 'node:assert';
import { decodeText, decodeTextPaced } from '../../../../../src/core/tools/builtin/common';

// decodeTextPaced cuts big files into slices that end after an ASCII byte and decodes each on its own: the text must
// be exactly what one decode of the whole file gives.
describe('tools/decodeTextPaced: slices decoded on their own', () => {
  const enc = (s: string) => new TextEncoder().encode(s);
  const cat = (...parts: Uint8Array[]) => join(parts);
  const join = (parts: Uint8Array[]) => {
    const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
    let at = 0;
    for (const p of parts) {
      out.set(p, at);
      at += p.length;
    }
    return out;
  };
  const whole = (bytes: Uint8Array, keepBom = false) => {
    const t = new TextDecoder('utf-8', { ignoreBOM: keepBom }).decode(bytes);
    return !keepBom && t.charCodeAt(0) === 0xfeff ? t.slice(1) : t;
  };

  it('multi-megabyte text with multi-byte characters and invalid bytes around the slice ends, a BOM, U+FEFF inside', async () => {
    let seed = 9;
    const rnd = (n: number) => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) % n;
    const pieces = [
      enc('é'),
      enc('日本'),
      enc('😀'),
      enc('a'),
      enc('\n'),
      enc('\uFEFF'),
      new Uint8Array([0xe6, 0x97]),
      new Uint8Array([0xff]),
      enc('xyz '),
    ];
    const parts: Uint8Array[] = [enc('\uFEFF')];
    for (let n = 0; n < 1_000_000; n++) parts.push(pieces[rnd(pieces.length)]!);
    const bytes = join(parts);
    assert.ok(bytes.length > 2 * 1024 * 1024, String(bytes.length));
    assert.equal(await decodeTextPaced(bytes), whole(bytes));
    assert.equal(await decodeTextPaced(bytes, undefined, true), whole(bytes, true));
    assert.equal(await decodeTextPaced(bytes.subarray(0, 1000)), decodeText(bytes.subarray(0, 1000)));
  });

  it('a character that straddles each megabyte boundary is decoded whole', async () => {
    const mb = 1024 * 1024;
    for (const ch of ['é', '日', '😀']) {
      for (let back = 1; back < enc(ch).length; back++) {
        const bytes = join([enc('a'.repeat(mb - back)), enc(ch), enc('b'.repeat(mb - 3)), enc(ch), enc('\ntail')]);
        assert.equal(await decodeTextPaced(bytes), whole(bytes), `${ch} ${back}`);
      }
    }
  });

  it('falls back to a streaming decode when a megabyte holds no ASCII byte', async () => {
    const bytes = cat(enc('start\n'), enc('é'.repeat(800_000)), enc('\nend\n'));
    assert.equal(await decodeTextPaced(bytes), whole(bytes));
  });
});

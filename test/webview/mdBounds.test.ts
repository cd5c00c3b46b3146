// webview-ui/src/mdBounds.ts in Node: pieces are bounded, lose no text, cut at line ends, and reopen a fence cut in two.
import { strict as assert } from 'node:assert';
import {
  cutPoint,
  openFenceAfter,
  splitPieces,
  tailLimit,
  TAIL_CHARS,
  CODE_TAIL_CHARS,
} from '../../webview-ui/src/mdBounds';

describe('markdown bounds: pieces of a long source', () => {
  it('cuts after a blank line when there is one, else at a line end, else at a space, else at the limit', () => {
    assert.equal(cutPoint('aaaa\n\nbbbb\ncccc dddd', 12), 6);
    assert.equal(cutPoint('aaaaaaaa\nbbbb cccc', 12), 9);
    assert.equal(cutPoint('aaaaaa bbbbbbbbbb', 12), 7);
    assert.equal(cutPoint('x'.repeat(40), 12), 12);
    assert.equal(cutPoint(`${'x'.repeat(11)}\u{1F600}yyy`, 12), 11, 'never inside a surrogate pair');
  });

  it('a long list or line is cut into bounded pieces that keep every character', () => {
    for (const src of [
      Array.from({ length: 3000 }, (_, i) => `${'  '.repeat(i % 50)}- item ${i}`).join('\n'),
      'word '.repeat(50_000),
      '['.repeat(100_000),
    ]) {
      const pieces = splitPieces(src, TAIL_CHARS);
      assert.ok(pieces.length > 1);
      for (const p of pieces) assert.ok(p.length <= TAIL_CHARS, `${p.length}`);
      assert.equal(pieces.join(''), src);
    }
  });

  it('a fenced code block cut in two is reopened with its info string; a cut before the closing fence drops it', () => {
    const code = Array.from({ length: 2000 }, (_, i) => `line ${i}`).join('\n');
    const src = `intro\n\n~~~~py\n${code}\n~~~~\n\nafter\n`;
    const pieces = splitPieces(src, 4096);
    for (const p of pieces.slice(1, -1)) assert.ok(p.startsWith('~~~~py\n'), p.slice(0, 20));
    assert.equal(pieces.map((p, i) => (i && p.startsWith('~~~~py\n') ? p.slice(7) : p)).join(''), src);
    assert.deepEqual(openFenceAfter('```ts\na\n```\n'), undefined);
    assert.equal(openFenceAfter('> ```ts\na\n')?.opener, '```ts');
    assert.equal(openFenceAfter('``` not `a fence`\n'), undefined);
  });

  it('an open code block may grow longer than other tails before it is cut', () => {
    assert.equal(tailLimit('x'.repeat(20_000)), TAIL_CHARS);
    assert.equal(tailLimit(`\`\`\`ts\n${'const a = 1;\n'.repeat(2000)}`), CODE_TAIL_CHARS);
    assert.equal(tailLimit(`\`\`\`ts\na\n\`\`\`\n${'x'.repeat(20_000)}`), TAIL_CHARS);
  });
});

import * as assert from 'node:assert/strict';
import {
  applyHunks,
  carryDecisions,
  describeReview,
  hunkBody,
  hunkHeader,
  splitHunks,
  splitLines,
  summarizeReview,
  type HunkDecision,
} from '../../../../src/core/review/hunks';

const lines = (n: number, eol = '\n') => Array.from({ length: n }, (_, i) => `line ${i + 1}${eol}`).join('');

/** Every subset of hunks applies; all gives the proposal, none the original, and a subset leaves exactly the others to do. */
function checkAllSubsets(original: string, proposed: string): number {
  const hunks = splitHunks(original, proposed);
  assert.equal(
    applyHunks(original, hunks, () => true),
    proposed,
    'all hunks give the proposal',
  );
  assert.equal(
    applyHunks(original, hunks, () => false),
    original,
    'no hunk gives the original',
  );
  const n = Math.min(hunks.length, 10);
  for (let mask = 0; mask < 1 << n; mask++) {
    const merged = applyHunks(original, hunks, (i) => i < n && (mask & (1 << i)) !== 0);
    // What is left between the merge and the proposal is exactly the hunks not taken.
    const rest = splitHunks(merged, proposed);
    const notTaken = hunks.filter((h) => h.index >= n || (mask & (1 << h.index)) === 0);
    assert.deepEqual(
      rest.map((h) => [h.removed, h.added]),
      notTaken.map((h) => [h.removed, h.added]),
      `mask ${mask}`,
    );
  }
  return hunks.length;
}

describe('per-hunk review (core/review/hunks)', () => {
  it('splits lines keeping terminators (CRLF, no final newline)', () => {
    assert.deepEqual(splitLines('a\r\nb\nc'), ['a\r\n', 'b\n', 'c']);
    assert.deepEqual(splitLines(''), []);
    assert.deepEqual(splitLines('a\n'), ['a\n']);
  });

  it('finds no hunk for equal texts', () => {
    assert.deepEqual(splitHunks('a\nb\n', 'a\nb\n'), []);
  });

  it('splits separate changes into hunks with 1-based ranges on both sides', () => {
    const original = lines(20);
    const proposed = original.replace('line 3\n', 'LINE 3\n').replace('line 15\n', 'line 15\nnew 15b\n');
    const hunks = splitHunks(original, proposed);
    assert.equal(hunks.length, 2);
    assert.deepEqual(
      hunks.map((h) => [h.oldStart, h.oldLines, h.newStart, h.newLines]),
      [
        [3, 1, 3, 1],
        [16, 0, 16, 1],
      ],
    );
    assert.equal(hunkHeader(hunks[0]!), '@@ -3 +3 @@');
    assert.equal(hunkHeader(hunks[1]!), '@@ -15,0 +16 @@');
    assert.deepEqual(hunkBody(original, hunks[0]!, 1), [' line 2', '-line 3', '+LINE 3', ' line 4']);
    // Reject the first, accept the second.
    assert.equal(
      applyHunks(original, hunks, (i) => i === 1),
      original.replace('line 15\n', 'line 15\nnew 15b\n'),
    );
    checkAllSubsets(original, proposed);
  });

  it('keeps adjacent hunks (one unchanged line apart) independent', () => {
    const original = 'a\nb\nc\nd\ne\n';
    const proposed = 'A\nb\nC\nd\nE\n';
    assert.equal(checkAllSubsets(original, proposed), 3);
    const hunks = splitHunks(original, proposed);
    assert.equal(
      applyHunks(original, hunks, (i) => i !== 1),
      'A\nb\nc\nd\nE\n',
    );
  });

  it('handles hunks whose display context overlaps, and insertions and deletions at both ends', () => {
    const original = lines(8);
    const proposed =
      'first\n' + original.replace('line 2\n', '').replace('line 4\n', 'four\n').replace('line 8\n', 'line 8\nlast\n');
    const hunks = splitHunks(original, proposed);
    assert.equal(hunks.length, 4);
    // Context 3 around hunk 2 (line 2 deleted) reaches into hunk 3's lines: the body still shows the original's text.
    assert.deepEqual(hunkBody(original, hunks[1]!, 3), [' line 1', '-line 2', ' line 3', ' line 4', ' line 5']);
    checkAllSubsets(original, proposed);
  });

  it('keeps CRLF line endings byte for byte whichever hunks are taken', () => {
    const original = lines(6, '\r\n');
    const proposed = original.replace('line 2\r\n', 'two\r\n').replace('line 5\r\n', 'five\r\nfive b\r\n');
    const hunks = splitHunks(original, proposed);
    assert.equal(hunks.length, 2);
    const merged = applyHunks(original, hunks, (i) => i === 0);
    assert.equal(merged, original.replace('line 2\r\n', 'two\r\n'));
    assert.ok(!/[^\r]\n/.test(merged), 'no bare LF introduced');
    checkAllSubsets(original, proposed);
  });

  it('handles a missing final newline (added, removed, and kept)', () => {
    const original = 'a\nb\nc';
    const added = 'a\nb\nc\n';
    const h = splitHunks(original, added);
    assert.equal(h.length, 1);
    assert.deepEqual(hunkBody(original, h[0]!), ['-c', '\\ No newline at end of file', '+c']);
    checkAllSubsets(original, added);
    checkAllSubsets(added, original);
    const both = 'A\nb\nC';
    assert.equal(checkAllSubsets(original, both), 2);
    assert.equal(
      applyHunks(original, splitHunks(original, both), (i) => i === 1),
      'a\nb\nC',
    );
  });

  it('treats new files and emptied files as one hunk', () => {
    checkAllSubsets('', 'x\ny\n');
    checkAllSubsets('x\ny\n', '');
    const h = splitHunks('', 'x\ny');
    assert.deepEqual([h[0]!.oldStart, h[0]!.oldLines, h[0]!.newStart, h[0]!.newLines], [1, 0, 1, 2]);
  });

  it('falls back to one hunk over the changed middle when the diff runs out of time', () => {
    const original = 'keep\n' + lines(3000) + 'end\n';
    const proposed = 'keep\n' + lines(3000).split('\n').reverse().join('\n') + 'end\n';
    const hunks = splitHunks(original, proposed, { timeoutMs: 0 });
    assert.equal(hunks.length, 1);
    assert.equal(hunks[0]!.oldStart, 2);
    assert.equal(
      applyHunks(original, hunks, () => true),
      proposed,
    );
  });

  it('refuses hunks that do not fit the original', () => {
    const hunks = splitHunks('a\nb\n', 'a\nB\n');
    assert.throws(() => applyHunks('a\n', hunks, () => true), /does not fit/);
  });

  it('random edits: every subset of hunks merges exactly', () => {
    let seed = 7;
    const rnd = (n: number) => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % n;
    for (let round = 0; round < 40; round++) {
      const base = Array.from({ length: 12 }, (_, i) => `l${i}${rnd(3) === 0 ? '\r\n' : '\n'}`);
      const next = [...base];
      for (let k = 0; k < 4; k++) {
        const at = rnd(next.length + 1);
        const op = rnd(3);
        if (op === 0) next.splice(at, 1);
        else if (op === 1) next.splice(at, 0, `new${round}-${k}\n`);
        else if (at < next.length) next[at] = `chg${round}-${k}\n`;
      }
      let original = base.join('');
      let proposed = next.join('');
      if (rnd(2)) original = original.replace(/\r?\n$/, '');
      if (rnd(2)) proposed = proposed.replace(/\r?\n$/, '');
      checkAllSubsets(original, proposed);
    }
  });

  it('carries decisions over to the same hunks after the proposed side is edited elsewhere', () => {
    const original = lines(20);
    const v1 = original.replace('line 3\n', 'three\n').replace('line 15\n', 'fifteen\n');
    const v2 = v1.replace('line 10\n', 'ten\n');
    const h1 = splitHunks(original, v1);
    const decisions = new Map<number, HunkDecision>([
      [0, { state: 'rejected', reason: 'keep it' }],
      [1, { state: 'accepted' }],
    ]);
    const h2 = splitHunks(original, v2);
    assert.equal(h2.length, 3);
    const carried = carryDecisions(h1, decisions, h2);
    assert.deepEqual(
      [...carried.entries()],
      [
        [0, { state: 'rejected', reason: 'keep it' }],
        [2, { state: 'accepted' }],
      ],
    );
  });

  it('tells the model which hunks were rejected, where, with their text and the reason', () => {
    const original = lines(20);
    const proposed = original.replace('line 3\n', 'LINE 3\n').replace('line 15\n', 'line 15\nnew 15b\n');
    const hunks = splitHunks(original, proposed);
    const s = summarizeReview(original, hunks, new Map([[1, { state: 'rejected', reason: 'no extra line' }]]));
    assert.deepEqual(s.accepted, [0]);
    assert.equal(s.rejected.length, 1);
    const text = describeReview('src/a.ts', s);
    assert.match(text, /1 of 2 hunks were accepted/);
    assert.match(text, /Hunk #2 \(original after line 15; proposed line 16\), reason: no extra line/);
    assert.match(text, /\+new 15b/);
    assert.match(text, /re-read src\/a\.ts/);
    const all = summarizeReview(
      original,
      hunks,
      new Map([
        [0, { state: 'rejected' }],
        [1, { state: 'rejected' }],
      ]),
    );
    assert.match(describeReview('src/a.ts', all), /rejected every hunk \(2\) of your change to src\/a\.ts:/);
    assert.match(describeReview('src/a.ts', all), /Nothing of this change was written$/);
    assert.match(describeReview('src/a.ts', all), /original line 3; proposed line 3\), reason: no reason given/);
    assert.equal(describeReview('x', summarizeReview(original, hunks, new Map())), '');
  });
});

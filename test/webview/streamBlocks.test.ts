// Incremental streaming markdown (webview-ui/src/streamBlocks.ts) must render exactly what a one-shot render of
// the whole message renders, however the text is cut into deltas. Runs in Node: only marked, no DOM.
import { strict as assert } from 'node:assert';
import { collectLinks, lexBlocks, marked, type LinkDefs } from '../../webview-ui/src/markedSetup';
import { NormalizedFeed, splitCompleted } from '../../webview-ui/src/streamBlocks';

/** Streams `src` in `step`-char deltas; returns the HTML of the committed blocks and how many commits happened. */
function streamed(src: string, step: number): { html: string; commits: number; maxTail: number } {
  const feed = new NormalizedFeed();
  const links: LinkDefs = Object.create(null);
  let pending = '';
  let html = '';
  let commits = 0;
  let maxTail = 0;
  for (let i = step; ; i += step) {
    const final = i >= src.length;
    pending += feed.next(src.slice(0, Math.min(i, src.length)), final)!;
    const tokens = lexBlocks(pending, links);
    const split = splitCompleted(tokens, pending, final);
    collectLinks(split.blocks, links);
    if (split.blocks.length) {
      html += marked.parser(split.blocks);
      commits++;
    }
    pending = pending.slice(split.length);
    maxTail = Math.max(maxTail, pending.length);
    if (final) {
      assert.equal(pending, '', 'the final render commits everything');
      return { html, commits, maxTail };
    }
  }
}

const VOCAB = [
  'The ',
  'client ',
  '`retry()` ',
  'now ',
  'backs ',
  'off; ',
  '**note** ',
  'this:\n\n',
  '- item ',
  'one\n',
  '```ts\n',
  'const x = 1;\n',
  '```\n\n',
  'and ',
  'then ',
  'tests.\n',
];
const benchText = Array.from({ length: 600 }, (_, i) => VOCAB[i % VOCAB.length]).join('');

const DOCS: Record<string, string> = {
  bench: benchText,
  structure: [
    '# Title',
    '',
    'Intro paragraph with *em*, **strong**, `code` and a [link](https://example.com).',
    '',
    'Setext heading',
    '==============',
    '',
    'Another one',
    '---',
    '',
    '- tight one',
    '- tight two',
    '  - nested',
    '- three',
    '',
    'after list',
    '',
    '1. loose',
    '',
    '2. items',
    '',
    '   continued in item',
    '',
    '> quote line',
    'lazy continuation',
    '',
    '> second quote',
    '',
    '| a | b |',
    '|---|---|',
    '| 1 | 2 |',
    '| 3 | 4 |',
    '',
    '***',
    '',
    '```py',
    'def f():',
    '',
    '    return 1',
    '```',
    '',
    '    indented code',
    '',
    'para',
    '<div>html block</div>',
    '',
    '<!-- comment',
    '',
    'still comment -->',
    '',
    'last line',
  ].join('\n'),
  looseLists: '- x\n\n- y\n\n- z\n\n1. a\n\n2. b\n\n10) c\n\n* star\n\n+ plus\n\n- [ ] task\n\n- [x] done\n\nend',
  crlf: 'Line one\r\nline two\r\n\r\n- a\r\n- b\r\n\r\n```\r\ncode\r\n```\r\n\r\nend\r\n',
  unclosedFence: 'Text\n\n```ts\nconst a = 1;\n\nconst b = 2;\n',
  refsBeforeUse: '[ref]: https://example.com/a\n\nSee [the ref][ref] and [ref].\n\nMore text.\n',
};

describe('streamed markdown splits into blocks exactly like a one-shot render', () => {
  for (const [name, src] of Object.entries(DOCS)) {
    for (const step of [1, 3, 17, 200]) {
      it(`${name}, ${step}-char deltas`, () => {
        const expected = marked.parse(src.replace(/\r\n?/g, '\n')) as string;
        assert.equal(streamed(src, step).html, expected);
      });
    }
  }

  it('commits blocks as they complete, so the re-rendered tail stays small', () => {
    const r = streamed(benchText, 7);
    assert.ok(benchText.length > 2000);
    assert.ok(r.commits > 50, `${r.commits} commits`);
    assert.ok(r.maxTail < 200, `tail grew to ${r.maxTail} chars`);
  });

  it('keeps a trailing \\r until it knows whether \\n follows', () => {
    const feed = new NormalizedFeed();
    assert.equal(feed.next('a\r', false), 'a');
    assert.equal(feed.next('a\r\nb', false), '\nb');
    assert.equal(feed.next('x', false), undefined, 'a shorter text is not a continuation');
  });
});

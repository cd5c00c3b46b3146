// The @ picker and the context chips in the chat input, in the built webview under the real CSP (headless
// Chromium): the query it posts, keyboard and mouse picks, chips that go with the message and can be removed,
// chips from the host (Add Selection to Chat), and the chips of a sent message in the transcript.
import { strict as assert } from 'node:assert';
import type { MentionOption, WebviewMessage } from '../../src/protocol/messages';
import { patch, state, user } from './fixtures';
import { usePanel, type PanelPage } from './harness';

const OPTIONS: MentionOption[] = [
  { mention: { kind: 'git' }, label: 'Git changes', detail: 'Uncommitted changes (git diff)' },
  { mention: { kind: 'file', path: 'src/greet.js' }, label: 'greet.js', detail: 'src' },
  { mention: { kind: 'folder', path: 'src' }, label: 'src/' },
];

describe('webview @ mentions: picker and chips (Chromium)', function () {
  let p: PanelPage;
  usePanel((page) => {
    p = page;
  });

  const input = () => p.page.locator('textarea.input');
  const options = () => p.page.locator('#forge-mention-menu [role="option"]');
  const chips = () => p.page.locator('.composer-chips .mention-chip');

  let answered = 0;
  beforeEach(() => (answered = 0));
  /** Waits for the picker's next query and answers it with `opts`. */
  async function answer(query: string, opts = OPTIONS): Promise<void> {
    type Query = Extract<WebviewMessage, { type: 'mention_query' }>;
    let q: Query | undefined;
    for (let i = 0; i < 100; i++) {
      const last = (await p.posted()).filter((m): m is Query => m.type === 'mention_query').pop();
      if (last?.query === query && last.seq > answered) {
        q = last;
        break;
      }
      await new Promise((r) => setTimeout(r, 20));
    }
    assert.ok(q, `a mention_query for "${query}"`);
    answered = q.seq;
    await p.host({ type: 'mention_results', seq: q.seq, options: opts });
  }

  it('"@" asks the host, lists the answer; Up/Down move, Enter picks: the token becomes a chip', async () => {
    await p.host(state());
    await input().click();
    await p.page.keyboard.type('look at @gre');
    await answer('gre');
    assert.equal(await options().count(), 3);
    assert.equal(await p.page.locator('#forge-mention-menu').isVisible(), true);
    assert.equal(await input().getAttribute('aria-expanded'), 'true');
    assert.equal(await input().getAttribute('aria-activedescendant'), 'forge-mention-menu-0');
    await p.page.keyboard.press('ArrowDown');
    assert.equal(await input().getAttribute('aria-activedescendant'), 'forge-mention-menu-1');
    assert.match((await options().nth(1).getAttribute('class')) ?? '', /active/);
    await p.page.keyboard.press('ArrowUp');
    await p.page.keyboard.press('ArrowUp'); // wraps to the last
    assert.equal(await input().getAttribute('aria-activedescendant'), 'forge-mention-menu-2');
    await p.page.keyboard.press('ArrowDown');
    await p.page.keyboard.press('ArrowDown');
    await p.page.keyboard.press('Enter');
    assert.equal(await input().inputValue(), 'look at @greet.js ');
    assert.equal(await p.page.locator('#forge-mention-menu').isVisible(), false);
    assert.deepEqual(await chips().allInnerTexts(), ['greet.js']);
    assert.equal(await chips().first().getAttribute('title'), 'src/greet.js');
    // Enter now sends: the message carries the mention, and the chips leave the composer.
    await p.clearPosted();
    await p.page.keyboard.type('please');
    await p.page.keyboard.press('Enter');
    const sent = (await p.posted()).filter((m) => m.type === 'send_message');
    assert.equal(sent.length, 1);
    assert.deepEqual(sent[0].type === 'send_message' && [sent[0].text, sent[0].mentions], [
      'look at @greet.js please',
      [{ kind: 'file', path: 'src/greet.js' }],
    ]);
    assert.equal(await chips().count(), 0);
  });

  it('the mouse picks, Tab picks, a chip is removed by its button or Backspace, Escape closes the list', async () => {
    await p.host(state());
    await input().click();
    await p.page.keyboard.type('@');
    await answer('');
    await options().nth(0).click();
    assert.deepEqual(await chips().allInnerTexts(), ['Git changes']);
    assert.equal(await input().inputValue(), '@git ');
    await p.page.keyboard.type('@sr');
    await answer('sr');
    await p.page.keyboard.press('ArrowDown');
    await p.page.keyboard.press('Tab');
    assert.deepEqual(await chips().allInnerTexts(), ['Git changes', 'greet.js']);
    // The same entry twice is one chip.
    await p.page.keyboard.type('@sr');
    await answer('sr');
    await p.page.keyboard.press('ArrowDown');
    await p.page.keyboard.press('Enter');
    assert.equal(await chips().count(), 2);
    await p.page.locator('.mention-chip-remove[aria-label="Remove Git changes"]').click();
    assert.deepEqual(await chips().allInnerTexts(), ['greet.js']);
    await input().focus();
    await p.page.keyboard.press('Home');
    await p.page.keyboard.press('Backspace');
    assert.equal(await chips().count(), 0);
    assert.equal(await input().inputValue(), '@git @greet.js @greet.js ', 'the references stay in the text');
    await input().fill('');
    await p.page.keyboard.type('@x');
    await answer('x');
    await p.page.keyboard.press('Escape');
    assert.equal(await p.page.locator('#forge-mention-menu').isVisible(), false);
    assert.equal(await input().inputValue(), '@x', 'Escape keeps the text');
    // Enter before the host answers picks the first entry when the answer comes; nothing is sent meanwhile.
    await input().fill('');
    await p.clearPosted();
    await p.page.keyboard.type('@gr');
    await p.page.keyboard.press('Enter');
    assert.equal((await p.posted()).filter((m) => m.type === 'send_message').length, 0);
    await answer('gr');
    assert.deepEqual(await chips().allInnerTexts(), ['Git changes']);
    assert.equal(await input().inputValue(), '@git ');
    await p.page.locator('.mention-chip-remove').click();
    // An e-mail address is not a mention.
    await input().fill('');
    await p.clearPosted();
    await p.page.keyboard.type('mail me@example.com');
    await new Promise((r) => setTimeout(r, 100));
    assert.equal((await p.posted()).filter((m) => m.type === 'mention_query').length, 0);
  });

  it('chips from the host (Add Selection to Chat) join the composer; a sent message shows its chips', async () => {
    await p.host(state({ items: [user('u1', 'older message')] }));
    await input().fill('keep this');
    await p.host({
      type: 'prefill',
      text: '',
      chips: [
        { mention: { kind: 'selection', path: 'src/greet.js', startLine: 3, endLine: 14 }, label: 'greet.js:3-14' },
      ],
    });
    assert.equal(await input().inputValue(), 'keep this', 'chips alone leave the text as it is');
    assert.deepEqual(await chips().allInnerTexts(), ['greet.js:3-14']);
    assert.equal(await chips().first().getAttribute('title'), 'src/greet.js, lines 3-14');
    await p.host(
      patch({
        op: 'append',
        item: {
          ...user('u2', 'Explain this code.'),
          mentions: [
            { mention: { kind: 'selection', path: 'src/greet.js', startLine: 3, endLine: 14 }, label: 'greet.js:3-14' },
          ],
        },
      }),
    );
    const sent = p.page.locator('[data-id="u2"], .item').filter({ hasText: 'Explain this code.' }).last();
    assert.deepEqual(await sent.locator('.mention-chips.sent .mention-chip').allInnerTexts(), ['greet.js:3-14']);
    assert.equal(await sent.locator('.mention-chip-remove').count(), 0, 'a sent chip cannot be removed');
  });
});

// A message typed while a run works takes the composer's images and @-chips along (they used to stay behind for
// the next send): Enter steers and Alt+Enter queues with them, the posted message passes the host's schema, the
// composer is emptied of them, and a waiting message shows its thumbnails and chips in the queue. The built
// webview under the real CSP (headless Chromium).
import { strict as assert } from 'node:assert';
import { WebviewMessageSchema, type WebviewMessage } from '../../src/protocol/messages';
import { state, user } from './fixtures';
import { usePanel, type PanelPage } from './harness';

const DOT_PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
  'base64',
);
const VISION = { configured: true, provider: 'anthropic', model: 'claude-sonnet-4-6', images: true };
const running = { state: 'running' as const, runId: 'run-1', requestId: 'req-1' };
const CHIP = { mention: { kind: 'file' as const, path: 'src/greet.js' }, label: 'greet.js' };
const THUMB = `data:image/png;base64,${DOT_PNG.toString('base64')}`;

type Waiting = Extract<WebviewMessage, { type: 'steer_message' | 'queue_add' }>;

describe('webview: steered and queued messages carry images and chips (Chromium)', function () {
  let p: PanelPage;
  usePanel((page) => {
    p = page;
  });

  const input = () => p.page.locator('textarea.input').first();
  const trayThumbs = () => p.page.locator('.attach-tray .attach-thumb');
  const composerChips = () => p.page.locator('.composer-chips .mention-chip');

  async function waiting(): Promise<Waiting[]> {
    for (let i = 0; i < 100; i++) {
      const all = (await p.posted()).filter((m): m is Waiting => m.type === 'steer_message' || m.type === 'queue_add');
      if (all.length) return all;
      await new Promise((r) => setTimeout(r, 50));
    }
    return [];
  }

  async function compose(text: string): Promise<void> {
    await p.page
      .locator('footer.composer input[type=file]')
      .setInputFiles({ name: 'dot.png', mimeType: 'image/png', buffer: DOT_PNG });
    await trayThumbs().locator('img').waitFor();
    await p.host({ type: 'prefill', text: '', chips: [CHIP] });
    await input().fill(text);
  }

  for (const [how, key, type] of [
    ['Enter steers', 'Enter', 'steer_message'],
    ['Alt+Enter queues', 'Alt+Enter', 'queue_add'],
  ] as const)
    it(`${how} with the image and the chip; the composer is emptied of them`, async () => {
      await p.host(state({ taskId: 't', provider: VISION, items: [user('u1', 'fix it')], status: running }));
      await compose('and look at this');
      await p.clearPosted();
      await input().press(key);
      const [msg] = await waiting();
      assert.ok(WebviewMessageSchema.safeParse(msg).success, 'the posted message passes the host schema');
      assert.equal(msg!.type, type);
      assert.equal(msg!.text, 'and look at this');
      assert.equal(msg!.images?.length, 1);
      assert.equal(msg!.images![0]!.data, DOT_PNG.toString('base64'));
      assert.deepEqual(msg!.mentions, [CHIP.mention]);
      assert.equal(await trayThumbs().count(), 0, 'the images went with the message');
      assert.equal(await composerChips().count(), 0, 'the chips went with the message');
    });

  it('an image alone while a run works gets a short text; a model without images keeps it in the tray', async () => {
    await p.host(state({ taskId: 't', provider: VISION, status: running }));
    await p.page
      .locator('footer.composer input[type=file]')
      .setInputFiles({ name: 'dot.png', mimeType: 'image/png', buffer: DOT_PNG });
    await trayThumbs().locator('img').waitFor();
    await p.clearPosted();
    await input().press('Enter');
    const [msg] = await waiting();
    assert.equal(msg!.text, 'See the attached image.');
    await p.host(state({ taskId: 't', provider: { ...VISION, images: false }, status: running }));
    await p.page
      .locator('footer.composer input[type=file]')
      .setInputFiles({ name: 'dot.png', mimeType: 'image/png', buffer: DOT_PNG });
    await trayThumbs().locator('img').waitFor();
    await p.clearPosted();
    await input().fill('see');
    await input().press('Enter');
    await new Promise((r) => setTimeout(r, 200));
    assert.deepEqual(await p.posted(), [], 'nothing is posted while the model refuses images');
    assert.equal(await trayThumbs().count(), 1);
  });

  it('a waiting message shows its thumbnails and chips in the queue', async () => {
    const image = {
      thumb: THUMB,
      width: 1,
      height: 1,
      name: 'dot.png',
      sha256: 'a'.repeat(64),
      mediaType: 'image/png' as const,
    };
    await p.host(
      state({
        taskId: 't',
        status: running,
        queue: [{ id: 'q1', text: 'then this', images: [image], mentions: [CHIP] }],
      }),
    );
    const row = p.page.locator('.queue-list .queued').first();
    assert.match(await row.innerText(), /Queued[\s\S]*greet\.js[\s\S]*then this/);
    assert.equal(await row.locator('.message-image img').getAttribute('src'), THUMB);
    assert.equal(await row.locator('.mention-chip').count(), 1);
  });
});

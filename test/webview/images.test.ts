// Images in the composer: attach (file picker), paste and drop; thumbnails that can be removed; large images
// scaled down before they are posted; a model without image input told before sending; thumbnails of a sent
// message in the transcript. The built webview under the real CSP (headless Chromium).
import { strict as assert } from 'node:assert';
import { WebviewMessageSchema, type WebviewMessage } from '../../src/protocol/messages';
import { patch, state, user } from './fixtures';
import { usePanel, type PanelPage } from './harness';

const DOT_PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
  'base64',
);
const VISION = { configured: true, provider: 'anthropic', model: 'claude-sonnet-4-6', images: true };

type Sent = Extract<WebviewMessage, { type: 'send_message' }>;

describe('webview images in the composer (Chromium)', function () {
  let p: PanelPage;
  usePanel((page) => {
    p = page;
  });

  const input = () => p.page.locator('textarea.input');
  const thumbs = () => p.page.locator('.attach-tray .attach-thumb');

  async function sent(): Promise<Sent[]> {
    for (let i = 0; i < 100; i++) {
      const all = (await p.posted()).filter((m): m is Sent => m.type === 'send_message');
      if (all.length) return all;
      await new Promise((r) => setTimeout(r, 50));
    }
    return [];
  }

  /** Puts image files on a DataTransfer in the page and fires `type` ('paste' on the input, 'drop' on the composer). */
  async function fire(type: 'paste' | 'drop', files: { name: string; type: string; b64: string }[]): Promise<void> {
    await p.page.evaluate(
      ({ type, files }) => {
        const dt = new DataTransfer();
        for (const f of files) {
          const bytes = Uint8Array.from(atob(f.b64), (c) => c.charCodeAt(0));
          dt.items.add(new File([bytes], f.name, { type: f.type }));
        }
        if (type === 'paste') {
          document
            .querySelector('textarea.input')!
            .dispatchEvent(new ClipboardEvent('paste', { clipboardData: dt, bubbles: true, cancelable: true }));
        } else {
          const zone = document.querySelector('footer.composer')!;
          zone.dispatchEvent(new DragEvent('dragover', { dataTransfer: dt, bubbles: true, cancelable: true }));
          zone.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
        }
      },
      { type, files },
    );
  }

  it('attach: the file picker adds a thumbnail; Enter posts the image with the text, validated by the schema', async () => {
    await p.host(state({ provider: VISION }));
    await p.page
      .locator('footer.composer input[type=file]')
      .setInputFiles({ name: 'dot.png', mimeType: 'image/png', buffer: DOT_PNG });
    await thumbs().locator('img').waitFor();
    assert.equal(await thumbs().count(), 1);
    assert.match((await thumbs().first().getAttribute('title')) ?? '', /dot\.png · 1×1/);
    await input().fill('What is this?');
    await input().press('Enter');
    const [msg] = await sent();
    assert.ok(WebviewMessageSchema.safeParse(msg).success, 'the posted message passes the host schema');
    assert.equal(msg.text, 'What is this?');
    assert.equal(msg.images?.length, 1);
    const img = msg.images![0];
    assert.equal(img.mediaType, 'image/png');
    // A small image that fits is sent as it was (lossless), not re-encoded.
    assert.equal(img.data, DOT_PNG.toString('base64'));
    assert.deepEqual([img.width, img.height, img.name], [1, 1, 'dot.png']);
    assert.match(img.thumb, /^data:image\/(webp|png);base64,/);
    assert.equal(await thumbs().count(), 0, 'the tray is empty after sending');
  });

  it('paste: an image on the clipboard becomes an attachment; a message of images alone gets a short text', async () => {
    await p.host(state({ provider: VISION }));
    await input().click();
    await fire('paste', [{ name: 'image.png', type: 'image/png', b64: DOT_PNG.toString('base64') }]);
    await thumbs().locator('img').waitFor();
    await input().press('Enter');
    const [msg] = await sent();
    assert.equal(msg.text, 'See the attached image.');
    assert.equal(msg.images?.[0].mediaType, 'image/png');
  });

  it('drop: dropped images are attached, a non-image file is refused with a note; × removes a thumbnail', async () => {
    await p.host(state({ provider: VISION }));
    await fire('drop', [
      { name: 'a.png', type: 'image/png', b64: DOT_PNG.toString('base64') },
      { name: 'b.png', type: 'image/png', b64: DOT_PNG.toString('base64') },
      { name: 'notes.txt', type: 'text/plain', b64: Buffer.from('hello').toString('base64') },
    ]);
    await thumbs().nth(1).locator('img').waitFor();
    assert.equal(await thumbs().count(), 2);
    assert.match(await p.page.locator('.attach-note').innerText(), /notes\.txt is not a PNG, JPEG, GIF or WebP image/);
    await thumbs().first().locator('.attach-remove').click();
    assert.equal(await thumbs().count(), 1);
    await input().fill('one left');
    await input().press('Enter');
    const [msg] = await sent();
    assert.equal(msg.images?.length, 1);
    assert.equal(msg.images?.[0].name, 'b.png');
  });

  it('a large image is scaled to a 1568 px long edge and under the byte cap before it is posted', async () => {
    await p.host(state({ provider: VISION }));
    // A 4000x3000 noisy PNG (several MB), made in the page.
    const b64 = await p.page.evaluate(async () => {
      const c = new OffscreenCanvas(4000, 3000);
      const ctx = c.getContext('2d')!;
      const data = ctx.createImageData(4000, 3000);
      for (let i = 0; i < data.data.length; i++) data.data[i] = (i * 2654435761) >>> 24;
      ctx.putImageData(data, 0, 0);
      const blob = await c.convertToBlob({ type: 'image/png' });
      const buf = new Uint8Array(await blob.arrayBuffer());
      let s = '';
      for (let i = 0; i < buf.length; i += 0x8000) s += String.fromCharCode(...buf.subarray(i, i + 0x8000));
      return btoa(s);
    });
    assert.ok(b64.length > 5_000_000, `the original is large (${b64.length} base64 chars)`);
    await fire('paste', [{ name: 'big.png', type: 'image/png', b64 }]);
    await thumbs().locator('img').waitFor({ timeout: 15_000 });
    await input().fill('big');
    await input().press('Enter');
    const [msg] = await sent();
    const img = msg.images![0];
    assert.equal(Math.max(img.width, img.height), 1568);
    assert.equal(img.height, 1176);
    assert.ok(img.data.length <= 2_000_000, `scaled bytes under the cap (${img.data.length} base64 chars)`);
    assert.ok(WebviewMessageSchema.safeParse(msg).success);
  });

  it('a model without image input: the composer says so and Enter sends nothing until the images are removed', async () => {
    await p.host(state({ provider: { ...VISION, model: 'qwen2.5-coder', images: false } }));
    await fire('paste', [{ name: 'shot.png', type: 'image/png', b64: DOT_PNG.toString('base64') }]);
    await thumbs().locator('img').waitFor();
    assert.match(await p.page.locator('.attach-note').innerText(), /does not accept images/);
    await input().fill('look');
    await input().press('Enter');
    await new Promise((r) => setTimeout(r, 300));
    assert.equal((await p.posted()).filter((m) => m.type === 'send_message').length, 0);
    await thumbs().first().locator('.attach-remove').click();
    assert.equal(await p.page.locator('.attach-note').isHidden(), true);
    await input().press('Enter');
    const [msg] = await sent();
    assert.equal(msg.text, 'look');
    assert.equal(msg.images, undefined);
  });

  it('the transcript shows a sent message with its image thumbnails', async () => {
    const thumb = `data:image/png;base64,${DOT_PNG.toString('base64')}`;
    await p.host(state({ provider: VISION }));
    await p.host(
      patch({
        op: 'append',
        item: { ...user('u1', 'Why is this red?'), images: [{ thumb, width: 800, height: 600, name: 'err.png' }] },
      }),
    );
    const img = p.page.locator('.message-images img');
    await img.waitFor();
    assert.equal(await img.getAttribute('src'), thumb);
    assert.equal(await img.getAttribute('alt'), 'err.png');
    assert.match((await p.page.locator('.message-image').getAttribute('title')) ?? '', /err\.png · 800×600/);
  });
});

// The image store: checked, hashed and kept once by content; read back into a restored history; a forged or
// mislabelled payload refused with a readable error.
import { strict as assert } from 'node:assert';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { withoutImageData } from '../../../src/core/model/images';
import type { ChatMessage } from '../../../src/core/model/types';
import { ImageStore } from '../../../src/node/image-store';

const PNG_B64 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

describe('node/image-store', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(tmpdir(), 'forge-images-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('stores by sha256 once, and fills a saved history back from disk', async () => {
    const store = new ImageStore(dir);
    const part = await store.put({ mediaType: 'image/png', data: PNG_B64, name: 'dot.png' });
    assert.equal(part.sha256, createHash('sha256').update(Buffer.from(PNG_B64, 'base64')).digest('hex'));
    assert.deepEqual([part.width, part.height], [1, 1]);
    const file = store.fileOf(part);
    assert.ok(fs.existsSync(file));
    await store.put({ mediaType: 'image/png', data: PNG_B64 });
    assert.equal(fs.readdirSync(path.dirname(file)).length, 1, 'one file per content');
    const saved = JSON.parse(
      JSON.stringify(withoutImageData([{ role: 'user', content: 'x', images: [part] }])),
    ) as ChatMessage[];
    const fresh = new ImageStore(dir); // a reload: nothing cached
    assert.equal(await fresh.fill(saved), 0);
    assert.equal(saved[0].role === 'user' && saved[0].images?.[0].data, PNG_B64);
  });

  it('a missing or altered file leaves the part without bytes and is counted', async () => {
    const store = new ImageStore(dir);
    const part = await store.put({ mediaType: 'image/png', data: PNG_B64 });
    fs.writeFileSync(store.fileOf(part), 'changed');
    const h: ChatMessage[] = [{ role: 'user', content: 'x', images: [{ ...part, data: undefined }] }];
    assert.equal(await new ImageStore(dir).fill(h), 1);
    assert.equal(h[0].role === 'user' && h[0].images?.[0].data, undefined);
  });

  it('refuses bytes that are not an image, or not the type they claim', async () => {
    const store = new ImageStore(dir);
    await assert.rejects(
      store.put({ mediaType: 'image/png', data: Buffer.from('<html>').toString('base64') }),
      /not a PNG, JPEG, GIF or WebP image/,
    );
    await assert.rejects(
      store.put({ mediaType: 'image/jpeg', data: PNG_B64, name: 'x.jpg' }),
      /"x\.jpg" says it is image\/jpeg but its bytes are image\/png/,
    );
    await assert.rejects(store.put({ mediaType: 'image/png', data: 'A'.repeat(5_000_004) }), /too large/);
  });
});

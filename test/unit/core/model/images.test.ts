// Image helpers: media type from bytes, size from headers, token cost by the providers' rules, what a model
// without images gets, and what a saved task keeps.
import { strict as assert } from 'node:assert';
import {
  imageSize,
  imageTokens,
  modelTakesImages,
  sniffImageType,
  withoutImageData,
  withoutImages,
} from '../../../../src/core/model/images';
import { estimateMessagesTokens } from '../../../../src/core/context/tokens';
import type { ChatMessage } from '../../../../src/core/model/types';

const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
  'base64',
);
// A 3x2 GIF header and a JPEG with a SOF0 of 640x480.
const GIF = Buffer.from([0x47, 0x49, 0x46, 0x38, 0x39, 0x61, 3, 0, 2, 0, 0, 0, 0]);
const JPEG = Buffer.from([
  0xff, 0xd8, 0xff, 0xe0, 0x00, 0x04, 0x00, 0x00, 0xff, 0xc0, 0x00, 0x11, 0x08, 0x01, 0xe0, 0x02, 0x80, 0x03, 0, 0,
]);

describe('core/model/images', () => {
  it('knows the type from the bytes and the size from the header', () => {
    assert.equal(sniffImageType(PNG), 'image/png');
    assert.equal(sniffImageType(GIF), 'image/gif');
    assert.equal(sniffImageType(JPEG), 'image/jpeg');
    assert.equal(sniffImageType(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>')), undefined);
    assert.deepEqual(imageSize(PNG, 'image/png'), { width: 1, height: 1 });
    assert.deepEqual(imageSize(GIF, 'image/gif'), { width: 3, height: 2 });
    assert.deepEqual(imageSize(JPEG, 'image/jpeg'), { width: 640, height: 480 });
  });

  it('counts tokens by pixels: the larger of Anthropic (w*h/750) and OpenAI tiles', () => {
    // 1000x1000: Anthropic 1334; OpenAI: 768x768 -> 4 tiles -> 765.
    assert.equal(imageTokens(1000, 1000), 1334);
    // 1568x1176 (a scaled screenshot) is capped by Anthropic's 1.15 MP: ~1534.
    assert.ok(Math.abs(imageTokens(1568, 1176) - 1534) <= 1);
    // A tiny image costs OpenAI's base, not nothing.
    assert.equal(imageTokens(10, 10), 85 + 170);
    assert.equal(imageTokens(undefined, undefined), 1600);
    const msgs: ChatMessage[] = [
      {
        role: 'user',
        content: 'x',
        images: [
          { mediaType: 'image/png', sha256: 'a'.repeat(64), data: 'A'.repeat(400_000), width: 1000, height: 1000 },
        ],
      },
    ];
    // The base64 length does not count as text: ~1334 for the image, a few for the text.
    const n = estimateMessagesTokens(msgs);
    assert.ok(n >= 1334 && n < 1345, String(n));
  });

  it('knows which models take images by name', () => {
    for (const m of [
      'claude-sonnet-4-6',
      'claude-3-5-haiku',
      'gpt-4o',
      'gpt-4.1-mini',
      'gpt-5',
      'o3',
      'llava:13b',
      'qwen2.5vl:7b',
      'gemma3:4b',
      'anthropic/claude-opus-4-5',
    ])
      assert.equal(modelTakesImages(m), true, m);
    for (const m of ['qwen2.5-coder:7b', 'gpt-3.5-turbo', 'o3-mini', 'deepseek-coder', 'llama3.1:8b'])
      assert.equal(modelTakesImages(m), false, m);
  });

  it('a model without images gets one line per image; a saved task keeps the hash, not the bytes', () => {
    const img = {
      mediaType: 'image/png' as const,
      sha256: 'b'.repeat(64),
      data: 'QUJD',
      width: 2,
      height: 3,
      name: 's.png',
    };
    const h: ChatMessage[] = [{ role: 'user', content: 'see', images: [img] }];
    const text = withoutImages(h)[0];
    assert.equal(text.role === 'user' && text.images, undefined);
    assert.equal(text.content, 'see\n[image s.png (image/png 2x3) not shown: this model does not accept images]');
    const saved = withoutImageData(h)[0];
    assert.deepEqual(saved.role === 'user' && saved.images, [
      { mediaType: 'image/png', sha256: 'b'.repeat(64), width: 2, height: 3, name: 's.png' },
    ]);
    assert.equal(h[0].role === 'user' && h[0].images?.[0].data, 'QUJD', 'the live history keeps its bytes');
  });
});

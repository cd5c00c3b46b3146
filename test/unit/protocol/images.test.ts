// Forged image messages from the webview get a clear error from the schema: size caps, the media type
// allow-list, thumbnails that are only image data URLs, the per-message count.
import { strict as assert } from 'node:assert';
import { parseWebviewMessage } from '../../../src/protocol/messages';

const THUMB = 'data:image/png;base64,iVBORw0KGgo=';
const img = (over: Record<string, unknown> = {}) => ({
  mediaType: 'image/png',
  data: 'iVBORw0KGgo=',
  width: 10,
  height: 10,
  thumb: THUMB,
  ...over,
});
const send = (images: unknown) => parseWebviewMessage({ type: 'send_message', requestId: 'r1', text: 'x', images });

describe('protocol: images in send_message', () => {
  it('accepts a valid image', () => {
    assert.equal(send([img()]).ok, true);
  });

  it('refuses a huge payload quickly, saying why', () => {
    const huge = [img({ data: 'A'.repeat(13_400_000) })];
    // The best of three: the first refusal also builds zod's error path; a loaded machine adds its own pauses.
    let ms = Infinity;
    let r = send(huge);
    for (let i = 0; i < 3; i++) {
      const t0 = performance.now();
      r = send(huge);
      ms = Math.min(ms, performance.now() - t0);
    }
    assert.equal(r.ok, false);
    assert.match(!r.ok ? r.error : '', /at most 5000000 base64 characters/);
    assert.ok(ms < 50, `refused in ${ms.toFixed(1)} ms`);
  });

  it('refuses a media type outside the allow-list, a script thumbnail, too many images, a giant edge', () => {
    const cases: [unknown, RegExp][] = [
      [[img({ mediaType: 'image/svg+xml' })], /PNG, JPEG, GIF or WebP/],
      [[img({ mediaType: 'text/html' })], /PNG, JPEG, GIF or WebP/],
      [[img({ thumb: 'javascript:alert(1)' })], /thumbnail must be a base64 PNG, JPEG or WebP data URL/],
      [[img({ thumb: 'data:image/svg+xml;base64,PHN2Zz4=' })], /thumbnail/],
      [Array.from({ length: 9 }, () => img()), /at most 8 images/],
      [[img({ width: 100_000 })], /width|10000/],
      [[img({ extra: 1 })], /extra|Unrecognized/i],
    ];
    for (const [images, re] of cases) {
      const r = send(images);
      assert.equal(r.ok, false, JSON.stringify(images).slice(0, 80));
      assert.match(!r.ok ? r.error : '', re);
    }
  });
});

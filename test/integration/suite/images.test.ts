// Images from the panel in a real VS Code, sent as the webview sends them (through the panel bridge's
// connection): the image reaches the loopback model as an image_url data URL, the transcript shows its
// thumbnail, the saved task keeps only its hash (the bytes are in the image store, read back on a reload), and
// with a model that takes no images the message is refused with a plain error before any request.
import * as assert from 'node:assert';
import { llm, waitFor } from '../helpers';
import { forge, freshTask, setSetting, type ForgeApi } from './forge-api';

const PNG_B64 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';
const IMAGE = {
  mediaType: 'image/png',
  data: PNG_B64,
  width: 1,
  height: 1,
  name: 'dot.png',
  thumb: `data:image/png;base64,${PNG_B64}`,
};
let seq = 0;
const rid = () => `img-${Date.now().toString(36)}-${++seq}`;

describe('images from the panel (real VS Code)', function () {
  this.timeout(90_000);
  let api: ForgeApi;
  let conn: { receive(m: unknown): void; dispose(): void };

  before(async () => {
    api = await forge();
    conn = api.testApi.panel.bridge.connect(() => undefined);
    conn.receive({ type: 'ready' });
  });
  after(async () => {
    conn?.dispose();
    await setSetting('imageInput', undefined, 'user');
  });

  it('a pasted image reaches the model; the transcript shows it; the task file keeps only its hash', async () => {
    await setSetting('imageInput', 'on', 'user');
    await waitFor(() => api.testApi.controller.deps.model.info.images === true, 'the model to take images');
    await freshTask(api, [{ toolCalls: [{ id: 'img-1', name: 'converse', args: { reply: 'A single pixel.' } }] }]);
    conn.receive({ type: 'send_message', requestId: rid(), text: 'What is in this image?', images: [IMAGE] });
    await waitFor(async () => (await llm.requests()).length >= 1, 'the model request', 30_000);
    await waitFor(() => !api.testApi.manager.current.running, 'the run to end');
    const user = (await llm.requests())[0].body.messages.find(
      (m: any) => m.role === 'user' && Array.isArray(m.content),
    );
    assert.ok(user, 'a user message with content parts');
    assert.match(user.content[0].text, /^What is in this image\?/);
    assert.deepStrictEqual(user.content[1], {
      type: 'image_url',
      image_url: { url: `data:image/png;base64,${PNG_B64}` },
    });
    const session = api.testApi.manager.current;
    const item = session.transcript.snapshot().items.find((i: any) => i.kind === 'user');
    assert.deepStrictEqual(item.images, [{ thumb: IMAGE.thumb, width: 1, height: 1, name: 'dot.png' }]);
    const img = session.record().snapshot.history[0].images[0];
    assert.strictEqual(img.data, undefined, 'no bytes in the task file');
    assert.match(img.sha256, /^[0-9a-f]{64}$/);
    // A reload: the task comes back with the image's bytes (from the image store) and its thumbnail.
    const { restored } = await api.testApi.simulateReload();
    assert.strictEqual(restored.history[0].images[0].data, PNG_B64);
    const back = restored.transcript.snapshot().items.find((i: any) => i.kind === 'user');
    assert.strictEqual(back.images[0].thumb, IMAGE.thumb);
  });

  it('a model that takes no images: a plain error, and no request is made', async () => {
    await setSetting('imageInput', 'off', 'user');
    await waitFor(() => api.testApi.controller.deps.model.info.images === false, 'the model to refuse images');
    await freshTask(api, []);
    conn.receive({ type: 'send_message', requestId: rid(), text: 'Look at this', images: [IMAGE] });
    const error = await waitFor(
      () => api.testApi.manager.current.transcript.snapshot().items.find((i: any) => i.kind === 'error'),
      'the error in the transcript',
    );
    assert.match(error.message, /does not accept images, so your message was not sent/);
    await new Promise((r) => setTimeout(r, 500));
    assert.strictEqual((await llm.requests()).length, 0, 'nothing reached the model');
  });
});

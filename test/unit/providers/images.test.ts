// Images on the wire: the real openai and @anthropic-ai/sdk clients against the loopback server, for a user
// attachment and for an image a tool (read_file) returned; a model without image input gets text instead.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import type { ChatMessage, ImagePart } from '../../../src/core/model/types';
import { startLlmServer, type LlmServer } from '../../support/llm-server';
import { collect, modelFor } from './helpers';

// A 1x1 PNG.
const PNG_B64 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';
const IMAGE: ImagePart = {
  mediaType: 'image/png',
  sha256: createHash('sha256').update(Buffer.from(PNG_B64, 'base64')).digest('hex'),
  data: PNG_B64,
  width: 1,
  height: 1,
  name: 'dot.png',
};

const WITH_USER_IMAGE: ChatMessage[] = [{ role: 'user', content: 'What is in this picture?', images: [IMAGE] }];
const WITH_TOOL_IMAGE: ChatMessage[] = [
  { role: 'user', content: 'Look at shot.png' },
  {
    role: 'assistant',
    content: '',
    toolCalls: [{ id: 'call_1', name: 'read_file', args: { path: 'shot.png' }, rawArgs: '{"path":"shot.png"}' }],
  },
  { role: 'tool', toolCallId: 'call_1', toolName: 'read_file', content: 'shot.png: image', images: [IMAGE] },
];

describe('images on the wire (real SDKs, loopback server)', () => {
  let srv: LlmServer;
  before(async () => {
    srv = await startLlmServer();
  });
  after(() => srv.close());
  beforeEach(() => srv.reset());

  it('anthropic: a user image is a base64 image block before the text', async () => {
    srv.script([{ text: 'a dot' }]);
    await collect(modelFor(srv, 'anthropic'), { messages: WITH_USER_IMAGE });
    const content = srv.requests[0].body.messages[0].content;
    assert.deepEqual(content[0], {
      type: 'image',
      source: { type: 'base64', media_type: 'image/png', data: PNG_B64 },
    });
    assert.equal(content[1].type, 'text');
    assert.equal(content[1].text, 'What is in this picture?');
  });

  it('anthropic: an image read_file returned is inside its tool_result', async () => {
    srv.script([{ text: 'seen' }]);
    await collect(modelFor(srv, 'anthropic'), { messages: WITH_TOOL_IMAGE });
    const user = srv.requests[0].body.messages[2];
    const result = user.content.find((b: { type: string }) => b.type === 'tool_result');
    assert.equal(result.tool_use_id, 'call_1');
    assert.deepEqual(result.content[0], { type: 'text', text: 'shot.png: image' });
    assert.deepEqual(result.content[1], {
      type: 'image',
      source: { type: 'base64', media_type: 'image/png', data: PNG_B64 },
    });
  });

  it('openai: a user image is an image_url data URL part after the text', async () => {
    srv.script([{ text: 'a dot' }]);
    await collect(modelFor(srv, 'openai'), { messages: WITH_USER_IMAGE });
    const user = srv.requests[0].body.messages[1];
    assert.equal(user.role, 'user');
    assert.deepEqual(user.content[0], { type: 'text', text: 'What is in this picture?' });
    assert.deepEqual(user.content[1], { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG_B64}` } });
  });

  it('openai: a tool result stays text and its image follows as a user message', async () => {
    srv.script([{ text: 'seen' }]);
    await collect(modelFor(srv, 'openai'), { messages: WITH_TOOL_IMAGE });
    const msgs = srv.requests[0].body.messages;
    const tool = msgs.find((m: { role: string }) => m.role === 'tool');
    assert.equal(tool.content, 'shot.png: image');
    const after = msgs[msgs.indexOf(tool) + 1];
    assert.equal(after.role, 'user');
    assert.deepEqual(after.content[1], { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG_B64}` } });
  });

  for (const provider of ['openai', 'anthropic'] as const) {
    it(`${provider}: a model without image input gets a plain note, no image bytes`, async () => {
      srv.script([{ text: 'ok' }]);
      await collect(modelFor(srv, provider, { images: false }), { messages: WITH_USER_IMAGE });
      const raw = JSON.stringify(srv.requests[0].body);
      assert.ok(!raw.includes(PNG_B64), 'no image bytes on the wire');
      assert.match(raw, /image dot\.png \(image\/png 1x1\) not shown: this model does not accept images/);
    });

    it(`${provider}: an image whose bytes are gone is named as missing, not sent empty`, async () => {
      srv.script([{ text: 'ok' }]);
      const { data: _gone, ...meta } = IMAGE;
      await collect(modelFor(srv, provider), {
        messages: [{ role: 'user', content: 'and this?', images: [meta] }],
      });
      const raw = JSON.stringify(srv.requests[0].body);
      assert.ok(!raw.includes('"type":"image'), 'no empty image part');
      assert.match(raw, /image dot\.png is no longer stored/);
    });
  }
});

// The loopback server itself: cross-process control endpoints and non-streaming JSON replies.
import assert from 'node:assert/strict';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { startLlmServer, type LlmServer } from '../../support/llm-server';
import { collect, modelFor, text } from './helpers';

describe('loopback LLM server', () => {
  let srv: LlmServer;
  before(async () => {
    srv = await startLlmServer();
  });
  after(() => srv.close());
  beforeEach(() => srv.reset());

  it('is scripted over HTTP (POST /__script) and reports requests (GET /__requests)', async () => {
    const res = await fetch(`${srv.url}/__script`, {
      method: 'POST',
      body: JSON.stringify([{ text: 'from another process' }]),
    });
    assert.deepEqual(await res.json(), { pending: 1 });
    const events = await collect(modelFor(srv, 'anthropic'));
    assert.equal(text(events), 'from another process');
    const recorded = await (await fetch(`${srv.url}/__requests`)).json();
    assert.equal(recorded.length, 1);
    assert.equal(recorded[0].provider, 'anthropic');
    assert.equal(recorded[0].body.messages[0].content[0].text, 'hi');
    await fetch(`${srv.url}/__reset`, { method: 'POST' });
    assert.equal(srv.requests.length, 0);
  });

  it('reports arrival times (GET /__times) and answers GET /__await once the count is reached, or at its timeout', async () => {
    srv.script([{ text: 'one' }]);
    const t0 = Date.now();
    const waiting = fetch(`${srv.url}/__await?count=1&timeoutMs=5000`).then((r) => r.json() as Promise<number[]>);
    let answered = false;
    void waiting.then(() => (answered = true));
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(answered, false, 'no request yet: still waiting');
    await collect(modelFor(srv, 'openai'));
    const times = await waiting;
    assert.equal(times.length, 1);
    assert.ok(times[0]! >= t0 && times[0]! <= Date.now());
    assert.deepEqual(await (await fetch(`${srv.url}/__times`)).json(), times);
    // Already there: at once. Not reached: at the timeout, with what arrived.
    assert.deepEqual(await (await fetch(`${srv.url}/__await?count=1&timeoutMs=5000`)).json(), times);
    const started = Date.now();
    assert.deepEqual(await (await fetch(`${srv.url}/__await?count=2&timeoutMs=100`)).json(), times);
    assert.ok(Date.now() - started >= 90);
  });

  it('answers with a clear 500 when the script is exhausted', async () => {
    const events = await collect(modelFor(srv, 'openai')).catch((e) => e);
    assert.equal(events.kind, 'server');
    assert.match(events.message, /no scripted turn left/);
  });

  it('serves non-streaming JSON for both providers', async () => {
    srv.script([
      { text: 'summary', usage: { inputTokens: 5, outputTokens: 2 } },
      { text: 'summary', toolCalls: [{ id: 't1', name: 'x', args: { a: 1 } }] },
    ]);
    const oa = new OpenAI({ apiKey: 'k', baseURL: srv.openaiBaseUrl, maxRetries: 0 });
    const r1 = await oa.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'sum' }] });
    assert.equal(r1.choices[0].message.content, 'summary');
    assert.equal(r1.usage?.prompt_tokens, 5);
    const an = new Anthropic({ apiKey: 'k', baseURL: srv.anthropicBaseUrl, maxRetries: 0 });
    const r2 = await an.messages.create({
      model: 'claude-haiku-4-5',
      max_tokens: 10,
      messages: [{ role: 'user', content: 'sum' }],
    });
    assert.deepEqual(
      r2.content.map((b) => b.type),
      ['text', 'tool_use'],
    );
    assert.equal(r2.stop_reason, 'tool_use');
    assert.equal(srv.requests[1].stream, false);
  });
});

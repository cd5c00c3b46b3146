// Both adapters against the loopback server: text, thinking, streamed tool calls over 7-byte CRLF chunks, usage.
import assert from 'node:assert/strict';
import { startLlmServer, type LlmServer } from '../../support/llm-server';
import { costOf, priceFor } from '../../../src/core/model/pricing';
import { collect, modelFor, ofType, PROVIDERS, text, thinking } from './helpers';

const WRITE_ARGS = { path: 'src/a.ts', content: 'export const a = "héllo";\n'.repeat(5) };

for (const provider of PROVIDERS) {
  describe(`${provider} adapter streaming`, () => {
    let srv: LlmServer;
    before(async () => {
      srv = await startLlmServer();
    });
    after(() => srv.close());
    beforeEach(() => {
      srv.reset();
      srv.configure({ chunkBytes: 0, eol: '\n' });
    });

    it('streams text deltas, usage and finish=stop', async () => {
      srv.script([{ text: 'Hello there, world!', usage: { inputTokens: 42, outputTokens: 7 } }]);
      const events = await collect(modelFor(srv, provider));
      assert.equal(text(events), 'Hello there, world!');
      assert.ok(ofType(events, 'text').length >= 3, 'text arrives as several deltas');
      assert.deepEqual(ofType(events, 'usage').at(-1)!.usage, { inputTokens: 42, outputTokens: 7 });
      assert.deepEqual(events.at(-1), { type: 'finish', reason: 'stop' });
    });

    it('streams a tool call split over many 7-byte CRLF TCP chunks', async () => {
      srv.configure({ chunkBytes: 7, eol: '\r\n' });
      srv.script([
        { text: 'Writing.', toolCalls: [{ id: 'call_w', name: 'write_file', args: WRITE_ARGS }], deltaSize: 5 },
      ]);
      const events = await collect(modelFor(srv, provider));
      const start = ofType(events, 'tool_call_start');
      assert.deepEqual(start, [{ type: 'tool_call_start', id: 'call_w', name: 'write_file' }]);
      const deltas = ofType(events, 'tool_call_delta');
      assert.ok(deltas.length > 10, `many arg deltas, got ${deltas.length}`);
      const end = ofType(events, 'tool_call_end')[0];
      assert.equal(end.id, 'call_w');
      assert.deepEqual(end.args, WRITE_ARGS);
      assert.equal(end.rawArgs, JSON.stringify(WRITE_ARGS));
      assert.equal(deltas.map((d) => d.argsDelta).join(''), end.rawArgs);
      assert.equal(end.parseError, undefined);
      // Order: start before deltas before end, end before finish.
      const idx = (e: unknown) => events.indexOf(e as never);
      assert.ok(idx(start[0]) < idx(deltas[0]) && idx(deltas.at(-1)) < idx(end) && idx(end) < events.length - 1);
      assert.deepEqual(events.at(-1), { type: 'finish', reason: 'tool_calls' });
      assert.equal(text(events), 'Writing.');
    });

    it('streams two tool calls in order', async () => {
      srv.script([
        {
          toolCalls: [
            { id: 'c1', name: 'read_file', args: { path: 'a' } },
            { id: 'c2', name: 'list_files', args: {} },
          ],
        },
      ]);
      const events = await collect(modelFor(srv, provider));
      const ends = ofType(events, 'tool_call_end');
      assert.deepEqual(
        ends.map((e) => [e.id, e.name, e.args]),
        [
          ['c1', 'read_file', { path: 'a' }],
          ['c2', 'list_files', {}],
        ],
      );
    });

    it('reports thinking deltas', async () => {
      srv.script([{ thinking: 'Let me think about this.', thinkingSignature: 'sig-xyz', text: 'Done.' }]);
      const events = await collect(modelFor(srv, provider));
      assert.equal(thinking(events), 'Let me think about this.');
      if (provider === 'anthropic') {
        assert.ok(
          events.some((e) => e.type === 'thinking' && e.signature === 'sig-xyz'),
          'signature surfaced',
        );
      }
      assert.equal(text(events), 'Done.');
    });

    it('normalizes cached usage (inputTokens = whole prompt) and prices it', async () => {
      srv.script([{ text: 'ok', usage: { inputTokens: 1000, outputTokens: 200, cacheReadTokens: 4000 } }]);
      const events = await collect(modelFor(srv, provider));
      const usage = ofType(events, 'usage').at(-1)!.usage;
      assert.deepEqual(usage, { inputTokens: 5000, outputTokens: 200, cacheReadTokens: 4000 });
      const model = provider === 'openai' ? 'gpt-4o' : 'claude-sonnet-4-6';
      const cost = costOf(usage, priceFor(provider, model)!);
      const expected =
        provider === 'openai' ? (1000 * 2.5 + 4000 * 1.25 + 200 * 10) / 1e6 : (1000 * 3 + 4000 * 0.3 + 200 * 15) / 1e6;
      assert.ok(Math.abs(cost - expected) < 1e-12, `${cost} vs ${expected}`);
    });
  });
}

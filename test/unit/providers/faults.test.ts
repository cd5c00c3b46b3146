// Each provider fault maps to the right ModelError kind (real SDKs, loopback server, maxRetries 0).
import assert from 'node:assert/strict';
import { ModelError } from '../../../src/core/model/errors';
import { startLlmServer, type LlmServer } from '../../support/llm-server';
import { collect, collectError, modelFor, ofType, PROVIDERS, text } from './helpers';

for (const provider of PROVIDERS) {
  describe(`${provider} adapter faults`, () => {
    let srv: LlmServer;
    before(async () => {
      srv = await startLlmServer({ chunkBytes: 7, eol: '\r\n' });
    });
    after(() => srv.close());
    beforeEach(() => srv.reset());

    const httpCases: Array<[number, ModelError['kind']]> = [
      [500, 'server'],
      [529, 'overloaded'],
      [503, 'overloaded'],
      [401, 'auth'],
      [403, 'auth'],
      [400, 'bad_request'],
      [404, 'bad_request'],
    ];
    for (const [status, kind] of httpCases) {
      it(`HTTP ${status} -> ${kind}`, async () => {
        srv.script([{ fault: 'http', status }]);
        const { error } = await collectError(modelFor(srv, provider));
        assert.ok(error instanceof ModelError, String(error));
        assert.equal(error.kind, kind);
        assert.equal(error.status, status);
        assert.equal(srv.requests.length, 1, 'the SDK did not retry on its own');
      });
    }

    it('429 with retry-after seconds -> rate_limit with retryAfterMs', async () => {
      srv.script([{ fault: 'http', status: 429, retryAfter: 7 }]);
      const { error } = await collectError(modelFor(srv, provider));
      assert.equal(error.kind, 'rate_limit');
      assert.equal(error.retryAfterMs, 7000);
      assert.equal(error.retryable, true);
      assert.match(error.message, /429/);
    });

    it('429 with retry-after-ms wins over retry-after', async () => {
      srv.script([{ fault: 'http', status: 429, retryAfter: 7, retryAfterMs: 1500 }]);
      const { error } = await collectError(modelFor(srv, provider));
      assert.equal(error.retryAfterMs, 1500);
    });

    it('stream cut in the middle of tool-call arguments -> stream (no tool_call_end)', async () => {
      srv.script([{ fault: 'cut_mid_tool_call' }]);
      const { error, events } = await collectError(modelFor(srv, provider));
      assert.equal(error.kind, 'stream', error.message);
      assert.ok(ofType(events, 'tool_call_start').length === 1, 'the call had started');
      assert.equal(ofType(events, 'tool_call_end').length, 0);
    });

    it('error frame mid-stream -> stream kind, text before it delivered', async () => {
      srv.script([{ fault: 'error_frame', message: 'boom' }]);
      const { error, events } = await collectError(modelFor(srv, provider));
      assert.ok(['stream', 'server'].includes(error.kind), error.kind);
      assert.match(error.message, /boom/);
      assert.ok(text(events).length > 0);
    });

    it('error frame typed overloaded_error -> overloaded', async () => {
      srv.script([{ fault: 'error_frame', errorType: 'overloaded_error', message: 'Overloaded' }]);
      const { error } = await collectError(modelFor(srv, provider));
      assert.equal(error.kind, 'overloaded');
    });

    it('invalid JSON arguments -> tool_call_end with a precise parseError', async () => {
      srv.script([{ fault: 'invalid_json_args' }]);
      const events = await collect(modelFor(srv, provider));
      const end = ofType(events, 'tool_call_end')[0];
      assert.equal(end.name, 'read_file');
      assert.equal(end.args, undefined);
      assert.equal(end.rawArgs, '{"path": "src/a.ts", "recursive": tru');
      assert.match(end.parseError!, /^invalid JSON in tool arguments: .+ at char \d+ of 37/);
      assert.deepEqual(events.at(-1), { type: 'finish', reason: 'tool_calls' });
    });

    it('abort mid-stream (server hangs) -> aborted within 1 s', async () => {
      srv.script([{ fault: 'hang', text: 'Working on it' }]);
      const ac = new AbortController();
      const seen: string[] = [];
      const t0 = Date.now();
      let error: any;
      try {
        for await (const ev of modelFor(srv, provider).stream({
          system: [],
          messages: [{ role: 'user', content: 'x' }],
          tools: [],
          signal: ac.signal,
        })) {
          if (ev.type === 'text') {
            seen.push(ev.delta);
            setTimeout(() => ac.abort(), 20);
          }
        }
      } catch (e) {
        error = e;
      }
      assert.ok(error instanceof ModelError, String(error));
      assert.equal(error.kind, 'aborted');
      assert.equal(seen.join(''), 'Working on it');
      assert.ok(Date.now() - t0 < 1000, `took ${Date.now() - t0} ms`);
    });

    it('abort before any response headers (hang) -> aborted', async () => {
      srv.script([{ fault: 'hang' }]);
      const ac = new AbortController();
      setTimeout(() => ac.abort(), 50);
      const { error } = await collectError(modelFor(srv, provider), { signal: ac.signal });
      assert.equal(error.kind, 'aborted');
    });

    it('connection refused -> network', async () => {
      const dead = await startLlmServer();
      const url = dead.url;
      await dead.close();
      const model = modelFor(srv, provider, { baseUrl: provider === 'openai' ? `${url}/v1` : url });
      const { error } = await collectError(model);
      assert.equal(error.kind, 'network', error.message);
    });
  });
}

// Context-window discovery per server flavour, the connection check's messages and auto-detection of local
// servers, all against loopback fakes of each server's API (test/support/llm-server/ollama-wire.ts).
import assert from 'node:assert/strict';
import {
  checkEndpoint,
  ContextWindowCache,
  detectLocalServers,
  discoverContextWindow,
  OLLAMA_DEFAULT_RUNTIME_CTX,
} from '../../../src/providers/endpoint-discovery';
import { createEndpointModel } from '../../../src/providers/local-model';
import { startLlmServer, type LlmServer } from '../../support/llm-server';
import {
  closedPort,
  startFakeLocalServer,
  type FakeLocalServer,
  type FakeLocalServerOptions,
} from '../../support/llm-server/ollama-wire';

describe('local endpoints: context windows, connection check, detection', () => {
  let llm: LlmServer;
  const open: FakeLocalServer[] = [];
  before(async () => {
    llm = await startLlmServer();
  });
  after(async () => {
    await Promise.all(open.map((s) => s.close()));
    await llm.close();
  });
  const fake = async (o: Omit<FakeLocalServerOptions, 'upstream'>) => {
    const s = await startFakeLocalServer({ ...o, upstream: llm });
    open.push(s);
    return s;
  };

  describe('context window discovery', () => {
    it('Ollama: num_ctx in the Modelfile wins over the trained length', async () => {
      const s = await fake({
        flavour: 'ollama',
        models: [{ id: 'qwen2.5-coder:7b', contextLength: 32768, numCtx: 8192, arch: 'qwen2' }],
      });
      const w = await discoverContextWindow({ baseUrl: s.baseUrl, model: 'qwen2.5-coder:7b' });
      assert.deepEqual([w?.tokens, w?.flavour, w?.provisional], [8192, 'ollama', undefined]);
      assert.match(w!.source, /num_ctx/);
      assert.ok(s.seen.includes('POST /api/show'));
    });

    it('Ollama: a loaded model reports its runtime context (api/ps)', async () => {
      const s = await fake({
        flavour: 'ollama',
        models: [{ id: 'llama3.1:8b', contextLength: 131072, loadedContext: 16384 }],
      });
      const w = await discoverContextWindow({ baseUrl: s.baseUrl, model: 'llama3.1:8b' });
      assert.equal(w?.tokens, 16384);
      assert.match(w!.source, /api\/ps/);
    });

    it('Ollama: otherwise the default runtime context, not the 128k trained length (provisional, not cached)', async () => {
      const s = await fake({ flavour: 'ollama', models: [{ id: 'llama3.1:8b', contextLength: 131072 }] });
      const cache = new ContextWindowCache();
      const w = await cache.get({ baseUrl: s.baseUrl, model: 'llama3.1:8b' });
      assert.equal(w?.tokens, OLLAMA_DEFAULT_RUNTIME_CTX);
      assert.equal(w?.provisional, true);
      assert.match(w!.source, /trained for 131072/);
      assert.equal(cache.peek(s.baseUrl, 'llama3.1:8b'), undefined, 'a guess is asked again next time');
    });

    it('Ollama: a model trained for less than the default uses its own length', async () => {
      const s = await fake({ flavour: 'ollama', models: [{ id: 'tiny:1b', contextLength: 2048, arch: 'gemma' }] });
      assert.equal((await discoverContextWindow({ baseUrl: s.baseUrl, model: 'tiny:1b' }))?.tokens, 2048);
    });

    it('LM Studio: loaded_context_length, else max_context_length', async () => {
      const s = await fake({
        flavour: 'lmstudio',
        models: [
          { id: 'qwen/qwen3-8b', contextLength: 40960, loadedContext: 8192 },
          { id: 'google/gemma-3-4b', contextLength: 131072 },
        ],
      });
      const loaded = await discoverContextWindow({ baseUrl: s.baseUrl, model: 'qwen/qwen3-8b' });
      assert.deepEqual([loaded?.tokens, loaded?.flavour], [8192, 'lmstudio']);
      const idle = await discoverContextWindow({ baseUrl: s.baseUrl, model: 'google/gemma-3-4b' });
      assert.deepEqual([idle?.tokens, idle?.provisional], [131072, true]);
    });

    it('vLLM: max_model_len on the /v1/models entry', async () => {
      const s = await fake({ flavour: 'vllm', models: [{ id: 'Qwen/Qwen2.5-7B-Instruct', contextLength: 12288 }] });
      const w = await discoverContextWindow({ baseUrl: s.baseUrl, model: 'Qwen/Qwen2.5-7B-Instruct' });
      assert.deepEqual([w?.tokens, w?.flavour, w?.source], [12288, 'vllm', 'vLLM max_model_len']);
    });

    it('OpenRouter-shaped list: context_length (cached per endpoint + model)', async () => {
      const s = await fake({
        flavour: 'openrouter',
        models: [{ id: 'meta-llama/llama-3.1-8b-instruct', contextLength: 131072 }],
      });
      const cache = new ContextWindowCache();
      assert.equal(
        (await cache.get({ baseUrl: s.baseUrl, model: 'meta-llama/llama-3.1-8b-instruct' }))?.tokens,
        131072,
      );
      const before = s.seen.length;
      assert.equal(
        (await cache.get({ baseUrl: s.baseUrl, model: 'meta-llama/llama-3.1-8b-instruct' }))?.tokens,
        131072,
      );
      assert.equal(s.seen.length, before, 'second lookup served from the cache');
    });

    it('llama.cpp: the runtime n_ctx from /props beats the trained n_ctx_train', async () => {
      const s = await fake({
        flavour: 'llamacpp',
        models: [{ id: 'model.gguf', contextLength: 131072, loadedContext: 8192 }],
      });
      const w = await discoverContextWindow({ baseUrl: s.baseUrl, model: 'model.gguf' });
      assert.deepEqual([w?.tokens, w?.flavour], [8192, 'llamacpp']);
    });

    it('a server that says nothing: undefined; the model then says where its number came from', async () => {
      const s = await fake({ flavour: 'plain', models: [{ id: 'm' }] });
      assert.equal(await discoverContextWindow({ baseUrl: s.baseUrl, model: 'm' }), undefined);
      const built = await createEndpointModel({ provider: 'openai-compatible', model: 'm', baseUrl: s.baseUrl });
      assert.equal(built.model.info.contextWindow, 128_000);
      assert.match(built.contextWindow.source, /assumed.*forge\.contextWindow/);
    });

    it('forge.contextWindow overrides what the server says', async () => {
      const s = await fake({
        flavour: 'ollama',
        models: [{ id: 'qwen2.5-coder:7b', contextLength: 32768, numCtx: 8192 }],
      });
      const built = await createEndpointModel({
        provider: 'openai-compatible',
        model: 'qwen2.5-coder:7b',
        baseUrl: s.baseUrl,
        contextWindowOverride: 20000,
      });
      assert.deepEqual([built.model.info.contextWindow, built.contextWindow.source], [20000, 'forge.contextWindow']);
    });
  });

  describe('connection check', () => {
    it('connection refused: nothing is listening, is Ollama running?', async () => {
      const port = await closedPort();
      const r = await checkEndpoint({ baseUrl: `http://127.0.0.1:${port}/v1`, model: 'x' });
      assert.equal(r.problem, 'refused');
      assert.match(
        r.message!,
        new RegExp(
          `Nothing is listening at http://127\\.0\\.0\\.1:${port}/v1; is the OpenAI-compatible server running\\?`,
        ),
      );
    });

    it('names Ollama / LM Studio when the URL is on their default port', async () => {
      // Nothing is fetched: a fetch that refuses like a closed port.
      const refuse: typeof fetch = async () => {
        throw Object.assign(new TypeError('fetch failed'), { cause: { code: 'ECONNREFUSED' } });
      };
      const ollama = await checkEndpoint({ baseUrl: 'http://127.0.0.1:11434/v1', fetch: refuse });
      assert.equal(
        ollama.message,
        'Nothing is listening at http://127.0.0.1:11434/v1; is Ollama running? (start it with "ollama serve")',
      );
      const lms = await checkEndpoint({ baseUrl: 'http://127.0.0.1:1234/v1', fetch: refuse });
      assert.match(lms.message!, /is LM Studio's server started\?/);
    });

    it('404 on /models: wrong base URL, it should end in /v1', async () => {
      const s = await fake({ flavour: 'ollama', models: [{ id: 'llama3.1:8b' }] });
      const r = await checkEndpoint({ baseUrl: s.url, model: 'llama3.1:8b' });
      assert.equal(r.problem, 'wrong_base_url');
      assert.match(
        r.message!,
        new RegExp(
          `Wrong base URL: ${s.url}/models is not there \\(HTTP 404\\); it should end in /v1 \\(e\\.g\\. ${s.url}/v1\\)`,
        ),
      );
    });

    it('model missing: lists the models that exist', async () => {
      const s = await fake({ flavour: 'ollama', models: [{ id: 'llama3.1:8b' }, { id: 'qwen2.5-coder:7b' }] });
      const r = await checkEndpoint({ baseUrl: s.baseUrl, model: 'llama3.2' });
      assert.equal(r.problem, 'model_missing');
      assert.match(r.message!, /has no model "llama3\.2"\. Available: llama3\.1:8b, qwen2\.5-coder:7b\./);
      assert.deepEqual(
        r.models.map((m) => m.id),
        ['llama3.1:8b', 'qwen2.5-coder:7b'],
      );
    });

    it('an Ollama name without :latest matches the listed one', async () => {
      const s = await fake({ flavour: 'ollama', models: [{ id: 'mistral:latest' }] });
      assert.equal((await checkEndpoint({ baseUrl: s.baseUrl, model: 'mistral' })).ok, true);
    });

    it('a timeout is reported as such', async () => {
      const hang: typeof fetch = (_u, init) =>
        new Promise((_r, reject) =>
          init?.signal?.addEventListener('abort', () =>
            reject(Object.assign(new Error('aborted'), { name: 'AbortError' })),
          ),
        );
      const r = await checkEndpoint({ baseUrl: 'http://127.0.0.1:9/v1', fetch: hang, timeoutMs: 50 });
      assert.equal(r.problem, 'timeout');
      assert.match(r.message!, /did not answer within 50 ms/);
    });

    it('not a URL', async () => {
      assert.match((await checkEndpoint({ baseUrl: 'localhost:11434' })).message!, /is not a URL/);
    });
  });

  describe('auto-detection on the default ports (ports injected)', () => {
    it('finds Ollama and LM Studio with their models, quickly', async () => {
      const ollama = await fake({ flavour: 'ollama', models: [{ id: 'llama3.1:8b' }, { id: 'qwen2.5-coder:7b' }] });
      const lms = await fake({ flavour: 'lmstudio', models: [{ id: 'qwen/qwen3-8b' }] });
      const t0 = Date.now();
      const found = await detectLocalServers({ ports: { ollama: ollama.port, lmstudio: lms.port } });
      assert.ok(Date.now() - t0 < 1000);
      assert.deepEqual(
        found.map((f) => [f.flavour, f.baseUrl, f.models]),
        [
          ['ollama', `${ollama.url}/v1`, ['llama3.1:8b', 'qwen2.5-coder:7b']],
          ['lmstudio', `${lms.url}/v1`, ['qwen/qwen3-8b']],
        ],
      );
    });

    it('closed ports: nothing found, no error, no wait', async () => {
      const [a, b] = [await closedPort(), await closedPort()];
      const t0 = Date.now();
      assert.deepEqual(await detectLocalServers({ ports: { ollama: a, lmstudio: b } }), []);
      assert.ok(Date.now() - t0 < 500, `took ${Date.now() - t0} ms`);
    });

    it('a port that never answers is given up after the probe timeout', async () => {
      const hang: typeof fetch = (_u, init) =>
        new Promise((_r, reject) =>
          init?.signal?.addEventListener('abort', () =>
            reject(Object.assign(new Error('aborted'), { name: 'AbortError' })),
          ),
        );
      const t0 = Date.now();
      assert.deepEqual(await detectLocalServers({ fetch: hang, timeoutMs: 100 }), []);
      assert.ok(Date.now() - t0 < 600);
    });
  });
});

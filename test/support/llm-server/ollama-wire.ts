// Local-server personalities in front of the loopback LLM server: answers the native APIs of Ollama
// (/api/tags, /api/show, /api/ps), LM Studio (/api/v0/models, /api/v1/models), llama.cpp (/props) and the
// /v1/models list the way each flavour shapes it (vLLM max_model_len, OpenRouter context_length), refuses
// requests carrying tools with the server's own error text, and forwards every other request (chat
// completions) to the scripted LlmServer. Bound to 127.0.0.1 on a random port.
import * as http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { LlmServer } from '../llm-server';

export interface FakeLocalModel {
  id: string;
  /** Trained length (Ollama model_info "<arch>.context_length", LM Studio max_context_length, vLLM max_model_len...). */
  contextLength?: number;
  /** Ollama: a `num_ctx` line in the Modelfile parameters. */
  numCtx?: number;
  /** Ollama /api/ps context_length / LM Studio loaded_context_length (the model is loaded with this). */
  loadedContext?: number;
  arch?: string;
}

export type Flavour = 'ollama' | 'lmstudio' | 'vllm' | 'openrouter' | 'llamacpp' | 'plain';

/** The servers' real refusal texts (see src/providers/tool-format.ts). */
export const REFUSALS = {
  ollama: (model: string) => ({
    status: 400,
    body: {
      error: {
        message: `registry.ollama.ai/library/${model} does not support tools`,
        type: 'api_error',
        param: null,
        code: null,
      },
    },
  }),
  vllm: () => ({
    status: 400,
    body: {
      object: 'error',
      message: '"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set',
      type: 'BadRequestError',
      param: null,
      code: 400,
    },
  }),
  llamacpp: () => ({
    status: 500,
    body: { error: { code: 500, message: 'tools param requires --jinja flag', type: 'server_error' } },
  }),
  openrouter: () => ({
    status: 404,
    body: {
      error: {
        message:
          'No endpoints found that support tool use. To learn more about provider routing, visit: https://openrouter.ai/docs/provider-routing',
        code: 404,
      },
    },
  }),
} as const;

export interface FakeLocalServerOptions {
  flavour: Flavour;
  models: FakeLocalModel[];
  /** Answer chat requests that carry `tools` with this flavour's refusal (Ollama / vLLM / llama.cpp / OpenRouter). */
  refuseTools?: boolean;
  /** Where chat requests go. */
  upstream: LlmServer;
  /** 404 on /v1/models (a server that does not serve the OpenAI API there). */
  noModelList?: boolean;
}

export interface FakeLocalServer {
  readonly url: string;
  readonly port: number;
  readonly baseUrl: string;
  /** Every request seen: method + path. */
  readonly seen: string[];
  /** Chat requests answered with a refusal. */
  refused: number;
  close(): Promise<void>;
}

function modelList(o: FakeLocalServerOptions): unknown {
  const data = o.models.map((m) => {
    const base = { id: m.id, object: 'model', created: 1_700_000_000, owned_by: 'local' };
    if (o.flavour === 'vllm') return { ...base, max_model_len: m.contextLength };
    if (o.flavour === 'openrouter')
      return {
        ...base,
        name: m.id,
        context_length: m.contextLength,
        top_provider: { context_length: m.contextLength },
      };
    if (o.flavour === 'llamacpp') return { ...base, meta: { n_ctx_train: m.contextLength } };
    return base; // Ollama and LM Studio list bare ids here
  });
  return { object: 'list', data };
}

export async function startFakeLocalServer(o: FakeLocalServerOptions): Promise<FakeLocalServer> {
  const sockets = new Set<Socket>();
  const seen: string[] = [];
  const state = { refused: 0 };
  const upstream = new URL(o.upstream.url);
  const server = http.createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (b: Buffer) => parts.push(b));
    req.on('end', () => {
      const raw = Buffer.concat(parts);
      const path = (req.url ?? '/').split('?')[0];
      seen.push(`${req.method} ${path}`);
      const json = (status: number, body: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body));
      };
      let body: any;
      try {
        body = raw.length ? JSON.parse(raw.toString('utf8')) : undefined;
      } catch {
        body = undefined;
      }
      const find = (name: unknown) => o.models.find((m) => m.id === name);
      if (path === '/v1/models' && req.method === 'GET')
        return o.noModelList ? json(404, { error: '404 page not found' }) : json(200, modelList(o));
      if (o.flavour === 'ollama') {
        if (path === '/api/tags')
          return json(200, { models: o.models.map((m) => ({ name: m.id, model: m.id, size: 1 })) });
        if (path === '/api/show' && req.method === 'POST') {
          const m = find(body?.model ?? body?.name);
          if (!m) return json(404, { error: `model '${body?.model}' not found` });
          const arch = m.arch ?? 'llama';
          return json(200, {
            modelfile: '# fake',
            parameters: m.numCtx ? `stop "<|eot_id|>"\nnum_ctx ${m.numCtx}` : 'stop "<|eot_id|>"',
            details: { family: arch },
            model_info: {
              'general.architecture': arch,
              [`${arch}.context_length`]: m.contextLength,
              [`${arch}.embedding_length`]: 4096,
            },
          });
        }
        if (path === '/api/ps') {
          return json(200, {
            models: o.models
              .filter((m) => m.loadedContext)
              .map((m) => ({ name: m.id, model: m.id, context_length: m.loadedContext })),
          });
        }
      }
      if (o.flavour === 'lmstudio' && path === '/api/v0/models') {
        return json(200, {
          object: 'list',
          data: o.models.map((m) => ({
            id: m.id,
            object: 'model',
            type: 'llm',
            state: m.loadedContext ? 'loaded' : 'not-loaded',
            max_context_length: m.contextLength,
            ...(m.loadedContext ? { loaded_context_length: m.loadedContext } : {}),
          })),
        });
      }
      if (o.flavour === 'llamacpp' && path === '/props') {
        return json(200, { default_generation_settings: { n_ctx: o.models[0]?.loadedContext ?? 4096 } });
      }
      if (path.endsWith('/chat/completions') && o.refuseTools && Array.isArray(body?.tools) && body.tools.length) {
        const f =
          o.flavour === 'ollama' || o.flavour === 'vllm' || o.flavour === 'llamacpp' || o.flavour === 'openrouter'
            ? o.flavour
            : 'ollama';
        const r = f === 'ollama' ? REFUSALS.ollama(String(body.model)) : REFUSALS[f]();
        state.refused++;
        return json(r.status, r.body);
      }
      if (!path.endsWith('/chat/completions'))
        return json(404, { error: `fake ${o.flavour}: no route for ${req.method} ${path}` });
      // Forward to the scripted server, streaming the answer back as it comes.
      const fwd = http.request(
        {
          host: upstream.hostname,
          port: upstream.port,
          method: req.method,
          path: req.url,
          headers: { ...req.headers, host: upstream.host },
        },
        (up) => {
          res.writeHead(up.statusCode ?? 502, up.headers);
          up.pipe(res);
        },
      );
      fwd.on('error', () => json(502, { error: 'upstream failed' }));
      fwd.end(raw);
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const port = (server.address() as AddressInfo).port;
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    port,
    baseUrl: `${url}/v1`,
    seen,
    get refused() {
      return state.refused;
    },
    set refused(v: number) {
      state.refused = v;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** A port nothing listens on (bound, then released). */
export async function closedPort(): Promise<number> {
  const s = http.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

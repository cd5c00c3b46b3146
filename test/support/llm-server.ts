// Loopback LLM server speaking OpenAI chat-completions and Anthropic messages streaming, driven by scripted turns.
// In-process: `startLlmServer()`. Cross-process: POST /__script (JSON array of turns), GET /__requests, POST /__reset,
// GET /__times (arrival times only) and GET /__await?count=N&timeoutMs=T (answers with the arrival times once N requests
// arrived, or at the timeout: a client waiting for a request costs its process nothing, unlike polling /__requests).
import * as http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { anthropicHttpErrorBody, anthropicJson, anthropicStreamFrames, sse } from './llm-server/anthropic-wire';
import { openaiErrorFrame, openaiHttpErrorBody, openaiJson, openaiStreamFrames } from './llm-server/openai-wire';
import { CacheSim, type CacheSimOptions } from './llm-server/cache-sim';
import {
  defaultUsage,
  type Frame,
  type LlmTurn,
  type RecordedRequest,
  type ReplyTurn,
  type WireProvider,
} from './llm-server/types';

export type {
  LlmTurn,
  ReplyTurn,
  FaultTurn,
  RecordedRequest,
  ScriptedToolCall,
  ScriptedUsage,
} from './llm-server/types';
export type { CacheSimOptions, CacheSimRecord } from './llm-server/cache-sim';

export interface LlmServerOptions {
  /** Split every response into TCP writes of this many bytes (0 = one write per frame). */
  chunkBytes?: number;
  /** Line ending inside SSE frames. */
  eol?: '\n' | '\r\n';
  /** Fixed port (default: random). */
  port?: number;
  /**
   * Behave like the providers' prompt caches (llm-server/cache-sim.ts): input and cache usage of every reply are
   * computed from the request (output tokens still come from the script), and invalid Anthropic requests get a 400.
   */
  cache?: boolean | CacheSimOptions;
  /** Answer GET …/models with these ids, like a real OpenAI-compatible server (default: no such route, 404). */
  models?: string[];
}

export interface LlmServer {
  /** e.g. http://127.0.0.1:PORT — the control endpoints live here. */
  readonly url: string;
  /** baseURL for the openai SDK: `${url}/v1`. */
  readonly openaiBaseUrl: string;
  /** baseURL for @anthropic-ai/sdk: `${url}`. */
  readonly anthropicBaseUrl: string;
  /** Every model request received (control requests excluded), in order. */
  readonly requests: RecordedRequest[];
  /** Replaces the queue of turns; each model request consumes one. */
  script(turns: LlmTurn[]): void;
  /** Appends turns to the queue. */
  enqueue(...turns: LlmTurn[]): void;
  /** Turns not yet consumed. */
  readonly pending: number;
  configure(options: Pick<LlmServerOptions, 'chunkBytes' | 'eol'>): void;
  /** Clears the queue and the recorded requests (and the simulated cache). */
  reset(): void;
  /** The prompt-cache simulation, when started with `cache` (its log has one record per answered request). */
  readonly cache?: CacheSim;
  close(): Promise<void>;
}

const tick = () => new Promise<void>((resolve) => setImmediate(resolve));
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export async function startLlmServer(options: LlmServerOptions = {}): Promise<LlmServer> {
  let chunkBytes = options.chunkBytes ?? 0;
  let eol: string = options.eol ?? '\n';
  let queue: LlmTurn[] = [];
  const requests: RecordedRequest[] = [];
  const awaiting = new Set<{ count: number; answer: () => void }>();
  const sockets = new Set<Socket>();
  const cache = options.cache ? new CacheSim(options.cache === true ? {} : options.cache) : undefined;

  const server = http.createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (b: Buffer) => parts.push(b));
    req.on('end', () => {
      handle(req, res, Buffer.concat(parts).toString('utf8')).catch((err) => {
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: `llm-server bug: ${String(err)}` } }));
      });
    });
  });
  server.on('connection', (s) => {
    s.setNoDelay(true);
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });

  async function handle(req: http.IncomingMessage, res: http.ServerResponse, raw: string): Promise<void> {
    const path = (req.url ?? '/').split('?')[0];
    if (path === '/__script' && req.method === 'POST') {
      const body = JSON.parse(raw || '[]');
      queue = Array.isArray(body) ? body : [...(body.append ? queue : []), ...body.turns];
      if (!Array.isArray(body) && body.options) applyOptions(body.options);
      return json(res, 200, { pending: queue.length });
    }
    if (path === '/__requests') return json(res, 200, requests);
    if (path === '/__times')
      return json(
        res,
        200,
        requests.map((r) => r.at),
      );
    if (path === '/__await') {
      const query = new URL(req.url ?? '/', 'http://x').searchParams;
      const count = Number(query.get('count') ?? 1);
      const answer = () => {
        clearTimeout(timer);
        awaiting.delete(waiter);
        json(
          res,
          200,
          requests.map((r) => r.at),
        );
      };
      const waiter = { count, answer };
      const timer = setTimeout(answer, Math.min(Number(query.get('timeoutMs') ?? 30_000), 120_000));
      if (requests.length >= count) return answer();
      awaiting.add(waiter);
      return;
    }
    if (options.models && req.method === 'GET' && path.endsWith('/models')) {
      return json(res, 200, {
        object: 'list',
        data: options.models.map((id) => ({ id, object: 'model', owned_by: 'llm-server' })),
      });
    }
    if (path === '/__reset') {
      queue = [];
      requests.length = 0;
      cache?.reset();
      return json(res, 200, { ok: true });
    }
    const provider: WireProvider | undefined = path.endsWith('/chat/completions')
      ? 'openai'
      : path.endsWith('/messages')
        ? 'anthropic'
        : undefined;
    if (!provider) return json(res, 404, { error: { message: `llm-server: no route for ${req.method} ${path}` } });
    let body: any;
    try {
      body = raw ? JSON.parse(raw) : undefined;
    } catch {
      body = undefined;
    }
    const stream = body?.stream === true;
    requests.push({
      provider,
      method: req.method ?? 'POST',
      path,
      headers: { ...req.headers },
      body,
      stream,
      at: Date.now(),
    });
    for (const w of [...awaiting]) if (requests.length >= w.count) w.answer();
    let turn = queue.shift();
    if (!turn) {
      return json(
        res,
        500,
        { error: { type: 'api_error', message: 'llm-server: no scripted turn left' } },
        { 'x-should-retry': 'false' },
      );
    }
    if (cache && turn.fault === undefined) {
      const sim = cache.usageFor(provider, body, defaultUsage(turn).outputTokens);
      if (!sim.ok) {
        const error =
          provider === 'openai'
            ? { error: { message: sim.message, type: 'invalid_request_error', code: null, param: null } }
            : { type: 'error', error: { type: 'invalid_request_error', message: sim.message } };
        return json(res, sim.status, error, { 'x-should-retry': 'false' });
      }
      turn = { ...turn, usage: sim.usage };
    }
    await respond(provider, turn, String(body?.model ?? 'test-model'), stream, res);
  }

  async function respond(
    provider: WireProvider,
    turn: LlmTurn,
    model: string,
    stream: boolean,
    res: http.ServerResponse,
  ) {
    const frames = (t: ReplyTurn) =>
      provider === 'openai' ? openaiStreamFrames(t, model, eol) : anthropicStreamFrames(t, model, eol);
    switch (turn.fault) {
      case undefined: {
        if (turn.delayMs) await sleep(turn.delayMs);
        if (!stream)
          return json(res, 200, provider === 'openai' ? openaiJson(turn, model) : anthropicJson(turn, model));
        return sendFrames(res, frames(turn), 'end');
      }
      case 'http': {
        const headers: Record<string, string> = {};
        if (turn.retryAfter !== undefined) headers['retry-after'] = String(turn.retryAfter);
        if (turn.retryAfterMs !== undefined) headers['retry-after-ms'] = String(turn.retryAfterMs);
        const body =
          turn.body ?? (provider === 'openai' ? openaiHttpErrorBody(turn.status) : anthropicHttpErrorBody(turn.status));
        return json(res, turn.status, body, headers);
      }
      case 'cut_mid_tool_call': {
        const all = frames({
          text: 'Writing it.',
          toolCalls: [{ name: 'write_file', args: { path: 'src/a.ts', content: 'export const a = 1;\n' } }],
        });
        const argFrames = all.map((f, i) => (f.args ? i : -1)).filter((i) => i >= 0);
        const cut = argFrames[Math.floor(argFrames.length / 2)];
        const partial = { data: all[cut].data.slice(0, Math.floor(all[cut].data.length / 2)) };
        return sendFrames(res, [...all.slice(0, cut), partial], 'destroy');
      }
      case 'error_frame': {
        const message = turn.message ?? 'scripted error frame';
        const head = frames({ text: 'Partial answer' });
        if (provider === 'openai') {
          // message_start .. first text delta, then the error.
          return sendFrames(
            res,
            [head[0], head[1], openaiErrorFrame(message, turn.errorType ?? 'server_error', eol)],
            'end',
          );
        }
        const errorFrame = sse('error', { error: { type: turn.errorType ?? 'api_error', message } }, eol);
        return sendFrames(res, [...head.slice(0, 4), errorFrame], 'end');
      }
      case 'invalid_json_args':
        return stream
          ? sendFrames(
              res,
              frames({
                toolCalls: [{ name: turn.name ?? 'read_file', args: '{"path": "src/a.ts", "recursive": tru' }],
              }),
              'end',
            )
          : json(
              res,
              200,
              provider === 'openai'
                ? openaiJson(
                    { toolCalls: [{ name: turn.name ?? 'read_file', args: '{"path": "src/a.ts", "recursive": tru' }] },
                    model,
                  )
                : anthropicJson(
                    { toolCalls: [{ name: turn.name ?? 'read_file', args: '{"path": "src/a.ts", "recursive": tru' }] },
                    model,
                  ),
            );
      case 'hang': {
        if (turn.text === undefined) return; // no headers at all; the socket closes when the client aborts
        const head = frames({ text: turn.text, deltaSize: 1 << 20 });
        const cut = provider === 'openai' ? 1 : 4; // through the first text delta
        return sendFrames(res, head.slice(0, cut), 'hang');
      }
    }
  }

  async function sendFrames(res: http.ServerResponse, frames: Frame[], then: 'end' | 'destroy' | 'hang') {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
    res.flushHeaders();
    const data = Buffer.from(frames.map((f) => f.data).join(''), 'utf8');
    const size = chunkBytes > 0 ? chunkBytes : data.length;
    if (chunkBytes > 0) {
      for (let i = 0; i < data.length && !res.destroyed; i += size) {
        res.write(data.subarray(i, i + size));
        await tick();
      }
    } else {
      for (const f of frames) {
        if (res.destroyed) break;
        res.write(f.data);
        await tick();
      }
    }
    if (then === 'end') res.end();
    else if (then === 'destroy') {
      await tick();
      res.socket?.destroy();
    }
  }

  function json(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify(body));
  }

  function applyOptions(o: Pick<LlmServerOptions, 'chunkBytes' | 'eol'>) {
    if (o.chunkBytes !== undefined) chunkBytes = o.chunkBytes;
    if (o.eol !== undefined) eol = o.eol;
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', resolve);
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url,
    openaiBaseUrl: `${url}/v1`,
    anthropicBaseUrl: url,
    requests,
    script: (turns) => void (queue = [...turns]),
    enqueue: (...turns) => void queue.push(...turns),
    get pending() {
      return queue.length;
    },
    configure: applyOptions,
    reset: () => {
      queue = [];
      requests.length = 0;
      cache?.reset();
    },
    cache,
    close: () =>
      new Promise<void>((resolve) => {
        for (const w of [...awaiting]) w.answer();
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

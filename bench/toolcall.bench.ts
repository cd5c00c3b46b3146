// Tool-call detection latency (last byte of a streamed tool call -> tool-call event) and XML parser throughput.
//  - xml.parser: the final chunk ("...}</tool>") pushed into XmlToolCallParser -> tool_call_end returned.
//  - xml.agent: text-mode model (TextModeModel over an instant model) -> the Agent's tool_call_end event.
//  - native.<provider>.inprocess: the real SDK adapter fed through its fetch seam (a ReadableStream we control).
//  - native.<provider>.loopback: the real SDK adapter over HTTP on 127.0.0.1; t0 = the server wrote the frame
//    that completes the call (OpenAI: the finish_reason chunk, Anthropic: content_block_stop).
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent } from '../src/core/loop/agent';
import type { Model, ModelEvent, ModelRequest } from '../src/core/model/types';
import { withTextModeTools } from '../src/core/tools/text-mode';
import { XmlToolCallParser } from '../src/core/tools/xml-parser';
import { AnthropicModel } from '../src/providers/anthropic';
import { OpenAIModel } from '../src/providers/openai';
import { anthropicStreamFrames } from '../test/support/llm-server/anthropic-wire';
import { openaiStreamFrames } from '../test/support/llm-server/openai-wire';
import type { Frame, ReplyTurn } from '../test/support/llm-server/types';
import { allowAll, codeText, InstantModel, probeTool } from './lib/fixtures';
import { emit, figure, log, now, QUICK } from './lib/harness';

const DETECT_GOAL = { max: 1 };
const DETECT_BUDGET = { max: 20 };
const ARGS = { path: 'src/payments/gateway-client.ts', startLine: 1, endLine: 200 };

function chunks(s: string, size: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < s.length; i += size) out.push(s.slice(i, i + size));
  return out;
}

const XML_CALL = `<thinking>I need the client first.</thinking>Reading it.\n<tool>${JSON.stringify({ server_name: 'local', tool_name: 'read_file', arguments: ARGS })}</tool>`;

function xmlParserLatency(n: number): number[] {
  const parts = chunks(XML_CALL, 6);
  const last = parts.pop()!;
  const out: number[] = [];
  for (let i = 0; i < n + 200; i++) {
    const p = new XmlToolCallParser();
    for (const c of parts) p.push(c);
    const t0 = now();
    const events = p.push(last);
    const t1 = now();
    if (!events.some((e) => e.type === 'tool_call_end')) throw new Error('xml parser: no tool_call_end on the last chunk');
    if (i >= 200) out.push(t1 - t0);
  }
  return out;
}

/** Text mode through the loop: the inner model's last text chunk -> the Agent's tool_call_end event. */
async function xmlAgentLatency(n: number): Promise<number[]> {
  const template = XML_CALL.replace('read_file', 'probe').replace(/"arguments":\{[^}]*\}/, '"arguments":{"path":"src/PATH.ts"}');
  const out: number[] = [];
  let lastByteAt = 0;
  let iter = 0;
  const inner = new InstantModel(() => []);
  // The inner model streams text chunks; just before the chunk holding "</tool>" it stamps the time.
  const innerModel: Model = {
    info: { ...inner.info, nativeTools: false },
    async *stream(req: ModelRequest): AsyncIterable<ModelEvent> {
      const i = iter++;
      if (i >= n + 20) {
        yield { type: 'text', delta: `<tool>{"tool_name":"task_completion","arguments":{"result":"ok"}}</tool>` };
        yield { type: 'finish', reason: 'stop' };
        return;
      }
      const ps = chunks(template.replace('PATH', String(i)), 6);
      for (let k = 0; k < ps.length; k++) {
        if (k === ps.length - 1) lastByteAt = now();
        yield { type: 'text', delta: ps[k]! };
      }
      yield { type: 'finish', reason: 'stop' };
      void req;
    },
  };
  const agent = new Agent({ model: withTextModeTools(innerModel), tools: [probeTool(200)], approver: allowAll, config: { maxIterations: n + 50 } });
  let seen = 0;
  agent.on((e) => {
    if (e.type === 'tool_call_end' && e.name === 'probe') {
      if (seen++ >= 20) out.push(now() - lastByteAt);
    }
  });
  const report = await agent.send('Go.');
  if (report.reason !== 'done') throw new Error(`xml agent run ended with ${report.reason}: ${report.detail}`);
  return out;
}

type Provider = 'openai' | 'anthropic';

function framesFor(provider: Provider): { head: string; last: string; tail: string } {
  const turn: ReplyTurn = { text: 'Reading the client.', toolCalls: [{ id: 'call_1', name: 'read_file', args: ARGS }], deltaSize: 8 };
  const frames: Frame[] = provider === 'openai' ? openaiStreamFrames(turn, 'm', '\n') : anthropicStreamFrames(turn, 'm', '\n');
  const at =
    provider === 'openai'
      ? frames.findIndex((f) => f.data.includes('"finish_reason":"tool_calls"'))
      : frames.map((f) => f.data.startsWith('event: content_block_stop')).lastIndexOf(true);
  if (at < 0) throw new Error(`${provider}: no completing frame`);
  const join = (fs: Frame[]) => fs.map((f) => f.data).join('');
  return { head: join(frames.slice(0, at)), last: frames[at]!.data, tail: join(frames.slice(at + 1)) };
}

function adapter(provider: Provider, opts: { baseUrl?: string; fetch?: typeof fetch }): Model {
  const info = { provider, model: provider === 'openai' ? 'gpt-4o' : 'claude-sonnet-4-6', contextWindow: 200_000, maxOutputTokens: 4096, nativeTools: true };
  return provider === 'openai'
    ? new OpenAIModel({ info, apiKey: 'bench', baseUrl: opts.baseUrl ?? 'http://127.0.0.1:9/v1', fetch: opts.fetch })
    : new AnthropicModel({ info, apiKey: 'bench', baseUrl: opts.baseUrl ?? 'http://127.0.0.1:9', fetch: opts.fetch });
}

const request = (): ModelRequest => ({
  system: [{ id: 'role', text: 'You are Forge.', stable: true }],
  messages: [{ role: 'user', content: 'Read the client.' }],
  tools: [{ name: 'read_file', description: 'Read a file', inputSchema: { type: 'object', properties: { path: { type: 'string' } } } }],
  signal: new AbortController().signal,
});

/** Consumes the adapter stream and returns the time tool_call_end was emitted. */
async function timeToolCallEnd(model: Model): Promise<number> {
  let at = 0;
  for await (const e of model.stream(request())) if (e.type === 'tool_call_end' && !at) at = now();
  if (!at) throw new Error('adapter emitted no tool_call_end');
  return at;
}

async function nativeInProcess(provider: Provider, n: number): Promise<number[]> {
  const { head, last, tail } = framesFor(provider);
  const enc = new TextEncoder();
  const out: number[] = [];
  for (let i = 0; i < n + 20; i++) {
    let lastAt = 0;
    const fakeFetch = (async () => {
      let ctl!: ReadableStreamDefaultController<Uint8Array>;
      const body = new ReadableStream<Uint8Array>({ start: (c) => void (ctl = c) });
      ctl.enqueue(enc.encode(head));
      // Deliver the completing frame only after the adapter consumed the head.
      setTimeout(() => {
        lastAt = now();
        ctl.enqueue(enc.encode(last));
        setTimeout(() => {
          ctl.enqueue(enc.encode(tail));
          ctl.close();
        }, 0);
      }, 0);
      return new Response(body, { status: 200, headers: { 'content-type': 'text/event-stream' } });
    }) as typeof fetch;
    const endAt = await timeToolCallEnd(adapter(provider, { fetch: fakeFetch }));
    if (i >= 20) out.push(endAt - lastAt);
  }
  return out;
}

async function nativeLoopback(provider: Provider, n: number): Promise<number[]> {
  const { head, last, tail } = framesFor(provider);
  let lastAt = 0;
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      res.write(head);
      setTimeout(() => {
        res.write(last);
        lastAt = now(); // the frame is in the socket; the client can read it from here on
        setTimeout(() => res.end(tail), 0);
      }, 1);
    });
  });
  server.on('connection', (s) => s.setNoDelay(true));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const model = adapter(provider, { baseUrl: provider === 'openai' ? `${base}/v1` : base });
  const out: number[] = [];
  try {
    for (let i = 0; i < n + 20; i++) {
      const endAt = await timeToolCallEnd(model);
      if (i >= 20) out.push(endAt - lastAt);
    }
  } finally {
    server.closeAllConnections?.();
    await new Promise((r) => server.close(r));
  }
  return out;
}

/** A long model response: prose, thinking and tool calls with big escaped arguments (~`bytes` chars). */
function xmlCorpus(bytes: number): string {
  let s = '';
  let i = 0;
  while (s.length < bytes) {
    s += `<thinking>${codeText(600, i)}</thinking>\n${codeText(900, i + 1)}\n`;
    const content = codeText(2400, i + 2);
    s += `<tool>${JSON.stringify({ server_name: 'local', tool_name: 'write_file', arguments: { path: `src/f${i}.ts`, content } })}</tool>\n`;
    i++;
  }
  return s;
}

function parserThroughput(corpus: string, chunkSize: number, reps: number): number[] {
  const parts = chunks(corpus, chunkSize);
  const out: number[] = [];
  for (let r = 0; r < reps + 2; r++) {
    const p = new XmlToolCallParser();
    let calls = 0;
    const t0 = now();
    for (const c of parts) for (const e of p.push(c)) if (e.type === 'tool_call_end') calls++;
    for (const e of p.end()) if (e.type === 'tool_call_end') calls++;
    const ms = now() - t0;
    if (calls === 0) throw new Error('throughput corpus produced no tool calls');
    if (r >= 2) out.push(corpus.length / 1e6 / (ms / 1000));
  }
  return out;
}

async function main() {
  const n = QUICK ? 60 : 300;
  const lat = (name: string, input: Record<string, unknown>, samples: number[]) => {
    const f = emit(figure({ name, unit: 'ms', input, goal: DETECT_GOAL, budget: DETECT_BUDGET, judgeOn: 'median' }, samples));
    log(`${name}: median ${f.median} ms p95 ${f.p95} ms`);
  };
  lat('toolcall.xml.parser', { callChars: XML_CALL.length, chunkChars: 6, path: 'XmlToolCallParser.push(final chunk)' }, xmlParserLatency(QUICK ? 1000 : 5000));
  lat('toolcall.xml.agent', { chunkChars: 6, path: 'inner model last chunk -> TextModeModel -> Agent tool_call_end event' }, await xmlAgentLatency(n));
  for (const provider of ['openai', 'anthropic'] as const) {
    lat(`toolcall.native.${provider}.inprocess`, { sdk: provider, transport: 'fetch seam (ReadableStream)', completingFrame: provider === 'openai' ? 'finish_reason chunk' : 'content_block_stop' }, await nativeInProcess(provider, n));
    lat(`toolcall.native.${provider}.loopback`, { sdk: provider, transport: 'HTTP 127.0.0.1', completingFrame: provider === 'openai' ? 'finish_reason chunk' : 'content_block_stop' }, await nativeLoopback(provider, n));
  }
  const corpus = xmlCorpus(QUICK ? 2_000_000 : 8_000_000);
  for (const chunkSize of [16, 4096]) {
    const f = emit(
      figure(
        {
          name: `xml.parser.throughput.c${chunkSize}`,
          unit: 'MB/s',
          input: { corpusMB: Math.round(corpus.length / 1e4) / 100, chunkChars: chunkSize, content: 'thinking + prose + write_file calls' },
          goal: { min: 50 },
          budget: { min: 5 },
        },
        parserThroughput(corpus, chunkSize, QUICK ? 3 : 7),
      ),
    );
    log(`xml throughput c${chunkSize}: ${f.median} MB/s`);
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});

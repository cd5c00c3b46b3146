// OpenAI chat-completions adapter (also any OpenAI-compatible endpoint: Ollama, LM Studio, vLLM, OpenRouter).
import OpenAI from 'openai';
import type {
  ChatCompletionChunk,
  ChatCompletionContentPart,
  ChatCompletionCreateParamsStreaming,
  ChatCompletionMessageParam,
  ChatCompletionTool,
} from 'openai/resources/chat/completions';
import { prefixLayers, stepContextText } from '../core/context/prompt';
import { ModelError } from '../core/model/errors';
import { sendableMessages } from '../core/model/images';
import type { FinishReason, ImagePart, Model, ModelEvent, ModelInfo, ModelRequest } from '../core/model/types';
import { toModelError } from './errors';
import { parseToolArgs } from './tool-args';

interface OpenAIAdapterOptions {
  info: ModelInfo;
  apiKey?: string;
  baseUrl?: string;
  headers?: Record<string, string>;
  /** OpenAI's own API wants max_completion_tokens; many compatible servers only know max_tokens. */
  maxTokensParam?: 'max_completion_tokens' | 'max_tokens';
  /** Test seam / custom transport. */
  fetch?: typeof fetch;
}

/** Text then images, as chat-completions content parts (images as data URLs). */
function withImages(text: string, images: readonly ImagePart[]): ChatCompletionContentPart[] {
  return [
    ...(text ? [{ type: 'text' as const, text }] : []),
    ...images.map((i) => ({
      type: 'image_url' as const,
      image_url: { url: `data:${i.mediaType};base64,${i.data ?? ''}` },
    })),
  ];
}

/**
 * OpenAI caches automatically: the longest previously seen prefix (tools, then messages) in 128-token steps from
 * 1,024 tokens. So nothing that varies goes early: the system message holds the stable layers only, and the
 * per-step text (iteration, environment, warnings) is added after the history, in this request only: appended to
 * the final user or tool message. The next step's prefix is then byte-identical to this one's up to where this
 * step's text began.
 */
export function toOpenAIMessages(
  request: Pick<ModelRequest, 'system' | 'messages'>,
  takesImages = true,
): ChatCompletionMessageParam[] {
  const out: ChatCompletionMessageParam[] = [];
  // A tool message holds text only: the images of a run of tool results follow it as one user message.
  let toolImages: ImagePart[] = [];
  const flushToolImages = () => {
    if (toolImages.length)
      out.push({ role: 'user', content: withImages('The images the tool results above returned:', toolImages) });
    toolImages = [];
  };
  const system = prefixLayers(request.system)
    .map((l) => l.text)
    .join('\n\n');
  if (system) out.push({ role: 'system', content: system });
  for (const m of sendableMessages(request.messages, takesImages)) {
    if (m.role !== 'tool') flushToolImages();
    if (m.role === 'user')
      out.push({ role: 'user', content: m.images?.length ? withImages(m.content, m.images) : m.content });
    else if (m.role === 'tool') {
      out.push({ role: 'tool', tool_call_id: m.toolCallId, content: m.isError ? `Error: ${m.content}` : m.content });
      if (m.images?.length) toolImages.push(...m.images);
    } else if (m.toolCalls?.length) {
      out.push({
        role: 'assistant',
        content: m.content || null,
        tool_calls: m.toolCalls.map((c) => ({
          id: c.id,
          type: 'function' as const,
          function: { name: c.name, arguments: c.rawArgs || JSON.stringify(c.args ?? {}) },
        })),
      });
    } else out.push({ role: 'assistant', content: m.content });
  }
  flushToolImages();
  const step = stepContextText(request.system);
  if (step) {
    // Appended to the final user or tool message: the prefix match is by tokens, so this caches exactly like a
    // separate message would, and the conversation keeps its shape (no extra user turn after tool results, which
    // some compatible servers' chat templates reject).
    const final = out[out.length - 1];
    if ((final?.role === 'user' || final?.role === 'tool') && typeof final.content === 'string') {
      out[out.length - 1] = { ...final, content: `${final.content}\n\n${step}` } as ChatCompletionMessageParam;
    } else if (final?.role === 'user' && Array.isArray(final.content)) {
      out[out.length - 1] = { ...final, content: [...final.content, { type: 'text', text: step }] };
    } else out.push({ role: 'user', content: step });
  }
  return out;
}

function toOpenAITools(request: Pick<ModelRequest, 'tools'>): ChatCompletionTool[] {
  return request.tools.map((t) => ({
    type: 'function' as const,
    function: { name: t.name, description: t.description, parameters: t.inputSchema },
  }));
}

const FINISH: Record<string, FinishReason> = {
  stop: 'stop',
  tool_calls: 'tool_calls',
  function_call: 'tool_calls',
  length: 'length',
  content_filter: 'content_filter',
};

interface PendingCall {
  id: string;
  name: string;
  args: string;
  started: boolean;
  ended: boolean;
}

export class OpenAIModel implements Model {
  readonly info: ModelInfo;
  private readonly client: OpenAI;

  constructor(private readonly options: OpenAIAdapterOptions) {
    this.info = options.info;
    this.client = new OpenAI({
      // Local servers (Ollama, LM Studio) need no key, but the SDK refuses to start without one.
      apiKey: options.apiKey || 'not-needed',
      baseURL: options.baseUrl,
      maxRetries: 0, // the agent loop owns retry policy
      defaultHeaders: options.headers,
      fetch: options.fetch,
    });
  }

  async *stream(request: ModelRequest): AsyncIterable<ModelEvent> {
    const { signal } = request;
    if (signal.aborted) throw new ModelError('aborted', `${this.info.provider}: request aborted`);
    const body: ChatCompletionCreateParamsStreaming = {
      model: this.info.model,
      messages: toOpenAIMessages(request, this.info.images),
      stream: true,
      stream_options: { include_usage: true },
    };
    if (request.tools.length) body.tools = toOpenAITools(request);
    const maxTokens = request.maxOutputTokens;
    if (maxTokens) body[this.options.maxTokensParam ?? 'max_completion_tokens'] = maxTokens;
    if (request.temperature !== undefined) body.temperature = request.temperature;

    let started = false;
    const calls = new Map<number, PendingCall>();
    let finish: FinishReason | undefined;
    const provider = this.info.provider;

    function* endCalls(upTo = Infinity): Generator<ModelEvent> {
      for (const [index, c] of [...calls.entries()].sort((a, b) => a[0] - b[0])) {
        if (index >= upTo || c.ended) continue;
        if (!c.started) yield* startCall(c);
        c.ended = true;
        yield { type: 'tool_call_end', id: c.id, name: c.name, ...parseToolArgs(c.args) };
      }
    }
    function* startCall(c: PendingCall): Generator<ModelEvent> {
      c.started = true;
      yield { type: 'tool_call_start', id: c.id, name: c.name };
      if (c.args) yield { type: 'tool_call_delta', id: c.id, argsDelta: c.args };
    }

    try {
      const stream = await this.client.chat.completions.create(body, { signal });
      for await (const chunk of stream as AsyncIterable<ChatCompletionChunk>) {
        started = true;
        if (chunk.usage) {
          const cached = chunk.usage.prompt_tokens_details?.cached_tokens ?? 0;
          yield {
            type: 'usage',
            usage: {
              inputTokens: chunk.usage.prompt_tokens ?? 0,
              outputTokens: chunk.usage.completion_tokens ?? 0,
              ...(cached ? { cacheReadTokens: cached } : {}),
            },
          };
        }
        const choice = chunk.choices?.[0];
        if (!choice) continue;
        const delta = (choice.delta ?? {}) as ChatCompletionChunk.Choice.Delta & {
          reasoning_content?: unknown;
          reasoning?: unknown;
        };
        const reasoning = delta.reasoning_content ?? delta.reasoning;
        if (typeof reasoning === 'string' && reasoning) yield { type: 'thinking', delta: reasoning };
        if (typeof delta.content === 'string' && delta.content) yield { type: 'text', delta: delta.content };
        for (const [pos, tc] of (delta.tool_calls ?? []).entries()) {
          const index = tc.index ?? pos;
          let c = calls.get(index);
          if (!c) {
            // Calls stream one after another: a new index means the earlier ones are complete.
            yield* endCalls(index);
            c = { id: tc.id ?? '', name: '', args: '', started: false, ended: false };
            calls.set(index, c);
          }
          if (tc.id && !c.id) c.id = tc.id;
          if (tc.function?.name) c.name += tc.function.name;
          const frag = tc.function?.arguments ?? '';
          if (c.started) {
            if (frag) {
              c.args += frag;
              yield { type: 'tool_call_delta', id: c.id, argsDelta: frag };
            }
          } else {
            c.args += frag;
            if (c.name && c.id) yield* startCall(c);
          }
        }
        if (choice.finish_reason) {
          finish = FINISH[choice.finish_reason] ?? 'other';
          for (const c of calls.values()) if (!c.id) c.id = `call_${Math.random().toString(36).slice(2, 10)}`;
          yield* endCalls();
        }
      }
    } catch (err) {
      throw toModelError(err, provider, signal, started);
    }
    if (signal.aborted) throw new ModelError('aborted', `${provider}: request aborted`);
    if (!finish) {
      throw new ModelError('stream', `${provider}: stream ended without a finish_reason (response incomplete)`);
    }
    // Some compatible servers report "stop" even when the turn ends in tool calls.
    if (finish === 'stop' && calls.size > 0) finish = 'tool_calls';
    yield { type: 'finish', reason: finish };
  }
}

// Anthropic messages adapter: cached system layers, extended thinking (signatures round-tripped), tool_use.
import Anthropic from '@anthropic-ai/sdk';
import type {
  ContentBlockParam,
  MessageCreateParamsStreaming,
  MessageParam,
  RawMessageStreamEvent,
  TextBlockParam,
  Tool as AnthropicTool,
} from '@anthropic-ai/sdk/resources/messages';
import { ModelError } from '../core/model/errors';
import type { FinishReason, Model, ModelEvent, ModelInfo, ModelRequest, Usage } from '../core/model/types';
import { toModelError } from './errors';
import { parseToolArgs } from './tool-args';

export interface AnthropicAdapterOptions {
  info: ModelInfo;
  apiKey?: string;
  baseUrl?: string;
  headers?: Record<string, string>;
  fetch?: typeof fetch;
}

const EPHEMERAL = { type: 'ephemeral' as const };

/** System layers as blocks; the cache breakpoint sits on the last stable layer (tools + stable prefix cached). */
export function toAnthropicSystem(request: Pick<ModelRequest, 'system'>): TextBlockParam[] {
  const layers = request.system.filter((l) => l.text.trim() !== '');
  let lastStable = -1;
  layers.forEach((l, i) => {
    if (l.stable) lastStable = i;
  });
  return layers.map((l, i) => (i === lastStable ? { type: 'text', text: l.text, cache_control: EPHEMERAL } : { type: 'text', text: l.text }));
}

export function toAnthropicMessages(request: Pick<ModelRequest, 'messages'>): MessageParam[] {
  const out: MessageParam[] = [];
  const pushUser = (blocks: ContentBlockParam[]) => {
    const last = out[out.length - 1];
    // Tool results and a following user message must share one user turn (roles alternate).
    if (last?.role === 'user' && Array.isArray(last.content)) last.content.push(...blocks);
    else out.push({ role: 'user', content: blocks });
  };
  for (const m of request.messages) {
    if (m.role === 'user') pushUser([{ type: 'text', text: m.content || ' ' }]);
    else if (m.role === 'tool') {
      pushUser([{ type: 'tool_result', tool_use_id: m.toolCallId, content: m.content, ...(m.isError ? { is_error: true } : {}) }]);
    } else {
      const blocks: ContentBlockParam[] = [];
      // Only signed thinking can be sent back; unsigned text (e.g. from another provider) is dropped.
      for (const t of m.thinking ?? []) if (t.signature) blocks.push({ type: 'thinking', thinking: t.text, signature: t.signature });
      if (m.content) blocks.push({ type: 'text', text: m.content });
      for (const c of m.toolCalls ?? []) {
        const input = c.args && typeof c.args === 'object' && !Array.isArray(c.args) ? (c.args as Record<string, unknown>) : {};
        blocks.push({ type: 'tool_use', id: c.id, name: c.name, input });
      }
      if (!blocks.length) blocks.push({ type: 'text', text: '(no output)' });
      out.push({ role: 'assistant', content: blocks });
    }
  }
  // Second cache breakpoint on the newest block so the growing history is cached between iterations.
  const last = out[out.length - 1];
  if (last?.role === 'user' && Array.isArray(last.content) && last.content.length) {
    const block = last.content[last.content.length - 1] as ContentBlockParam & { cache_control?: unknown };
    if (block.type === 'text' || block.type === 'tool_result') block.cache_control = EPHEMERAL;
  }
  return out;
}

export function toAnthropicTools(request: Pick<ModelRequest, 'tools'>): AnthropicTool[] {
  return request.tools.map((t) => ({
    name: t.name,
    description: t.description,
    input_schema: { type: 'object', ...t.inputSchema } as AnthropicTool['input_schema'],
  }));
}

const STOP: Record<string, FinishReason> = {
  end_turn: 'stop',
  stop_sequence: 'stop',
  tool_use: 'tool_calls',
  max_tokens: 'length',
  model_context_window_exceeded: 'length',
  refusal: 'content_filter',
};

export class AnthropicModel implements Model {
  readonly info: ModelInfo;
  private readonly client: Anthropic;

  constructor(options: AnthropicAdapterOptions) {
    this.info = options.info;
    this.client = new Anthropic({
      apiKey: options.apiKey ?? null,
      baseURL: options.baseUrl,
      maxRetries: 0, // the agent loop owns retry policy
      defaultHeaders: options.headers,
      fetch: options.fetch,
    });
  }

  async *stream(request: ModelRequest): AsyncIterable<ModelEvent> {
    const { signal } = request;
    const provider = this.info.provider;
    if (signal.aborted) throw new ModelError('aborted', `${provider}: request aborted`);
    const budget = request.thinkingBudgetTokens;
    let maxTokens = request.maxOutputTokens ?? this.info.maxOutputTokens;
    // max_tokens must exceed the thinking budget.
    if (budget) maxTokens = Math.max(maxTokens, budget + 1024);
    const body: MessageCreateParamsStreaming = {
      model: this.info.model,
      max_tokens: maxTokens,
      messages: toAnthropicMessages(request),
      stream: true,
    };
    const system = toAnthropicSystem(request);
    if (system.length) body.system = system;
    if (request.tools.length) body.tools = toAnthropicTools(request);
    if (budget) body.thinking = { type: 'enabled', budget_tokens: budget };
    // request.temperature is not sent: the Messages API version this SDK targets has no temperature parameter.

    let started = false;
    let stopped = false;
    let finish: FinishReason = 'other';
    const usage: Usage = { inputTokens: 0, outputTokens: 0 };
    let uncachedInput = 0;
    const blocks = new Map<number, { type: string; id?: string; name?: string; json: string }>();

    try {
      const stream = await this.client.messages.create(body, { signal });
      for await (const ev of stream as AsyncIterable<RawMessageStreamEvent>) {
        started = true;
        switch (ev.type) {
          case 'message_start': {
            const u = ev.message.usage;
            uncachedInput = u.input_tokens ?? 0;
            usage.cacheReadTokens = u.cache_read_input_tokens ?? 0;
            usage.cacheWriteTokens = u.cache_creation_input_tokens ?? 0;
            usage.outputTokens = u.output_tokens ?? 0;
            break;
          }
          case 'content_block_start': {
            const b = ev.content_block;
            if (b.type === 'tool_use' || b.type === 'server_tool_use') {
              blocks.set(ev.index, { type: 'tool_use', id: b.id, name: b.name, json: '' });
              yield { type: 'tool_call_start', id: b.id, name: b.name };
            } else {
              blocks.set(ev.index, { type: b.type, json: '' });
              if (b.type === 'text' && b.text) yield { type: 'text', delta: b.text };
              if (b.type === 'thinking' && b.thinking) yield { type: 'thinking', delta: b.thinking };
            }
            break;
          }
          case 'content_block_delta': {
            const d = ev.delta;
            if (d.type === 'text_delta') yield { type: 'text', delta: d.text };
            else if (d.type === 'thinking_delta') yield { type: 'thinking', delta: d.thinking };
            // The signature closes a thinking block; the loop stores it with the block's text.
            else if (d.type === 'signature_delta') yield { type: 'thinking', delta: '', signature: d.signature };
            else if (d.type === 'input_json_delta') {
              const b = blocks.get(ev.index);
              if (b?.type === 'tool_use' && b.id) {
                b.json += d.partial_json;
                if (d.partial_json) yield { type: 'tool_call_delta', id: b.id, argsDelta: d.partial_json };
              }
            }
            break;
          }
          case 'content_block_stop': {
            const b = blocks.get(ev.index);
            if (b?.type === 'tool_use' && b.id && b.name) {
              yield { type: 'tool_call_end', id: b.id, name: b.name, ...parseToolArgs(b.json) };
            }
            break;
          }
          case 'message_delta': {
            if (ev.delta.stop_reason) finish = STOP[ev.delta.stop_reason] ?? 'other';
            const u = ev.usage as Partial<Anthropic.MessageDeltaUsage> | undefined;
            if (u?.output_tokens != null) usage.outputTokens = u.output_tokens;
            if (u?.input_tokens != null) uncachedInput = u.input_tokens;
            if (u?.cache_read_input_tokens != null) usage.cacheReadTokens = u.cache_read_input_tokens;
            if (u?.cache_creation_input_tokens != null) usage.cacheWriteTokens = u.cache_creation_input_tokens;
            break;
          }
          case 'message_stop':
            stopped = true;
            break;
        }
      }
    } catch (err) {
      throw toModelError(err, provider, signal, started);
    }
    if (signal.aborted) throw new ModelError('aborted', `${provider}: request aborted`);
    if (!stopped) throw new ModelError('stream', `${provider}: stream ended before message_stop (response incomplete)`);
    // inputTokens is the whole prompt (as OpenAI reports it); the cache parts are broken out.
    usage.inputTokens = uncachedInput + (usage.cacheReadTokens ?? 0) + (usage.cacheWriteTokens ?? 0);
    if (!usage.cacheReadTokens) delete usage.cacheReadTokens;
    if (!usage.cacheWriteTokens) delete usage.cacheWriteTokens;
    yield { type: 'usage', usage };
    yield { type: 'finish', reason: finish };
  }
}

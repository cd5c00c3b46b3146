// Anthropic messages adapter: prompt caching (see toAnthropicPrompt), extended thinking (signatures round-tripped), tool_use.
import Anthropic from '@anthropic-ai/sdk';
import type {
  ContentBlockParam,
  ImageBlockParam,
  MessageCreateParamsStreaming,
  MessageParam,
  RawMessageStreamEvent,
  TextBlockParam,
  Tool as AnthropicTool,
} from '@anthropic-ai/sdk/resources/messages';
import { prefixLayers, stepContextText } from '../core/context/prompt';
import { ModelError } from '../core/model/errors';
import { sendableMessages } from '../core/model/images';
import type { FinishReason, ImagePart, Model, ModelEvent, ModelInfo, ModelRequest, Usage } from '../core/model/types';
import { toModelError } from './errors';
import { parseToolArgs } from './tool-args';

interface AnthropicAdapterOptions {
  info: ModelInfo;
  apiKey?: string;
  baseUrl?: string;
  headers?: Record<string, string>;
  fetch?: typeof fetch;
}

const EPHEMERAL = { type: 'ephemeral' as const };

/** The API accepts at most 4 cache_control breakpoints per request. */
const MAX_CACHE_BREAKPOINTS = 4;
/** On a lookup the API tries block boundaries up to ~20 blocks before each breakpoint. */
const CACHE_LOOKBACK_BLOCKS = 20;

/** System layers as blocks, per-step layers excluded (they go after the conversation; see toAnthropicPrompt). */
function toAnthropicSystem(request: Pick<ModelRequest, 'system'>): TextBlockParam[] {
  return prefixLayers(request.system).map((l) => ({ type: 'text', text: l.text }));
}

/** An image as a base64 image block (images without bytes were replaced by text before this). */
function imageBlock(img: ImagePart): ImageBlockParam {
  return { type: 'image', source: { type: 'base64', media_type: img.mediaType, data: img.data ?? '' } };
}

/** History as Anthropic turns: tool results and a following user text share one user turn; no cache marks. */
function toAnthropicMessages(request: Pick<ModelRequest, 'messages'>): MessageParam[] {
  const out: MessageParam[] = [];
  const pushUser = (blocks: ContentBlockParam[]) => {
    const last = out[out.length - 1];
    // Tool results and a following user message must share one user turn (roles alternate).
    if (last?.role === 'user' && Array.isArray(last.content)) last.content.push(...blocks);
    else out.push({ role: 'user', content: blocks });
  };
  for (const m of request.messages) {
    // Images first, then the words about them (the order Anthropic recommends).
    if (m.role === 'user') pushUser([...(m.images ?? []).map(imageBlock), { type: 'text', text: m.content || ' ' }]);
    else if (m.role === 'tool') {
      pushUser([
        {
          type: 'tool_result',
          tool_use_id: m.toolCallId,
          content: m.images?.length
            ? [{ type: 'text', text: m.content || ' ' }, ...m.images.map(imageBlock)]
            : m.content,
          ...(m.isError ? { is_error: true } : {}),
        },
      ]);
    } else {
      const blocks: ContentBlockParam[] = [];
      // Only signed thinking can be sent back; unsigned text (e.g. from another provider) is dropped.
      for (const t of m.thinking ?? [])
        if (t.signature) blocks.push({ type: 'thinking', thinking: t.text, signature: t.signature });
      if (m.content) blocks.push({ type: 'text', text: m.content });
      for (const c of m.toolCalls ?? []) {
        const input =
          c.args && typeof c.args === 'object' && !Array.isArray(c.args) ? (c.args as Record<string, unknown>) : {};
        blocks.push({ type: 'tool_use', id: c.id, name: c.name, input });
      }
      if (!blocks.length) blocks.push({ type: 'text', text: '(no output)' });
      out.push({ role: 'assistant', content: blocks });
    }
  }
  return out;
}

type Markable = { type: string; text?: string; cache_control?: unknown };

/** Thinking blocks cannot carry cache_control (they are cached as part of the prefix), nor can empty text. */
function markable(block: Markable): boolean {
  if (block.type === 'thinking' || block.type === 'redacted_thinking') return false;
  return block.type !== 'text' || !!block.text?.trim();
}

interface AnthropicPrompt {
  tools: AnthropicTool[];
  system: TextBlockParam[];
  messages: MessageParam[];
}

/**
 * The request in the API's cache order (tools -> system -> messages) with its cache breakpoints:
 *  1. the last block of the history (the conversation so far is written once and read back on the next step);
 *  2. the previous step's breakpoint (end of the previous user turn) when the last step added so many blocks that
 *     the API's ~20-block lookback from breakpoint 1 would not reach it;
 *  3. the last stable system layer (or the last tool): tools + role + rules, shared by every task in the mode.
 * The per-step text (iteration, environment, warnings) comes after breakpoint 1, as the final user turn's last
 * text block (after its tool_result blocks, which must come first). It is never stored, so the next step's
 * prefix is byte-identical to what this step wrote. Prefixes under the model's minimum cacheable length are
 * ignored by the API; breakpoint 1 covers them as soon as the history grows past it.
 */
export function toAnthropicPrompt(
  request: Pick<ModelRequest, 'system' | 'messages' | 'tools'>,
  takesImages = true,
): AnthropicPrompt {
  const tools = toAnthropicTools(request);
  const layers = prefixLayers(request.system);
  const system = toAnthropicSystem(request);
  const messages = toAnthropicMessages({ messages: sendableMessages(request.messages, takesImages) });
  const marks: Markable[] = [];

  const flat: { msg: number; block: Markable }[] = [];
  messages.forEach((m, i) => {
    if (Array.isArray(m.content)) for (const b of m.content) flat.push({ msg: i, block: b as Markable });
  });
  let last = -1;
  for (let i = flat.length - 1; i >= 0 && last < 0; i--) if (markable(flat[i].block)) last = i;
  if (last >= 0) {
    marks.push(flat[last].block);
    // End of the user turn before the last assistant turn: where the previous step put its breakpoint.
    const lastMsg = flat[last].msg;
    let prevUser = -1;
    for (let i = lastMsg - 1; i >= 0 && prevUser < 0; i--)
      if (messages[i].role === 'user' && messages[i + 1]?.role === 'assistant') prevUser = i;
    if (prevUser >= 0) {
      let prev = -1;
      for (let i = last - 1; i >= 0 && prev < 0; i--) if (flat[i].msg <= prevUser && markable(flat[i].block)) prev = i;
      if (prev >= 0 && last - prev >= CACHE_LOOKBACK_BLOCKS - 4) marks.push(flat[prev].block);
    }
  }
  let lastStable = -1;
  layers.forEach((l, i) => {
    if (l.stable) lastStable = i;
  });
  if (lastStable >= 0) marks.push(system[lastStable] as Markable);
  else if (tools.length) marks.push(tools[tools.length - 1] as Markable);
  for (const b of marks.slice(0, MAX_CACHE_BREAKPOINTS)) b.cache_control = EPHEMERAL;

  const step = stepContextText(request.system);
  if (step) {
    const final = messages[messages.length - 1];
    if (final?.role === 'user' && Array.isArray(final.content)) final.content.push({ type: 'text', text: step });
    else messages.push({ role: 'user', content: [{ type: 'text', text: step }] });
  }
  return { tools, system, messages };
}

function toAnthropicTools(request: Pick<ModelRequest, 'tools'>): AnthropicTool[] {
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
    const prompt = toAnthropicPrompt(request, this.info.images);
    // Key order follows the API's cache order (tools -> system -> messages); only readability depends on it.
    const body: MessageCreateParamsStreaming = {
      model: this.info.model,
      max_tokens: maxTokens,
      ...(prompt.tools.length ? { tools: prompt.tools } : {}),
      ...(prompt.system.length ? { system: prompt.system } : {}),
      messages: prompt.messages,
      stream: true,
    };
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

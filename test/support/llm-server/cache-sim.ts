// Prompt-cache simulation for the loopback LLM server: usage numbers come from what the request really shares
// with earlier ones, so a prefix that changes between steps shows up as a miss. Tokens are counted as the
// canonical JSON's characters / 4, the same way for every request.
//
// Anthropic (explicit caching): the prompt is a sequence of blocks in the API's order, tools -> system ->
// messages. A request with cache_control on some blocks writes the prefix up to each such breakpoint (keyed by a
// hash of the canonical JSON of the prefix, cache_control itself left out), if that prefix reaches the model's
// minimum length. A lookup tries every block boundary from each breakpoint back ~20 blocks and reads the longest
// prefix found. usage: cache_read_input_tokens = the prefix read, cache_creation_input_tokens = from there to the
// last breakpoint that could be written, input_tokens = the rest. The request is also checked the way the API
// checks it (at most 4 breakpoints, none on thinking or empty text, tool_use/tool_result pairing, thinking first
// in the last assistant turn when thinking is on): a violation is answered with HTTP 400.
//
// OpenAI (automatic caching): the prompt (tools, then messages) is cached in 128-token steps from 1,024 tokens;
// cached_tokens is the longest step-aligned prefix seen before.
import { createHash, type Hash } from 'node:crypto';
import type { ScriptedUsage, WireProvider } from './types';

export const CHARS_PER_TOKEN = 4;
export const ANTHROPIC_LOOKBACK_BLOCKS = 20;
export const ANTHROPIC_MAX_BREAKPOINTS = 4;
export const OPENAI_MIN_TOKENS = 1024;
export const OPENAI_STEP_TOKENS = 128;

export interface CacheSimOptions {
  /** Anthropic minimum cacheable prefix (tokens); default by model (1,024 / 2,048 Haiku 3.x / 4,096 Opus 4.5+, Haiku 4.5). */
  anthropicMinTokens?: number;
  /** Entry lifetime, refreshed on every hit (default 5 minutes). */
  ttlMs?: number;
  now?: () => number;
}

export interface CacheSimRecord {
  provider: WireProvider;
  model: string;
  totalTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  /** Tokens billed at the normal input price. */
  inputTokens: number;
  /** Anthropic: block indices (tools, system, messages flattened) carrying cache_control. */
  breakpoints?: number[];
  blocks?: number;
}

export type CacheSimResult =
  { ok: true; usage: ScriptedUsage; record: CacheSimRecord } | { ok: false; status: number; message: string };

/** JSON with sorted keys and every cache_control removed: the identity of a prompt piece. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const obj = value as Record<string, unknown>;
    const keys = Object.keys(obj)
      .filter((k) => k !== 'cache_control' && obj[k] !== undefined)
      .sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(obj[k])}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

const tokensOf = (text: string) => Math.ceil(text.length / CHARS_PER_TOKEN);

export function anthropicMinTokensFor(model: string): number {
  const m = model.toLowerCase();
  if (/opus-4-[5-9]|haiku-4-5/.test(m)) return 4096;
  if (/haiku/.test(m)) return 2048;
  return 1024;
}

interface Block {
  /** What the hash chain consumes (canonical JSON, prefixed with its place). */
  text: string;
  tokens: number;
  breakpoint: boolean;
}

function blocksOf(body: any): Block[] {
  const out: Block[] = [];
  const add = (where: string, raw: any, counted = true) => {
    const text = `${where}:${canonicalJson(raw)}`;
    out.push({ text, tokens: counted ? tokensOf(canonicalJson(raw)) : 0, breakpoint: !!raw?.cache_control });
  };
  for (const t of body.tools ?? []) add('tool', t);
  if (typeof body.system === 'string') add('system', { type: 'text', text: body.system });
  else for (const b of body.system ?? []) add('system', b);
  // Thinking and tool_choice settings are part of the message cache's identity (changing them invalidates it).
  const settings = canonicalJson({ thinking: body.thinking ?? null, tool_choice: body.tool_choice ?? null });
  out.push({ text: `settings:${settings}`, tokens: 0, breakpoint: false });
  (body.messages ?? []).forEach((m: any, i: number) => {
    const content = typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : (m.content ?? []);
    for (const b of content) add(`m${i}.${m.role}`, b);
  });
  return out;
}

/** The checks the Messages API makes that matter to caching and history layout; undefined when valid. */
export function validateAnthropicRequest(body: any): string | undefined {
  const messages: any[] = body?.messages ?? [];
  const allBlocks: any[] = [...(body.tools ?? []), ...(Array.isArray(body.system) ? body.system : [])];
  messages.forEach((m) => Array.isArray(m.content) && allBlocks.push(...m.content));
  const marked = allBlocks.filter((b) => b?.cache_control);
  if (marked.length > ANTHROPIC_MAX_BREAKPOINTS)
    return `A maximum of ${ANTHROPIC_MAX_BREAKPOINTS} blocks with cache_control may be provided. Found ${marked.length}.`;
  for (const b of marked) {
    if (b.type === 'thinking' || b.type === 'redacted_thinking')
      return 'cache_control cannot be set on thinking blocks';
    if (b.type === 'text' && !String(b.text ?? '').trim()) return 'cache_control cannot be set for empty text blocks';
  }
  if (messages.length && messages[0].role !== 'user') return 'messages: the first message must use the "user" role';
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i];
    const content: any[] = typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : (m.content ?? []);
    for (const [j, b] of content.entries()) {
      if (b.type === 'text' && !String(b.text ?? '').trim())
        return `messages.${i}.content.${j}: text content blocks must contain non-whitespace text`;
    }
    if (m.role === 'assistant') {
      const ids = content.filter((b) => b.type === 'tool_use').map((b) => b.id);
      const thinkingOn = body.thinking?.type === 'enabled';
      if (
        thinkingOn &&
        i === lastIndex(messages, 'assistant') &&
        ids.length &&
        !['thinking', 'redacted_thinking'].includes(content[0]?.type)
      ) {
        return `messages.${i}.content.0.type: Expected \`thinking\` or \`redacted_thinking\`, but found \`${content[0]?.type}\`. When \`thinking\` is enabled, a final \`assistant\` message must start with a thinking block.`;
      }
      for (const b of content)
        if (b.type === 'thinking' && !b.signature) return `messages.${i}: thinking block without a signature`;
      if (!ids.length) continue;
      const next = messages[i + 1];
      const nextContent: any[] = Array.isArray(next?.content) ? next.content : [];
      const leading: string[] = [];
      for (const b of nextContent) {
        if (b.type !== 'tool_result') break;
        leading.push(b.tool_use_id);
      }
      const missing = ids.filter((id: string) => !leading.includes(id));
      if (next?.role !== 'user' || missing.length) {
        return `messages.${i + 1}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${missing.join(', ') || ids.join(', ')}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message, and tool_result blocks must come first.`;
      }
    }
    if (m.role === 'user') {
      const prev = messages[i - 1];
      const prevIds = new Set(
        (Array.isArray(prev?.content) ? prev.content : [])
          .filter((b: any) => b.type === 'tool_use')
          .map((b: any) => b.id),
      );
      for (const [j, b] of content.entries()) {
        if (b.type === 'tool_result' && !prevIds.has(b.tool_use_id)) {
          return `messages.${i}.content.${j}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${b.tool_use_id}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`;
        }
      }
    }
  }
  return undefined;
}

function lastIndex(messages: any[], role: string): number {
  for (let i = messages.length - 1; i >= 0; i--) if (messages[i].role === role) return i;
  return -1;
}

export class CacheSim {
  readonly log: CacheSimRecord[] = [];
  private readonly entries = new Map<string, number>(); // key -> expiry
  private readonly ttlMs: number;
  private readonly now: () => number;

  constructor(private readonly options: CacheSimOptions = {}) {
    this.ttlMs = options.ttlMs ?? 5 * 60_000;
    this.now = options.now ?? Date.now;
  }

  reset(): void {
    this.entries.clear();
    this.log.length = 0;
  }

  /** Usage for one request (output tokens left to the script); an invalid Anthropic request gets a 400. */
  usageFor(provider: WireProvider, body: any, outputTokens: number): CacheSimResult {
    if (provider === 'anthropic') {
      const invalid = validateAnthropicRequest(body);
      if (invalid) return { ok: false, status: 400, message: invalid };
    }
    const record = provider === 'anthropic' ? this.anthropic(body) : this.openai(body);
    this.log.push(record);
    return {
      ok: true,
      record,
      usage: {
        inputTokens: record.inputTokens,
        outputTokens,
        cacheReadTokens: record.cacheReadTokens,
        cacheWriteTokens: record.cacheWriteTokens,
      },
    };
  }

  private has(key: string): boolean {
    const expiry = this.entries.get(key);
    if (expiry === undefined) return false;
    if (expiry < this.now()) {
      this.entries.delete(key);
      return false;
    }
    this.entries.set(key, this.now() + this.ttlMs);
    return true;
  }

  private put(key: string): void {
    this.entries.set(key, this.now() + this.ttlMs);
  }

  private anthropic(body: any): CacheSimRecord {
    const model = String(body.model ?? '');
    const min = this.options.anthropicMinTokens ?? anthropicMinTokensFor(model);
    const blocks = blocksOf(body);
    const hashes: string[] = [];
    const cumulative: number[] = [];
    const h = createHash('sha256').update(`anthropic:${model}`);
    let tokens = 0;
    for (const b of blocks) {
      h.update(`\u0000${b.text}`);
      hashes.push(h.copy().digest('hex'));
      tokens += b.tokens;
      cumulative.push(tokens);
    }
    const breakpoints = blocks.flatMap((b, i) => (b.breakpoint ? [i] : []));
    let readAt = -1;
    for (const bp of breakpoints) {
      for (let j = bp; j >= Math.max(0, bp - ANTHROPIC_LOOKBACK_BLOCKS); j--) {
        if (j <= readAt) break;
        if (this.has(hashes[j])) {
          readAt = j;
          break;
        }
      }
    }
    const read = readAt >= 0 ? cumulative[readAt] : 0;
    let writeEnd = readAt;
    for (const bp of breakpoints) {
      if (bp > readAt && cumulative[bp] >= min) {
        this.put(hashes[bp]);
        writeEnd = Math.max(writeEnd, bp);
      }
    }
    const write = writeEnd > readAt ? cumulative[writeEnd] - read : 0;
    return {
      provider: 'anthropic',
      model,
      totalTokens: tokens,
      cacheReadTokens: read,
      cacheWriteTokens: write,
      inputTokens: tokens - read - write,
      breakpoints,
      blocks: blocks.length,
    };
  }

  private openai(body: any): CacheSimRecord {
    const model = String(body.model ?? '');
    // Tools are rendered ahead of the conversation; then every message in order.
    const prompt = [
      ...(body.tools ?? []).map((t: unknown) => `tool:${canonicalJson(t)}`),
      ...(body.messages ?? []).map((m: unknown) => `msg:${canonicalJson(m)}`),
    ].join('\n');
    const total = tokensOf(prompt);
    const h: Hash = createHash('sha256').update(`openai:${model}`);
    const keys: { tokens: number; key: string }[] = [];
    let fed = 0;
    for (let t = OPENAI_MIN_TOKENS; t <= total && t * CHARS_PER_TOKEN <= prompt.length; t += OPENAI_STEP_TOKENS) {
      h.update(prompt.slice(fed, t * CHARS_PER_TOKEN));
      fed = t * CHARS_PER_TOKEN;
      keys.push({ tokens: t, key: h.copy().digest('hex') });
    }
    let cached = 0;
    for (const k of keys) if (this.has(k.key)) cached = k.tokens;
    for (const k of keys) this.put(k.key);
    return {
      provider: 'openai',
      model,
      totalTokens: total,
      cacheReadTokens: cached,
      cacheWriteTokens: 0,
      inputTokens: total - cached,
    };
  }
}

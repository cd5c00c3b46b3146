// Provider-neutral scripted turns for the loopback LLM server.

export interface ScriptedToolCall {
  id?: string;
  name: string;
  /** Object -> JSON.stringify'd; string -> sent verbatim (may be invalid JSON on purpose). */
  args: unknown;
}

/** Usage in Anthropic's split form: inputTokens excludes cache reads/writes. */
export interface ScriptedUsage {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens?: number;
  cacheWriteTokens?: number;
}

export interface ReplyTurn {
  fault?: undefined;
  /** A string is split into deltas of `deltaSize` chars; an array is sent as explicit deltas. */
  text?: string | string[];
  thinking?: string | string[];
  /** Anthropic thinking signature (default 'sig-1' when thinking is present). */
  thinkingSignature?: string;
  toolCalls?: ScriptedToolCall[];
  usage?: ScriptedUsage;
  finish?: 'stop' | 'tool_calls' | 'length' | 'content_filter';
  /** Delta size for string text/thinking/args (default 8). */
  deltaSize?: number;
  /** Wait this long before answering (ms). */
  delayMs?: number;
}

export type FaultTurn =
  | { fault: 'http'; status: number; retryAfter?: number | string; retryAfterMs?: number; body?: unknown }
  /** Streams a tool call and destroys the socket in the middle of its arguments. */
  | { fault: 'cut_mid_tool_call' }
  /** Streams some text, then an error frame (OpenAI `data: {"error":..}`, Anthropic `event: error`). */
  | { fault: 'error_frame'; errorType?: string; message?: string }
  /** A complete tool call whose arguments are not valid JSON. */
  | { fault: 'invalid_json_args'; name?: string }
  /** Never finishes; with `text`, sends headers and that text first. Ends when the client aborts. */
  | { fault: 'hang'; text?: string };

export type LlmTurn = ReplyTurn | FaultTurn;

export type WireProvider = 'openai' | 'anthropic';

export interface RecordedRequest {
  provider: WireProvider;
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  /** Parsed JSON body (undefined when not JSON). */
  body: any;
  stream: boolean;
  /** When it arrived (epoch ms). */
  at: number;
}

/** One SSE frame; `args` marks frames that carry tool-call argument fragments. */
export interface Frame {
  data: string;
  args?: boolean;
}

export function pieces(value: string | string[] | undefined, size: number): string[] {
  if (value === undefined) return [];
  if (Array.isArray(value)) return value;
  const out: string[] = [];
  for (let i = 0; i < value.length; i += size) out.push(value.slice(i, i + size));
  return out;
}

export function argsText(args: unknown): string {
  return typeof args === 'string' ? args : JSON.stringify(args ?? {});
}

export function defaultUsage(turn: ReplyTurn): ScriptedUsage {
  if (turn.usage) return turn.usage;
  const text =
    [turn.text, turn.thinking].flat().join('') + (turn.toolCalls ?? []).map((c) => argsText(c.args)).join('');
  return { inputTokens: 10, outputTokens: Math.max(1, Math.ceil(text.length / 4)) };
}

export function finishOf(turn: ReplyTurn): NonNullable<ReplyTurn['finish']> {
  return turn.finish ?? (turn.toolCalls?.length ? 'tool_calls' : 'stop');
}

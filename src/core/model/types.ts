// The Model port: every provider adapter turns its SDK stream into these normalized events.

export interface ToolCall {
  id: string;
  name: string;
  /** Parsed arguments (undefined when the JSON could not be parsed; see rawArgs). */
  args: unknown;
  rawArgs: string;
}

export interface ThinkingBlock {
  text: string;
  /** Provider signature (Anthropic) that must be sent back verbatim with the thinking block. */
  signature?: string;
}

/** An image in a user message or a tool result (see images.ts for the caps). */
export interface ImagePart {
  mediaType: 'image/png' | 'image/jpeg' | 'image/gif' | 'image/webp';
  /** sha256 of the bytes: the image store's key, so a saved task holds only this. */
  sha256: string;
  /** The bytes, base64; absent in a saved task until read back from the image store. */
  data?: string;
  width?: number;
  height?: number;
  /** File name or label, for people and for a model that gets a placeholder instead. */
  name?: string;
}

export type ChatMessage =
  /** turnId: a message the user wrote (send or steer), so edit-and-resend can rewind to it. */
  | { role: 'user'; content: string; turnId?: string; images?: ImagePart[] }
  | { role: 'assistant'; content: string; thinking?: ThinkingBlock[]; toolCalls?: ToolCall[] }
  | {
      role: 'tool';
      toolCallId: string;
      toolName: string;
      content: string;
      isError?: boolean;
      images?: ImagePart[];
    };

/** A system prompt layer. Stable layers come first so provider prompt caches hit. */
export interface SystemLayer {
  id: string;
  text: string;
  /** true for layers that do not change between iterations (role, tool rules). */
  stable: boolean;
  /**
   * Changes every step (iteration counter, environment, warnings). Adapters with prompt caching send it after
   * the conversation, on the final user turn of that request only, so the cached prefix stays byte-identical.
   */
  perStep?: boolean;
}

export interface ToolSpec {
  name: string;
  description: string;
  /** JSON Schema produced from the tool's zod input schema. */
  inputSchema: Record<string, unknown>;
}

export interface ModelRequest {
  system: SystemLayer[];
  messages: ChatMessage[];
  tools: ToolSpec[];
  maxOutputTokens?: number;
  temperature?: number;
  /** Extended thinking budget (Anthropic); ignored by providers without it. */
  thinkingBudgetTokens?: number;
  signal: AbortSignal;
}

export type FinishReason = 'stop' | 'tool_calls' | 'length' | 'content_filter' | 'other';

export interface Usage {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens?: number;
  cacheWriteTokens?: number;
}

export type ModelEvent =
  | { type: 'text'; delta: string }
  | { type: 'thinking'; delta: string; signature?: string }
  | { type: 'tool_call_start'; id: string; name: string }
  | { type: 'tool_call_delta'; id: string; argsDelta: string }
  /** args undefined + parseError set when the model produced invalid JSON or a malformed text-mode call. */
  | { type: 'tool_call_end'; id: string; name: string; args: unknown; rawArgs: string; parseError?: string }
  | { type: 'usage'; usage: Usage }
  | { type: 'finish'; reason: FinishReason };

export interface ModelInfo {
  provider: string;
  model: string;
  contextWindow: number;
  maxOutputTokens: number;
  /** false -> the loop describes tools in the prompt and the XML text format is parsed from the text stream. */
  nativeTools: boolean;
  /** true: the model takes images (user attachments, read_file on an image); absent or false: it gets text. */
  images?: boolean;
}

export interface Model {
  readonly info: ModelInfo;
  /** Streams one model turn. Throws ModelError (see errors.ts) on provider faults; honours request.signal. */
  stream(request: ModelRequest): AsyncIterable<ModelEvent>;
}

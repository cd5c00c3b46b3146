// Model adapter over the VS Code Language Model API (vscode.lm): the zero-key default when the user already
// has a chat model in VS Code (e.g. Copilot). Native tool calling via LanguageModelChatTool.
// vscode.lm has no system role (in the stable API) and reports no usage: system layers become the first user
// message, and usage is estimated with the model's own countTokens (so context accounting uses the provider's
// tokenizer), counted alongside the request and cached per message across steps.
import * as vscode from 'vscode';
import { ModelError } from '../core/model/errors';
import { sendableMessages } from '../core/model/images';
import type {
  ChatMessage,
  ImagePart,
  Model,
  ModelEvent,
  ModelInfo,
  ModelRequest,
  ToolSpec,
  Usage,
} from '../core/model/types';
import { errorText } from '../core/error-text';

export interface VscodeLmSelector {
  /** A model id or family (forge.model); empty = first available. */
  model?: string;
  vendor?: string;
}

/** The window Forge assumes when a chat model does not say (maxInputTokens 0 or missing). */
export const FALLBACK_CONTEXT_WINDOW = 64_000;

/** Chat models VS Code offers right now (empty when none is installed or signed in). */
export async function listVscodeLmModels(vendor?: string): Promise<vscode.LanguageModelChat[]> {
  if (!vscode.lm?.selectChatModels) return [];
  try {
    return await vscode.lm.selectChatModels(vendor ? { vendor } : {});
  } catch {
    return [];
  }
}

/** Picks a chat model by id, then family, then name, else the first available; undefined when VS Code has none. */
export async function selectVscodeLmModel(
  selector: VscodeLmSelector = {},
): Promise<vscode.LanguageModelChat | undefined> {
  const all = await listVscodeLmModels(selector.vendor);
  return pickLmModel(all, selector.model);
}

/** The choice among `all` for forge.model (`id`, `vendor/id`, family or name); the first when `want` is empty. */
export function pickLmModel<T extends Pick<vscode.LanguageModelChat, 'id' | 'vendor' | 'family' | 'name'>>(
  all: readonly T[],
  want?: string,
): T | undefined {
  const w = want?.trim();
  if (!w) return all[0];
  return (
    all.find((m) => m.id === w) ??
    all.find((m) => `${m.vendor}/${m.id}` === w) ??
    all.find((m) => m.family === w) ??
    all.find((m) => m.name === w)
  );
}

export async function createVscodeLmModel(selector: VscodeLmSelector = {}): Promise<VscodeLmModel | undefined> {
  const chat = await selectVscodeLmModel(selector);
  return chat ? new VscodeLmModel(chat) : undefined;
}

/** The model's own token count for one message; cached by content (the history repeats every step). */
class TokenCounter {
  private readonly cache = new Map<string, number>();
  constructor(
    private readonly chat: Pick<vscode.LanguageModelChat, 'countTokens'>,
    private readonly max = 4_000,
  ) {}

  async count(
    value: string | vscode.LanguageModelChatMessage,
    key: string,
    token: vscode.CancellationToken,
  ): Promise<number> {
    const hit = this.cache.get(key);
    if (hit !== undefined) return hit;
    const n = await this.chat.countTokens(value, token);
    if (typeof n !== 'number' || !Number.isFinite(n) || n < 0) throw new Error(`countTokens returned ${String(n)}`);
    if (this.cache.size >= this.max) this.cache.delete(this.cache.keys().next().value as string);
    this.cache.set(key, n);
    return n;
  }
}

export class VscodeLmModel implements Model {
  readonly info: ModelInfo;
  private readonly counter: TokenCounter;

  constructor(
    private readonly chat: vscode.LanguageModelChat,
    private readonly justification = 'Forge uses this chat model to run the coding tasks you give it in the Forge panel.',
  ) {
    this.info = {
      provider: 'vscode-lm',
      model: chat.id,
      contextWindow: chat.maxInputTokens > 0 ? chat.maxInputTokens : FALLBACK_CONTEXT_WINDOW,
      maxOutputTokens: 8_192,
      nativeTools: true,
      images: lmTakesImages(chat),
    };
    this.counter = new TokenCounter(chat);
  }

  async *stream(request: ModelRequest): AsyncIterable<ModelEvent> {
    if (request.signal.aborted) throw new ModelError('aborted', 'Request aborted before it started');
    const cts = new vscode.CancellationTokenSource();
    const onAbort = () => cts.cancel();
    request.signal.addEventListener('abort', onAbort, { once: true });
    const messages = toLmMessages({ ...request, messages: sendableMessages(request.messages, this.info.images) });
    const tools = toLmTools(request.tools);
    // Counted while the model answers: the input side does not depend on the reply.
    const inputTokens = this.countInput(messages, tools, cts.token);
    inputTokens.catch(() => undefined);
    let outputText = '';
    let sawToolCall = false;
    let completed = false;
    const callIds = new Set<string>();
    const idPrefix = `lm_${Date.now().toString(36)}_`;
    try {
      const response = await this.chat.sendRequest(
        messages,
        {
          justification: this.justification,
          ...(tools.length ? { tools, toolMode: vscode.LanguageModelChatToolMode.Auto } : {}),
        },
        cts.token,
      );
      const ThinkingPart = (
        vscode as unknown as { LanguageModelThinkingPart?: new (...a: never[]) => { value: string | string[] } }
      ).LanguageModelThinkingPart;
      for await (const part of response.stream) {
        if (request.signal.aborted) throw new ModelError('aborted', 'Request aborted');
        if (part instanceof vscode.LanguageModelTextPart) {
          if (!part.value) continue;
          outputText += part.value;
          yield { type: 'text', delta: part.value };
        } else if (part instanceof vscode.LanguageModelToolCallPart) {
          sawToolCall = true;
          let id = part.callId || `${idPrefix}${callIds.size + 1}`;
          if (callIds.has(id)) id = `${id}_${callIds.size + 1}`; // a repeated id would pair two results with one call
          callIds.add(id);
          const ev = toolCallEvents(id, part.name, part.input);
          outputText += part.name + ev[1].argsDelta;
          yield* ev;
        } else if (ThinkingPart && part instanceof ThinkingPart) {
          const value = Array.isArray(part.value) ? part.value.join('') : part.value;
          if (value) yield { type: 'thinking', delta: value };
        }
      }
      // A cancelled request ends its stream quietly: that is a stop, never a finished turn.
      if (request.signal.aborted || cts.token.isCancellationRequested)
        throw new ModelError('aborted', 'Request aborted');
      const usage = await this.estimateUsage(inputTokens, outputText, cts.token);
      if (usage) yield { type: 'usage', usage };
      completed = true;
      yield { type: 'finish', reason: sawToolCall ? 'tool_calls' : 'stop' };
    } catch (e) {
      throw toModelErrorFromLm(e, request.signal, this.chat);
    } finally {
      request.signal.removeEventListener('abort', onAbort);
      // Closed early (the loop stopped reading): the model must stop generating too.
      if (!completed) cts.cancel();
      cts.dispose();
    }
  }

  private async countInput(
    messages: vscode.LanguageModelChatMessage[],
    tools: vscode.LanguageModelChatTool[],
    token: vscode.CancellationToken,
  ): Promise<number> {
    const counts = await Promise.all(messages.map((m) => this.counter.count(m, `m:${messageKey(m)}`, token)));
    // Tool definitions travel with every request and fill the window like messages do.
    const toolText = tools.length ? JSON.stringify(tools) : '';
    const toolTokens = toolText ? await this.counter.count(toolText, `t:${toolText}`, token) : 0;
    return counts.reduce((a, b) => a + b, 0) + toolTokens;
  }

  private async estimateUsage(
    input: Promise<number>,
    output: string,
    token: vscode.CancellationToken,
  ): Promise<Usage | undefined> {
    try {
      const [inputTokens, outputTokens] = await Promise.all([
        input,
        output ? this.chat.countTokens(output, token) : Promise.resolve(0),
      ]);
      return { inputTokens, outputTokens };
    } catch {
      return undefined; // counting is best effort: the loop estimates itself without a reported usage
    }
  }
}

/** One tool call part -> start, one args delta, end (vscode.lm hands over whole calls, never partial JSON). */
export function toolCallEvents(
  id: string,
  name: string,
  input: unknown,
): [ModelEvent, { type: 'tool_call_delta'; id: string; argsDelta: string }, ModelEvent] {
  const isObject = input !== null && typeof input === 'object' && !Array.isArray(input);
  let rawArgs: string;
  try {
    rawArgs = JSON.stringify(input ?? {}) ?? '{}';
  } catch {
    rawArgs = String(input);
  }
  return [
    { type: 'tool_call_start', id, name },
    { type: 'tool_call_delta', id, argsDelta: rawArgs },
    {
      type: 'tool_call_end',
      id,
      name,
      args: isObject ? input : undefined,
      rawArgs,
      ...(isObject
        ? {}
        : {
            parseError: `tool arguments must be a JSON object, got ${input === null ? 'null' : Array.isArray(input) ? 'an array' : typeof input}`,
          }),
    },
  ];
}

/** Tool specs -> vscode.lm tools (the schema must be an object schema; names are passed unchanged). */
export function toLmTools(tools: readonly ToolSpec[]): vscode.LanguageModelChatTool[] {
  return tools.map((t) => {
    const schema = t.inputSchema && typeof t.inputSchema === 'object' ? { ...t.inputSchema } : {};
    delete schema.$schema;
    if (schema.type === undefined) schema.type = 'object';
    return { name: t.name, description: t.description || t.name, inputSchema: schema };
  });
}

type DataPartClass = { image(data: Uint8Array, mimeType: string): unknown };

/** vscode.LanguageModelDataPart where this VS Code has it (finalized after the @types this builds against). */
function dataPartClass(): DataPartClass | undefined {
  const c = (vscode as unknown as { LanguageModelDataPart?: DataPartClass }).LanguageModelDataPart;
  return typeof c?.image === 'function' ? c : undefined;
}

/**
 * Whether a chat model takes images: it says so (capabilities.supportsImageToText) and this VS Code can send
 * them (LanguageModelDataPart).
 */
export function lmTakesImages(chat: vscode.LanguageModelChat): boolean {
  const caps = (chat as { capabilities?: { supportsImageToText?: boolean } }).capabilities;
  return !!caps?.supportsImageToText && !!dataPartClass();
}

/** Image parts as vscode.lm data parts (none where this VS Code has no LanguageModelDataPart). */
function lmImageParts(images: readonly ImagePart[] | undefined): vscode.LanguageModelTextPart[] {
  const DataPart = dataPartClass();
  if (!DataPart || !images?.length) return [];
  // Typed as text parts for the 1.95 typings; at run time they are LanguageModelDataPart.
  return images.map(
    (i) => DataPart.image(Buffer.from(i.data ?? '', 'base64'), i.mediaType) as vscode.LanguageModelTextPart,
  );
}

/** A stable key for a message's content (role + parts), for the token count cache. */
function messageKey(m: vscode.LanguageModelChatMessage): string {
  const parts = (m.content as unknown[]).map((p) => {
    if (p instanceof vscode.LanguageModelTextPart) return ['t', p.value];
    if (p instanceof vscode.LanguageModelToolCallPart) return ['c', p.callId, p.name, p.input];
    if (p instanceof vscode.LanguageModelToolResultPart)
      return ['r', p.callId, p.content.map((c) => (c instanceof vscode.LanguageModelTextPart ? c.value : '?'))];
    const data = p as { mimeType?: unknown; data?: Uint8Array };
    if (typeof data.mimeType === 'string' && data.data) return ['d', data.mimeType, data.data.byteLength];
    return ['?'];
  });
  return JSON.stringify([m.role, parts]);
}

/**
 * Port messages -> vscode.lm messages. System layers become the first user message; every tool result of one
 * assistant turn goes into the one user message that follows it (in the order of the calls); an assistant turn
 * with neither text nor calls is left out (some backends refuse empty assistant messages).
 */
export function toLmMessages(request: Pick<ModelRequest, 'system' | 'messages'>): vscode.LanguageModelChatMessage[] {
  const out: vscode.LanguageModelChatMessage[] = [];
  const system = request.system
    .map((l) => l.text)
    .filter(Boolean)
    .join('\n\n');
  if (system) out.push(vscode.LanguageModelChatMessage.User(system));
  let toolResults: vscode.LanguageModelToolResultPart[] = [];
  let toolImages: ImagePart[] = [];
  const flushResults = () => {
    // The images tool results returned go after the results, in the same user message.
    const parts = [...toolResults, ...lmImageParts(toolImages)] as vscode.LanguageModelToolResultPart[];
    if (parts.length) out.push(vscode.LanguageModelChatMessage.User(parts));
    toolResults = [];
    toolImages = [];
  };
  for (const m of request.messages as ChatMessage[]) {
    if (m.role === 'tool') {
      const body = m.content || '(no output)';
      const text = m.isError ? `Error: ${body}` : body;
      toolResults.push(new vscode.LanguageModelToolResultPart(m.toolCallId, [new vscode.LanguageModelTextPart(text)]));
      if (m.images?.length) toolImages.push(...m.images);
      continue;
    }
    flushResults();
    if (m.role === 'user') {
      const images = lmImageParts(m.images);
      out.push(
        vscode.LanguageModelChatMessage.User(
          images.length ? [...images, new vscode.LanguageModelTextPart(m.content)] : m.content,
        ),
      );
    } else {
      const parts: (vscode.LanguageModelTextPart | vscode.LanguageModelToolCallPart)[] = [];
      if (m.content) parts.push(new vscode.LanguageModelTextPart(m.content));
      for (const c of m.toolCalls ?? []) {
        const input = c.args !== null && typeof c.args === 'object' && !Array.isArray(c.args) ? (c.args as object) : {};
        parts.push(new vscode.LanguageModelToolCallPart(c.id, c.name, input));
      }
      if (parts.length) out.push(vscode.LanguageModelChatMessage.Assistant(parts));
    }
  }
  flushResults();
  return out;
}

const LM_ERROR_CODES = ['NoPermissions', 'Blocked', 'NotFound'] as const;

/** The LanguageModelError code of `e` ('NoPermissions' | 'Blocked' | 'NotFound' | other), if it is one. */
function lmErrorCode(e: unknown): string | undefined {
  const LmError = vscode.LanguageModelError as typeof vscode.LanguageModelError | undefined;
  const isLmError = (LmError && e instanceof LmError) || (e instanceof Error && e.name === 'LanguageModelError');
  if (!isLmError) return undefined;
  const code = String((e as { code?: unknown }).code ?? '');
  // The codes are the factory functions' names; compare with those and with the literal names.
  for (const known of LM_ERROR_CODES) if (code === known || (LmError && code === LmError[known]?.name)) return known;
  return code;
}

/** LanguageModelError codes (and vscode.lm's plain errors) -> ModelErrors that say what to do. */
export function toModelErrorFromLm(
  e: unknown,
  signal?: AbortSignal,
  chat?: Pick<vscode.LanguageModelChat, 'id' | 'name' | 'vendor'>,
): ModelError {
  if (e instanceof ModelError) return e;
  if (signal?.aborted || e instanceof vscode.CancellationError)
    return new ModelError('aborted', 'Request aborted', { cause: e });
  const message = errorText(e);
  const which = chat ? `"${chat.name || chat.id}"${chat.vendor ? ` (${chat.vendor})` : ''}` : 'the chat model';
  const detail = message ? ` VS Code said: ${message}` : '';
  switch (lmErrorCode(e)) {
    case 'NoPermissions':
      // Not 'auth': that kind's advice is about API keys, which vscode.lm has none of.
      return new ModelError(
        'bad_request',
        `VS Code did not give Forge access to the chat model ${which}: the consent prompt was declined or access was withdrawn. ` +
          `Allow Forge under Accounts > Manage Language Model Access in VS Code and continue, or run "Forge: Select Model" to use another model.${detail}`,
        { cause: e },
      );
    case 'Blocked':
      return new ModelError(
        'bad_request',
        `The chat model ${which} refused requests from Forge (blocked by its provider: quota, rate or policy). ` +
          `Check that model's extension or account, or run "Forge: Select Model" to use another model.${detail}`,
        { cause: e },
      );
    case 'NotFound':
      return new ModelError(
        'bad_request',
        `The chat model ${which} was not found: its extension was disabled, signed out or removed it. Run "Forge: Select Model" to pick another.${detail}`,
        { cause: e },
      );
  }
  // vscode.lm's own plain errors when the provider behind a model went away between select and send.
  if (/provider for .* (not registered|not found)|model not found|language model .* is unknown/i.test(message)) {
    return new ModelError(
      'bad_request',
      `The chat model ${which} was not found: its provider is no longer registered. Run "Forge: Select Model" to pick another. VS Code said: ${message}`,
      { cause: e },
    );
  }
  if (/rate.?limit|\b429\b|quota|too many requests/i.test(message))
    return new ModelError('rate_limit', message, { cause: e });
  if (/network|ECONN|ETIMEDOUT|ENOTFOUND|fetch failed|socket/i.test(message))
    return new ModelError('network', message, { cause: e });
  return new ModelError('server', `The chat model ${which} failed: ${message || 'no details'}`, { cause: e });
}

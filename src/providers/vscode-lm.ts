// Model adapter over the VS Code Language Model API (vscode.lm): the zero-key default when the user already
// has a chat model in VS Code (e.g. Copilot). Native tool calling via LanguageModelChatTool.
// vscode.lm has no system role and reports no usage: system layers become the first user message, and
// usage is estimated with the model's own countTokens.
import * as vscode from 'vscode';
import { ModelError } from '../core/model/errors';
import type { ChatMessage, Model, ModelEvent, ModelInfo, ModelRequest } from '../core/model/types';

export interface VscodeLmSelector {
  /** A model id or family (forge.model); empty = first available. */
  model?: string;
  vendor?: string;
}

/** Chat models VS Code offers right now (empty when none is installed or signed in). */
export async function listVscodeLmModels(vendor?: string): Promise<vscode.LanguageModelChat[]> {
  if (!vscode.lm?.selectChatModels) return [];
  try {
    return await vscode.lm.selectChatModels(vendor ? { vendor } : {});
  } catch {
    return [];
  }
}

/** Picks a chat model by id, then family, then the first available; undefined when VS Code has none. */
export async function selectVscodeLmModel(selector: VscodeLmSelector = {}): Promise<vscode.LanguageModelChat | undefined> {
  const all = await listVscodeLmModels(selector.vendor);
  const want = selector.model?.trim();
  if (!want) return all[0];
  return all.find((m) => m.id === want) ?? all.find((m) => m.family === want) ?? all.find((m) => m.name === want);
}

export async function createVscodeLmModel(selector: VscodeLmSelector = {}): Promise<VscodeLmModel | undefined> {
  const chat = await selectVscodeLmModel(selector);
  return chat ? new VscodeLmModel(chat) : undefined;
}

export class VscodeLmModel implements Model {
  readonly info: ModelInfo;

  constructor(
    private readonly chat: vscode.LanguageModelChat,
    private readonly justification = 'Forge runs coding tasks you ask for with this model.',
  ) {
    this.info = {
      provider: 'vscode-lm',
      model: chat.id,
      contextWindow: chat.maxInputTokens || 64_000,
      maxOutputTokens: 8_192,
      nativeTools: true,
    };
  }

  async *stream(request: ModelRequest): AsyncIterable<ModelEvent> {
    if (request.signal.aborted) throw new ModelError('aborted', 'Request aborted before it started');
    const cts = new vscode.CancellationTokenSource();
    const onAbort = () => cts.cancel();
    request.signal.addEventListener('abort', onAbort, { once: true });
    const messages = toLmMessages(request);
    const tools: vscode.LanguageModelChatTool[] = request.tools.map((t) => ({
      name: t.name,
      description: t.description,
      inputSchema: t.inputSchema,
    }));
    let outputText = '';
    let sawToolCall = false;
    try {
      const response = await this.chat.sendRequest(
        messages,
        { justification: this.justification, ...(tools.length ? { tools, toolMode: vscode.LanguageModelChatToolMode.Auto } : {}) },
        cts.token,
      );
      let n = 0;
      for await (const part of response.stream) {
        if (request.signal.aborted) throw new ModelError('aborted', 'Request aborted');
        if (part instanceof vscode.LanguageModelTextPart) {
          if (!part.value) continue;
          outputText += part.value;
          yield { type: 'text', delta: part.value };
        } else if (part instanceof vscode.LanguageModelToolCallPart) {
          sawToolCall = true;
          const id = part.callId || `lm_call_${++n}`;
          const rawArgs = JSON.stringify(part.input ?? {});
          outputText += rawArgs;
          yield { type: 'tool_call_start', id, name: part.name };
          yield { type: 'tool_call_delta', id, argsDelta: rawArgs };
          const isObject = part.input !== null && typeof part.input === 'object' && !Array.isArray(part.input);
          yield {
            type: 'tool_call_end',
            id,
            name: part.name,
            args: isObject ? part.input : undefined,
            rawArgs,
            ...(isObject ? {} : { parseError: 'tool arguments must be a JSON object' }),
          };
        }
      }
      const usage = await this.estimateUsage(messages, outputText, cts.token);
      if (usage) yield { type: 'usage', usage };
      yield { type: 'finish', reason: sawToolCall ? 'tool_calls' : 'stop' };
    } catch (e) {
      throw toModelErrorFromLm(e, request.signal);
    } finally {
      request.signal.removeEventListener('abort', onAbort);
      cts.dispose();
    }
  }

  private async estimateUsage(messages: vscode.LanguageModelChatMessage[], output: string, token: vscode.CancellationToken) {
    try {
      const counts = await Promise.all(messages.map((m) => this.chat.countTokens(m, token)));
      const outputTokens = output ? await this.chat.countTokens(output, token) : 0;
      return { inputTokens: counts.reduce((a, b) => a + b, 0), outputTokens };
    } catch {
      return undefined; // counting is best effort
    }
  }
}

/** Port messages -> vscode.lm messages (system as the first user message; tool results grouped). */
export function toLmMessages(request: Pick<ModelRequest, 'system' | 'messages'>): vscode.LanguageModelChatMessage[] {
  const out: vscode.LanguageModelChatMessage[] = [];
  const system = request.system.map((l) => l.text).filter(Boolean).join('\n\n');
  if (system) out.push(vscode.LanguageModelChatMessage.User(system));
  let toolResults: vscode.LanguageModelToolResultPart[] = [];
  const flushResults = () => {
    if (toolResults.length) out.push(vscode.LanguageModelChatMessage.User(toolResults));
    toolResults = [];
  };
  for (const m of request.messages as ChatMessage[]) {
    if (m.role === 'tool') {
      const text = m.isError ? `Error: ${m.content}` : m.content;
      toolResults.push(new vscode.LanguageModelToolResultPart(m.toolCallId, [new vscode.LanguageModelTextPart(text)]));
      continue;
    }
    flushResults();
    if (m.role === 'user') {
      out.push(vscode.LanguageModelChatMessage.User(m.content));
    } else {
      const parts: (vscode.LanguageModelTextPart | vscode.LanguageModelToolCallPart)[] = [];
      if (m.content) parts.push(new vscode.LanguageModelTextPart(m.content));
      for (const c of m.toolCalls ?? []) {
        const input = c.args !== null && typeof c.args === 'object' ? (c.args as object) : {};
        parts.push(new vscode.LanguageModelToolCallPart(c.id, c.name, input));
      }
      out.push(vscode.LanguageModelChatMessage.Assistant(parts.length ? parts : ''));
    }
  }
  flushResults();
  return out;
}

/** LanguageModelError codes -> ModelError kinds. */
export function toModelErrorFromLm(e: unknown, signal?: AbortSignal): ModelError {
  if (e instanceof ModelError) return e;
  if (signal?.aborted || e instanceof vscode.CancellationError) return new ModelError('aborted', 'Request aborted', { cause: e });
  const message = e instanceof Error ? e.message : String(e);
  if (e instanceof vscode.LanguageModelError) {
    switch (e.code) {
      case vscode.LanguageModelError.NoPermissions.name:
        return new ModelError('auth', `VS Code did not allow Forge to use this chat model: ${message}`, { cause: e });
      case vscode.LanguageModelError.Blocked.name:
        return new ModelError('auth', `This chat model is blocked for Forge (quota or policy): ${message}`, { cause: e });
      case vscode.LanguageModelError.NotFound.name:
        return new ModelError('bad_request', `The chat model is no longer available: ${message}`, { cause: e });
    }
  }
  if (/rate.?limit|429|quota/i.test(message)) return new ModelError('rate_limit', message, { cause: e });
  if (/network|ECONN|ETIMEDOUT|fetch failed|socket/i.test(message)) return new ModelError('network', message, { cause: e });
  return new ModelError('server', message || 'The VS Code language model failed', { cause: e });
}

// Text-mode tool calling for models without native tools: the tool catalogue and the <tool> format go into
// the system prompt, no native tools are sent, and tool calls are parsed out of the text stream as it arrives.
import type {
  ChatMessage,
  Model,
  ModelEvent,
  ModelInfo,
  ModelRequest,
  SystemLayer,
  ToolCall,
  ToolSpec,
} from '../model/types';
import { XmlToolCallParser } from './xml-parser';

export const TEXT_MODE_LAYER_ID = 'text-mode-tools';

function renderToolCatalogue(tools: ToolSpec[], serverName = 'local'): string {
  const lines = [
    '# Calling tools',
    'You have no native function calling. To call a tool, write a <tool> block holding exactly one JSON object:',
    '',
    `<tool>{"server_name": "${serverName}", "tool_name": "read_file", "arguments": {"path": "src/a.ts"}}</tool>`,
    '',
    'Rules:',
    '- "tool_name" is one of the tools below; "arguments" is a JSON object matching its input schema.',
    '- You may write several <tool> blocks; they run in order. Then stop: the results come back in the next',
    '  message as <tool_result> blocks. Never write a <tool_result> yourself.',
    '- Inside JSON strings write "<\\/tool>" instead of "</tool>".',
    '- Put your reasoning inside <thinking>...</thinking> before acting.',
    '',
    '# Available tools',
  ];
  for (const t of tools) {
    lines.push('', `## ${t.name}`, t.description.trim(), `Input schema: ${JSON.stringify(t.inputSchema)}`);
  }
  return lines.join('\n');
}

function renderCall(call: ToolCall, serverName: string): string {
  const args = call.args !== undefined ? call.args : call.rawArgs;
  // Escape "</" so the call's own text can never close the block early when parsed back.
  const json = JSON.stringify({ server_name: serverName, tool_name: call.name, arguments: args }).replace(
    /<\//g,
    '<\\/',
  );
  return `<tool>${json}</tool>`;
}

function escapeAttr(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
}

/** Native tool-call history -> plain text turns the model can read back. */
function toTextModeMessages(messages: ChatMessage[], serverName = 'local'): ChatMessage[] {
  return messages.map((m): ChatMessage => {
    if (m.role === 'assistant' && m.toolCalls?.length) {
      const calls = m.toolCalls.map((c) => renderCall(c, serverName)).join('\n');
      const { toolCalls: _drop, ...rest } = m;
      return { ...rest, content: m.content ? `${m.content}\n${calls}` : calls };
    }
    if (m.role === 'tool') {
      const status = m.isError ? 'error' : 'ok';
      return {
        role: 'user',
        content: `<tool_result tool_name="${escapeAttr(m.toolName)}" id="${escapeAttr(m.toolCallId)}" status="${status}">\n${m.content}\n</tool_result>`,
        ...(m.images?.length ? { images: m.images } : {}),
      };
    }
    return m;
  });
}

/** Inserts the tool layer right after the last stable layer, so stable layers stay a cacheable prefix. */
function withToolLayer(system: SystemLayer[], text: string): SystemLayer[] {
  let at = 0;
  system.forEach((l, i) => {
    if (l.stable) at = i + 1;
  });
  const layer: SystemLayer = { id: TEXT_MODE_LAYER_ID, text, stable: true };
  return [...system.slice(0, at), layer, ...system.slice(at)];
}

interface TextModeOptions {
  serverName?: string;
  /** Id factory for parsed calls (tests). */
  newId?: () => string;
}

export class TextModeModel implements Model {
  readonly info: ModelInfo;

  constructor(
    private readonly inner: Model,
    private readonly options: TextModeOptions = {},
  ) {
    this.info = { ...inner.info, nativeTools: false };
  }

  async *stream(request: ModelRequest): AsyncIterable<ModelEvent> {
    const serverName = this.options.serverName ?? 'local';
    const system = request.tools.length
      ? withToolLayer(request.system, renderToolCatalogue(request.tools, serverName))
      : request.system;
    const parser = new XmlToolCallParser({ newId: this.options.newId });
    let flushed = false;
    const inner = this.inner.stream({
      ...request,
      system,
      messages: toTextModeMessages(request.messages, serverName),
      tools: [],
    });
    for await (const ev of inner) {
      if (ev.type === 'text') {
        yield* parser.push(ev.delta);
      } else if (ev.type === 'finish') {
        yield* parser.end();
        flushed = true;
        const reason = ev.reason === 'stop' && parser.toolCallCount > 0 ? 'tool_calls' : ev.reason;
        yield { type: 'finish', reason };
      } else {
        yield ev;
      }
    }
    if (!flushed) yield* parser.end();
  }
}

export function withTextModeTools(inner: Model, options?: TextModeOptions): Model {
  return new TextModeModel(inner, options);
}

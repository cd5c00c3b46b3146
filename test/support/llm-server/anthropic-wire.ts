// Anthropic messages wire format (see /work/shared/llm-wire-formats.md): every frame carries `event:` = its type.
import { argsText, defaultUsage, finishOf, pieces, type Frame, type ReplyTurn } from './types';

let seq = 0;

const STOP: Record<string, string> = {
  stop: 'end_turn',
  tool_calls: 'tool_use',
  length: 'max_tokens',
  content_filter: 'refusal',
};

export function sse(type: string, body: Record<string, unknown>, eol: string, args = false): Frame {
  return { data: `event: ${type}${eol}data: ${JSON.stringify({ type, ...body })}${eol}${eol}`, args };
}

function usageJson(turn: ReplyTurn) {
  const u = defaultUsage(turn);
  return {
    input_tokens: u.inputTokens,
    output_tokens: u.outputTokens,
    cache_read_input_tokens: u.cacheReadTokens ?? 0,
    cache_creation_input_tokens: u.cacheWriteTokens ?? 0,
  };
}

export function anthropicStreamFrames(turn: ReplyTurn, model: string, eol: string): Frame[] {
  const size = turn.deltaSize ?? 8;
  const usage = usageJson(turn);
  const frames: Frame[] = [];
  const f = (type: string, body: Record<string, unknown>, args = false) => frames.push(sse(type, body, eol, args));
  f('message_start', {
    message: {
      id: `msg_${++seq}`,
      type: 'message',
      role: 'assistant',
      model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { ...usage, output_tokens: 1 },
    },
  });
  f('ping', {});
  let index = 0;
  if (turn.thinking !== undefined) {
    f('content_block_start', { index, content_block: { type: 'thinking', thinking: '', signature: '' } });
    for (const t of pieces(turn.thinking, size))
      f('content_block_delta', { index, delta: { type: 'thinking_delta', thinking: t } });
    f('content_block_delta', {
      index,
      delta: { type: 'signature_delta', signature: turn.thinkingSignature ?? 'sig-1' },
    });
    f('content_block_stop', { index });
    index++;
  }
  if (turn.text !== undefined) {
    f('content_block_start', { index, content_block: { type: 'text', text: '' } });
    for (const t of pieces(turn.text, size))
      f('content_block_delta', { index, delta: { type: 'text_delta', text: t } });
    f('content_block_stop', { index });
    index++;
  }
  for (const [i, call] of (turn.toolCalls ?? []).entries()) {
    const id = call.id ?? `toolu_0${i + 1}`;
    f('content_block_start', { index, content_block: { type: 'tool_use', id, name: call.name, input: {} } });
    for (const frag of pieces(argsText(call.args), size)) {
      f('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: frag } }, true);
    }
    f('content_block_stop', { index });
    index++;
  }
  f('message_delta', {
    delta: { stop_reason: STOP[finishOf(turn)], stop_sequence: null },
    usage: { output_tokens: usage.output_tokens },
  });
  f('message_stop', {});
  return frames;
}

export function anthropicJson(turn: ReplyTurn, model: string): Record<string, unknown> {
  const content: unknown[] = [];
  if (turn.thinking !== undefined) {
    content.push({
      type: 'thinking',
      thinking: [turn.thinking].flat().join(''),
      signature: turn.thinkingSignature ?? 'sig-1',
    });
  }
  if (turn.text !== undefined) content.push({ type: 'text', text: [turn.text].flat().join('') });
  (turn.toolCalls ?? []).forEach((c, i) => {
    const raw = argsText(c.args);
    let input: unknown;
    try {
      input = JSON.parse(raw);
    } catch {
      input = { _invalid: raw };
    }
    content.push({ type: 'tool_use', id: c.id ?? `toolu_0${i + 1}`, name: c.name, input });
  });
  return {
    id: `msg_${++seq}`,
    type: 'message',
    role: 'assistant',
    model,
    content,
    stop_reason: STOP[finishOf(turn)],
    stop_sequence: null,
    usage: usageJson(turn),
  };
}

const ERROR_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  529: 'overloaded_error',
};

export function anthropicHttpErrorBody(status: number): Record<string, unknown> {
  return { type: 'error', error: { type: ERROR_TYPES[status] ?? 'api_error', message: `scripted HTTP ${status}` } };
}

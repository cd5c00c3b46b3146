// OpenAI chat-completions wire format (see /work/shared/llm-wire-formats.md).
import { argsText, defaultUsage, finishOf, pieces, type Frame, type ReplyTurn } from './types';

let seq = 0;

function chunk(model: string, id: string, body: Record<string, unknown>): Record<string, unknown> {
  return { id, object: 'chat.completion.chunk', created: 1_700_000_000, model, ...body };
}

export function openaiStreamFrames(turn: ReplyTurn, model: string, eol: string): Frame[] {
  const id = `chatcmpl-${++seq}`;
  const size = turn.deltaSize ?? 8;
  const frames: Frame[] = [];
  const push = (body: Record<string, unknown>, args = false) =>
    frames.push({ data: `data: ${JSON.stringify(chunk(model, id, body))}${eol}${eol}`, args });
  let first = true;
  const delta = (d: Record<string, unknown>) => {
    const withRole = first ? { role: 'assistant', ...d } : d;
    first = false;
    return { choices: [{ index: 0, delta: withRole, finish_reason: null }] };
  };
  for (const t of pieces(turn.thinking, size)) push(delta({ reasoning_content: t }));
  for (const t of pieces(turn.text, size)) push(delta({ content: t }));
  (turn.toolCalls ?? []).forEach((call, index) => {
    const head = {
      index,
      id: call.id ?? `call_${index + 1}`,
      type: 'function',
      function: { name: call.name, arguments: '' },
    };
    push(delta({ content: null, tool_calls: [head] }));
    for (const frag of pieces(argsText(call.args), size)) {
      push(delta({ tool_calls: [{ index, function: { arguments: frag } }] }), true);
    }
  });
  if (first) push(delta({ content: '' }));
  push({ choices: [{ index: 0, delta: {}, finish_reason: finishOf(turn) }] });
  const u = defaultUsage(turn);
  const prompt = u.inputTokens + (u.cacheReadTokens ?? 0) + (u.cacheWriteTokens ?? 0);
  push({
    choices: [],
    usage: {
      prompt_tokens: prompt,
      completion_tokens: u.outputTokens,
      total_tokens: prompt + u.outputTokens,
      prompt_tokens_details: { cached_tokens: u.cacheReadTokens ?? 0 },
    },
  });
  frames.push({ data: `data: [DONE]${eol}${eol}` });
  return frames;
}

export function openaiErrorFrame(message: string, type: string, eol: string): Frame {
  return { data: `data: ${JSON.stringify({ error: { message, type, code: null, param: null } })}${eol}${eol}` };
}

export function openaiJson(turn: ReplyTurn, model: string): Record<string, unknown> {
  const u = defaultUsage(turn);
  const prompt = u.inputTokens + (u.cacheReadTokens ?? 0) + (u.cacheWriteTokens ?? 0);
  const text = [turn.text ?? ''].flat().join('');
  const toolCalls = (turn.toolCalls ?? []).map((c, i) => ({
    id: c.id ?? `call_${i + 1}`,
    type: 'function',
    function: { name: c.name, arguments: argsText(c.args) },
  }));
  return {
    id: `chatcmpl-${++seq}`,
    object: 'chat.completion',
    created: 1_700_000_000,
    model,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: text || (toolCalls.length ? null : ''),
          ...(turn.thinking ? { reasoning_content: [turn.thinking].flat().join('') } : {}),
          ...(toolCalls.length ? { tool_calls: toolCalls } : {}),
        },
        finish_reason: finishOf(turn),
      },
    ],
    usage: {
      prompt_tokens: prompt,
      completion_tokens: u.outputTokens,
      total_tokens: prompt + u.outputTokens,
      prompt_tokens_details: { cached_tokens: u.cacheReadTokens ?? 0 },
    },
  };
}

export function openaiHttpErrorBody(status: number): Record<string, unknown> {
  const type =
    status === 429
      ? 'rate_limit_exceeded'
      : status >= 500
        ? 'server_error'
        : status === 401
          ? 'invalid_api_key'
          : 'invalid_request_error';
  return { error: { message: `scripted HTTP ${status}`, type, code: type, param: null } };
}

// Streaming parser for the text-mode tool-call format (DESIGN §3):
//   <thinking>...</thinking>   -> thinking events
//   <tool>{"server_name": "local", "tool_name": "read_file", "arguments": {...}}</tool> -> tool_call_* events
// Everything else is text. Tags may be split across chunks at any byte; a possible partial tag is held back
// (at most 10 chars), so the work per chunk is linear. Malformed calls end with a parseError, never a throw.
import type { ModelEvent } from '../model/types';
import { errorText } from '../error-text';

const OPEN_TOOL = '<tool>';
const CLOSE_TOOL = '</tool>';
const OPEN_THINKING = '<thinking>';
const CLOSE_THINKING = '</thinking>';
/** The name is looked for only in the first part of a call body (it normally comes first). */
const NAME_SCAN_LIMIT = 1024;
const NAME_RE = /"tool_name"\s*:\s*"((?:[^"\\]|\\.)*)"/;

interface ParsedToolCall {
  name: string;
  args: unknown;
  rawArgs: string;
  parseError?: string;
}

interface XmlToolCallParserOptions {
  /** Id for each call (default tc_<random>_<n>). */
  newId?: () => string;
}

type Mode = 'text' | 'thinking' | 'tool';

interface OpenCall {
  id: string;
  name?: string;
  started: boolean;
  head: string;
  parts: string[];
}

export class XmlToolCallParser {
  private mode: Mode = 'text';
  private carry = '';
  private call: OpenCall | undefined;
  private out: ModelEvent[] = [];
  private calls = 0;
  private readonly newId: () => string;

  constructor(options: XmlToolCallParserOptions = {}) {
    const prefix = `tc_${Math.random().toString(36).slice(2, 8)}_`;
    this.newId = options.newId ?? (() => `${prefix}${this.calls}`);
  }

  /** Number of <tool> blocks seen so far (complete or not). */
  get toolCallCount(): number {
    return this.calls;
  }

  push(chunk: string): ModelEvent[] {
    this.out = [];
    const s = this.carry + chunk;
    this.carry = '';
    let i = 0;
    while (i < s.length) {
      if (this.mode === 'text') i = this.scanText(s, i);
      else i = this.scanInside(s, i, this.mode === 'thinking' ? CLOSE_THINKING : CLOSE_TOOL);
    }
    return this.out;
  }

  /** Flushes held-back text; an open <tool> block becomes a call with a parseError. */
  end(): ModelEvent[] {
    this.out = [];
    const rest = this.carry;
    this.carry = '';
    if (this.mode === 'text') this.text(rest);
    else if (this.mode === 'thinking') this.thinking(rest);
    else {
      this.toolContent(rest);
      const call = this.call!;
      const raw = call.parts.join('');
      const detail = raw.trim() ? ` after ${raw.length} chars` : ' (empty block)';
      this.finishCall({
        name: interpretToolBody(raw).name,
        args: undefined,
        rawArgs: raw,
        parseError: `unterminated <tool> block: the response ended before </tool>${detail}`,
      });
    }
    this.mode = 'text';
    return this.out;
  }

  private scanText(s: string, from: number): number {
    let search = from;
    for (;;) {
      const lt = s.indexOf('<', search);
      if (lt < 0) {
        this.text(s.slice(from));
        return s.length;
      }
      if (s.startsWith(OPEN_TOOL, lt) || s.startsWith(OPEN_THINKING, lt)) {
        this.text(s.slice(from, lt));
        if (s.startsWith(OPEN_TOOL, lt)) {
          this.mode = 'tool';
          this.calls++;
          this.call = { id: this.newId(), started: false, head: '', parts: [] };
          return lt + OPEN_TOOL.length;
        }
        this.mode = 'thinking';
        return lt + OPEN_THINKING.length;
      }
      const tail = s.slice(lt, lt + OPEN_THINKING.length);
      if (lt + tail.length === s.length && (OPEN_TOOL.startsWith(tail) || OPEN_THINKING.startsWith(tail))) {
        // Could still become a tag: hold it back until the next chunk.
        this.text(s.slice(from, lt));
        this.carry = tail;
        return s.length;
      }
      search = lt + 1;
    }
  }

  private scanInside(s: string, from: number, close: string): number {
    const idx = s.indexOf(close, from);
    if (idx >= 0) {
      this.content(s.slice(from, idx));
      this.closeMode();
      return idx + close.length;
    }
    // Hold back a suffix that may be the start of the closing tag (it contains '<' only at position 0).
    const lt = s.lastIndexOf('<');
    const keep = lt >= from && lt > s.length - close.length && close.startsWith(s.slice(lt)) ? s.length - lt : 0;
    this.content(s.slice(from, s.length - keep));
    this.carry = s.slice(s.length - keep);
    return s.length;
  }

  private content(piece: string): void {
    if (this.mode === 'thinking') this.thinking(piece);
    else this.toolContent(piece);
  }

  private closeMode(): void {
    if (this.mode === 'tool') this.finishCall(interpretToolBody(this.call!.parts.join('')));
    this.mode = 'text';
  }

  private toolContent(piece: string): void {
    const call = this.call!;
    if (!piece) return;
    call.parts.push(piece);
    if (call.started) {
      this.out.push({ type: 'tool_call_delta', id: call.id, argsDelta: piece });
      return;
    }
    if (call.head.length >= NAME_SCAN_LIMIT) return;
    call.head += piece;
    const m = NAME_RE.exec(call.head);
    if (m) {
      call.name = unescapeJsonString(m[1]);
      call.started = true;
      this.out.push({ type: 'tool_call_start', id: call.id, name: call.name });
      this.out.push({ type: 'tool_call_delta', id: call.id, argsDelta: call.parts.join('') });
    }
  }

  private finishCall(parsed: ParsedToolCall): void {
    const call = this.call!;
    const name = call.name ?? parsed.name;
    if (!call.started) this.out.push({ type: 'tool_call_start', id: call.id, name });
    const end: ModelEvent = { type: 'tool_call_end', id: call.id, name, args: parsed.args, rawArgs: parsed.rawArgs };
    if (parsed.parseError !== undefined) end.parseError = parsed.parseError;
    this.out.push(end);
    this.call = undefined;
  }

  private text(delta: string): void {
    if (!delta) return;
    const last = this.out[this.out.length - 1];
    if (last?.type === 'text') last.delta += delta;
    else this.out.push({ type: 'text', delta });
  }

  private thinking(delta: string): void {
    if (!delta) return;
    const last = this.out[this.out.length - 1];
    if (last?.type === 'thinking') last.delta += delta;
    else this.out.push({ type: 'thinking', delta });
  }
}

function unescapeJsonString(s: string): string {
  try {
    return JSON.parse(`"${s}"`) as string;
  } catch {
    return s;
  }
}

function describeType(v: unknown): string {
  return v === null ? 'null' : Array.isArray(v) ? 'an array' : typeof v;
}

/** Interprets a complete <tool> body. Never throws. */
export function interpretToolBody(raw: string): ParsedToolCall {
  let body = raw.trim();
  const fenced = /^```(?:json)?\s*([\s\S]*?)\s*```$/.exec(body);
  if (fenced) body = fenced[1];
  const fail = (parseError: string, name = 'unknown'): ParsedToolCall => ({
    name,
    args: undefined,
    rawArgs: raw,
    parseError,
  });
  if (!body) return fail('empty <tool> block: expected {"server_name": ..., "tool_name": ..., "arguments": {...}}');
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch (err) {
    const message = errorText(err);
    const m = /position (\d+)/.exec(message);
    const pos = m ? Number(m[1]) : body.length;
    const near = body.slice(Math.max(0, pos - 30), pos + 10).replace(/\s+/g, ' ');
    const name = NAME_RE.exec(body)?.[1];
    return fail(
      `invalid JSON in <tool> block: ${message.replace(/ in JSON at position \d+.*$/s, '')} at char ${pos} of ${body.length} (near \`${near}\`)`,
      name ? unescapeJsonString(name) : undefined,
    );
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return fail(`<tool> block must hold a JSON object, got ${describeType(value)}`);
  }
  const obj = value as Record<string, unknown>;
  const name = obj.tool_name;
  if (typeof name !== 'string' || !name.trim()) {
    const keys = Object.keys(obj);
    return fail(
      name === undefined
        ? `missing "tool_name" in <tool> block (keys present: ${keys.length ? keys.join(', ') : 'none'})`
        : `"tool_name" must be a non-empty string, got ${describeType(name)}`,
    );
  }
  let args = obj.arguments;
  if (args === undefined) args = {};
  if (typeof args === 'string') {
    // Some models double-encode the arguments object.
    try {
      args = JSON.parse(args);
    } catch {
      return fail(`"arguments" must be a JSON object, got a string that is not JSON`, name);
    }
  }
  if (args === null || typeof args !== 'object' || Array.isArray(args)) {
    return fail(`"arguments" must be a JSON object, got ${describeType(args)}`, name);
  }
  return { name, args, rawArgs: JSON.stringify(args) };
}

// forge.toolCallFormat: native tool calls, Forge's XML text format, or auto — native until the endpoint refuses
// tools (Ollama, vLLM, llama.cpp, OpenRouter each say so in their own words) or the model writes its tool calls
// as text; then the same request is retried in XML mode and the choice is remembered per endpoint + model.
import { ModelError } from '../core/model/errors';
import type { Model, ModelEvent, ModelInfo, ModelRequest } from '../core/model/types';
import { withTextModeTools } from '../core/tools/text-mode';
import { XmlToolCallParser } from '../core/tools/xml-parser';

export type ToolCallFormat = 'auto' | 'native' | 'xml';
type ResolvedToolFormat = 'native' | 'xml';

export interface ToolFormatMemo {
  format: ResolvedToolFormat;
  reason: string;
  /** ms since epoch */
  at: number;
}

/** Where auto's decisions are remembered (VS Code globalState in the extension, a Map in tests). */
export interface ToolFormatStore {
  get(key: string): ToolFormatMemo | undefined;
  set(key: string, memo: ToolFormatMemo): void | PromiseLike<void>;
  delete(key: string): void | PromiseLike<void>;
}

export class MemoryToolFormatStore implements ToolFormatStore {
  readonly entries = new Map<string, ToolFormatMemo>();
  get(key: string): ToolFormatMemo | undefined {
    return this.entries.get(key);
  }
  set(key: string, memo: ToolFormatMemo): void {
    this.entries.set(key, memo);
  }
  delete(key: string): void {
    this.entries.delete(key);
  }
}

export function toolFormatKey(baseUrl: string | undefined, model: string): string {
  return `${(baseUrl ?? '').trim().replace(/\/+$/, '')}#${model}`;
}

// The servers' own words when a request carries tools the model / server cannot use.
const REFUSALS: Array<[RegExp, string]> = [
  [/does not support tools/i, 'Ollama: the model does not support tools'],
  [/tool choice requires --enable-auto-tool-choice/i, 'vLLM: started without --enable-auto-tool-choice'],
  [/tools param requires --jinja/i, 'llama.cpp: started without --jinja'],
  [/no endpoints found that support tool use/i, 'OpenRouter: no provider of this model supports tools'],
  [/(tools?|function calling|tool calling|tool use) (is |are )?not supported/i, 'the endpoint does not support tools'],
  [/does not support (function calling|tool calling|tool use|functions)/i, 'the endpoint does not support tools'],
];

/** Why an error means "no native tools here", or undefined for any other error. */
export function toolRefusalReason(err: unknown): string | undefined {
  if (
    err instanceof ModelError &&
    (err.kind === 'aborted' || err.kind === 'network' || err.kind === 'auth' || err.kind === 'rate_limit')
  )
    return undefined;
  const message = err instanceof Error ? err.message : typeof err === 'string' ? err : '';
  for (const [re, why] of REFUSALS) if (re.test(message)) return why;
  return undefined;
}

// ---------------------------------------------------------------------------------------------------------
// Tool calls written as text while native tools were offered

interface TextToolCalls {
  /** Events that replace the text: prose as text, each call as tool_call_start + tool_call_end. */
  events: ModelEvent[];
  style: 'forge-xml' | 'tool_call-tags' | 'json';
  count: number;
}

const CALL_KEYS = ['name', 'tool_name', 'tool', 'function'] as const;
const ARG_KEYS = ['arguments', 'parameters', 'args', 'input'] as const;

function asCall(value: unknown, tools: Set<string>): { name: string; args: unknown } | undefined {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const o = value as Record<string, unknown>;
  if (o.function && typeof o.function === 'object') return asCall(o.function, tools);
  const name = CALL_KEYS.map((k) => o[k]).find((v): v is string => typeof v === 'string');
  if (!name || !tools.has(name)) return undefined;
  let args: unknown = ARG_KEYS.map((k) => o[k]).find((v) => v !== undefined) ?? {};
  if (typeof args === 'string') {
    try {
      args = JSON.parse(args);
    } catch {
      return undefined;
    }
  }
  return args && typeof args === 'object' && !Array.isArray(args) ? { name, args } : undefined;
}

/** End index (exclusive) of the balanced JSON object starting at `start`, or -1. */
function objectEnd(text: string, start: number): number {
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{') depth++;
    else if (c === '}' && --depth === 0) return i + 1;
  }
  return -1;
}

let textCallSeq = 0;
function callEvents(calls: Array<{ name: string; args: unknown }>, prose: string): ModelEvent[] {
  const events: ModelEvent[] = [];
  const clean = prose.replace(/```(?:json)?\s*```/g, '').trim();
  if (clean) events.push({ type: 'text', delta: clean });
  for (const c of calls) {
    const id = `tc_text_${++textCallSeq}`;
    events.push({ type: 'tool_call_start', id, name: c.name });
    events.push({ type: 'tool_call_end', id, name: c.name, args: c.args, rawArgs: JSON.stringify(c.args) });
  }
  return events;
}

/**
 * Tool calls a model wrote as text: Forge's `<tool>{...}</tool>`, `<tool_call>{"name", "arguments"}</tool_call>`
 * (Hermes / Qwen templates, LM Studio passes them through), or a JSON call object on its own line or in a
 * ```json fence. Only calls naming an offered tool count, so prose that merely contains JSON is left alone.
 */
export function parseTextToolCalls(text: string, toolNames: Iterable<string>): TextToolCalls | undefined {
  const tools = new Set(toolNames);
  if (/<tool>/.test(text)) {
    const parser = new XmlToolCallParser();
    const events = [...parser.push(text), ...parser.end()];
    const known = events.filter((e) => e.type === 'tool_call_end' && tools.has(e.name) && !e.parseError).length;
    if (known > 0) return { events, style: 'forge-xml', count: parser.toolCallCount };
  }
  const tagged = [...text.matchAll(/<tool_call>\s*([\s\S]*?)\s*<\/tool_call>/g)];
  if (tagged.length) {
    const calls = tagged.map((m) => {
      try {
        return asCall(JSON.parse(m[1]), tools);
      } catch {
        return undefined;
      }
    });
    if (calls.every(Boolean)) {
      return {
        events: callEvents(
          calls as Array<{ name: string; args: unknown }>,
          text.replace(/<tool_call>[\s\S]*?<\/tool_call>/g, ''),
        ),
        style: 'tool_call-tags',
        count: calls.length,
      };
    }
  }
  const calls: Array<{ name: string; args: unknown }> = [];
  let prose = '';
  let from = 0;
  const starts = /(^|\n)[ \t]*(?:```(?:json)?[ \t]*\n[ \t]*)?\{/g;
  for (let m = starts.exec(text); m; m = starts.exec(text)) {
    const open = m.index + m[0].length - 1;
    if (open < from) continue;
    const end = objectEnd(text, open);
    if (end < 0) break;
    let parsed: unknown;
    try {
      parsed = JSON.parse(text.slice(open, end));
    } catch {
      continue;
    }
    const list = Array.isArray((parsed as { tool_calls?: unknown }).tool_calls)
      ? (parsed as { tool_calls: unknown[] }).tool_calls
      : [parsed];
    const found = list.map((v) => asCall(v, tools));
    if (!found.length || !found.every(Boolean)) continue;
    calls.push(...(found as Array<{ name: string; args: unknown }>));
    prose += text.slice(from, open);
    from = end;
    starts.lastIndex = end;
  }
  if (!calls.length) return undefined;
  prose += text.slice(from);
  return { events: callEvents(calls, prose), style: 'json', count: calls.length };
}

// Where held-back text starts: anything that may open a text tool call.
const MARKER = /<tool(?:_call)?\b|<function\b|```(?:json)?[ \t]*\n?[ \t]*\{|(?:^|\n)[ \t]*\{/g;

/** Chars at the end of `text` that could still grow into a marker. */
function partialTail(text: string): number {
  const tail = text.slice(-12);
  const lt = Math.max(tail.lastIndexOf('<'), tail.lastIndexOf('`'));
  let hold = lt >= 0 ? tail.length - lt : 0;
  const nl = text.lastIndexOf('\n');
  if (/^[ \t]*$/.test(text.slice(nl + 1))) hold = Math.max(hold, text.length - nl - 1 + (nl >= 0 ? 1 : 0));
  return Math.min(hold, text.length);
}

// ---------------------------------------------------------------------------------------------------------

export interface ToolFormatState {
  format: ResolvedToolFormat;
  /** Why: the setting, a remembered decision, or what the endpoint / model did. */
  reason: string;
  /** false while auto has not seen evidence either way. */
  decided: boolean;
}

interface AdaptiveToolModelOptions {
  native: Model;
  /** Default: the text-mode wrapper around `native`. */
  xml?: Model;
  setting: ToolCallFormat;
  store: ToolFormatStore;
  /** toolFormatKey(baseUrl, model) */
  key: string;
  onChange?: (state: ToolFormatState) => void;
  log?: (message: string) => void;
}

/** A Model that speaks native tools or the XML text format as forge.toolCallFormat says (see file header). */
export class AdaptiveToolModel implements Model {
  private readonly native: Model;
  private readonly xml: Model;
  private current: ToolFormatState;

  constructor(private readonly options: AdaptiveToolModelOptions) {
    this.native = options.native;
    this.xml = options.xml ?? withTextModeTools(options.native);
    if (options.setting === 'auto') {
      const memo = options.store.get(options.key);
      this.current = memo
        ? { format: memo.format, reason: `remembered: ${memo.reason}`, decided: true }
        : {
            format: 'native',
            reason: 'auto: native tool calls until the endpoint refuses them or the model writes them as text',
            decided: false,
          };
    } else {
      // An explicit choice also clears what auto remembered, so switching back to auto probes afresh.
      void options.store.delete(options.key);
      this.current = { format: options.setting, reason: `forge.toolCallFormat is "${options.setting}"`, decided: true };
    }
  }

  get info(): ModelInfo {
    return this.current.format === 'xml' ? this.xml.info : this.native.info;
  }

  get state(): ToolFormatState {
    return { ...this.current };
  }

  async *stream(request: ModelRequest): AsyncIterable<ModelEvent> {
    if (this.current.format === 'xml') {
      yield* this.xml.stream(request);
      return;
    }
    if (this.options.setting !== 'auto') {
      yield* this.native.stream(request);
      return;
    }
    yield* this.auto(request);
  }

  private decide(format: ResolvedToolFormat, reason: string): void {
    if (this.current.decided && this.current.format === format) return;
    this.current = { format, reason, decided: true };
    void Promise.resolve(this.options.store.set(this.options.key, { format, reason, at: Date.now() })).catch(
      () => undefined,
    );
    this.options.log?.(`tool-call format for ${this.options.key}: ${format} (${reason})`);
    this.options.onChange?.(this.state);
  }

  private async *auto(request: ModelRequest): AsyncIterable<ModelEvent> {
    // Once a native call was seen there is nothing to watch for but a refusal.
    let detect = request.tools.length > 0 && !(this.current.decided && this.current.format === 'native');
    const toolNames = request.tools.map((t) => t.name);
    let acc = '';
    let emitted = 0;
    let heldFrom = -1;
    let yieldedAny = false;
    let nativeCalls = false;
    const deferred: ModelEvent[] = [];
    let finish: ModelEvent | undefined;
    const release = (): ModelEvent | undefined => {
      let safe: number;
      if (heldFrom >= 0) safe = heldFrom;
      else {
        MARKER.lastIndex = Math.max(0, emitted - 16);
        const m = MARKER.exec(acc);
        if (m) safe = heldFrom = Math.max(emitted, m.index);
        else safe = acc.length - partialTail(acc);
      }
      if (safe <= emitted) return undefined;
      const delta = acc.slice(emitted, safe);
      emitted = safe;
      return { type: 'text', delta };
    };
    try {
      for await (const ev of this.native.stream(request)) {
        if (!detect) {
          if (ev.type === 'finish') finish = ev;
          else {
            if (ev.type === 'tool_call_start') nativeCalls = true;
            yieldedAny = true;
            yield ev;
          }
          continue;
        }
        switch (ev.type) {
          case 'text': {
            acc += ev.delta;
            const out = release();
            if (out) {
              yieldedAny = true;
              yield out;
            }
            break;
          }
          case 'tool_call_start':
          case 'tool_call_delta':
          case 'tool_call_end':
            // A native call: the model can do it. Whatever text was held is plain text after all.
            nativeCalls = true;
            detect = false;
            if (acc.length > emitted) yield { type: 'text', delta: acc.slice(emitted) };
            emitted = acc.length;
            yield* deferred.splice(0);
            yieldedAny = true;
            yield ev;
            break;
          case 'usage':
            deferred.push(ev);
            break;
          case 'finish':
            finish = ev;
            break;
          default:
            yieldedAny = true;
            yield ev;
        }
      }
    } catch (err) {
      const refused = yieldedAny ? undefined : toolRefusalReason(err);
      if (!refused) throw err;
      this.decide('xml', `${refused} (${err instanceof Error ? err.message.slice(0, 200) : String(err)})`);
      yield* this.xml.stream(request);
      return;
    }
    if (nativeCalls) this.decide('native', 'the model made a native tool call');
    else if (detect && acc.length > emitted) {
      const parsed = heldFrom >= 0 ? parseTextToolCalls(acc.slice(emitted), toolNames) : undefined;
      if (parsed) {
        const reason = `the model wrote its tool call as text (${parsed.style}) instead of a native call`;
        this.decide('xml', reason);
        if (!yieldedAny) {
          // Nothing reached the loop yet: ask again with the XML format explained in the prompt.
          yield* this.xml.stream(request);
          return;
        }
        // Prose already streamed: keep it, and run the calls the model wrote rather than asking twice.
        yield* parsed.events;
        yield* deferred;
        yield { type: 'finish', reason: 'tool_calls' };
        return;
      }
      yield { type: 'text', delta: acc.slice(emitted) };
    }
    yield* deferred;
    if (finish) yield finish;
  }
}

// Pure conversions of the vscode.lm adapter (src/providers/vscode-lm.ts) against a minimal stand-in for the
// 'vscode' module (the real one exists only inside VS Code; the whole adapter runs for real in
// test/integration/suite/vscode-lm.test.ts). The stand-in mirrors the classes and factories the adapter uses.
import * as assert from 'node:assert';
import Module from 'node:module';
import type { ModelEvent, ModelRequest } from '../../../src/core/model/types';

class LanguageModelTextPart {
  constructor(public value: string) {}
}
class LanguageModelToolCallPart {
  constructor(
    public callId: string,
    public name: string,
    public input: object,
  ) {}
}
class LanguageModelToolResultPart {
  constructor(
    public callId: string,
    public content: unknown[],
  ) {}
}
class LanguageModelThinkingPart {
  constructor(public value: string | string[]) {}
}
class LanguageModelDataPart {
  constructor(
    public data: Uint8Array,
    public mimeType: string,
  ) {}
  static image(data: Uint8Array, mimeType: string) {
    return new LanguageModelDataPart(data, mimeType);
  }
}
class LanguageModelError extends Error {
  static NoPermissions(m?: string) {
    return new LanguageModelError(m, 'NoPermissions');
  }
  static Blocked(m?: string) {
    return new LanguageModelError(m, 'Blocked');
  }
  static NotFound(m?: string) {
    return new LanguageModelError(m, 'NotFound');
  }
  constructor(
    message?: string,
    readonly code = '',
  ) {
    super(message);
    this.name = 'LanguageModelError';
  }
}
class CancellationError extends Error {}
class CancellationTokenSource {
  private listeners: Array<() => void> = [];
  token = {
    isCancellationRequested: false,
    onCancellationRequested: (l: () => void) => (this.listeners.push(l), { dispose() {} }),
  };
  cancel() {
    if (this.token.isCancellationRequested) return;
    this.token.isCancellationRequested = true;
    for (const l of this.listeners) l();
  }
  dispose() {}
}
const Role = { User: 1, Assistant: 2 };
const msg = (role: number) => (content: string | unknown[]) => ({
  role,
  content: typeof content === 'string' ? [new LanguageModelTextPart(content)] : content,
});
const fakeVscode = {
  LanguageModelTextPart,
  LanguageModelToolCallPart,
  LanguageModelToolResultPart,
  LanguageModelThinkingPart,
  LanguageModelDataPart,
  LanguageModelError,
  CancellationError,
  CancellationTokenSource,
  LanguageModelChatMessageRole: Role,
  LanguageModelChatMessage: { User: msg(Role.User), Assistant: msg(Role.Assistant) },
  LanguageModelChatToolMode: { Auto: 1, Required: 2 },
  lm: { selectChatModels: async () => [] },
};

const loader = Module as unknown as { _load(request: string, ...rest: unknown[]): unknown };
const originalLoad = loader._load;
loader._load = function (request: string, ...rest: unknown[]) {
  return request === 'vscode' ? fakeVscode : originalLoad.call(this, request, ...rest);
};
// eslint-disable-next-line @typescript-eslint/no-require-imports
const lm = require('../../../src/providers/vscode-lm') as typeof import('../../../src/providers/vscode-lm');
loader._load = originalLoad;

const { ModelError } = require('../../../src/core/model/errors') as typeof import('../../../src/core/model/errors'); // eslint-disable-line @typescript-eslint/no-require-imports

const parts = (m: any) => m.content.map((p: any) => [p.constructor.name, p.value ?? p.name ?? p.callId]);

describe('vscode-lm adapter: conversions', () => {
  it('system layers become the first user message; tool results of one turn share the next user message, in call order', () => {
    const out = lm.toLmMessages({
      system: [
        { id: 'role', text: 'You are Forge.', stable: true },
        { id: 'empty', text: '', stable: false },
        { id: 'env', text: 'Workspace: /w', stable: false },
      ],
      messages: [
        { role: 'user', content: 'Fix it' },
        {
          role: 'assistant',
          content: 'Reading both.',
          toolCalls: [
            { id: 'c1', name: 'read_file', args: { path: 'a' }, rawArgs: '{"path":"a"}' },
            { id: 'c2', name: 'read_file', args: { path: 'b' }, rawArgs: '{"path":"b"}' },
          ],
        },
        { role: 'tool', toolCallId: 'c1', toolName: 'read_file', content: 'A' },
        { role: 'tool', toolCallId: 'c2', toolName: 'read_file', content: 'no such file', isError: true },
        { role: 'user', content: 'Thanks' },
      ],
    }) as any[];
    assert.deepStrictEqual(
      out.map((m) => m.role),
      [1, 1, 2, 1, 1],
    );
    assert.strictEqual(out[0].content[0].value, 'You are Forge.\n\nWorkspace: /w');
    assert.deepStrictEqual(parts(out[2]), [
      ['LanguageModelTextPart', 'Reading both.'],
      ['LanguageModelToolCallPart', 'read_file'],
      ['LanguageModelToolCallPart', 'read_file'],
    ]);
    assert.deepStrictEqual(
      out[2].content.slice(1).map((p: any) => [p.callId, p.input]),
      [
        ['c1', { path: 'a' }],
        ['c2', { path: 'b' }],
      ],
    );
    assert.deepStrictEqual(
      out[3].content.map((p: any) => [p.callId, p.content[0].value]),
      [
        ['c1', 'A'],
        ['c2', 'Error: no such file'],
      ],
    );
    assert.strictEqual(out[4].content[0].value, 'Thanks');
  });

  it("images: data parts before a user turn's text and after a turn's tool results; only for image-capable models", () => {
    const img = {
      mediaType: 'image/png' as const,
      sha256: 'a'.repeat(64),
      data: Buffer.from('PNG!').toString('base64'),
    };
    const out = lm.toLmMessages({
      system: [],
      messages: [
        { role: 'user', content: 'What is this?', images: [img] },
        {
          role: 'assistant',
          content: '',
          toolCalls: [{ id: 'c1', name: 'read_file', args: { path: 'a.png' }, rawArgs: '{"path":"a.png"}' }],
        },
        { role: 'tool', toolCallId: 'c1', toolName: 'read_file', content: 'a.png: image', images: [img] },
      ],
    }) as any[];
    assert.deepStrictEqual(
      out[0].content.map((p: any) => p.constructor.name),
      ['LanguageModelDataPart', 'LanguageModelTextPart'],
    );
    assert.strictEqual(out[0].content[0].mimeType, 'image/png');
    assert.strictEqual(Buffer.from(out[0].content[0].data).toString(), 'PNG!');
    assert.deepStrictEqual(
      out[2].content.map((p: any) => p.constructor.name),
      ['LanguageModelToolResultPart', 'LanguageModelDataPart'],
    );
    assert.strictEqual(lm.lmTakesImages({ capabilities: { supportsImageToText: true } } as any), true);
    assert.strictEqual(lm.lmTakesImages({ capabilities: { supportsImageToText: false } } as any), false);
    assert.strictEqual(lm.lmTakesImages({} as any), false);
  });

  it('leaves out empty assistant turns, sends non-object arguments back as {} and empty results as "(no output)"', () => {
    const out = lm.toLmMessages({
      system: [],
      messages: [
        { role: 'user', content: 'Go' },
        { role: 'assistant', content: '' },
        {
          role: 'assistant',
          content: '',
          toolCalls: [{ id: 'c1', name: 'x', args: ['not', 'an', 'object'], rawArgs: '["not"]' }],
        },
        { role: 'tool', toolCallId: 'c1', toolName: 'x', content: '' },
      ],
    }) as any[];
    assert.deepStrictEqual(
      out.map((m) => m.role),
      [1, 2, 1],
    );
    assert.deepStrictEqual(out[1].content[0].input, {});
    assert.strictEqual(out[2].content[0].content[0].value, '(no output)');
  });

  it('tool schemas: object schemas without $schema; a description is never empty', () => {
    const tools = lm.toLmTools([
      {
        name: 'read_file',
        description: 'Read a file',
        inputSchema: {
          $schema: 'https://json-schema.org/draft/2020-12/schema',
          type: 'object',
          properties: { path: { type: 'string' } },
          required: ['path'],
        },
      },
      { name: 'no_args', description: '', inputSchema: { properties: {} } },
    ]);
    assert.deepStrictEqual(tools[0], {
      name: 'read_file',
      description: 'Read a file',
      inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
    });
    assert.deepStrictEqual(tools[1], {
      name: 'no_args',
      description: 'no_args',
      inputSchema: { properties: {}, type: 'object' },
    });
  });

  it('a tool call part becomes start / one delta / end; non-object input carries a parse error', () => {
    const [start, delta, end] = lm.toolCallEvents('c1', 'read_file', { path: 'a' });
    assert.deepStrictEqual(start, { type: 'tool_call_start', id: 'c1', name: 'read_file' });
    assert.deepStrictEqual(delta, { type: 'tool_call_delta', id: 'c1', argsDelta: '{"path":"a"}' });
    assert.deepStrictEqual(end, {
      type: 'tool_call_end',
      id: 'c1',
      name: 'read_file',
      args: { path: 'a' },
      rawArgs: '{"path":"a"}',
    });
    const bad = lm.toolCallEvents('c2', 'read_file', ['a'])[2] as any;
    assert.strictEqual(bad.args, undefined);
    assert.match(bad.parseError, /must be a JSON object, got an array/);
  });

  it('picks forge.model by id, vendor/id, family, then name; the first model when unset', () => {
    const all = [
      { id: 'gpt-4o', vendor: 'copilot', family: 'gpt-4o', name: 'GPT-4o' },
      { id: 'claude-sonnet-4', vendor: 'copilot', family: 'claude-sonnet', name: 'Claude Sonnet 4' },
    ];
    assert.strictEqual(lm.pickLmModel(all)?.id, 'gpt-4o');
    assert.strictEqual(lm.pickLmModel(all, ' claude-sonnet-4 ')?.id, 'claude-sonnet-4');
    assert.strictEqual(lm.pickLmModel(all, 'copilot/claude-sonnet-4')?.id, 'claude-sonnet-4');
    assert.strictEqual(lm.pickLmModel(all, 'claude-sonnet')?.id, 'claude-sonnet-4');
    assert.strictEqual(lm.pickLmModel(all, 'Claude Sonnet 4')?.id, 'claude-sonnet-4');
    assert.strictEqual(lm.pickLmModel(all, 'o3'), undefined);
  });
});

describe('vscode-lm adapter: errors', () => {
  const chat = { id: 'gpt-4o', name: 'GPT-4o', vendor: 'copilot' };
  it('LanguageModelError codes become non-retryable errors that say what to do, never API-key advice', () => {
    const cases: Array<[Error, RegExp]> = [
      [
        LanguageModelError.NoPermissions('consent declined'),
        /did not give Forge access to the chat model "GPT-4o" \(copilot\).*Manage Language Model Access.*consent declined/s,
      ],
      [LanguageModelError.Blocked('quota'), /"GPT-4o" \(copilot\) refused requests from Forge.*Select Model/s],
      [LanguageModelError.NotFound('gone'), /"GPT-4o" \(copilot\) was not found.*Select Model/s],
    ];
    for (const [e, re] of cases) {
      const me = lm.toModelErrorFromLm(e, undefined, chat);
      assert.ok(me instanceof ModelError);
      assert.strictEqual(me.kind, 'bad_request', e.message);
      assert.strictEqual(me.retryable, false);
      assert.match(me.message, re);
      assert.doesNotMatch(`${me.message}\n${me.advice}`, /API key/i);
    }
  });

  it('recognises a LanguageModelError by name and code when it crossed a realm (no instanceof)', () => {
    const foreign = Object.assign(new Error('nope'), { name: 'LanguageModelError', code: 'NoPermissions' });
    assert.match(lm.toModelErrorFromLm(foreign, undefined, chat).message, /did not give Forge access/);
  });

  it('cancellation and aborts are "aborted"; vscode.lm\'s plain errors are classified', () => {
    const ac = new AbortController();
    ac.abort();
    assert.strictEqual(lm.toModelErrorFromLm(new Error('x'), ac.signal).kind, 'aborted');
    assert.strictEqual(lm.toModelErrorFromLm(new CancellationError()).kind, 'aborted');
    const gone = lm.toModelErrorFromLm(
      new Error('Chat provider for model copilot/gpt-4o is not registered.'),
      undefined,
      chat,
    );
    assert.strictEqual(gone.kind, 'bad_request');
    assert.match(gone.message, /not found.*Select Model/s);
    assert.strictEqual(lm.toModelErrorFromLm(new Error('429 Too Many Requests')).kind, 'rate_limit');
    assert.strictEqual(lm.toModelErrorFromLm(new Error('fetch failed')).kind, 'network');
    const other = lm.toModelErrorFromLm(new Error('boom'), undefined, chat);
    assert.strictEqual(other.kind, 'server');
    assert.match(other.message, /"GPT-4o" \(copilot\) failed: boom/);
  });
});

describe('vscode-lm adapter: stream', () => {
  /** A LanguageModelChat stand-in: replies with `reply` parts, counts 1 token per 4 characters. */
  function fakeChat(reply: unknown[], opts: { endQuietlyOnCancel?: boolean } = {}) {
    const counted: string[] = [];
    const chat = {
      id: 'm1',
      name: 'Model One',
      vendor: 'test',
      family: 'f',
      version: '1',
      maxInputTokens: 0,
      countTokens: async (v: any) => {
        const text =
          typeof v === 'string'
            ? v
            : v.content
                .map((p: any) => p.value ?? JSON.stringify(p.input ?? p.content?.map((c: any) => c.value)))
                .join('');
        counted.push(typeof v === 'string' ? 'string' : 'message');
        return Math.ceil(text.length / 4);
      },
      sendRequest: async (_messages: unknown[], _options: unknown, token: any) => ({
        stream: (async function* () {
          for (const p of reply) {
            if (opts.endQuietlyOnCancel && token.isCancellationRequested) return;
            await new Promise((r) => setTimeout(r, 5));
            if (opts.endQuietlyOnCancel && token.isCancellationRequested) return;
            yield p;
          }
        })(),
      }),
    };
    return { chat, counted };
  }
  const request = (
    signal: AbortSignal,
    messages: ModelRequest['messages'] = [{ role: 'user', content: 'hello there' }],
  ): ModelRequest => ({
    system: [{ id: 's', text: 'system prompt', stable: true }],
    messages,
    tools: [{ name: 'read_file', description: 'Read', inputSchema: { type: 'object' } }],
    signal,
  });
  async function collect(it: AsyncIterable<ModelEvent>): Promise<ModelEvent[]> {
    const out: ModelEvent[] = [];
    for await (const e of it) out.push(e);
    return out;
  }

  it('text, thinking and tool calls in order; usage from countTokens (tools included); the fallback window', async () => {
    const { chat } = fakeChat([
      new LanguageModelThinkingPart('hmm'),
      new LanguageModelTextPart('Hi'),
      new LanguageModelTextPart(''),
      new LanguageModelToolCallPart('c1', 'read_file', { path: 'a' }),
    ]);
    const model = new lm.VscodeLmModel(chat as any);
    assert.strictEqual(model.info.contextWindow, lm.FALLBACK_CONTEXT_WINDOW);
    const events = await collect(model.stream(request(new AbortController().signal)));
    assert.deepStrictEqual(
      events.map((e) => e.type),
      ['thinking', 'text', 'tool_call_start', 'tool_call_delta', 'tool_call_end', 'usage', 'finish'],
    );
    const usage = events.find((e) => e.type === 'usage') as any;
    // 'system prompt' (13 -> 4) + 'hello there' (11 -> 3) + the tool definitions' JSON.
    const toolsJson = JSON.stringify([{ name: 'read_file', description: 'Read', inputSchema: { type: 'object' } }]);
    assert.strictEqual(usage.usage.inputTokens, 4 + 3 + Math.ceil(toolsJson.length / 4));
    assert.ok(usage.usage.outputTokens > 0);
    assert.deepStrictEqual(events.at(-1), { type: 'finish', reason: 'tool_calls' });
  });

  it('counts each message once across steps (the history repeats)', async () => {
    const { chat, counted } = fakeChat([new LanguageModelTextPart('ok')]);
    const model = new lm.VscodeLmModel(chat as any);
    await collect(model.stream(request(new AbortController().signal)));
    const first = counted.filter((c) => c === 'message').length;
    await collect(
      model.stream(
        request(new AbortController().signal, [
          { role: 'user', content: 'hello there' },
          { role: 'assistant', content: 'ok' },
          { role: 'user', content: 'more' },
        ]),
      ),
    );
    assert.strictEqual(first, 2);
    assert.strictEqual(counted.filter((c) => c === 'message').length, 4, 'only the two new messages were counted');
  });

  it('a stream that ends quietly after cancellation is an abort, not a finished turn', async () => {
    const { chat } = fakeChat(
      [new LanguageModelTextPart('a'), new LanguageModelTextPart('b'), new LanguageModelTextPart('c')],
      { endQuietlyOnCancel: true },
    );
    const model = new lm.VscodeLmModel(chat as any);
    const ac = new AbortController();
    const seen: ModelEvent[] = [];
    await assert.rejects(
      (async () => {
        for await (const e of model.stream(request(ac.signal))) {
          seen.push(e);
          ac.abort();
        }
      })(),
      (e: any) => e instanceof ModelError && e.kind === 'aborted',
    );
    assert.ok(!seen.some((e) => e.type === 'finish'));
  });

  it('a LanguageModelError thrown mid-stream becomes the clear ModelError', async () => {
    const chat = {
      ...fakeChat([]).chat,
      sendRequest: async () => ({
        stream: (async function* () {
          yield new LanguageModelTextPart('x');
          throw LanguageModelError.NoPermissions('declined');
        })(),
      }),
    };
    const model = new lm.VscodeLmModel(chat as any);
    await assert.rejects(
      collect(model.stream(request(new AbortController().signal))),
      (e: any) => e instanceof ModelError && /Manage Language Model Access/.test(e.message),
    );
  });
});

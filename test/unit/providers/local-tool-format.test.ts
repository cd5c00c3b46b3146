// forge.toolCallFormat over the real openai SDK and the loopback server: an endpoint that refuses tools ends a
// whole task in XML mode (switched automatically, remembered per model), a model that writes its calls as
// text is switched too, and a model that calls natively stays native.
import assert from 'node:assert/strict';
import { Agent } from '../../../src/core/loop/agent';
import type { AgentEvent } from '../../../src/core/loop/events';
import { createWorkspaceTools } from '../../../src/core/tools/builtin';
import { FakeCommandRunner, FsEditApplier, MemoryFs } from '../../../src/core/workspace/memory-fs';
import { createModel } from '../../../src/providers';
import { createEndpointModel } from '../../../src/providers/local-model';
import {
  AdaptiveToolModel,
  MemoryToolFormatStore,
  parseTextToolCalls,
  toolFormatKey,
  toolRefusalReason,
  type ToolFormatState,
} from '../../../src/providers/tool-format';
import { ModelError } from '../../../src/core/model/errors';
import { startLlmServer, type LlmServer } from '../../support/llm-server';
import { REFUSALS, startFakeLocalServer, type FakeLocalServer } from '../../support/llm-server/ollama-wire';
import { FakeClock } from '../../support/scripted-model';
import { ScriptedApprover, assertHistoryConsistent } from '../../support/loop-harness';
import { collect, ofType, text } from './helpers';

const xmlCall = (tool: string, args: unknown) =>
  `<tool>${JSON.stringify({ server_name: 'local', tool_name: tool, arguments: args })}</tool>`;

function agentFor(model: AdaptiveToolModel | ReturnType<typeof createModel>) {
  const fs = new MemoryFs(['/ws'], { '/ws/src/a.ts': 'export const a = 1;\n' });
  const tools = createWorkspaceTools({
    fs,
    runner: new FakeCommandRunner(),
    applier: new FsEditApplier(fs),
    sandbox: { trusted: true },
  });
  const agent = new Agent({ model, tools, approver: new ScriptedApprover(), clock: new FakeClock(), taskId: 't1' });
  const events: AgentEvent[] = [];
  agent.on((e) => events.push(e));
  return { agent, events };
}

describe('tool-call format (forge.toolCallFormat)', () => {
  let llm: LlmServer;
  let ollama: FakeLocalServer;
  before(async () => {
    llm = await startLlmServer({ chunkBytes: 7 });
    ollama = await startFakeLocalServer({
      flavour: 'ollama',
      models: [{ id: 'gemma3:4b', contextLength: 8192, numCtx: 8192 }],
      refuseTools: true,
      upstream: llm,
    });
  });
  after(async () => {
    await ollama.close();
    await llm.close();
  });
  beforeEach(() => {
    llm.reset();
    ollama.refused = 0;
  });

  it('the real refusal texts of Ollama, vLLM, llama.cpp and OpenRouter are recognised; other errors are not', () => {
    for (const r of [REFUSALS.ollama('gemma3:4b'), REFUSALS.vllm(), REFUSALS.llamacpp(), REFUSALS.openrouter()]) {
      const msg =
        (r.body as { error?: { message: string }; message?: string }).error?.message ??
        (r.body as { message: string }).message;
      assert.ok(
        toolRefusalReason(
          new ModelError('bad_request', `openai-compatible HTTP ${r.status}: ${msg}`, { status: r.status }),
        ),
        msg,
      );
    }
    assert.equal(toolRefusalReason(new ModelError('bad_request', 'HTTP 400: model "x" not found')), undefined);
    assert.equal(toolRefusalReason(new ModelError('network', 'does not support tools')), undefined);
  });

  it('Ollama refuses tools: auto switches to XML, retries the same request, ends the whole task in XML, and remembers it', async () => {
    const store = new MemoryToolFormatStore();
    const changes: ToolFormatState[] = [];
    const built = await createEndpointModel({
      provider: 'openai-compatible',
      model: 'gemma3:4b',
      baseUrl: ollama.baseUrl,
      store,
      onToolFormatChange: (s) => changes.push(s),
    });
    assert.equal(built.model.info.contextWindow, 8192, 'window from Ollama num_ctx');
    llm.script([
      { text: `<thinking>read it first</thinking>${xmlCall('read_file', { path: 'src/a.ts' })}` },
      { text: `Done. ${xmlCall('task_completion', { result: 'a is 1' })}` },
    ]);
    const { agent, events } = agentFor(built.adaptive!);
    const report = await agent.send('what is a?');
    assert.equal(report.reason, 'done');
    assert.equal(report.detail, 'a is 1');
    assert.equal(ollama.refused, 1, 'one refused request, then XML');
    assert.equal(llm.requests.length, 2);
    for (const r of llm.requests) assert.equal(r.body.tools, undefined, 'no native tools after the switch');
    const first = JSON.stringify(llm.requests[0].body.messages);
    assert.match(first, /what is a\?/, 'the retried request carries the user message');
    assert.match(first, /# Calling tools/, 'and the XML format instructions');
    assert.match(JSON.stringify(llm.requests[1].body.messages), /export const a = 1;/);
    assert.ok(events.some((e) => e.type === 'tool_call_end' && e.name === 'read_file'));
    assertHistoryConsistent(agent.history);
    assert.equal(built.adaptive!.state.format, 'xml');
    assert.deepEqual(
      changes.map((c) => c.format),
      ['xml'],
    );
    assert.match(changes[0].reason, /does not support tools/);
    const memo = store.get(toolFormatKey(ollama.baseUrl, 'gemma3:4b'));
    assert.equal(memo?.format, 'xml');

    // A new model object (next task, next VS Code session) starts in XML: no refused request at all.
    const again = await createEndpointModel({
      provider: 'openai-compatible',
      model: 'gemma3:4b',
      baseUrl: ollama.baseUrl,
      store,
    });
    assert.equal(again.adaptive!.state.format, 'xml');
    assert.match(again.adaptive!.state.reason, /^remembered: /);
    assert.equal(again.model.info.nativeTools, false);
    llm.script([{ text: xmlCall('task_completion', { result: 'ok' }) }]);
    const before = ollama.refused;
    assert.equal((await agentFor(again.adaptive!).agent.send('again')).reason, 'done');
    assert.equal(ollama.refused, before);
  });

  it('forge.toolCallFormat "native" never switches (the refusal reaches the loop) and clears the memory', async () => {
    const store = new MemoryToolFormatStore();
    store.set(toolFormatKey(ollama.baseUrl, 'gemma3:4b'), { format: 'xml', reason: 'x', at: 1 });
    const built = await createEndpointModel({
      provider: 'openai-compatible',
      model: 'gemma3:4b',
      baseUrl: ollama.baseUrl,
      store,
      toolCallFormat: 'native',
    });
    assert.equal(store.get(toolFormatKey(ollama.baseUrl, 'gemma3:4b')), undefined);
    const report = await agentFor(built.adaptive!).agent.send('go');
    assert.equal(report.reason, 'error');
    assert.match(report.detail, /does not support tools/);
  });

  it('forge.toolCallFormat "xml" sends no native tools from the first request', async () => {
    const built = await createEndpointModel({
      provider: 'openai-compatible',
      model: 'gemma3:4b',
      baseUrl: ollama.baseUrl,
      toolCallFormat: 'xml',
    });
    llm.script([{ text: xmlCall('task_completion', { result: 'ok' }) }]);
    assert.equal((await agentFor(built.adaptive!).agent.send('go')).reason, 'done');
    assert.equal(ollama.refused, 0);
    assert.equal(llm.requests[0].body.tools, undefined);
  });

  describe('a model that writes tool calls as text while native tools are offered', () => {
    const adaptive = (store = new MemoryToolFormatStore()) =>
      new AdaptiveToolModel({
        native: createModel({
          provider: 'openai-compatible',
          model: 'qwen3-8b',
          baseUrl: llm.openaiBaseUrl,
          apiKey: 'k',
        }),
        setting: 'auto',
        store,
        key: 'lms#qwen3-8b',
      });

    it('<tool_call> JSON as the whole reply: the same request is retried in XML and the task completes', async () => {
      const store = new MemoryToolFormatStore();
      const model = adaptive(store);
      llm.script([
        { text: '<tool_call>\n{"name": "read_file", "arguments": {"path": "src/a.ts"}}\n</tool_call>', deltaSize: 5 },
        { text: xmlCall('read_file', { path: 'src/a.ts' }) },
        { text: xmlCall('task_completion', { result: 'a is 1' }) },
      ]);
      const { agent, events } = agentFor(model);
      const report = await agent.send('what is a?');
      assert.equal(report.reason, 'done');
      assert.ok(Array.isArray(llm.requests[0].body.tools), 'first try native');
      assert.equal(llm.requests[1].body.tools, undefined, 'the retry is in XML');
      assert.deepEqual(
        llm.requests[1].body.messages.at(-1),
        llm.requests[0].body.messages.at(-1),
        'same user turn retried',
      );
      assert.ok(
        !events.some((e) => e.type === 'text_delta' && /tool_call/.test((e as { delta?: string }).delta ?? '')),
        'the raw markup never reached the panel',
      );
      assert.equal(store.get('lms#qwen3-8b')?.format, 'xml');
      assert.match(store.get('lms#qwen3-8b')!.reason, /tool_call-tags/);
    });

    it('prose first, then a JSON call object: the prose streams, the call runs, no second generation', async () => {
      const model = adaptive();
      llm.script([
        { text: 'I will read the file.\n{"name": "read_file", "arguments": {"path": "src/a.ts"}}', deltaSize: 4 },
      ]);
      const events = await collect(model, {
        tools: [{ name: 'read_file', description: 'read', inputSchema: { type: 'object' } }],
      });
      assert.equal(llm.requests.length, 1);
      assert.equal(text(events).trim(), 'I will read the file.');
      const ends = ofType(events, 'tool_call_end');
      assert.deepEqual(
        ends.map((e) => [e.name, e.args]),
        [['read_file', { path: 'src/a.ts' }]],
      );
      assert.equal(ofType(events, 'finish')[0].reason, 'tool_calls');
      assert.equal(model.state.format, 'xml');
    });

    it('a native tool call: stays native, remembered, and text that merely looks like JSON is passed through', async () => {
      const store = new MemoryToolFormatStore();
      const model = adaptive(store);
      llm.script([{ text: 'Example:\n{"a": 1}\n', toolCalls: [{ name: 'read_file', args: { path: 'src/a.ts' } }] }]);
      const events = await collect(model, {
        tools: [{ name: 'read_file', description: 'read', inputSchema: { type: 'object' } }],
      });
      assert.equal(text(events), 'Example:\n{"a": 1}\n');
      assert.equal(ofType(events, 'tool_call_end').length, 1);
      assert.equal(store.get('lms#qwen3-8b')?.format, 'native');
      llm.script([{ text: 'Plain {"name": "read_file"} chatter' }]);
      const second = await collect(model, {
        tools: [{ name: 'read_file', description: 'read', inputSchema: { type: 'object' } }],
      });
      assert.equal(text(second), 'Plain {"name": "read_file"} chatter');
    });

    it('a plain answer streams unchanged (held text is released at the end), nothing is decided', async () => {
      const model = adaptive();
      llm.script([{ text: 'Here is code:\n```json\n{"x": 1}\n```\nDone.' }]);
      const events = await collect(model, {
        tools: [{ name: 'read_file', description: 'read', inputSchema: { type: 'object' } }],
      });
      assert.equal(text(events), 'Here is code:\n```json\n{"x": 1}\n```\nDone.');
      assert.equal(model.state.decided, false);
    });
  });

  it('parseTextToolCalls: Forge XML, <tool_call> tags, fenced and bare JSON, OpenAI-shaped; unknown tools ignored', () => {
    const tools = ['read_file', 'task_completion'];
    assert.equal(parseTextToolCalls(xmlCall('read_file', { path: 'a' }), tools)?.style, 'forge-xml');
    assert.equal(
      parseTextToolCalls('<tool_call>{"name":"read_file","arguments":{"path":"a"}}</tool_call>', tools)?.count,
      1,
    );
    assert.equal(
      parseTextToolCalls('```json\n{"name": "read_file", "parameters": {"path": "a"}}\n```', tools)?.style,
      'json',
    );
    const oa = parseTextToolCalls(
      '{"type":"function","function":{"name":"read_file","arguments":"{\\"path\\":\\"a\\"}"}}',
      tools,
    );
    assert.deepEqual(ofType(oa!.events, 'tool_call_end')[0].args, { path: 'a' });
    assert.equal(parseTextToolCalls('{"name": "delete_everything", "arguments": {}}', tools), undefined);
    assert.equal(parseTextToolCalls('{"config": {"name": "x"}}', tools), undefined);
  });
});

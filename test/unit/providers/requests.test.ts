// What Forge sends: messages, tool schemas, tool results, system cache_control, thinking signature round-trip.
import assert from 'node:assert/strict';
import { startLlmServer, type LlmServer } from '../../support/llm-server';
import type { ChatMessage, ToolSpec } from '../../../src/core/model/types';
import { collect, modelFor } from './helpers';

const TOOLS: ToolSpec[] = [
  {
    name: 'read_file',
    description: 'Read a file',
    inputSchema: {
      type: 'object',
      properties: { path: { type: 'string' } },
      required: ['path'],
      additionalProperties: false,
    },
  },
];

const HISTORY: ChatMessage[] = [
  { role: 'user', content: 'Read a.ts' },
  {
    role: 'assistant',
    content: 'Reading.',
    thinking: [{ text: 'I should read it.', signature: 'sig-abc' }],
    toolCalls: [{ id: 'call_1', name: 'read_file', args: { path: 'a.ts' }, rawArgs: '{"path":"a.ts"}' }],
  },
  { role: 'tool', toolCallId: 'call_1', toolName: 'read_file', content: 'ENOENT: a.ts', isError: true },
  { role: 'user', content: 'Try b.ts' },
];

const SYSTEM = [
  { id: 'role', text: 'You are Forge.', stable: true },
  { id: 'rules', text: 'Tool rules.', stable: true },
  { id: 'state', text: 'Iteration 3 of 25.', stable: false },
];

describe('request bodies Forge sends', () => {
  let srv: LlmServer;
  before(async () => {
    srv = await startLlmServer();
  });
  after(() => srv.close());
  beforeEach(() => srv.reset());

  it('openai: system, history with tool_calls and tool results, tools, stream options', async () => {
    srv.script([{ text: 'ok' }]);
    await collect(modelFor(srv, 'openai'), { system: SYSTEM, messages: HISTORY, tools: TOOLS, maxOutputTokens: 500 });
    const req = srv.requests[0];
    assert.equal(req.path, '/v1/chat/completions');
    assert.equal(req.headers.authorization, 'Bearer test-key');
    const b = req.body;
    assert.equal(b.model, 'gpt-4o');
    assert.equal(b.stream, true);
    assert.deepEqual(b.stream_options, { include_usage: true });
    assert.equal(b.max_completion_tokens, 500);
    assert.deepEqual(b.messages, [
      { role: 'system', content: 'You are Forge.\n\nTool rules.\n\nIteration 3 of 25.' },
      { role: 'user', content: 'Read a.ts' },
      {
        role: 'assistant',
        content: 'Reading.',
        tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'read_file', arguments: '{"path":"a.ts"}' } }],
      },
      { role: 'tool', tool_call_id: 'call_1', content: 'Error: ENOENT: a.ts' },
      { role: 'user', content: 'Try b.ts' },
    ]);
    assert.deepEqual(b.tools, [
      {
        type: 'function',
        function: { name: 'read_file', description: 'Read a file', parameters: TOOLS[0].inputSchema },
      },
    ]);
  });

  it('openai-compatible: max_tokens, no tools key when there are no tools, custom headers', async () => {
    srv.script([{ text: 'ok' }]);
    await collect(
      modelFor(srv, 'openai', {
        provider: 'openai-compatible',
        model: 'qwen2.5-coder',
        headers: { 'x-title': 'Forge' },
      }),
      {
        maxOutputTokens: 300,
      },
    );
    const { body, headers } = srv.requests[0];
    assert.equal(body.max_tokens, 300);
    assert.equal(body.max_completion_tokens, undefined);
    assert.equal('tools' in body, false);
    assert.equal(headers['x-title'], 'Forge');
  });

  it('anthropic: system blocks with cache_control on the last stable layer, thinking signature, tool_result', async () => {
    srv.script([{ text: 'ok' }]);
    await collect(modelFor(srv, 'anthropic'), {
      system: SYSTEM,
      messages: HISTORY,
      tools: TOOLS,
      thinkingBudgetTokens: 2048,
      maxOutputTokens: 1000,
    });
    const req = srv.requests[0];
    assert.equal(req.path, '/v1/messages');
    assert.ok(req.headers['anthropic-version'], 'anthropic-version header sent');
    const b = req.body;
    assert.equal(b.model, 'claude-sonnet-4-6');
    assert.equal(b.stream, true);
    assert.deepEqual(b.system, [
      { type: 'text', text: 'You are Forge.' },
      { type: 'text', text: 'Tool rules.', cache_control: { type: 'ephemeral' } },
      { type: 'text', text: 'Iteration 3 of 25.' },
    ]);
    assert.deepEqual(b.thinking, { type: 'enabled', budget_tokens: 2048 });
    assert.ok(b.max_tokens > 2048, 'max_tokens exceeds the thinking budget');
    assert.deepEqual(b.tools, [{ name: 'read_file', description: 'Read a file', input_schema: TOOLS[0].inputSchema }]);
    assert.deepEqual(b.messages, [
      { role: 'user', content: [{ type: 'text', text: 'Read a.ts' }] },
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'I should read it.', signature: 'sig-abc' },
          { type: 'text', text: 'Reading.' },
          { type: 'tool_use', id: 'call_1', name: 'read_file', input: { path: 'a.ts' } },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'call_1', content: 'ENOENT: a.ts', is_error: true },
          { type: 'text', text: 'Try b.ts', cache_control: { type: 'ephemeral' } },
        ],
      },
    ]);
  });

  it('anthropic: a streamed thinking signature round-trips into the next request', async () => {
    srv.script([
      {
        thinking: 'Plan: read.',
        thinkingSignature: 'sig-round',
        toolCalls: [{ id: 'toolu_9', name: 'read_file', args: { path: 'x' } }],
      },
      { text: 'ok' },
    ]);
    const model = modelFor(srv, 'anthropic');
    const events = await collect(model, { thinkingBudgetTokens: 1024 });
    // Rebuild the assistant turn the way the loop does: thinking text + the signature that closes the block.
    const thinkingText = events.flatMap((e) => (e.type === 'thinking' ? [e.delta] : [])).join('');
    const signature = events.find((e) => e.type === 'thinking' && e.signature)!;
    const end = events.find((e) => e.type === 'tool_call_end')!;
    assert.ok(signature.type === 'thinking' && end.type === 'tool_call_end');
    await collect(model, {
      thinkingBudgetTokens: 1024,
      messages: [
        { role: 'user', content: 'go' },
        {
          role: 'assistant',
          content: '',
          thinking: [{ text: thinkingText, signature: signature.signature }],
          toolCalls: [{ id: end.id, name: end.name, args: end.args, rawArgs: end.rawArgs }],
        },
        { role: 'tool', toolCallId: end.id, toolName: end.name, content: 'file x' },
      ],
    });
    const assistant = srv.requests[1].body.messages[1];
    assert.deepEqual(assistant.content, [
      { type: 'thinking', thinking: 'Plan: read.', signature: 'sig-round' },
      { type: 'tool_use', id: 'toolu_9', name: 'read_file', input: { path: 'x' } },
    ]);
  });
});

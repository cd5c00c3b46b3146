// Text-mode tool calls end to end: createModel(nativeTools: false) -> OpenAI adapter -> loopback server.
import assert from 'node:assert/strict';
import { TEXT_MODE_LAYER_ID } from '../../../src/core/tools/text-mode';
import type { ToolSpec } from '../../../src/core/model/types';
import { startLlmServer, type LlmServer } from '../../support/llm-server';
import { collect, modelFor, ofType, text, thinking } from './helpers';

const TOOLS: ToolSpec[] = [
  {
    name: 'read_file',
    description: 'Read a file',
    inputSchema: { type: 'object', properties: { path: { type: 'string' } } },
  },
];

describe('text-mode tool calls through the OpenAI adapter', () => {
  let srv: LlmServer;
  before(async () => {
    srv = await startLlmServer({ chunkBytes: 7, eol: '\r\n' });
  });
  after(() => srv.close());
  beforeEach(() => srv.reset());

  const model = () => modelFor(srv, 'openai', { provider: 'openai-compatible', model: 'llama3', nativeTools: false });

  it('puts the catalogue in the system prompt, sends no native tools, parses the call while streaming', async () => {
    const reply =
      '<thinking>Need the file.</thinking>I will read it.\n' +
      '<tool>{"server_name": "local", "tool_name": "read_file", "arguments": {"path": "src/a.ts"}}</tool>';
    srv.script([{ text: reply, deltaSize: 3 }]);
    const m = model();
    assert.equal(m.info.nativeTools, false);
    const events = await collect(m, { tools: TOOLS });
    const body = srv.requests[0].body;
    assert.equal('tools' in body, false);
    const system: string = body.messages[0].content;
    assert.match(system, /## read_file\nRead a file\nInput schema: \{"type":"object"/);
    assert.match(system, /<tool>\{"server_name": "local", "tool_name": "read_file"/);
    assert.equal(thinking(events), 'Need the file.');
    assert.equal(text(events), 'I will read it.\n');
    const end = ofType(events, 'tool_call_end')[0];
    assert.deepEqual([end.name, end.args, end.parseError], ['read_file', { path: 'src/a.ts' }, undefined]);
    assert.deepEqual(events.at(-1), { type: 'finish', reason: 'tool_calls' });
    // Detected before the response ended: the end event precedes usage and finish.
    assert.ok(events.indexOf(end) < events.findIndex((e) => e.type === 'usage'));
  });

  it('renders earlier calls and results as text in the next request', async () => {
    srv.script([{ text: 'Done.' }]);
    await collect(model(), {
      tools: TOOLS,
      system: [
        { id: 'role', text: 'Role.', stable: true },
        { id: 'state', text: 'State.', stable: false },
      ],
      messages: [
        { role: 'user', content: 'read a' },
        {
          role: 'assistant',
          content: 'Reading.',
          toolCalls: [{ id: 'x1', name: 'read_file', args: { path: '</tool>' }, rawArgs: '' }],
        },
        { role: 'tool', toolCallId: 'x1', toolName: 'read_file', content: 'no such file', isError: true },
      ],
    });
    const msgs = srv.requests[0].body.messages;
    // Tool layer sits after the stable layers, before the volatile one.
    assert.match(msgs[0].content, /^Role\.\n\n# Calling tools[\s\S]*\n\nState\.$/);
    assert.deepEqual(msgs.slice(1), [
      { role: 'user', content: 'read a' },
      {
        role: 'assistant',
        content:
          'Reading.\n<tool>{"server_name":"local","tool_name":"read_file","arguments":{"path":"<\\/tool>"}}</tool>',
      },
      {
        role: 'user',
        content: '<tool_result tool_name="read_file" id="x1" status="error">\nno such file\n</tool_result>',
      },
    ]);
    assert.equal(TEXT_MODE_LAYER_ID, 'text-mode-tools');
  });

  it('turns a malformed call into tool_call_end.parseError, not an exception', async () => {
    srv.script([{ text: 'Try: <tool>{"tool_name": "read_file", "arguments": {"path": }}</tool>' }]);
    const events = await collect(model(), { tools: TOOLS });
    const end = ofType(events, 'tool_call_end')[0];
    assert.equal(end.name, 'read_file');
    assert.match(end.parseError!, /^invalid JSON in <tool> block/);
  });
});

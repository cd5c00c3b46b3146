// A message with @-mentions on the real openai and @anthropic-ai/sdk clients against the loopback server: the
// user turn on the wire carries the user's words and the labelled context blocks (a file, a selection), and a
// secret is never on the wire (its mention is refused before anything is sent).
import assert from 'node:assert/strict';
import { Agent } from '../../../../src/core/loop/agent';
import { messageWithContext, resolveMentions } from '../../../../src/core/mentions/resolve';
import { createModel } from '../../../../src/providers';
import { ConfinedReader } from '../../../../src/core/safety/confined-read';
import { MemoryFs } from '../../../../src/core/workspace/memory-fs';
import { startLlmServer, type LlmServer } from '../../../support/llm-server';
import { FakeClock } from '../../../support/scripted-model';
import { ScriptedApprover } from '../../../support/loop-harness';

const GREET = 'function greet(name) {\n  return `Hello, ${name}`;\n}\nmodule.exports = { greet };\n';

/** The text of the first user turn Forge sent, in the provider's own wire format. */
function firstUserText(srv: LlmServer): string {
  const req = srv.requests[0]!;
  const user = (req.body.messages as { role: string; content: unknown }[]).find((m) => m.role === 'user')!;
  if (typeof user.content === 'string') return user.content;
  return (user.content as { type: string; text?: string }[])
    .filter((b) => b.type === 'text')
    .map((b) => b.text)
    .join('');
}

for (const provider of ['openai', 'anthropic'] as const) {
  describe(`@ mentions over the real ${provider} SDK`, () => {
    let srv: LlmServer;
    before(async () => {
      srv = await startLlmServer({ chunkBytes: 11 });
    });
    after(async () => srv.close());
    beforeEach(() => srv.reset());

    const model = () =>
      provider === 'openai'
        ? createModel({ provider: 'openai-compatible', model: 'gpt-4.1', baseUrl: srv.openaiBaseUrl, apiKey: 'k' })
        : createModel({
            provider: 'anthropic',
            model: 'claude-sonnet-4-6',
            baseUrl: srv.anthropicBaseUrl,
            apiKey: 'k',
          });

    it("the mentioned file and selection reach the model as labelled context in the user's turn", async () => {
      const fs = new MemoryFs(['/ws'], { '/ws/src/greet.js': GREET, '/ws/.env': 'API_KEY=sk-live-123' });
      const reader = new ConfinedReader(fs, { platform: 'posix' });
      const resolved = await resolveMentions(
        [
          { kind: 'file', path: 'src/greet.js' },
          { kind: 'selection', path: 'src/greet.js', startLine: 2, endLine: 2 },
        ],
        { reader },
        50_000,
      );
      assert.ok(resolved.ok);
      srv.script([{ toolCalls: [{ name: 'task_completion', args: { result: 'explained' } }] }]);
      const agent = new Agent({ model: model(), tools: [], approver: new ScriptedApprover(), clock: new FakeClock() });
      const report = await agent.send(messageWithContext('What does greet return?', resolved.text));
      assert.equal(report.reason, 'done');
      const wire = firstUserText(srv);
      assert.match(wire, /^What does greet return\?\n\n\[Context the user attached with @-mentions\]\n/);
      assert.match(wire, /<context kind="file" path="src\/greet\.js" lines="1-4">\nfunction greet\(name\) \{\n/);
      assert.match(
        wire,
        /<context kind="selection" path="src\/greet\.js" lines="2-2">\n {2}return `Hello, \$\{name\}`;\n<\/context>/,
      );

      // A forged mention of a secret is refused before any request: nothing of it is ever on the wire.
      const refused = await resolveMentions([{ kind: 'file', path: '.env' }], { reader }, 50_000);
      assert.ok(!refused.ok);
      assert.match(refused.errors[0], /looks like a secret/);
      assert.ok(!srv.requests.some((r) => JSON.stringify(r.body).includes('sk-live-123')));
    });
  });
}

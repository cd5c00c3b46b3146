import assert from 'node:assert/strict';
import { McpPromptCommands, promptArguments } from '../../../../src/core/mcp/prompt-commands';
import type { McpPromptInfo } from '../../../../src/core/mcp/prompts';

const review: McpPromptInfo = {
  server: 'every',
  name: 'review',
  command: 'mcp.every.review',
  description: 'Review code',
  arguments: [{ name: 'file', required: true }, { name: 'focus' }],
};

describe('MCP prompts as slash commands', () => {
  it('lists each prompt with an argument hint', async () => {
    const src = new McpPromptCommands({ listPrompts: async () => [review], expandPrompt: async () => '' });
    assert.deepEqual(await src.list(), [
      { name: 'mcp.every.review', description: 'Review code', argumentHint: '<file> [focus]', source: 'mcp' },
    ]);
  });

  it('fills arguments in order, the last one taking the rest of the line', () => {
    assert.deepEqual(promptArguments(review, { raw: 'a.ts error handling', argv: ['a.ts', 'error', 'handling'] }), {
      file: 'a.ts',
      focus: 'error handling',
    });
    assert.deepEqual(promptArguments(review, { raw: '', argv: [] }), {});
  });

  it('expands through the server, refuses a missing required argument, and ignores unknown names', async () => {
    const calls: unknown[] = [];
    const src = new McpPromptCommands({
      listPrompts: async () => [review],
      expandPrompt: async (server, name, args) => (calls.push([server, name, args]), `text for ${args.file}`),
    });
    assert.equal(await src.expand('mcp.every.review', { raw: 'x.ts', argv: ['x.ts'] }), 'text for x.ts');
    assert.deepEqual(calls, [['every', 'review', { file: 'x.ts' }]]);
    await assert.rejects(src.expand('mcp.every.review', { raw: '', argv: [] }), /needs <file>/);
    assert.equal(await src.expand('mcp.every.other', { raw: '', argv: [] }), undefined);
  });
});

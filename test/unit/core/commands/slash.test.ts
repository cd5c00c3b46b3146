import * as assert from 'node:assert/strict';
import {
  completeSlash,
  expandTemplate,
  helpText,
  parsePromptFile,
  parseSlash,
  SlashCommandRegistry,
  splitArgs,
  type SlashCommandSource,
} from '../../../../src/core/commands/slash';
import { PromptFileCommands } from '../../../../src/core/commands/prompt-files';
import { MemoryFs } from '../../../../src/core/workspace/memory-fs';

describe('core/commands slash parsing', () => {
  it('parses /name args, lower-cases the name, and leaves non-commands alone', () => {
    assert.deepEqual(parseSlash('/Mode plan'), { name: 'mode', args: { raw: 'plan', argv: ['plan'] } });
    assert.deepEqual(parseSlash('  /help'), { name: 'help', args: { raw: '', argv: [] } });
    assert.equal(parseSlash('/usr/bin/node crashes'), undefined);
    assert.equal(parseSlash('// a comment'), undefined);
    assert.equal(parseSlash('/ mode'), undefined);
    assert.equal(parseSlash('please /stop'), undefined);
    assert.equal(parseSlash('/git:pr 12')?.name, 'git:pr');
    assert.equal(parseSlash('/review\nsrc/a.ts  and b')?.args.raw, 'src/a.ts  and b');
  });

  it('splits arguments with quotes', () => {
    assert.deepEqual(splitArgs('a  "b c" \'d e\' f"g h"'), ['a', 'b c', 'd e', 'fg h']);
    assert.deepEqual(splitArgs('"" x'), ['', 'x']);
    assert.deepEqual(splitArgs('"say \\"hi\\""'), ['say "hi"']);
  });

  it('expands $ARGUMENTS, $1..$9 and $$; appends the arguments when the template has no placeholder', () => {
    const args = { raw: 'src/a.ts "the parser"', argv: ['src/a.ts', 'the parser'] };
    assert.equal(
      expandTemplate('Review $1 focusing on $2 ($3). All: $ARGUMENTS. Cost $$5', args),
      'Review src/a.ts focusing on the parser (). All: src/a.ts "the parser". Cost $5',
    );
    assert.equal(
      expandTemplate('Explain the build.\n', args),
      'Explain the build.\n\nArguments: src/a.ts "the parser"',
    );
    assert.equal(expandTemplate('Explain the build.', { raw: '', argv: [] }), 'Explain the build.');
    assert.equal(
      expandTemplate('$10', { raw: 'x', argv: ['x'] }),
      '$10\n\nArguments: x',
      '$10 is not $1 followed by 0',
    );
  });

  it('reads frontmatter: description and argument-hint (quoted or not), body after it', () => {
    const f = parsePromptFile(
      '---\ndescription: "Review a file"\nargument-hint: <file> [focus]\nother: x\n---\nReview $1.\n',
    );
    assert.deepEqual(f, { description: 'Review a file', argumentHint: '<file> [focus]', body: 'Review $1.' });
    assert.deepEqual(parsePromptFile('Just a prompt'), { body: 'Just a prompt' });
    assert.equal(parsePromptFile('---\r\nargument_hint: [n]\r\n---\r\nbody').argumentHint, '[n]');
  });

  it('completes by prefix first, then substring', () => {
    const cmds = [
      { name: 'model', description: '', source: 'builtin' },
      { name: 'mode', description: '', source: 'builtin' },
      { name: 'commit', description: '', source: 'custom' },
    ];
    assert.deepEqual(
      completeSlash('mo', cmds).map((c) => c.name),
      ['model', 'mode'],
    );
    assert.deepEqual(
      completeSlash('m', cmds).map((c) => c.name),
      ['model', 'mode', 'commit'],
    );
    assert.equal(completeSlash('', cmds).length, 3);
  });
});

describe('core/commands registry and prompt files', () => {
  const fs = () =>
    new MemoryFs(['/ws'], {
      '/ws/.forge/commands/review.md':
        '---\ndescription: Review a file\nargument-hint: <file>\n---\nReview $1 carefully. Notes: $ARGUMENTS',
      '/ws/.forge/commands/explain.md': 'Explain how the build works.\nSecond line.',
      '/ws/.forge/commands/git/pr.md': 'Write a PR description for $1',
      '/ws/.forge/commands/help.md': 'shadowing a built-in never works',
      '/ws/.forge/commands/notes.txt': 'not a command',
      '/ws/secret.txt': 'TOP SECRET',
    });

  it('lists built-ins, then prompt files (namespaced subfolders); built-ins win', async () => {
    const reg = new SlashCommandRegistry([new PromptFileCommands(fs())]);
    const list = await reg.list();
    const names = list.map((c) => c.name);
    assert.deepEqual(names.slice(0, 8), ['stop', 'new', 'mode', 'model', 'compact', 'context', 'undo', 'help']);
    assert.deepEqual(names.slice(8), ['explain', 'git:pr', 'review']);
    assert.deepEqual(
      list.find((c) => c.name === 'review'),
      { name: 'review', description: 'Review a file', argumentHint: '<file>', source: 'custom' },
    );
    assert.equal(list.find((c) => c.name === 'explain')?.description, 'Explain how the build works.');
    assert.match(helpText(list), /`\/review <file>` — Review a file/);
  });

  it('resolves built-ins, expands prompt files, and says so for unknown commands', async () => {
    const reg = new SlashCommandRegistry([new PromptFileCommands(fs())]);
    assert.deepEqual(await reg.resolve('/mode plan'), {
      kind: 'builtin',
      name: 'mode',
      args: { raw: 'plan', argv: ['plan'] },
    });
    const r = await reg.resolve('/review src/a.ts be strict');
    assert.equal(r?.kind, 'prompt');
    assert.equal(r?.kind === 'prompt' && r.prompt, 'Review src/a.ts carefully. Notes: src/a.ts be strict');
    const pr = await reg.resolve('/git:pr 42');
    assert.equal(pr?.kind === 'prompt' && pr.prompt, 'Write a PR description for 42');
    const unknown = await reg.resolve('/reveiw x');
    assert.equal(unknown?.kind, 'unknown');
    assert.match(
      unknown?.kind === 'unknown' ? unknown.message : '',
      /Unknown command \/reveiw\. Did you mean \/review\?.*nothing was sent/,
    );
    assert.equal(await reg.resolve('hello'), undefined);
  });

  it('reads prompt files under the read_file rule: no link out of the workspace, no secret (a repo cannot exfiltrate files through a command)', async () => {
    const mfs = fs();
    mfs.set('/home/u/.ssh/notes.md', 'PRIVATE KEY MATERIAL');
    mfs.set('/ws/.env', 'TOKEN=abc');
    mfs.symlink('/home/u/.ssh/notes.md', '/ws/.forge/commands/leak.md');
    mfs.symlink('/ws/.env', '/ws/.forge/commands/env.md');
    mfs.symlink('/ws/secret.txt', '/ws/.forge/commands/inside.md');
    const logs: string[] = [];
    const reg = new SlashCommandRegistry([new PromptFileCommands(mfs, (m) => logs.push(m))]);
    const names = (await reg.list()).map((c) => c.name);
    assert.equal(names.includes('leak'), false);
    assert.equal(names.includes('env'), false);
    assert.equal((await reg.resolve('/leak'))?.kind, 'unknown');
    // A link that stays inside the workspace reads what read_file would read anyway.
    assert.equal(names.includes('inside'), true);
    assert.match(logs.join('\n'), /\.forge\/commands\/leak\.md was not read: .*outside the workspace/);
    assert.match(logs.join('\n'), /\.forge\/commands\/env\.md was not read: .*secret/);
  });

  it('a workspace without .forge/commands has only built-ins; a failing source is logged, not fatal', async () => {
    const logs: string[] = [];
    const broken: SlashCommandSource = {
      id: 'mcp',
      list: () => Promise.reject(new Error('server down')),
      expand: () => Promise.resolve(undefined),
    };
    const reg = new SlashCommandRegistry([new PromptFileCommands(new MemoryFs(['/empty']))], (m) => logs.push(m));
    reg.addSource(broken);
    assert.equal((await reg.list()).length, 8);
    assert.match(logs.join('\n'), /source mcp failed to list: server down/);
  });

  it('a plugged-in source (e.g. MCP prompts) adds commands and expands them', async () => {
    const reg = new SlashCommandRegistry();
    const remove = reg.addSource({
      id: 'mcp',
      list: async () => [{ name: 'everything:simple_prompt', description: 'A simple prompt', source: 'mcp' }],
      expand: async (name, args) =>
        name === 'everything:simple_prompt' ? `simple prompt with ${args.raw}` : undefined,
    });
    assert.equal((await reg.list()).at(-1)?.name, 'everything:simple_prompt');
    const r = await reg.resolve('/everything:simple_prompt hi');
    assert.equal(r?.kind === 'prompt' && r.prompt, 'simple prompt with hi');
    remove();
    assert.equal((await reg.resolve('/everything:simple_prompt hi'))?.kind, 'unknown');
  });
});

import * as assert from 'node:assert/strict';
import { SlashCommandRegistry } from '../../../../src/core/commands/slash';
import { MODE_NAMES, MODES } from '../../../../src/core/modes';
import { SlashCommandInfoSchema } from '../../../../src/protocol/host-messages';

describe('core/commands /mode choices', () => {
  it('lists only the built-in modes until custom agents are given, each with what it does', async () => {
    const mode = (await new SlashCommandRegistry().list()).find((c) => c.name === 'mode');
    assert.deepEqual(mode?.choices, [...MODE_NAMES]);
    assert.deepEqual(Object.keys(mode?.choiceDescriptions ?? {}), [...MODE_NAMES]);
    assert.match(mode?.choiceDescriptions?.plan ?? '', /changes no files/);
    assert.ok(SlashCommandInfoSchema.safeParse(mode).success);
  });

  it('every built-in mode says what it does in a line a person reads, never its role prompt', () => {
    for (const name of MODE_NAMES) {
      const d = MODES[name].description ?? '';
      assert.ok(d.length >= 20 && d.length <= 120, `${name}: ${d}`);
      assert.notEqual(d, MODES[name].prompt);
      assert.doesNotMatch(d, /mode:/i, `${name} reads as a description, not a prompt`);
    }
  });

  it('adds the custom agents with their descriptions, read on every list, valid for the panel', async () => {
    const registry = new SlashCommandRegistry();
    let agents = [
      { name: 'reviewer', description: 'Reviews the diff for bugs' },
      { name: 'plan', description: 'a built-in name is never listed twice' },
      { name: 'bad name', description: 'no spaces in a choice' },
      { name: 'tester' },
    ];
    registry.useModes(() => agents);
    const mode = (await registry.list()).find((c) => c.name === 'mode');
    assert.deepEqual(mode?.choices, [...MODE_NAMES, 'reviewer', 'tester']);
    const builtins = Object.fromEntries(MODE_NAMES.map((n) => [n, MODES[n].description]));
    assert.deepEqual(mode?.choiceDescriptions, { ...builtins, reviewer: 'Reviews the diff for bugs' });
    assert.ok(SlashCommandInfoSchema.safeParse(mode).success);
    agents = [{ name: 'docs', description: 'x'.repeat(500) }];
    const again = (await registry.list()).find((c) => c.name === 'mode');
    assert.deepEqual(again?.choices, [...MODE_NAMES, 'docs']);
    assert.equal(again?.choiceDescriptions?.docs.length, 200);
    assert.ok(SlashCommandInfoSchema.safeParse(again).success);
    agents = Array.from({ length: 60 }, (_, i) => ({ name: `a${i}`, description: 'd' }));
    const many = (await registry.list()).find((c) => c.name === 'mode');
    assert.equal(many?.choices?.length, 50);
    assert.ok(SlashCommandInfoSchema.safeParse(many).success, 'at most 50 choices and 50 descriptions');
  });

  it('the panel refuses a description too long or too many', () => {
    const base = { name: 'mode', description: 'Switch mode', source: 'builtin', choices: ['agent'] };
    assert.ok(!SlashCommandInfoSchema.safeParse({ ...base, choiceDescriptions: { agent: 'x'.repeat(201) } }).success);
    const many = Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`a${i}`, 'd']));
    assert.ok(!SlashCommandInfoSchema.safeParse({ ...base, choiceDescriptions: many }).success);
  });
});

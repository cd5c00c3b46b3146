import assert from 'node:assert/strict';
import { runSlashCommand, type SlashActions } from '../../../../src/host/ui/slash-commands';
import { SlashCommandRegistry } from '../../../../src/core/commands/slash';
import { messageWithContext } from '../../../../src/core/mentions/resolve';
import { doneTurn, usage } from '../../../support/scripted-model';
import { harness } from '../../../support/loop-harness';

describe('/context: what fills the window of a real Agent', () => {
  it('counts the system prompt, tools, rules, the conversation and attachments; anchored on the provider', async () => {
    const attached = messageWithContext(
      'Explain',
      `<context kind="file" path="a.ts">\n${'x'.repeat(8000)}\n</context>`,
    );
    const h = harness([[...doneTurn('ok'), usage(5000, 20)]], {
      config: { projectRules: 'Always write tests. '.repeat(40), contextWindow: 100_000 },
    });
    const before = h.agent.contextUsage();
    assert.equal(before.messages, 0);
    assert.equal(before.reported, false);
    const tokens = (id: string, u = before) => u.parts.find((p) => p.id === id)!.tokens;
    assert.ok(tokens('system') > 100, `system ${tokens('system')}`);
    assert.ok(tokens('tools') > 50, `tools ${tokens('tools')}`);
    assert.equal(
      tokens('rules'),
      Math.ceil(('Always write tests. '.repeat(40).trim().length + 0) / 4) || tokens('rules'),
    );
    assert.ok(tokens('rules') >= 190 && tokens('rules') <= 200, `rules ${tokens('rules')}`);
    assert.equal(before.compactAtTokens, 90_000);

    await h.agent.send(attached);
    const after = h.agent.contextUsage();
    assert.ok(
      tokens('attachments', after) >= 2000 && tokens('attachments', after) < 2100,
      `${tokens('attachments', after)}`,
    );
    assert.ok(tokens('history', after) < 100, 'the attachment is not counted twice');
    // The provider reported 5000 input tokens for the request: the total is anchored on it.
    assert.equal(after.reported, true);
    assert.ok(after.total >= 5000 && after.total < 5100, `${after.total}`);

    const notices: string[] = [];
    const actions = {
      registry: new SlashCommandRegistry([]),
      notice: (t: string) => notices.push(t),
      contextUsage: () => h.agent.contextUsage(),
    } as unknown as SlashActions;
    assert.equal(await runSlashCommand('/context', actions, new AbortController().signal), true);
    assert.match(
      notices[0],
      /^\*\*Context: 5\.\dk of 100k tokens \(5%\)\*\* as the provider counted \(the parts are estimated: \d\.\dk\)\.\n/,
    );
    assert.match(notices[0], /\| Attachments \(@\) \| 2\.\dk \| 2% \|/);
    assert.match(notices[0], /Compaction starts at 90k tokens \(90% of the window\): 8\dk tokens from now\./);
  });
});

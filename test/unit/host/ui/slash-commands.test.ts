import { strict as assert } from 'node:assert';
import { SlashCommandRegistry } from '../../../../src/core/commands/slash';
import type { ModeName } from '../../../../src/core/modes';
import { runSlashCommand, type SlashActions } from '../../../../src/host/ui/slash-commands';

function actions(over: Partial<SlashActions> = {}) {
  const log: string[] = [];
  let mode: ModeName = 'agent';
  let running = false;
  const registry = new SlashCommandRegistry([
    {
      id: 'custom',
      list: async () => [{ name: 'review', description: 'Review a file', argumentHint: '<file>', source: 'custom' }],
      expand: async (name, args) => (name === 'review' ? `Review ${args.argv[0]} carefully` : undefined),
    },
  ]);
  const a: SlashActions = {
    registry,
    notice: (text, level) => log.push(`${level}: ${text}`),
    running: () => running,
    stop: () => log.push('stop'),
    newTask: () => log.push('new'),
    mode: () => mode,
    setMode: (m) => {
      mode = m;
      log.push(`mode ${m}`);
    },
    selectModel: async () => void log.push('model picker'),
    compact: async () => {
      log.push('compact');
      return { beforeTokens: 9000, afterTokens: 1200 };
    },
    undo: async () => log.push('undo'),
    send: async (prompt) => log.push(`send ${prompt}`),
    ...over,
  };
  return { a, log, setRunning: (r: boolean) => (running = r), mode: () => mode };
}
const signal = new AbortController().signal;

describe('host slash commands', () => {
  it('ordinary messages are not commands', async () => {
    const { a, log } = actions();
    assert.equal(await runSlashCommand('fix /usr/bin/x please', a, signal), false);
    assert.deepEqual(log, []);
  });

  it('/mode switches (with an alias "code" for implement); a bad mode says so', async () => {
    const t = actions();
    assert.equal(await runSlashCommand('/mode plan', t.a, signal), true);
    assert.equal(t.mode(), 'plan');
    assert.match(t.log.at(-1)!, /^info: Mode: Plan — Plan mode: .*up to 20 iterations/);
    await runSlashCommand('/mode code', t.a, signal);
    assert.equal(t.mode(), 'implement');
    await runSlashCommand('/mode fast', t.a, signal);
    assert.match(t.log.at(-1)!, /^error: Unknown mode "fast"\. Modes: agent, plan, implement, review, test, deploy\./);
    assert.equal(t.mode(), 'implement');
  });

  it('/stop, /new, /model, /undo, /compact, /help call the host', async () => {
    const t = actions();
    await runSlashCommand('/stop', t.a, signal);
    assert.equal(t.log.at(-1), 'info: Nothing is running.');
    t.setRunning(true);
    await runSlashCommand('/stop', t.a, signal);
    assert.equal(t.log.at(-1), 'stop');
    await runSlashCommand('/undo', t.a, signal);
    assert.match(t.log.at(-1)!, /^error: Forge is working on this task/);
    t.setRunning(false);
    for (const c of ['/new', '/model', '/undo', '/compact']) await runSlashCommand(c, t.a, signal);
    assert.deepEqual(t.log.slice(3), [
      'new',
      'model picker',
      'undo',
      'info: Compacting the conversation…',
      'compact',
      'info: Compacted: 9000 → 1200 tokens (estimated).',
    ]);
    await runSlashCommand('/help', t.a, signal);
    assert.match(t.log.at(-1)!, /`\/mode <mode>`[\s\S]*`\/review <file>` — Review a file/);
  });

  it('custom commands send their expanded prompt; unknown ones are never sent', async () => {
    const t = actions();
    await runSlashCommand('/review src/a.ts', t.a, signal);
    assert.equal(t.log.at(-1), 'send Review src/a.ts carefully');
    await runSlashCommand('/reviw src/a.ts', t.a, signal);
    assert.match(t.log.at(-1)!, /^error: Unknown command \/reviw\. Did you mean \/review\?/);
    assert.equal(t.log.filter((l) => l.startsWith('send')).length, 1);
  });

  it('/compact with nothing to compact, or a failure, says so', async () => {
    const t = actions({ compact: async () => undefined });
    await runSlashCommand('/compact', t.a, signal);
    assert.match(t.log.at(-1)!, /Nothing to compact yet/);
    const f = actions({
      compact: async () => {
        throw new Error('model down');
      },
    });
    await runSlashCommand('/compact', f.a, signal);
    assert.equal(f.log.at(-1), 'error: Compaction failed: model down');
  });
});

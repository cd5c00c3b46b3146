// @-mentions in a real VS Code, driven as the webview drives them (through the panel bridge's connection): the
// picker's query is answered from the workspace's file index (findFiles, kept by a watcher: a file created now is
// found), a message with an @file chip reaches the loopback model with the file as a labelled context block and the
// transcript shows the chip, and a forged mention of a secret or of a file outside the workspace is refused with a
// clear error and never reaches the model.
import * as assert from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { llm, waitFor, wsPath } from '../helpers';
import { forge, freshTask, type ForgeApi } from './forge-api';

let seq = 0;
const rid = () => `mn-${Date.now().toString(36)}-${++seq}`;

describe('@ mentions from the panel (real VS Code)', function () {
  this.timeout(90_000);
  let api: ForgeApi;
  let conn: { receive(m: unknown): void; dispose(): void };
  const got: any[] = [];
  const outside = path.join(os.tmpdir(), `forge-outside-${process.pid}.txt`);

  before(async () => {
    api = await forge();
    conn = api.testApi.panel.bridge.connect((m: unknown) => void got.push(m));
    conn.receive({ type: 'ready' });
    fs.writeFileSync(wsPath('.env'), 'API_KEY=sk-live-mention-secret\n');
    fs.writeFileSync(outside, 'OUTSIDE_THE_WORKSPACE\n');
  });
  after(() => {
    conn?.dispose();
    fs.rmSync(wsPath('.env'), { force: true });
    fs.rmSync(wsPath('src', 'freshlyAdded.js'), { force: true });
    fs.rmSync(outside, { force: true });
  });

  /** Asks the picker and waits for its answer. */
  async function ask(query: string): Promise<any[]> {
    const s = ++seq;
    conn.receive({ type: 'mention_query', seq: s, query });
    const res = await waitFor(
      () => got.find((m) => m.type === 'mention_results' && m.seq === s),
      `the picker's answer to "${query}"`,
      30_000,
    );
    return res.options;
  }

  it('the picker finds workspace files (and one created now), never the secret', async () => {
    const greet = await ask('greet');
    assert.ok(
      greet.some((o) => o.mention.kind === 'file' && o.mention.path === 'src/greet.js' && o.label === 'greet.js'),
      JSON.stringify(greet.slice(0, 5)),
    );
    assert.ok(!(await ask('.env')).some((o) => o.mention.path === '.env'), 'a secret is not offered');
    const specials = (await ask('')).map((o) => o.mention.kind);
    for (const k of ['problems', 'terminal', 'git']) assert.ok(specials.includes(k), `${k} in ${specials}`);
    fs.writeFileSync(wsPath('src', 'freshlyAdded.js'), 'module.exports = 1;\n');
    await waitFor(
      async () => (await ask('freshlyadded')).some((o) => o.mention.path === 'src/freshlyAdded.js'),
      'the new file in the index (FileSystemWatcher)',
      30_000,
    );
  });

  it('@file from the panel reaches the model as a labelled block; the transcript shows the chip', async () => {
    await freshTask(api, [{ toolCalls: [{ id: 'm-1', name: 'converse', args: { reply: 'It says hello.' } }] }]);
    conn.receive({
      type: 'send_message',
      requestId: rid(),
      text: 'What does greetWorld return?',
      mentions: [{ kind: 'file', path: 'src/greet.js' }],
    });
    await waitFor(async () => (await llm.requests()).length >= 1, 'the model request', 30_000);
    await waitFor(() => !api.testApi.manager.current.running, 'the run to end');
    const users = (await llm.requests())[0].body.messages.filter((m: any) => m.role === 'user');
    const text = users
      .map((m: any) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content)))
      .join('\n');
    assert.match(text, /^What does greetWorld return\?/);
    assert.match(
      text,
      /<context kind="file" path="src\/greet\.js" lines="1-\d+">\n\/\/ Greets someone\.[\s\S]*function greetWorld/,
    );
    const items = api.testApi.manager.current.transcript.snapshot().items.filter((i: any) => i.kind === 'user');
    assert.deepStrictEqual(
      items.map((i: any) => [i.text, i.mentions?.map((c: any) => c.label)]),
      [['What does greetWorld return?', ['greet.js']]],
    );
    // Saved with the task: the record's transcript keeps the chip (history and reload show it).
    const saved = api.testApi.manager.current.record().transcript.items.find((i: any) => i.kind === 'user');
    assert.deepStrictEqual(saved.mentions, [{ mention: { kind: 'file', path: 'src/greet.js' }, label: 'greet.js' }]);
  });

  it('a forged mention of a secret or of a file outside the workspace is refused and never sent', async () => {
    await freshTask(api, [{ toolCalls: [{ id: 'm-2', name: 'converse', args: { reply: 'never' } }] }]);
    for (const forged of [
      { kind: 'file', path: '.env' },
      { kind: 'file', path: outside },
      { kind: 'selection', path: '../../etc/passwd', startLine: 1, endLine: 3 },
    ]) {
      const before = got.length;
      conn.receive({ type: 'send_message', requestId: rid(), text: 'read this', mentions: [forged] });
      const prefill = await waitFor(
        () => got.slice(before).find((m) => m.type === 'prefill'),
        `the message back in the input (${forged.path})`,
      );
      assert.strictEqual(prefill.text, 'read this');
      assert.strictEqual(prefill.chips.length, 1);
      const error = await waitFor(
        () =>
          api.testApi.manager.current.transcript
            .snapshot()
            .items.filter((i: any) => i.kind === 'error')
            .pop(),
        'the refusal in the transcript',
      );
      assert.match(
        error.message,
        /^Your message was not sent: @.* cannot be attached: it (looks like a secret|is outside the workspace|.*outside)/,
      );
    }
    // A malformed mention does not even parse (zod): nothing runs.
    conn.receive({ type: 'send_message', requestId: rid(), text: 'x', mentions: [{ kind: 'file', path: 'a\u0000b' }] });
    conn.receive({ type: 'send_message', requestId: rid(), text: 'x', mentions: [{ kind: 'shell', command: 'rm' }] });
    await new Promise((r) => setTimeout(r, 500));
    assert.strictEqual((await llm.requests()).length, 0, 'nothing reached the model');
    assert.ok(!JSON.stringify(api.testApi.manager.current.dump().history).includes('sk-live-mention-secret'));
  });
});

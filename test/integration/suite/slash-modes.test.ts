// Slash commands, modes that gather their own context, plan -> implement, and delegate_task in a real VS Code:
// driven through the panel bridge exactly as the webview talks to it (send_message, implement_plan, stop),
// with the scripted loopback model.
import * as assert from 'node:assert';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import { llm, waitFor, wsPath } from '../helpers';
import { forge, freshTask, historyIsConsistent, type ForgeApi } from './forge-api';

const done = (id: string, result: string) => ({ toolCalls: [{ id, name: 'task_completion', args: { result } }] });
let seq = 0;
const rid = () => `it-${Date.now().toString(36)}-${++seq}`;

/** Everything the model was sent in request `i` (OpenAI wire: system + messages). */
async function sentText(i: number): Promise<string> {
  const r = (await llm.requests())[i];
  return JSON.stringify(r?.body?.messages ?? []);
}

describe('slash commands, modes and delegation (real VS Code)', function () {
  this.timeout(90_000);
  let api: ForgeApi;
  let conn: { receive(m: unknown): void; dispose(): void };
  const got: any[] = [];
  const notices = () => got.filter((m) => m.type === 'command_notice');
  const send = (text: string) => conn.receive({ type: 'send_message', requestId: rid(), text });

  before(async () => {
    api = await forge();
    fs.mkdirSync(wsPath('.forge', 'commands'), { recursive: true });
    fs.writeFileSync(
      wsPath('.forge', 'commands', 'explain.md'),
      '---\ndescription: Explain a file\nargument-hint: <file>\n---\nExplain what $1 does, briefly. Focus: $ARGUMENTS\n',
    );
    conn = api.testApi.panel.bridge.connect((m: unknown) => void got.push(m));
    conn.receive({ type: 'ready' });
  });
  after(() => {
    conn?.dispose();
    fs.rmSync(wsPath('.forge'), { recursive: true, force: true });
  });
  afterEach(async () => {
    const session = api.testApi.manager.current;
    if (session.running) {
      session.stop();
      await waitFor(() => !session.running, 'the run to stop');
    }
    session.setMode('agent');
  });

  it('the input gets the command list, custom prompt files included; /help lists them; unknown commands never reach the model', async () => {
    await freshTask(api, []);
    send('/help');
    const help = await waitFor(
      () => notices().find((n) => /`\/explain <file>` — Explain a file/.test(n.text)),
      'the /help notice',
    );
    assert.strictEqual(help.level, 'info');
    // The list reaches the input (file watcher, a webview's ready, or the refresh after any command).
    const list = await waitFor(
      () =>
        got
          .filter((m) => m.type === 'slash_commands')
          .reverse()
          .find((m) => m.commands.some((c: any) => c.name === 'explain')),
      'the command list with the custom command',
      20_000,
    );
    assert.deepStrictEqual(
      list.commands.slice(0, 8).map((c: any) => c.name),
      ['stop', 'new', 'mode', 'model', 'compact', 'context', 'undo', 'help'],
    );
    assert.deepStrictEqual(
      list.commands.find((c: any) => c.name === 'explain'),
      { name: 'explain', description: 'Explain a file', argumentHint: '<file>', source: 'custom' },
    );
    send('/explian src/greet.js');
    const unknown = await waitFor(
      () => notices().find((n) => /Unknown command \/explian/.test(n.text)),
      'the unknown command notice',
    );
    assert.strictEqual(unknown.level, 'error');
    assert.match(unknown.text, /Did you mean \/explain\?/);
    assert.strictEqual((await llm.requests()).length, 0, 'nothing was sent to the model');
    assert.strictEqual(api.testApi.manager.current.dump().history.length, 0);
  });

  it('/mode plan: the plan gathers package.json and the tree; a custom command is expanded; "Implement this plan" hands it to implement mode', async () => {
    await freshTask(api, [
      done('p-done', '1. Add a farewell() to src/greet.js\n2. Export it'),
      { toolCalls: [{ id: 'i-read', name: 'read_file', args: { path: 'src/greet.js' } }] },
      done('i-done', 'Implemented.'),
    ]);
    send('/mode plan');
    await waitFor(() => api.testApi.manager.current.mode === 'plan', 'the task to be in plan mode');
    assert.ok(notices().some((n) => /^Mode: Plan/.test(n.text)));
    send('/explain src/greet.js the exports');
    const session = api.testApi.manager.current;
    const planEnd = await waitFor(
      () => session.transcript.snapshot().items.find((i: any) => i.kind === 'run_end'),
      'the plan run to end',
      20_000,
    );
    assert.strictEqual(planEnd.reason, 'done', planEnd.detail);
    assert.deepStrictEqual(planEnd.actions, ['implement_plan']);
    const first = await sentText(0);
    assert.match(first, /Explain what src\/greet\.js does, briefly\. Focus: src\/greet\.js the exports/);
    assert.match(first, /Plan mode/);
    assert.match(first, /Project context \(gathered for planning\)/);
    assert.match(first, /### package\.json/);
    assert.match(first, /greet\.js/);
    const ctx = session.transcript.snapshot().items.find((i: any) => i.kind === 'context');
    assert.ok(ctx && ctx.mode === 'plan' && ctx.sources.includes('package.json'), JSON.stringify(ctx));

    conn.receive({ type: 'implement_plan', requestId: rid() });
    await waitFor(
      () => session.transcript.snapshot().items.filter((i: any) => i.kind === 'run_end').length === 2,
      'the implement run to end',
      20_000,
    );
    assert.strictEqual(session.mode, 'implement');
    const impl = await sentText(1);
    assert.match(impl, /Implement this plan \(approved by the user\)/);
    assert.match(impl, /1\. Add a farewell\(\) to src\/greet\.js/);
    const lastEnd = session.transcript
      .snapshot()
      .items.filter((i: any) => i.kind === 'run_end')
      .at(-1);
    assert.strictEqual(lastEnd.reason, 'done', lastEnd.detail);
    assert.deepStrictEqual(lastEnd.actions, [], 'no plan button after an implement run');
  });

  it('delegate_task: a review helper sees the working-tree diff, its steps are nested under the call, its work counts in the parent', async () => {
    const root = wsPath();
    const git = (...args: string[]) => execFileSync('git', args, { cwd: root, stdio: 'pipe' });
    git('init', '-q');
    git('-c', 'user.email=t@example.com', '-c', 'user.name=t', 'add', 'src');
    git('-c', 'user.email=t@example.com', '-c', 'user.name=t', 'commit', '-qm', 'base');
    const greet = wsPath('src', 'greet.js');
    const original = fs.readFileSync(greet, 'utf8');
    fs.writeFileSync(greet, original + '\n// reviewed-marker\n');
    try {
      await freshTask(api, [
        {
          toolCalls: [
            { id: 'd-call', name: 'delegate_task', args: { task: 'Review the uncommitted change', mode: 'review' } },
          ],
        },
        { toolCalls: [{ id: 'call_1', name: 'read_file', args: { path: 'src/greet.js' } }] },
        done('c-done', 'The marker comment is harmless.'),
        done('p-done2', 'Review delegated and done.'),
      ]);
      const report = await api.testApi.controller.startRun('send', 'Get the change reviewed');
      assert.strictEqual(report.reason, 'done', report.detail);
      const child = await sentText(1);
      assert.match(child, /Review mode/);
      assert.match(child, /Working-tree changes \(gathered for review\)/);
      assert.match(child, /reviewed-marker/, 'the diff reached the helper');
      assert.match(await sentText(3), /The marker comment is harmless\./, "the parent got the helper's answer");
      assert.strictEqual(report.iterations, 4);
      assert.ok(report.spend?.sub_agents, "the helper's spend is booked on the parent");
      const items = api.testApi.manager.current.transcript.snapshot().items;
      const card = items.find((i: any) => i.kind === 'tool' && i.name === 'delegate_task');
      assert.strictEqual(card.status, 'done');
      const nested = items.filter((i: any) => i.parentId === card.id);
      assert.deepStrictEqual(
        nested.filter((i: any) => i.kind === 'tool').map((i: any) => [i.name, i.status]),
        [
          ['read_file', 'done'],
          ['task_completion', 'done'],
        ],
      );
      assert.ok(nested.some((i: any) => i.kind === 'context' && i.mode === 'review'));
      assert.ok(historyIsConsistent(api.testApi.manager.current.dump().history));
    } finally {
      fs.writeFileSync(greet, original);
      fs.rmSync(wsPath('.git'), { recursive: true, force: true });
    }
  });

  it('Stop (the panel message and /stop) cancels a helper mid-call; both runs end stopped', async () => {
    await freshTask(api, [
      { toolCalls: [{ id: 's-call', name: 'delegate_task', args: { task: 'Dig for a long time' } }] },
      { fault: 'hang' },
    ]);
    const session = api.testApi.manager.current;
    const requestId = rid();
    conn.receive({ type: 'send_message', requestId, text: 'Investigate everything' });
    await waitFor(async () => (await llm.requests()).length >= 2, 'the helper to call the model');
    send('/stop');
    const end = await waitFor(
      () => session.transcript.snapshot().items.find((i: any) => i.kind === 'run_end'),
      'the run to end',
    );
    assert.strictEqual(end.reason, 'stopped');
    const items = session.transcript.snapshot().items;
    const card = items.find((i: any) => i.kind === 'tool' && i.name === 'delegate_task');
    assert.ok(['error', 'cancelled'].includes(card.status), card.status);
    assert.ok(!items.some((i: any) => i.kind === 'tool' && ['running', 'pending'].includes(i.status)), 'nothing spins');
    assert.ok(historyIsConsistent(session.dump().history));
  });

  it('/compact summarises the conversation now; /new starts a new task', async () => {
    await freshTask(api, [
      done('k1', 'one'),
      done('k2', 'two'),
      done('k3', 'three'),
      { text: '## Goal\nCompacted goal' },
    ]);
    const session = api.testApi.manager.current;
    for (const m of ['first', 'second', 'third']) {
      const r = await api.testApi.controller.startRun('send', m);
      assert.strictEqual(r.reason, 'done', r.detail);
    }
    const before = session.dump().history.length;
    send('/compact');
    await waitFor(
      () => session.transcript.snapshot().items.some((i: any) => i.kind === 'compaction'),
      'the compaction item',
    );
    assert.ok(session.dump().history.length < before);
    await waitFor(() => notices().some((n) => /^Compacted: \d+ → \d+ tokens/.test(n.text)), 'the compaction notice');
    send('/new');
    await waitFor(() => api.testApi.manager.current !== session, 'a new task');
  });
});

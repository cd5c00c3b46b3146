// Memory recall reaches the model and shows in the panel; Forget removes a learning; load_task from the panel.
import * as assert from 'node:assert';
import * as fs from 'node:fs';
import * as vscode from 'vscode';
import { llm, waitFor, wsPath } from '../helpers';
import { forge, freshTask, type ForgeApi } from './forge-api';

describe('memory and task history', function () {
  this.timeout(60_000);
  let api: ForgeApi;
  before(async () => {
    api = await forge();
  });

  it('recalls a workspace learning into the prompt and the panel; Forget removes it', async () => {
    const file = wsPath('.forge', 'memory.jsonl');
    fs.mkdirSync(wsPath('.forge'), { recursive: true });
    const lesson = 'Run the division tests with node --test after changing math.js';
    fs.writeFileSync(
      file,
      JSON.stringify({
        type: 'procedural',
        content: lesson,
        context: 'editing math.js division',
        tags: ['math', 'division'],
      }) + '\n',
    );
    try {
      await freshTask(api, [{ toolCalls: [{ id: 'm-done', name: 'task_completion', args: { result: 'Noted.' } }] }]);
      const report = await api.testApi.controller.startRun('send', 'Change the math.js division to guard against zero');
      assert.strictEqual(report.reason, 'done', report.detail);
      const body = JSON.stringify((await llm.requests())[0].body.messages);
      assert.ok(body.includes(lesson), 'the learning is in the prompt');
      const recalled = api.testApi.manager.current.transcript
        .snapshot()
        .items.find((i: any) => i.kind === 'memory' && i.direction === 'recalled');
      assert.ok(
        recalled?.memories.some((m: any) => m.content === lesson),
        'the panel shows the recalled learning',
      );

      const [item] = await (api.testApi as any).memory.list();
      assert.strictEqual(item.content, lesson);
      assert.strictEqual(await vscode.commands.executeCommand('forge.forget', item.id), true);
      assert.deepStrictEqual(await (api.testApi as any).memory.list(), []);
      assert.ok(!fs.readFileSync(file, 'utf8').includes(lesson), 'gone from the file');
    } finally {
      fs.rmSync(wsPath('.forge'), { recursive: true, force: true });
    }
  });

  it('load_task from the panel brings back an earlier task', async () => {
    await freshTask(api, [{ toolCalls: [{ id: 'l-1', name: 'converse', args: { reply: 'First task reply.' } }] }]);
    await api.testApi.controller.startRun('send', 'First task');
    const first = api.testApi.manager.current;
    await first.save();
    await freshTask(api, []);
    assert.notStrictEqual(api.testApi.manager.current.id, first.id);

    const sent: any[] = [];
    const conn = api.testApi.panel.bridge.connect((m: any) => sent.push(m));
    try {
      conn.receive({ type: 'ready' });
      conn.receive({ type: 'load_task', id: first.id });
      await waitFor(() => api.testApi.manager.current.id === first.id, 'the task to load');
      const state = await waitFor(
        () =>
          sent.filter((m) => m.type === 'state').at(-1)?.snapshot.taskId === first.id &&
          sent.filter((m) => m.type === 'state').at(-1),
        'the panel snapshot of the loaded task',
      );
      assert.ok(
        state.snapshot.items.some(
          (i: any) => i.kind === 'assistant' || (i.kind === 'run_end' && /First task reply/.test(i.detail)),
        ),
        'its conversation is shown',
      );
    } finally {
      conn.dispose();
    }
  });
});

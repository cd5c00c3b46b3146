// Issue 28: a damaged (cut) task file was salvaged with its messages for the model but no panel items, so the
// user saw an empty conversation. The panel now rebuilds its view from the recovered messages.
import * as assert from 'node:assert/strict';
import { Agent } from '../../../src/core/loop/agent';
import type { ChatMessage } from '../../../src/core/model/types';
import { salvageTask } from '../../../src/core/tasks/salvage';
import type { AgentSnapshot } from '../../../src/core/tasks/snapshot';
import type { TaskRecord } from '../../../src/core/tasks/task-store';
import { describeNotice } from '../../../src/host/session/recovery-notes';
import { TaskSession, type SessionDeps } from '../../../src/host/session/task-session';
import { itemsFromHistory } from '../../../src/panel/items-from-history';
import { parseHostMessage, type TranscriptItem } from '../../../src/protocol/messages';
import { PanelBridge } from '../../../src/panel/bridge';
import { FakeClock, ScriptedModel, callsTurn, doneTurn, textTurn } from '../../support/scripted-model';
import { ScriptedApprover, fakeReadTool } from '../../support/loop-harness';
import { promises as fsp } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { TaskStore, type StoreNotice } from '../../../src/core/tasks/task-store';
import { FaultyIO } from './faulty-fs';

const log = { info() {}, warn() {}, error() {}, debug() {}, trace() {} } as unknown as SessionDeps['log'];

function deps(saved: TaskRecord[], model = new ScriptedModel([])): SessionDeps {
  return {
    makeAgent: (snapshot?: AgentSnapshot) => {
      const d = { model, tools: [fakeReadTool()], approver: new ScriptedApprover(), clock: new FakeClock() };
      return snapshot ? Agent.restore(snapshot, d) : new Agent(d);
    },
    save: async (r) => void saved.push(JSON.parse(JSON.stringify(r)) as TaskRecord),
    log,
    saveDelayMs: 5,
  };
}

/** A real task's file: two runs, a tool call with its result, a final answer; as the task store writes it. */
async function taskFile(): Promise<string> {
  const saved: TaskRecord[] = [];
  const model = new ScriptedModel([
    callsTurn(['read_file', { path: 'src/app.ts' }]),
    doneTurn('The bug is in app.ts line 3.'),
    textTurn('You are welcome, the fix is one line.'),
  ]);
  const live = TaskSession.create(deps(saved, model));
  await live.run('send', 'find the bug in app.ts');
  await live.run('send', 'thanks, how big is the fix?');
  await live.save();
  return JSON.stringify({ version: 1, task: saved.at(-1) });
}

function view(items: readonly TranscriptItem[]): string[] {
  return items.flatMap((it) => {
    if (it.kind === 'user') return [`user: ${it.text}`];
    if (it.kind === 'assistant') return [`assistant: ${it.text}`];
    if (it.kind === 'tool') return [`tool ${it.name} ${it.status}${it.result ? `: ${it.result}` : ''}`];
    return [];
  });
}

describe('durability: a salvaged task shows its conversation in the panel', () => {
  it('the messages recovered from a file cut at any point are all in the restored view, in order', async () => {
    const text = await taskFile();
    const transcriptAt = text.indexOf('"transcript"');
    assert.ok(transcriptAt > 0 && text.indexOf('"history"') < transcriptAt, 'the history comes before the items');
    // Cut in the history, between it and the items, inside the items, and just before the items' end.
    const lastItem = text.lastIndexOf('"kind"');
    const cuts = [
      text.indexOf('thanks, how big'),
      text.indexOf('"content of src/app.ts"') + 10,
      transcriptAt + 5,
      text.indexOf('"kind":"tool"', transcriptAt) + 20,
      text.indexOf('thanks, how big', transcriptAt) + 3,
      lastItem,
    ];
    for (const at of cuts) {
      const s = salvageTask(text.slice(0, at), (JSON.parse(text) as { task: TaskRecord }).task.id, 1)!;
      assert.ok(s, `something is salvaged from a cut at ${at}`);
      const history = (s.record.snapshot as AgentSnapshot).history;
      const restored = TaskSession.restore(deps([]), s.record);
      const shown = view(restored.transcript.getItems());
      const users = history.flatMap((m) => (m.role === 'user' ? [`user: ${m.content}`] : []));
      assert.deepEqual(
        shown.filter((l) => l.startsWith('user: ')),
        users,
        `cut at ${at}: every recovered user message is a bubble`,
      );
      assert.ok(users.length > 0, `cut at ${at}: the first message survived`);
      for (const m of history)
        if (m.role === 'tool' && m.toolName !== 'task_completion')
          assert.ok(
            shown.some((l) => l.startsWith(`tool ${m.toolName} done: ${m.content}`)),
            `cut at ${at}: tool row ${m.toolName} with its result`,
          );
      if (history.some((m) => m.role === 'assistant' && m.toolCalls?.some((c) => c.name === 'task_completion')))
        assert.ok(shown.includes('assistant: The bug is in app.ts line 3.'), `cut at ${at}: the answer is shown`);
      // What the webview receives passes its schema.
      const bridge = new PanelBridge({} as never, { info() {}, warn() {}, error() {} } as never);
      bridge.attachTranscript(restored.transcript);
      const parsed = parseHostMessage(JSON.parse(JSON.stringify({ type: 'state', snapshot: bridge.snapshot() })));
      assert.ok(parsed.ok, parsed.ok ? '' : parsed.error);
      // The notice says the view was rebuilt whenever the panel's own items were dropped.
      const notice = describeNotice({
        kind: 'damaged',
        id: 't',
        reason: 'cut',
        recovered: { messages: s.messages, transcriptItems: s.transcriptItems, rebuilt: s.rebuilt },
      });
      // Every cut lands before the items' end: none of them is trusted half-read.
      assert.equal(s.rebuilt, true, `cut at ${at}`);
      assert.match(notice, /rebuilt from the saved conversation/);
    }
  });

  it('an intact transcript is kept as saved, not rebuilt', async () => {
    const text = await taskFile();
    const task = (JSON.parse(text) as { task: TaskRecord }).task;
    // Damage after the transcript (a cut trailing brace): every item was read whole.
    const s = salvageTask(text.slice(0, -1), task.id)!;
    assert.equal(s.rebuilt, false);
    assert.deepEqual(s.record.transcript, task.transcript);
  });

  it('maps messages to items: nudges hidden, results and unknown outcomes on tool rows, answers as text', () => {
    const history: ChatMessage[] = [
      { role: 'user', content: 'do it', turnId: 't-turn-1' },
      {
        role: 'assistant',
        content: 'Reading.',
        toolCalls: [
          { id: 'c1', name: 'read_file', args: { path: 'a.ts' }, rawArgs: '{"path":"a.ts"}' },
          { id: 'c2', name: 'execute_command', args: { command: 'npm test' }, rawArgs: '' },
          { id: 'c3', name: 'read_file', args: { path: 'b.ts' }, rawArgs: '' },
        ],
      },
      { role: 'tool', toolCallId: 'c1', toolName: 'read_file', content: 'x'.repeat(5000) },
      { role: 'tool', toolCallId: 'c2', toolName: 'execute_command', content: 'failed', isError: true },
      { role: 'user', content: '[Forge] Continue the task from where you left off.' },
      {
        role: 'assistant',
        content: '',
        toolCalls: [{ id: 'c4', name: 'ask_question', args: { question: 'Which?' }, rawArgs: '' }],
      },
    ];
    const items = itemsFromHistory(history, 7);
    assert.deepEqual(
      items.map((it) => [it.id, it.kind, it.kind === 'tool' ? it.status : '']),
      [
        ['i1', 'user', ''],
        ['i2', 'assistant', ''],
        ['i3', 'tool', 'done'],
        ['i4', 'tool', 'error'],
        ['i5', 'tool', 'interrupted'],
        ['i6', 'assistant', ''],
      ],
    );
    const read = items[2] as Extract<TranscriptItem, { kind: 'tool' }>;
    assert.equal(read.argsSummary, 'a.ts');
    assert.equal(read.result?.length, 4000);
    assert.equal(read.resultTruncated, true);
    assert.equal((items[0] as Extract<TranscriptItem, { kind: 'user' }>).turnId, 't-turn-1');
    assert.equal((items[5] as Extract<TranscriptItem, { kind: 'assistant' }>).text, 'Which?');
    const rerun = itemsFromHistory(history, 7, new Set(['c3']))[4] as Extract<TranscriptItem, { kind: 'tool' }>;
    assert.equal(rerun.status, 'pending', 'a call the restore runs again waits for that run');
  });

  it('on read-only storage the damaged file stays, and a failed save re-reading it does not say so twice', async () => {
    const dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'forge-salvage-view-'));
    try {
      const text = await taskFile();
      const task = (JSON.parse(text) as { task: TaskRecord }).task;
      const store = await TaskStore.open(dir, { io: new FaultyIO() });
      await store.save(task);
      await store.flush();
      await fsp.writeFile(path.join(dir, 'tasks', `${task.id}.json`), text.slice(0, text.length / 2));
      const io = new FaultyIO();
      io.fault = 'erofs';
      const reopened = await TaskStore.open(dir, { io });
      const notices: StoreNotice[] = [];
      reopened.onNotice((n) => notices.push(n));
      const opened = await reopened.open(task.id);
      assert.ok(opened.record && opened.damage, `salvaged: ${JSON.stringify(opened.damage)}`);
      assert.equal(opened.damage.keptAt, undefined, 'the file left in place');
      await assert.rejects(reopened.save(opened.record), /EROFS/);
      await new Promise((r) => setTimeout(r, 10));
      assert.equal(notices.length, 1, 'one notice for one damaged file');
    } finally {
      await fsp.rm(dir, { recursive: true, force: true });
    }
  });
});

// A compaction cut off by a crash (the summary half streamed): its start is in the answer log and its end never
// came, so the restored task tells the user the compaction did not happen (the conversation is whole), once.
import assert from 'node:assert/strict';
import type { Agent } from '../../../src/core/loop/agent';
import { AnswerLog } from '../../../src/core/tasks/answer-log';
import { EditJournal } from '../../../src/core/tasks/journal';
import { reconcileTask } from '../../../src/core/tasks/recovery';
import type { TaskRecord } from '../../../src/core/tasks/task-store';
import { markCompaction } from '../../../src/host/session/compaction-marks';
import { call, callsTurn, doneTurn, ScriptedModel, text, usage } from '../../support/scripted-model';
import { harness } from '../../support/loop-harness';
import { InMemoryTasksIO, MapWorkspace } from '../../support/memory-tasks-io';

const HALF = [text('## Goal\nHALF-SUMMARY ')];
const tick = () => new Promise((r) => setTimeout(r, 20));

describe('durability: a compaction cut off by a crash', () => {
  let io: InMemoryTasksIO;
  let saves: number;

  /** The Agent's compaction events recorded as the host does (its end after the task's save). */
  function record(agent: Agent): void {
    const answers = new AnswerLog('/store/answers', io);
    const session = { id: agent.taskId, save: async () => void saves++ };
    agent.on((e) => markCompaction(session, e, answers));
  }

  /** What the next window's restore tells the panel about the task. */
  async function restoreNotes(agent: Agent, status = 'done'): Promise<string[]> {
    const snapshot = agent.dump();
    const task = { id: agent.taskId, title: 't', createdAt: 1, updatedAt: 2, mode: 'agent', status, snapshot };
    const journal = await EditJournal.open('/store', { io });
    const ws = new MapWorkspace();
    const answers = new AnswerLog('/store/answers', io);
    const r = await reconcileTask(task as TaskRecord, { journal, answers, probe: { readDisk: (p) => ws.read(p) } });
    return r.notes;
  }

  beforeEach(() => {
    io = new InMemoryTasksIO();
    saves = 0;
  });

  it('/compact killed with half a summary: the restore says it did not happen, once', async () => {
    const model = new ScriptedModel([doneTurn('a'), doneTurn('b'), doneTurn('c'), { events: HALF, hang: 'ignore' }]);
    const h = harness([], { model });
    record(h.agent);
    for (const m of ['the task', 'second', 'third']) await h.agent.send(m);
    void h.agent.compact(); // never settles: the host is killed here
    await tick();
    assert.equal(model.requests.length, 4, 'the summary was asked for');
    const notes = await restoreNotes(h.agent);
    assert.equal(notes.length, 1, notes.join('\n'));
    assert.match(notes[0], /\/compact was cut off by the reload: the compaction did not happen/);
    assert.match(notes[0], /conversation is whole/);
    assert.match(notes[0], /run \/compact again/);
    assert.deepEqual(await restoreNotes(h.agent), [], 'told once');
  });

  it('a /compact that finished, or had nothing to do, leaves no note (its end waits for the save)', async () => {
    const model = new ScriptedModel([doneTurn('a'), doneTurn('b'), doneTurn('c'), [text('## Goal\nwhole')]]);
    const h = harness([], { model });
    record(h.agent);
    await h.agent.send('the task');
    assert.equal(await h.agent.compact(), undefined, 'too short to compact');
    await h.agent.send('second');
    await h.agent.send('third');
    assert.ok(await h.agent.compact());
    await tick();
    assert.equal(saves, 2, 'each end is recorded after a save');
    assert.deepEqual(await restoreNotes(h.agent), []);
  });

  it("a run's own compaction killed with half a summary: the restore says it did not happen and that Continue redoes it", async () => {
    const summarizer = new ScriptedModel([{ events: HALF, hang: 'ignore' }]);
    // Five reads make a middle to summarise; the fifth's usage nears the window, so the next step compacts first.
    const turns = Array.from({ length: 5 }, (_, i) => callsTurn(['read_file', { path: `f${i}.ts` }]));
    turns[4] = [...call('read_file', { path: 'f4.ts' }), usage(1900, 10), { type: 'finish', reason: 'tool_calls' }];
    const h = harness([...turns, doneTurn()], { summarizer, config: { contextWindow: 2000 } });
    record(h.agent);
    void h.agent.send('Read a.ts');
    for (let i = 0; i < 50 && !summarizer.requests.length; i++) await tick();
    assert.equal(summarizer.requests.length, 1, 'the run began compacting');
    const notes = await restoreNotes(h.agent, 'running');
    assert.equal(notes.length, 1, notes.join('\n'));
    assert.match(notes[0], /The run was compacting its context .* when it was cut off: the compaction did not happen/);
    assert.match(notes[0], /Continue compacts it again/);
    assert.deepEqual(await restoreNotes(h.agent, 'running'), [], 'told once');
  });
});

// A checkpoint restore cut off by a crash (the host killed between two files): the journal records each file as it
// goes back, and the restored task tells the user and the model exactly which files went back and which did not.
import * as assert from 'node:assert/strict';
import { AnswerLog } from '../../../src/core/tasks/answer-log';
import { deriveCheckpoints, restoreToCheckpoint, stepKeysFromHistory } from '../../../src/core/tasks/checkpoints';
import { EditJournal } from '../../../src/core/tasks/journal';
import { reconcileTask } from '../../../src/core/tasks/recovery';
import type { AgentSnapshot } from '../../../src/core/tasks/snapshot';
import type { TaskRecord } from '../../../src/core/tasks/task-store';
import type { ChatMessage } from '../../../src/core/model/types';
import { InMemoryTasksIO, MapWorkspace } from '../../support/memory-tasks-io';

const FILES = ['/ws/src/a.ts', '/ws/src/b.ts', '/ws/src/c.ts'];
const rel = (p: string) => p.replace('/ws/', '');

const writes = (...ids: string[]): ChatMessage => ({
  role: 'assistant',
  content: '',
  toolCalls: ids.map((id) => ({ id, name: 'write_file', args: {}, rawArgs: '{}' })),
});
const result = (id: string): ChatMessage => ({ role: 'tool', toolCallId: id, toolName: 'write_file', content: 'ok' });
const history: ChatMessage[] = [
  { role: 'user', content: 'change them' },
  writes('c0'),
  result('c0'),
  writes('c1', 'c2', 'c3'),
  ...['c1', 'c2', 'c3'].map(result),
];

function task(): TaskRecord {
  const snapshot = {
    version: 1,
    taskId: 't',
    mode: 'agent',
    history,
    iterations: 2,
    maxIterations: 25,
    allowedForTask: [],
    usage: { inputTokens: 1, outputTokens: 1 },
    counters: { runs: 1, approvals: 0 },
  } as unknown as AgentSnapshot;
  return { id: 't', title: 't', createdAt: 1, updatedAt: 2, mode: 'agent', status: 'done', snapshot } as TaskRecord;
}

/** The workspace, whose `hangAt`-th write never returns: the host was killed there. */
class DyingWorkspace extends MapWorkspace {
  hangAt = 0;
  reached!: Promise<void>;
  private reach!: () => void;
  constructor() {
    super();
    this.reached = new Promise((r) => (this.reach = r));
  }
  override async write(p: string, content: string): Promise<void> {
    if (this.writes + 1 === this.hangAt) {
      this.reach();
      return new Promise(() => undefined);
    }
    return super.write(p, content);
  }
  /** The restore's probe: the disk as the next window finds it. */
  readDisk = (p: string) => this.read(p);
}

describe('durability: a checkpoint restore cut off between two files', () => {
  let io: InMemoryTasksIO;
  let ws: DyingWorkspace;

  beforeEach(async () => {
    io = new InMemoryTasksIO();
    ws = new DyingWorkspace();
    const journal = await EditJournal.open('/store', { io });
    const edit = async (id: string, p: string, after: string) => {
      const before = ws.files.get(p) ?? null;
      ws.files.set(p, after);
      await journal.record({ taskId: 't', path: p, before, after, toolCallId: id });
    };
    for (const p of FILES) ws.files.set(p, `${rel(p)} original`);
    await edit('c0', '/ws/src/anchor.ts', 'anchor');
    for (const [i, p] of FILES.entries()) await edit(`c${i + 1}`, p, `${rel(p)} by the task`);
  });

  /** Restores to the first checkpoint until the host dies at the second file; returns a fresh (reloaded) journal. */
  async function restoreCutOff(answers: AnswerLog): Promise<EditJournal> {
    const journal = await EditJournal.open('/store', { io });
    const [first] = deriveCheckpoints(await journal.entries('t'), stepKeysFromHistory(history));
    await answers.restoreBegun('t', FILES.map(rel), false, { toSeq: first!.toSeq, paths: FILES });
    ws.hangAt = 2;
    void restoreToCheckpoint(journal, 't', first!, ws, async () => []);
    await ws.reached;
    return EditJournal.open('/store', { io });
  }

  it('the journal records the file that went back before the kill, and only that one', async () => {
    const reopened = await restoreCutOff(new AnswerLog('/answers', io));
    const restoredFirst = FILES.find((p) => ws.files.get(p) === `${rel(p)} original`);
    assert.ok(restoredFirst, 'one file was written back before the kill');
    assert.equal(FILES.filter((p) => ws.files.get(p) === `${rel(p)} original`).length, 1);
    const undone = (await reopened.entries('t')).filter((e) => e.undone).map((e) => e.path);
    assert.deepEqual(undone, [restoredFirst], 'the reloaded journal knows exactly that file went back');
  });

  it('the user and the model are told which files were restored and which were not, once', async () => {
    const answers = new AnswerLog('/answers', io);
    const journal = await restoreCutOff(answers);
    const r = await reconcileTask(task(), { journal, answers: new AnswerLog('/answers', io), probe: ws });
    assert.deepEqual(r.notes, [
      'A restore of files to an earlier checkpoint was cut off when Forge was reloaded: src/c.ts was restored; src/a.ts and src/b.ts were not restored. Use Restore to here again to finish it.',
    ]);
    assert.equal(
      (r.record.snapshot as AgentSnapshot).notes?.at(-1),
      'A restore of files to an earlier checkpoint was cut off by a reload: src/c.ts was restored; src/a.ts and src/b.ts were not restored. Re-read them before editing.',
    );
    const again = await reconcileTask(task(), { journal, answers: new AnswerLog('/answers', io), probe: ws });
    assert.deepEqual(again.notes, [], 'told once');
  });

  it('restoring again finishes it without a question about the files already back', async () => {
    const journal = await restoreCutOff(new AnswerLog('/answers', io));
    const fs = new MapWorkspace();
    for (const [p, text] of ws.files) fs.files.set(p, text);
    const [first] = deriveCheckpoints(await journal.entries('t'), stepKeysFromHistory(history));
    const finish = await restoreToCheckpoint(journal, 't', first!, fs, async () => []);
    assert.deepEqual(finish.conflicts, []);
    for (const p of FILES) assert.equal(fs.files.get(p), `${rel(p)} original`);
    assert.deepEqual(finish.restored.sort(), [FILES[0], FILES[1]], 'only the two left were moved');
  });

  it('the lines of one undo are one batch: a redo after a reload puts all of its files back', async () => {
    const journal = await EditJournal.open('/store', { io });
    await journal.undoTask('t', ws, { toSeq: 1 });
    for (const p of FILES) assert.equal(ws.files.get(p), `${rel(p)} original`);
    const log = [...io.files.entries()].find(([k]) => k.includes('/logs/'))![1].text;
    assert.equal(log.split('\n').filter((l) => l.includes('"k":"undo"')).length, 3, 'one undo line per file');
    const reopened = await EditJournal.open('/store', { io });
    const redo = await reopened.redoLastUndo('t', ws);
    assert.deepEqual(redo.restored.sort(), [...FILES].sort());
    for (const p of FILES) assert.equal(ws.files.get(p), `${rel(p)} by the task`);
    assert.equal(await reopened.canRedo('t'), false);
  });

  it('undo lines without a batch (written before) stay one undo each', async () => {
    const logFile = [...io.files.keys()].find((k) => k.includes('/logs/'))!;
    await io.append(logFile, `${JSON.stringify({ k: 'undo', taskId: 't', seqs: [2], at: 5 })}\n`);
    await io.append(logFile, `${JSON.stringify({ k: 'undo', taskId: 't', seqs: [3], at: 6 })}\n`);
    const reopened = await EditJournal.open('/store', { io });
    ws.files.set(FILES[0]!, 'src/a.ts original');
    ws.files.set(FILES[1]!, 'src/b.ts original');
    const redo = await reopened.redoLastUndo('t', ws);
    assert.deepEqual(redo.restored, [FILES[1]], 'only the last old-style undo is redone');
    assert.equal(await reopened.canRedo('t'), true, 'the earlier one is still there to redo');
  });
});

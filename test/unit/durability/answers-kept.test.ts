// A question already answered is never asked again: the user's Approve / Reject and a per-hunk review in progress
// are recorded as given (the answer log), and a restore takes them instead of asking again with a stale diff.
import * as assert from 'node:assert/strict';
import { promises as fsp } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { ApprovalRequest } from '../../../src/core/safety/approval';
import { AnswerLog, type RecordedReview } from '../../../src/core/tasks/answer-log';
import { EditJournal } from '../../../src/core/tasks/journal';
import { reconcileTask, type WorkspaceProbe } from '../../../src/core/tasks/recovery';
import type { AgentSnapshot } from '../../../src/core/tasks/snapshot';
import type { TaskRecord } from '../../../src/core/tasks/task-store';
import { ApprovalCenter, type EditProposalSurface } from '../../../src/host/ui/approval-center';
import type { Proposal, ProposalOutcome } from '../../../src/host/edits/diff-approval';
import { NodeTasksIO } from '../../../src/node/tasks-io';
import { InMemoryTasksIO } from '../../support/memory-tasks-io';

const FILE = '/ws/src/a.ts';

class Workspace implements WorkspaceProbe {
  disk = new Map<string, string>();
  buffers = new Map<string, string>();
  async readDisk(p: string) {
    return this.disk.get(p) ?? null;
  }
  async unsavedText(p: string) {
    return this.buffers.get(p);
  }
  async save(p: string) {
    if (!this.buffers.has(p)) return false;
    this.disk.set(p, this.buffers.get(p)!);
    this.buffers.delete(p);
    return true;
  }
  async revert(p: string) {
    this.buffers.delete(p);
  }
}

const request: ApprovalRequest = {
  id: 't-approval-1',
  taskId: 't',
  toolCallId: 'call_e',
  toolName: 'apply_diff',
  risk: 'write',
  args: { path: 'src/a.ts' },
  preview: { kind: 'edit', path: FILE, original: 'old', proposed: 'new', isNewFile: false, displayPath: 'src/a.ts' },
};

function pendingTask(): TaskRecord {
  const snapshot: AgentSnapshot = {
    version: 1,
    taskId: 't',
    mode: 'agent',
    history: [
      { role: 'user', content: 'Change a.ts' },
      {
        role: 'assistant',
        content: 'Editing.',
        toolCalls: [{ id: 'call_e', name: 'apply_diff', args: { path: 'src/a.ts' } as never, rawArgs: '{}' }],
      },
    ],
    iterations: 1,
    maxIterations: 25,
    allowedForTask: [],
    usage: { inputTokens: 1, outputTokens: 1 },
    counters: { runs: 1, approvals: 1 },
    pending: {
      request,
      calls: [{ id: 'call_e', name: 'apply_diff', args: { path: 'src/a.ts' } as never, rawArgs: '{}' }],
      iteration: 1,
    },
  };
  return {
    id: 't',
    title: 'Change a.ts',
    createdAt: 1,
    updatedAt: 2,
    mode: 'agent',
    status: 'running',
    snapshot,
  };
}

/** A diff surface that never answers by itself: it records what it was asked to show. */
class QuietDiff implements EditProposalSurface {
  readonly proposed: { proposal: Proposal; review?: RecordedReview }[] = [];
  propose(proposal: Proposal, _s?: AbortSignal, opts: { review?: RecordedReview } = {}): Promise<ProposalOutcome> {
    this.proposed.push({ proposal, ...(opts.review ? { review: opts.review } : {}) });
    return new Promise(() => undefined);
  }
  async accept() {
    return false;
  }
  async reject() {
    return false;
  }
}

const centerWith = (answers: AnswerLog, diff?: EditProposalSurface) =>
  new ApprovalCenter({
    ...(diff ? { diff } : {}),
    answers: {
      recall: (r) => answers.recall(r.taskId, r.id),
      answered: (r, d) => void answers.answered(r.taskId, r.id, r.toolCallId, d),
    },
  });

describe('durability: answers are kept across a crash', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'forge-answers-'));
  });
  afterEach(async () => {
    await fsp.rm(dir, { recursive: true, force: true, maxRetries: 5 });
  });

  it('records an answer the moment it is given; the restored run takes it without asking again', async () => {
    const log = new AnswerLog(path.join(dir, 'answers'), new NodeTasksIO());
    const before = centerWith(log);
    const answered = before.request({ ...request, preview: undefined }, new AbortController().signal);
    for (let i = 0; i < 100 && !before.pending().length; i++) await new Promise((r) => setTimeout(r, 5));
    assert.equal(await before.resolve(request.id, { kind: 'approve', scope: 'once' }), true);
    assert.deepEqual(await answered, { kind: 'approve', scope: 'once' });
    assert.ok((await log.recall('t', request.id))?.decision, 'durable once its append settles');

    // "Reload": a new center over the same log; the run asks the same request again.
    const after = centerWith(new AnswerLog(path.join(dir, 'answers'), new NodeTasksIO()));
    const asked: string[] = [];
    after.onDidChange((e) => e.type === 'requested' && asked.push(e.request.id));
    const again = await after.request({ ...request, preview: undefined }, new AbortController().signal);
    assert.deepEqual(again, { kind: 'approve', scope: 'once' });
    assert.deepEqual(asked, [], 'nobody was asked again');
    assert.deepEqual(after.pending(), []);
  });

  it('a rejection is kept too, with its reason', async () => {
    const log = new AnswerLog(dir, new InMemoryTasksIO());
    await log.answered('t', request.id, 'call_e', { kind: 'reject', reason: 'not this file' });
    const again = await centerWith(log).request({ ...request, preview: undefined }, new AbortController().signal);
    assert.deepEqual(again, { kind: 'reject', reason: 'not this file' });
  });

  it('a request never answered is asked as usual, with the review the user had begun', async () => {
    const log = new AnswerLog(dir, new InMemoryTasksIO());
    const review: RecordedReview = { hunks: [{ index: 1, state: 'rejected', reason: 'keep the old name' }] };
    await log.reviewed('t', request.id, 'call_e', { hunks: [{ index: 0, state: 'accepted' }] });
    await log.reviewed('t', request.id, 'call_e', review);
    const diff = new QuietDiff();
    const center = centerWith(log, diff);
    void center.request(request, new AbortController().signal);
    for (let i = 0; i < 20 && !diff.proposed.length; i++) await new Promise((r) => setImmediate(r));
    assert.deepEqual(
      center.pending().map((r) => r.id),
      [request.id],
    );
    assert.deepEqual(diff.proposed[0]?.review, review, 'the latest review, not the first');
  });

  it('a recorded Approve is still refused when the file changed since (no stale write)', async () => {
    const log = new AnswerLog(dir, new InMemoryTasksIO());
    await log.answered('t', request.id, 'call_e', { kind: 'approve', scope: 'once' });
    const center = new ApprovalCenter({
      readCurrent: async () => 'changed by the user',
      answers: { recall: (r) => log.recall(r.taskId, r.id), answered: () => undefined },
    });
    const d = await center.request(request, new AbortController().signal);
    assert.equal(d.kind, 'reject');
    assert.match(d.kind === 'reject' ? (d.reason ?? '') : '', /changed while this proposal waited/);
  });

  it('restore: an approved proposal that reached only the editor buffer is saved and reported applied, not asked again', async () => {
    const journal = await EditJournal.open(dir, { io: new NodeTasksIO() });
    const answers = new AnswerLog(path.join(dir, 'answers'), new NodeTasksIO());
    await journal.beginEdit({
      taskId: 't',
      path: FILE,
      before: 'old',
      after: 'new',
      toolCallId: 'call_e',
      proposed: true,
    });
    await answers.answered('t', request.id, 'call_e', { kind: 'approve', scope: 'once' });
    const ws = new Workspace();
    ws.disk.set(FILE, 'old');
    ws.buffers.set(FILE, 'new'); // the crash came after the editor took the edit, before the save
    const r = await reconcileTask(pendingTask(), { journal, answers, probe: ws });
    assert.equal(ws.disk.get(FILE), 'new', 'saved');
    const snap = r.record.snapshot as AgentSnapshot;
    assert.equal(snap.pending, undefined, 'not asked again');
    const result = snap.history.at(-1);
    assert.equal(result?.role, 'tool');
    assert.match(String(result?.content), /^Applied:/);
  });

  it('restore: an edit already written and journaled while the saved task still waits for its approval is applied, not asked again', async () => {
    const journal = await EditJournal.open(dir, { io: new NodeTasksIO() });
    const intent = await journal.beginEdit({
      taskId: 't',
      path: FILE,
      before: 'old',
      after: 'new',
      toolCallId: 'call_e',
    });
    await journal.commitEdit(intent);
    const ws = new Workspace();
    ws.disk.set(FILE, 'new');
    const r = await reconcileTask(pendingTask(), { journal, probe: ws });
    const snap = r.record.snapshot as AgentSnapshot;
    assert.equal(snap.pending, undefined, 'the stale approval is not asked again');
    assert.match(String(snap.history.at(-1)?.content), /^Applied: this edit of \/ws\/src\/a\.ts was written/);
  });

  it('restore: without a recorded answer the same buffer is left alone (a proposal is not an approval)', async () => {
    const journal = await EditJournal.open(dir, { io: new NodeTasksIO() });
    const answers = new AnswerLog(path.join(dir, 'answers'), new NodeTasksIO());
    await journal.beginEdit({
      taskId: 't',
      path: FILE,
      before: 'old',
      after: 'new',
      toolCallId: 'call_e',
      proposed: true,
    });
    const ws = new Workspace();
    ws.disk.set(FILE, 'old');
    ws.buffers.set(FILE, 'new');
    const r = await reconcileTask(pendingTask(), { journal, answers, probe: ws });
    assert.equal(ws.disk.get(FILE), 'old');
    assert.ok((r.record.snapshot as AgentSnapshot).pending, 'still waits for the user');
  });

  it('restore: an approval answered before the crash but not yet written keeps waiting for the run, with a note that says the answer is kept', async () => {
    const journal = await EditJournal.open(dir, { io: new NodeTasksIO() });
    const answers = new AnswerLog(path.join(dir, 'answers'), new NodeTasksIO());
    await journal.beginEdit({
      taskId: 't',
      path: FILE,
      before: 'old',
      after: 'new',
      toolCallId: 'call_e',
      proposed: true,
    });
    await answers.answered('t', request.id, 'call_e', { kind: 'approve', scope: 'once' });
    const ws = new Workspace();
    ws.disk.set(FILE, 'old');
    const r = await reconcileTask(pendingTask(), { journal, answers, probe: ws });
    assert.ok((r.record.snapshot as AgentSnapshot).pending, 'the run goes on from the pending call');
    assert.deepEqual(r.notes, [
      'You had approved the edit of src/a.ts just before Forge was reloaded: your answer is kept and it goes ahead, without asking again.',
    ]);
  });

  it('restore: a review in progress is named in the notes with what was kept', async () => {
    const journal = await EditJournal.open(dir, { io: new NodeTasksIO() });
    const answers = new AnswerLog(path.join(dir, 'answers'), new NodeTasksIO());
    await answers.reviewed('t', request.id, 'call_e', {
      hunks: [
        { index: 0, state: 'accepted' },
        { index: 1, state: 'rejected', reason: 'no' },
      ],
    });
    const ws = new Workspace();
    ws.disk.set(FILE, 'old');
    const r = await reconcileTask(pendingTask(), { journal, answers, probe: ws });
    assert.deepEqual(r.notes, [
      'Your review of the edit of src/a.ts was in progress when Forge was reloaded: your decisions are kept (1 hunk accepted, 1 rejected).',
    ]);
  });

  it('a checkpoint restore cut off by a crash is told once, to the user and to the model; a finished one is not', async () => {
    const journal = await EditJournal.open(dir, { io: new NodeTasksIO() });
    const answers = new AnswerLog(path.join(dir, 'answers'), new NodeTasksIO());
    const done = await answers.restoreBegun('t', ['src/a.ts'], false);
    await done();
    await answers.restoreBegun('t', ['src/a.ts', 'src/b.ts'], true); // the crash: never ended
    const task = { ...pendingTask(), snapshot: { ...(pendingTask().snapshot as AgentSnapshot), pending: undefined } };
    const ws = new Workspace();
    const r = await reconcileTask(task, { journal, answers, probe: ws });
    assert.deepEqual(r.notes, [
      'A restore of files to an earlier checkpoint was cut off when Forge was reloaded: src/a.ts and src/b.ts may be partly restored. Use Restore to here again to finish it.',
    ]);
    assert.equal(r.changed, true);
    assert.match(String((r.record.snapshot as AgentSnapshot).notes?.at(-1)), /may be partly restored\. Re-read them/);
    const again = await reconcileTask(task, { journal, answers, probe: ws });
    assert.deepEqual(again.notes, [], 'told once');
  });

  it('a torn last line (a crash mid-append) is skipped and the next answer still reads', async () => {
    const io = new InMemoryTasksIO();
    const log = new AnswerLog(dir, io);
    await io.append(`${dir}/t.jsonl`, '{"k":"answer","requestId":"t-appro');
    await log.answered('t', request.id, 'call_e', { kind: 'reject' });
    assert.deepEqual((await log.recall('t', request.id))?.decision, { kind: 'reject' });
  });
});

// The ordering rule, enforced: intent before effect, outcome after; and on restore the records are reconciled
// with the workspace, and the model is told what really happened to the tool calls a crash cut off.
import * as assert from 'node:assert/strict';
import { promises as fsp } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Agent } from '../../../src/core/loop/agent';
import type { ChatMessage } from '../../../src/core/model/types';
import { CommandLog } from '../../../src/core/tasks/command-log';
import { JournalingApplier, RecordingRunner, journalLedger } from '../../../src/core/tasks/effects';
import { EditJournal } from '../../../src/core/tasks/journal';
import { NodeTasksIO } from '../../../src/node/tasks-io';
import { reconcileTask, settleEdits, type WorkspaceProbe } from '../../../src/core/tasks/recovery';
import type { AgentSnapshot } from '../../../src/core/tasks/snapshot';
import { TaskStore, type TaskRecord } from '../../../src/core/tasks/task-store';
import type { EditApplier, FileEdit } from '../../../src/core/workspace/types';
import type { SessionDeps } from '../../../src/host/session/task-session';
import { SessionManager } from '../../../src/host/session/session-manager';
import { FakeClock, ScriptedModel, doneTurn } from '../../support/scripted-model';
import { ScriptedApprover } from '../../support/loop-harness';
import { FaultyIO } from './faulty-fs';

const log = { info() {}, warn() {}, error() {}, debug() {}, trace() {} } as unknown as SessionDeps['log'];
const FILE = '/ws/src/a.ts';

/** A workspace in memory: the disk, and editor buffers with unsaved changes. */
class FakeWorkspace implements WorkspaceProbe {
  disk = new Map<string, string>();
  buffers = new Map<string, string>();
  saveWorks = true;
  reverted: string[] = [];
  running = false;
  async readDisk(p: string) {
    return this.disk.get(p) ?? null;
  }
  async unsavedText(p: string) {
    return this.buffers.get(p);
  }
  async save(p: string) {
    if (!this.saveWorks || !this.buffers.has(p)) return false;
    this.disk.set(p, this.buffers.get(p)!);
    this.buffers.delete(p);
    return true;
  }
  async revert(p: string) {
    this.buffers.delete(p);
    this.reverted.push(p);
  }
  askedPids: (number | undefined)[] = [];
  commandMayBeRunning(_startedAt: number, pid?: number) {
    this.askedPids.push(pid);
    return this.running;
  }
}

function history(call: { id: string; name: string; args: unknown }): ChatMessage[] {
  return [
    { role: 'user', content: 'Change a.ts' },
    {
      role: 'assistant',
      content: 'Editing.',
      toolCalls: [{ id: call.id, name: call.name, args: call.args as never, rawArgs: JSON.stringify(call.args) }],
    },
  ];
}

function savedTask(id: string, call: { id: string; name: string; args: unknown }, pending: boolean): TaskRecord {
  const snapshot: AgentSnapshot = {
    version: 1,
    taskId: id,
    mode: 'agent',
    history: history(call),
    iterations: 1,
    maxIterations: 25,
    allowedForTask: [],
    usage: { inputTokens: 1, outputTokens: 1 },
    lastUserMessage: 'Change a.ts',
    counters: { runs: 1, approvals: 1 },
    ...(pending
      ? {
          pending: {
            request: {
              id: 'appr-1',
              taskId: id,
              toolCallId: call.id,
              toolName: call.name,
              risk: 'write',
              args: call.args as never,
            },
            calls: [{ id: call.id, name: call.name, args: call.args as never, rawArgs: '{}' }],
            iteration: 1,
          },
        }
      : {}),
  };
  return {
    id,
    title: 'Change a.ts',
    createdAt: 1,
    updatedAt: 2,
    mode: 'agent',
    status: 'running',
    iterations: 1,
    snapshot,
    transcript: { items: [] },
  };
}

const writeCall = { id: 'call_w', name: 'write_file', args: { path: 'src/a.ts', content: 'new' } };

describe('durability: intent, effect, outcome', () => {
  let dir: string;
  let journal: EditJournal;
  beforeEach(async () => {
    dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'forge-restore-'));
    journal = await EditJournal.open(dir, { io: new NodeTasksIO() });
  });
  afterEach(async () => {
    await fsp.rm(dir, { recursive: true, force: true, maxRetries: 5 });
  });

  it('an edit: the intent is durable before the file is touched, the outcome after', async () => {
    const order: string[] = [];
    const logFile = path.join(dir, 'journal', 'logs', 't.jsonl');
    const kinds = async () =>
      ((await fsp.readFile(logFile, 'utf8').catch(() => '')).match(/"k":"(\w+)"/g) ?? []).map((m) => m.slice(5, -1));
    const inner: EditApplier = {
      async apply() {
        order.push(`apply (journal: ${(await kinds()).join(',')})`);
      },
    };
    const applier = new JournalingApplier(
      inner,
      journalLedger(journal),
      () => 't',
      log,
      undefined,
      async () => 'old',
    );
    await applier.apply({
      path: FILE,
      content: 'new',
      isNewFile: false,
      original: 'old',
      taskId: 't',
      toolCallId: 'c1',
    });
    // The outcome is written off the tool's path; the journal's next read waits for it (one queue per task).
    const entries = await journal.entries('t');
    order.push(`done (journal: ${(await kinds()).join(',')})`);
    assert.deepEqual(order, ['apply (journal: intent)', 'done (journal: intent,edit)']);
    assert.deepEqual(
      entries.map((e) => [e.path, e.before, e.after, e.toolCallId]),
      [[FILE, 'old', 'new', 'c1']],
    );
  });

  it('a proposed edit: its intent is durable while it waits for approval; the approved edit is written without waiting for any append', async () => {
    // Appends can be held: Approve must not wait for one.
    let gate: Promise<void> | undefined;
    let openGate = () => {};
    class GatedIO extends NodeTasksIO {
      override async append(file: string, text: string): Promise<void> {
        if (gate) await gate;
        return super.append(file, text);
      }
    }
    const gated = await EditJournal.open(dir, { io: new GatedIO() });
    const logFile = path.join(dir, 'journal', 'logs', 't.jsonl');
    const lines = async () =>
      (await fsp.readFile(logFile, 'utf8').catch(() => ''))
        .trim()
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as { k: string; proposed?: boolean });
    const ledger = journalLedger(gated);
    ledger.propose!({ taskId: 't', path: FILE, before: 'old', after: 'new', toolCallId: 'c1' });
    // The user reads the diff meanwhile; the intent is on disk before Approve.
    for (let i = 0; i < 200 && (await lines()).length === 0; i++) await new Promise((r) => setTimeout(r, 5));
    assert.deepEqual(
      (await lines()).map((l) => [l.k, l.proposed]),
      [['intent', true]],
    );
    gate = new Promise((r) => (openGate = r));
    let appliedWith: unknown;
    const inner: EditApplier = {
      async apply() {
        appliedWith = (await lines()).map((l) => [l.k, l.proposed]);
      },
    };
    const applier = new JournalingApplier(
      inner,
      ledger,
      () => 't',
      log,
      undefined,
      async () => 'old',
    );
    await applier.apply({
      path: FILE,
      content: 'new',
      isNewFile: false,
      original: 'old',
      taskId: 't',
      toolCallId: 'c1',
    });
    assert.deepEqual(appliedWith, [['intent', true]], 'written while the journal could not append');
    gate = undefined;
    openGate();
    const entries = await gated.entries('t');
    assert.deepEqual(
      entries.map((e) => [e.path, e.before, e.after, e.toolCallId]),
      [[FILE, 'old', 'new', 'c1']],
    );
    // The approval is on record (the intent again, unmarked), then the outcome.
    assert.deepEqual(
      (await lines()).map((l) => [l.k, l.proposed]),
      [
        ['intent', true],
        ['intent', undefined],
        ['edit', undefined],
      ],
    );
    assert.deepEqual(await gated.openIntents('t'), []);
  });

  it('an approved proposal cut off in an unsaved buffer is settled like any edit (saved); an unapproved one is not', async () => {
    const ws = new FakeWorkspace();
    const intent = await journal.beginEdit({
      taskId: 't',
      path: FILE,
      before: 'old',
      after: 'new',
      toolCallId: 'approved',
      proposed: true,
    });
    await journal.confirmProposed(intent);
    ws.disk.set(FILE, 'old');
    ws.buffers.set(FILE, 'new');
    assert.deepEqual(
      (await settleEdits(journal, 't', ws)).map((f) => f.kind === 'edit' && [f.toolCallId, f.outcome]),
      [['approved', 'saved']],
    );
    assert.equal(ws.disk.get(FILE), 'new');
  });

  it('a proposal not approved, or approved as a different edit, is voided; the edit applied gets an intent of its own', async () => {
    const ledger = journalLedger(journal);
    ledger.propose!({ taskId: 't', path: FILE, before: 'old', after: 'new', toolCallId: 'rejected' });
    ledger.withdraw!('rejected');
    ledger.propose!({ taskId: 't', path: FILE, before: 'old', after: 'new', toolCallId: 'edited' });
    let applied = '';
    const applier = new JournalingApplier(
      { apply: async (e: FileEdit) => void (applied = e.content) },
      ledger,
      () => 't',
      log,
      undefined,
      async () => 'old',
    );
    // The user changed the proposed side before approving: the applied content is not what was proposed.
    await applier.apply({
      path: FILE,
      content: 'new, as the user edited it',
      isNewFile: false,
      original: 'old',
      taskId: 't',
      toolCallId: 'edited',
    });
    assert.equal(applied, 'new, as the user edited it');
    assert.deepEqual(
      (await journal.entries('t')).map((e) => [e.toolCallId, e.after]),
      [['edited', 'new, as the user edited it']],
    );
    assert.deepEqual(await journal.openIntents('t'), [], 'both proposals were voided');
  });

  it('an approved proposal never applied is voided after its delay; a later proposal of the same call is not', async () => {
    const ledger = journalLedger(journal);
    const waitOpen = async (n: number) => {
      for (let i = 0; i < 200 && (await journal.openIntents('t')).length !== n; i++)
        await new Promise((r) => setTimeout(r, 5));
      return journal.openIntents('t');
    };
    ledger.propose!({ taskId: 't', path: FILE, before: 'old', after: 'new', toolCallId: 'c1' });
    await waitOpen(1);
    ledger.withdraw!('c1', 30);
    assert.equal((await journal.openIntents('t')).length, 1, 'still open during the delay');
    assert.deepEqual(await waitOpen(0), [], 'voided after it');
    // Approved (delayed void), then the same call proposed again: the old delay does not void the new proposal.
    ledger.propose!({ taskId: 't', path: FILE, before: 'old', after: 'newer', toolCallId: 'c2' });
    await waitOpen(1);
    ledger.withdraw!('c2', 30);
    ledger.propose!({ taskId: 't', path: FILE, before: 'old', after: 'newest', toolCallId: 'c2' });
    await new Promise((r) => setTimeout(r, 80));
    assert.deepEqual(
      (await journal.openIntents('t')).map((i) => i.after),
      ['newest'],
    );
  });

  it('a proposal whose journal entry was settled meanwhile is not used: the edit is recorded anew', async () => {
    const ledger = journalLedger(journal);
    ledger.propose!({ taskId: 't', path: FILE, before: 'old', after: 'new', toolCallId: 'c1' });
    for (const open of await journal.openIntents('t')) await journal.abandonEdit(open, 'settled by someone else');
    const applier = new JournalingApplier(
      { apply: async () => undefined },
      ledger,
      () => 't',
      log,
      undefined,
      async () => 'old',
    );
    await applier.apply({
      path: FILE,
      content: 'new',
      isNewFile: false,
      original: 'old',
      taskId: 't',
      toolCallId: 'c1',
    });
    assert.deepEqual(
      (await journal.entries('t')).map((e) => e.after),
      ['new'],
      'Undo still sees the edit',
    );
  });

  it('a restore after a crash while a proposal waited: nothing to report when the file is unchanged; applied when it is not', async () => {
    const ws = new FakeWorkspace();
    await journal.beginEdit({
      taskId: 't',
      path: FILE,
      before: 'old',
      after: 'new',
      toolCallId: 'waiting',
      proposed: true,
    });
    ws.disk.set(FILE, 'old');
    assert.deepEqual(await settleEdits(journal, 't', ws), [], 'a proposal never approved is not a cut-off edit');
    assert.deepEqual(await journal.openIntents('t'), []);
    await journal.beginEdit({
      taskId: 't',
      path: FILE,
      before: 'old',
      after: 'new',
      toolCallId: 'approved',
      proposed: true,
    });
    ws.disk.set(FILE, 'new');
    assert.deepEqual(
      (await settleEdits(journal, 't', ws)).map((f) => f.kind === 'edit' && [f.toolCallId, f.outcome]),
      [['approved', 'applied']],
    );
    assert.deepEqual(
      (await journal.entries('t')).map((e) => e.toolCallId),
      ['approved'],
    );
    // A buffer that holds the proposed text is the user's: not saved, not reverted, for a proposal.
    await journal.beginEdit({
      taskId: 't',
      path: FILE,
      before: 'new',
      after: 'newer',
      toolCallId: 'buffered',
      proposed: true,
    });
    ws.buffers.set(FILE, 'newer');
    assert.deepEqual(await settleEdits(journal, 't', ws), []);
    assert.equal(ws.buffers.get(FILE), 'newer');
    assert.equal(ws.disk.get(FILE), 'new');
    assert.deepEqual(ws.reverted, []);
  });

  it('an edit that cannot be journaled (full disk) is not applied, and the model is told why', async () => {
    const io = new FaultyIO();
    const full = await EditJournal.open(dir, { io });
    io.fault = 'enospc';
    const failures: string[] = [];
    let applied = 0;
    const applier = new JournalingApplier({ apply: async () => void applied++ }, journalLedger(full), () => 't', log, {
      failed: (what) => failures.push(what),
      succeeded() {},
    });
    await assert.rejects(
      applier.apply({ path: FILE, content: 'new', isNewFile: true, taskId: 't' }),
      /Not applied: .*edit journal.*no space left/,
    );
    assert.equal(applied, 0);
    assert.deepEqual(failures, ['the edit journal']);
  });

  it('a failed edit is voided (no open intent stays behind); one that reached the buffer before failing is journaled', async () => {
    let buffer = 'old';
    const failing: EditApplier = {
      async apply(edit: FileEdit) {
        if (edit.content === 'buffered') buffer = 'buffered';
        throw new Error('could not save');
      },
    };
    const applier = new JournalingApplier(
      failing,
      journalLedger(journal),
      () => 't',
      log,
      undefined,
      async () => buffer,
    );
    await assert.rejects(
      applier.apply({ path: FILE, content: 'never', isNewFile: false, original: 'old', taskId: 't' }),
    );
    assert.deepEqual(await journal.openIntents('t'), []);
    assert.deepEqual(await journal.entries('t'), []);
    await assert.rejects(
      applier.apply({ path: FILE, content: 'buffered', isNewFile: false, original: 'old', taskId: 't' }),
    );
    assert.deepEqual(
      (await journal.entries('t')).map((e) => e.after),
      ['buffered'],
      'Undo can see the change that sits in the editor',
    );
  });

  it('a command: start recorded before it runs, output while it runs, end after', async () => {
    const commands = new CommandLog(path.join(dir, 'commands'), { io: new NodeTasksIO(), flushMs: 1 });
    const seen: string[] = [];
    const runner = new RecordingRunner(
      {
        async run(req) {
          seen.push(`running (interrupted: ${(await commands.interrupted('t')).map((c) => c.command).join(',')})`);
          req.onOutput?.('line 1\n');
          await new Promise((r) => setTimeout(r, 10));
          return { exitCode: 0, output: 'line 1\n', timedOut: false };
        },
      },
      async () => commands,
      log,
    );
    const res = await runner.run({
      command: 'npm test',
      cwd: '/ws',
      timeoutMs: 1000,
      signal: new AbortController().signal,
      taskId: 't',
      toolCallId: 'c9',
    });
    assert.equal(res.exitCode, 0);
    assert.deepEqual(seen, ['running (interrupted: npm test)']);
    assert.deepEqual(await commands.interrupted('t'), [], 'ended: nothing to report after a restore');
  });
  it('a command: the process id the runner reports is kept, so a restore can look for the process', async () => {
    const commands = new CommandLog(path.join(dir, 'commands-pid'), { io: new NodeTasksIO(), flushMs: 1 });
    let pidsSeenByCaller: number[] = [];
    let release!: () => void;
    const runner = new RecordingRunner(
      {
        async run(req) {
          req.onStarted?.({ pid: 4242 });
          await new Promise<void>((r) => (release = r));
          return { exitCode: 0, output: '', timedOut: false };
        },
      },
      async () => commands,
      log,
    );
    const running = runner.run({
      command: 'npm run dev',
      cwd: '/ws',
      timeoutMs: 1000,
      signal: new AbortController().signal,
      taskId: 't',
      toolCallId: 'c10',
      onStarted: (i) => pidsSeenByCaller.push(i.pid),
    });
    let open: Awaited<ReturnType<CommandLog['interrupted']>> = [];
    for (let i = 0; i < 200 && open[0]?.pid === undefined; i++) {
      await new Promise((r) => setTimeout(r, 5));
      open = await commands.interrupted('t');
    }
    assert.equal(open[0]?.pid, 4242, 'the pid line is in the log while it runs');
    assert.deepEqual(pidsSeenByCaller, [4242], 'the caller still hears of the start');
    release();
    await running;
    assert.deepEqual(await commands.interrupted('t'), []);
    pidsSeenByCaller = [];
  });

  it('Undo settles only intents a crash left (old enough), never an edit being applied right now', async () => {
    const ws = new FakeWorkspace();
    ws.disk.set(FILE, 'new');
    await journal.beginEdit({ taskId: 't', path: FILE, before: 'old', after: 'new', toolCallId: 'c1' });
    assert.deepEqual(await settleEdits(journal, 't', ws, undefined, { minAgeMs: 60_000 }), []);
    assert.equal((await journal.openIntents('t')).length, 1, 'left to the applier that is still running');
    const later = await settleEdits(journal, 't', ws, undefined, { minAgeMs: 60_000, now: Date.now() + 61_000 });
    assert.deepEqual(
      later.map((f) => f.kind === 'edit' && f.outcome),
      ['applied'],
    );
    assert.equal((await journal.editSummary('t')).live.length, 1, 'Undo now sees it');
  });

  it('a command whose start cannot be recorded still runs (nothing to undo), and the failure is reported', async () => {
    const io = new FaultyIO();
    io.fault = 'enospc';
    const commands = new CommandLog(path.join(dir, 'commands'), { io });
    const failures: string[] = [];
    let ran = 0;
    const runner = new RecordingRunner(
      { run: async () => (ran++, { exitCode: 0, output: '', timedOut: false }) },
      async () => commands,
      log,
      { failed: (w) => failures.push(w), succeeded() {} },
    );
    const res = await runner.run({
      command: 'ls',
      cwd: '/ws',
      timeoutMs: 1000,
      signal: new AbortController().signal,
      taskId: 't',
      toolCallId: 'c1',
    });
    assert.equal(res.exitCode, 0);
    assert.equal(ran, 1);
    assert.deepEqual(failures, ['the command log']);
  });
});

describe('durability: restore reconciles the records with the workspace', () => {
  let dir: string;
  let journal: EditJournal;
  let commands: CommandLog;
  let ws: FakeWorkspace;
  let store: TaskStore;
  beforeEach(async () => {
    dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'forge-restore-'));
    journal = await EditJournal.open(dir, { io: new NodeTasksIO() });
    commands = new CommandLog(path.join(dir, 'commands'), { io: new NodeTasksIO(), flushMs: 1 });
    ws = new FakeWorkspace();
    store = await TaskStore.open(path.join(dir, 'history'), { io: new NodeTasksIO() });
  });
  afterEach(async () => {
    await fsp.rm(dir, { recursive: true, force: true, maxRetries: 5 });
  });

  function manager(model = new ScriptedModel([doneTurn('ok')])) {
    return {
      model,
      manager: new SessionManager({
        store,
        log,
        saveDelayMs: 5,
        makeAgent: (snap?: AgentSnapshot) => {
          const d = { model, tools: [], approver: new ScriptedApprover(), clock: new FakeClock() };
          return snap ? Agent.restore(snap, d) : new Agent(d);
        },
        reconcile: (record) => reconcileTask(record, { journal, commands, probe: ws }),
      }),
    };
  }

  /** The state a crash leaves: the saved task, the journal's intent, and the file as the crash left it. */
  async function crashDuringEdit(pending: boolean, disk: string, buffer?: string) {
    await store.save(savedTask('t1', writeCall, pending));
    await store.flush();
    await journal.beginEdit({ taskId: 't1', path: FILE, before: 'old', after: 'new', toolCallId: writeCall.id });
    ws.disk.set(FILE, disk);
    if (buffer !== undefined) ws.buffers.set(FILE, buffer);
  }

  const lastTool = (h: readonly ChatMessage[]) =>
    [...h].reverse().find((m) => m.role === 'tool') as Extract<ChatMessage, { role: 'tool' }> | undefined;
  const notes = (m: SessionManager) =>
    m.current.transcript
      .snapshot()
      .items.filter((i) => i.kind === 'error')
      .map((i) => (i as { message: string }).message)
      .join('\n');

  it('killed just after Approve, the edit written: not asked again; marked applied; the model is told so', async () => {
    await crashDuringEdit(true, 'new');
    const { manager: m, model } = manager();
    const session = await m.load('t1');
    assert.ok(session);
    assert.equal(session.hasPendingApproval, false, 'the stale approval is not asked again');
    const result = lastTool(session.dump().history);
    assert.equal(result?.toolCallId, writeCall.id);
    assert.match(result!.content, /^Applied: .*written before Forge was reloaded/);
    assert.deepEqual(
      (await journal.entries('t1')).map((e) => [e.before, e.after]),
      [['old', 'new']],
      'Undo sees it',
    );
    assert.deepEqual(await journal.openIntents('t1'), []);
    assert.match(notes(m), /marked applied/);
    // What the model is told next.
    await session.run('continue', '');
    const sent = JSON.stringify(model.requests[0].messages);
    assert.ok(
      sent.includes('Applied: this edit of /ws/src/a.ts was written'),
      'the next request carries the reconciled result',
    );
    // Saved reconciled: a second restore finds nothing to do.
    await m.flush();
    const again = await reconcileTask((await store.load('t1'))!, { journal, commands, probe: ws });
    assert.equal(again.changed, false);
  });

  it('killed with the edit in the buffer but unsaved: Forge saves it and the journal knows', async () => {
    await crashDuringEdit(true, 'old', 'new');
    const { manager: m } = manager();
    const session = (await m.load('t1'))!;
    assert.equal(ws.disk.get(FILE), 'new');
    assert.match(lastTool(session.dump().history)!.content, /Forge saved it after the reload/);
    assert.deepEqual(
      (await journal.entries('t1')).map((e) => e.after),
      ['new'],
    );
  });

  it('killed with the edit in the buffer, and the save fails: rolled back, the journal voids it, the model is told', async () => {
    await crashDuringEdit(false, 'old', 'new');
    ws.saveWorks = false;
    const { manager: m } = manager();
    const session = (await m.load('t1'))!;
    assert.deepEqual(ws.reverted, [FILE]);
    assert.match(lastTool(session.dump().history)!.content, /^Not applied: .*reverted the unsaved change/);
    assert.deepEqual(await journal.entries('t1'), []);
    assert.deepEqual(await journal.openIntents('t1'), []);
  });

  it('killed after Approve but before the write: the approval is asked again (the file is unchanged) and the intent voided', async () => {
    await crashDuringEdit(true, 'old');
    const { manager: m } = manager();
    const session = (await m.load('t1'))!;
    assert.equal(session.hasPendingApproval, true);
    assert.match(notes(m), /had not reached the disk.*asked again/);
    assert.deepEqual(await journal.openIntents('t1'), []);
  });

  it('killed while a long command runs: reported with its output so far, whether it may still run, and not to rerun it blindly', async () => {
    const cmd = { id: 'call_c', name: 'execute_command', args: { command: 'npm run migrate' } };
    await store.save(savedTask('t2', cmd, false));
    await store.flush();
    const handle = await commands.start('t2', { toolCallId: cmd.id, command: 'npm run migrate', cwd: '/ws' });
    handle.started(31337);
    handle.output('migrating table users... done\nmigrating table orders...');
    // The batch reaches the disk; then the host dies (no end line).
    for (let i = 0; i < 1000 && !(await commands.interrupted('t2'))[0]?.outputTail.includes('orders'); i++)
      await new Promise((r) => setTimeout(r, 10));
    ws.running = true;
    const { manager: m } = manager();
    const session = (await m.load('t2'))!;
    const result = lastTool(session.dump().history)!;
    assert.equal(result.toolCallId, cmd.id);
    assert.match(result.content, /Interrupted: Forge was reloaded while this command was running/);
    assert.match(result.content, /migrating table orders\.\.\./);
    assert.match(result.content, /MAY STILL BE RUNNING/);
    assert.deepEqual(ws.askedPids, [31337], 'the restore asked about the recorded process');
    assert.match(result.content, /Do NOT run it again blindly/);
    assert.match(notes(m), /may still be running/);
    // One notice: what the restore found, and Continue (not a second "reloaded" box).
    const errors = m.current.transcript.snapshot().items.filter((i) => i.kind === 'error') as Array<{
      message: string;
      actions: string[];
    }>;
    assert.equal(errors.length, 1, JSON.stringify(errors));
    assert.match(
      errors[0]!.message,
      /^Forge was reloaded while this task was running\. It checked the disk and the journal:\n- .*may still be running[\s\S]*press Continue to resume\.$/,
    );
    assert.deepEqual(errors[0]!.actions, ['continue', 'show_logs']);
    assert.deepEqual(await commands.interrupted('t2'), [], 'reported once');
  });
});

import * as assert from 'node:assert';
import { ApprovalCenter, type EditProposalSurface } from '../../../../src/host/ui/approval-center';
import type { ApprovalRequest } from '../../../../src/core/safety/approval';
import type { Proposal, ProposalOutcome } from '../../../../src/host/edits/diff-approval';

/** A fake diff surface: records proposals; accept/reject settle them like the real DiffApproval. */
class FakeDiff implements EditProposalSurface {
  readonly open = new Map<
    string,
    { proposal: Proposal; settle: (o: ProposalOutcome) => void; current: string; shown: boolean }
  >();
  propose(proposal: Proposal, _signal?: AbortSignal, opts: { open?: boolean } = {}): Promise<ProposalOutcome> {
    return new Promise((settle) =>
      this.open.set(proposal.id, { proposal, settle, current: proposal.proposed, shown: opts.open !== false }),
    );
  }
  async accept(id: string): Promise<boolean> {
    const p = this.open.get(id);
    if (!p) return false;
    this.open.delete(id);
    p.settle({ kind: 'accept', content: p.current, edited: p.current !== p.proposal.proposed });
    return true;
  }
  async reject(id: string, reason?: string): Promise<boolean> {
    const p = this.open.get(id);
    if (!p) return false;
    this.open.delete(id);
    p.settle({ kind: 'reject', reason });
    return true;
  }
}

const req = (over: Partial<ApprovalRequest> = {}): ApprovalRequest => ({
  id: 'r1',
  taskId: 't1',
  toolCallId: 'c1',
  toolName: 'execute_command',
  risk: 'execute',
  args: { command: 'ls' },
  preview: { kind: 'command', command: 'ls' },
  ...over,
});
const editReq = (id = 'e1') =>
  req({
    id,
    toolName: 'write_file',
    risk: 'write',
    preview: { kind: 'edit', path: '/w/a.ts', original: 'a', proposed: 'b', isNewFile: false },
  });
const tick = () => new Promise((r) => setImmediate(r));

describe('host/ApprovalCenter', () => {
  it('keeps a request pending until a surface resolves it', async () => {
    const c = new ApprovalCenter();
    const p = c.request(req(), new AbortController().signal);
    assert.deepStrictEqual(
      c.pending().map((r) => r.id),
      ['r1'],
    );
    assert.strictEqual(await c.resolve('r1', { kind: 'reject', reason: 'no' }), true);
    assert.deepStrictEqual(await p, { kind: 'reject', reason: 'no' });
    assert.strictEqual(await c.resolve('r1', { kind: 'approve' }), false, 'second answer is ignored');
  });

  it('only routes: an answer "for this task" goes back to the loop, and the next request waits for a person', async () => {
    const c = new ApprovalCenter();
    const first = c.request(req(), new AbortController().signal);
    await c.resolve('r1', { kind: 'approve', scope: 'task' });
    assert.deepStrictEqual(await first, { kind: 'approve', scope: 'task' });
    void c.request(req({ id: 'r2' }), new AbortController().signal);
    assert.deepStrictEqual(
      c.pending().map((r) => r.id),
      ['r2'],
      'the grant lives in the task state (core Policy), not here',
    );
  });

  it('rejects with the abort reason and forgets the request when the signal fires', async () => {
    const diff = new FakeDiff();
    const c = new ApprovalCenter({ diff });
    const ac = new AbortController();
    const p = c.request(editReq(), ac.signal);
    assert.ok(diff.open.has('e1'));
    ac.abort(new Error('stopped by user'));
    await assert.rejects(p, /stopped by user/);
    assert.deepStrictEqual(c.pending(), []);
    assert.ok(!diff.open.has('e1'), 'the diff was closed');
  });

  it('routes edit approvals through the diff, returning the user-edited content', async () => {
    const diff = new FakeDiff();
    const c = new ApprovalCenter({ diff });
    const p = c.request(editReq(), new AbortController().signal);
    diff.open.get('e1')!.current = 'b, edited';
    assert.ok(await c.resolve('e1', { kind: 'approve', scope: 'task' }));
    assert.deepStrictEqual(await p, {
      kind: 'approve',
      scope: 'task',
      editedContent: 'b, edited',
      edit: { path: '/w/a.ts', original: 'a', content: 'b, edited', isNewFile: false },
    });
  });

  it('passes the previewed edit on, with the note about rejected hunks; all hunks rejected is a rejection', async () => {
    const diff = new FakeDiff();
    const c = new ApprovalCenter({ diff });
    const p = c.request(editReq(), new AbortController().signal);
    const note =
      'The user reviewed your change to a.ts hunk by hunk: ... Hunk #2 (original line 4; proposed line 4), reason: no';
    diff.open
      .get('e1')!
      .settle({ kind: 'accept', content: 'a+first hunk only', edited: false, review: { note, rejected: 1, total: 2 } });
    assert.deepStrictEqual(await p, {
      kind: 'approve',
      scope: 'once',
      editedContent: 'a+first hunk only',
      edit: { path: '/w/a.ts', original: 'a', content: 'a+first hunk only', isNewFile: false },
      reviewNote: note,
    });
    const q = c.request(editReq('e2'), new AbortController().signal);
    await tick();
    diff.open.get('e2')!.settle({ kind: 'reject', reason: 'The user rejected every hunk (2) of your change to a.ts' });
    assert.deepStrictEqual(await q, {
      kind: 'reject',
      reason: 'The user rejected every hunk (2) of your change to a.ts',
    });
  });

  it('settles when the diff editor answers first (title button / keybinding)', async () => {
    const diff = new FakeDiff();
    const c = new ApprovalCenter({ diff });
    const p = c.request(editReq(), new AbortController().signal);
    await tick();
    await diff.reject('e1', 'wrong file');
    assert.deepStrictEqual(await p, { kind: 'reject', reason: 'wrong file' });
    assert.deepStrictEqual(c.pending(), []);
  });

  it('does not open a diff editor when showDiff is off; the panel answers (the hunk review stays available)', async () => {
    const diff = new FakeDiff();
    const c = new ApprovalCenter({ diff, showDiff: () => false });
    const p = c.request(editReq(), new AbortController().signal);
    assert.strictEqual(diff.open.get('e1')?.shown, false);
    await c.resolve('e1', { kind: 'approve', scope: 'once' });
    assert.deepStrictEqual(await p, {
      kind: 'approve',
      scope: 'once',
      edit: { path: '/w/a.ts', original: 'a', content: 'b', isNewFile: false },
    });
  });
  it("refuses an approved edit when the file changed while the proposal waited (the user's changes are not clobbered)", async () => {
    const disk = new Map<string, string | undefined>([['/w/a.ts', 'a']]);
    const events: string[] = [];
    const diff = new FakeDiff();
    const c = new ApprovalCenter({ diff, readCurrent: async (p) => disk.get(p) });
    c.onDidChange((e) => e.type === 'resolved' && events.push(e.decision.kind));
    // Unchanged file (line endings aside): the approval goes through.
    disk.set('/w/a.ts', 'a');
    const ok = c.request(editReq('e1'), new AbortController().signal);
    assert.ok(await c.resolve('e1', { kind: 'approve', scope: 'once' }));
    assert.strictEqual((await ok).kind, 'approve');
    // The user edits and saves the file while the diff is open, then accepts the stale proposal.
    const stale = c.request(editReq('e2'), new AbortController().signal);
    disk.set('/w/a.ts', 'a, edited by the user');
    assert.ok(await diff.accept('e2'));
    const decision = await stale;
    assert.strictEqual(decision.kind, 'reject');
    assert.match(decision.kind === 'reject' ? (decision.reason ?? '') : '', /changed/);
    assert.deepStrictEqual(events, ['approve', 'reject']);
    assert.deepStrictEqual(c.pending(), []);
    // A new file that appeared meanwhile (panel answer, no diff).
    const plain = new ApprovalCenter({ readCurrent: async () => 'someone else wrote this' });
    const created = plain.request(
      req({
        id: 'n1',
        toolName: 'write_file',
        risk: 'write',
        preview: { kind: 'edit', path: '/w/new.ts', original: '', proposed: 'x', isNewFile: true },
      }),
      new AbortController().signal,
    );
    assert.ok(await plain.resolve('n1', { kind: 'approve' }));
    assert.strictEqual((await created).kind, 'reject');
  });
});

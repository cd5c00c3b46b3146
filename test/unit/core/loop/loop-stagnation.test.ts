import assert from 'node:assert/strict';
import { callsTurn, doneTurn } from '../../../support/scripted-model';
import { fakeReadTool, harness } from '../../../support/loop-harness';

describe('core/loop stagnation', () => {
  it('identical consecutive calls: warn at the 3rd, stop with a summary when it persists', async () => {
    const same = () => callsTurn(['read_file', { path: 'same.ts' }]);
    const h = harness([same(), same(), same(), same(), same()]);
    const report = await h.agent.send('t');
    assert.equal(report.reason, 'stagnation');
    assert.equal(report.iterations, 4);
    const warnings = h.ofType('warning').filter((w) => w.kind === 'stagnation');
    assert.equal(warnings.length, 1);
    assert.match(warnings[0].message, /same call was made 3 times/);
    // The warning reached the model's prompt in the 4th request, not before.
    assert.equal(
      h.model.requests[2].system.some((l) => l.id === 'stagnation-warning'),
      false,
    );
    assert.match(h.model.systemText(3), /you appear to be stuck/);
    assert.match(report.detail, /What was tried:/);
    assert.match(report.detail, /read_file \{"path":"same\.ts"\} -> ok/);
  });

  it('a warned model that changes course is not stopped', async () => {
    const same = () => callsTurn(['read_file', { path: 'same.ts' }]);
    const h = harness([same(), same(), same(), callsTurn(['read_file', { path: 'other.ts' }]), doneTurn('ok')]);
    const report = await h.agent.send('t');
    assert.equal(report.reason, 'done');
    assert.equal(
      h.model.requests[4].system.some((l) => l.id === 'stagnation-warning'),
      false,
    );
  });

  it('no progress: alternating re-reads of known files for N iterations -> warn, then stop', async () => {
    const turns = Array.from({ length: 12 }, (_, i) => callsTurn(['read_file', { path: i % 2 ? 'a.ts' : 'b.ts' }]));
    const h = harness(turns, {
      config: { stagnation: { identicalCalls: 3, noProgressIterations: 4, repeatedErrors: 3 } },
    });
    const report = await h.agent.send('t');
    // Iterations 1-2 read new files; 3..6 are re-reads -> warn after 6; still none at 7 -> stop.
    assert.equal(report.reason, 'stagnation');
    assert.equal(report.iterations, 7);
    assert.match(
      report.detail,
      /iterations without progress: every read, list or search returned what was already seen, no edit, no new command/,
    );
    assert.equal(h.ofType('warning').filter((w) => w.kind === 'stagnation').length, 1);
  });

  it('no progress: the same error text repeating across different calls', async () => {
    let n = 0;
    const tool = fakeReadTool([], async (p) =>
      n++ % 2 ? { content: p, effects: { read: [p] } } : { content: 'ENOENT: config missing', isError: true },
    );
    const turns = Array.from({ length: 10 }, (_, i) => callsTurn(['read_file', { path: `p${i}` }]));
    const h = harness(turns, { tools: [tool] });
    const report = await h.agent.send('t');
    assert.equal(report.reason, 'stagnation');
    assert.match(report.detail, /same error repeated 3 times: "ENOENT: config missing"/);
  });
});

import assert from 'node:assert/strict';
import { Agent } from '../../../../../src/core/loop/agent';
import { stepContextText } from '../../../../../src/core/context/prompt';
import {
  normalizePlan,
  planFromUnknown,
  planText,
  updatePlanTool,
} from '../../../../../src/core/tools/builtin/update-plan';
import {
  call,
  callsTurn,
  doneTurn,
  ScriptedModel,
  textTurn,
  usage,
  type RecordedRequest,
} from '../../../../support/scripted-model';
import { fakeReadTool, harness, ScriptedApprover } from '../../../../support/loop-harness';

const plan = (current = 2) => ({
  goal: 'Add a --json flag',
  steps: [
    { text: 'Read the CLI', status: 'done' },
    { text: 'Add the flag', status: 'in_progress' },
    { text: 'Test it', status: 'pending' },
  ],
  currentStep: current,
});

const stepContext = (r: RecordedRequest) => stepContextText(r.system) ?? '';

describe('core/tools update_plan and the live plan', () => {
  it("is registered by default, needs no approval, and its plan reaches the next step's context", async () => {
    const approver = new ScriptedApprover();
    const h = harness(
      [callsTurn(['update_plan', plan()]), callsTurn(['read_file', { path: 'cli.ts' }]), doneTurn()],
      {},
      approver,
    );
    await h.agent.send('add a flag');
    assert.equal(approver.requests.length, 0);
    assert.ok(h.model.requests[0].tools.some((t) => t.name === 'update_plan'));
    assert.doesNotMatch(stepContext(h.model.requests[0]), /Current plan/);
    const ctx = stepContext(h.model.requests[1]);
    assert.match(ctx, /Current plan \(keep it up to date with update_plan/);
    assert.match(ctx, /Goal: Add a --json flag/);
    assert.match(ctx, /2\. \[>\] Add the flag {3}<- current/);
    assert.match(ctx, /\(1\/3 steps finished\)/);
    const updates = h.ofType('plan_updated');
    assert.equal(updates.length, 1);
    assert.equal(updates[0].plan.updatedBy, 'model');
    assert.equal(h.agent.plan?.currentStep, 2);
    // The system prompt's stable part tells the model to use it.
    assert.match(h.model.requests[0].system.map((l) => l.text).join('\n'), /call update_plan first/);
  });

  it('an invalid plan is a validation error the model sees; the stored plan is unchanged', async () => {
    const h = harness([callsTurn(['update_plan', { goal: 'g', steps: [{ text: 'x', status: 'maybe' }] }]), doneTurn()]);
    await h.agent.send('go');
    assert.equal(h.agent.plan, undefined);
    const result = h.model.requests[1].messages.at(-1)!;
    assert.equal(result.role, 'tool');
    assert.match(result.content, /status/);
  });

  it('a user edit is stored, emitted, and the model is told the user changed it; its next update clears the note', async () => {
    const h = harness([callsTurn(['update_plan', plan()]), doneTurn()]);
    await h.agent.send('go');
    const edited = h.agent.setPlan({
      ...plan(3),
      steps: [...plan().steps.slice(0, 2), { text: 'Test it on Windows too', status: 'in_progress' }],
    });
    assert.equal(edited.updatedBy, 'user');
    assert.equal(h.ofType('plan_updated').at(-1)!.runId, '');
    h.model.push(callsTurn(['update_plan', plan(3)]), doneTurn());
    await h.agent.send('continue');
    const ctx = stepContext(h.model.requests[2]);
    assert.match(ctx, /the USER edited it/);
    assert.match(ctx, /Test it on Windows too/);
    assert.doesNotMatch(stepContext(h.model.requests[3]), /USER edited/);
    assert.throws(() => h.agent.setPlan({ goal: '', steps: [] }), /goal|steps/);
  });

  it('survives dump/restore (a reload) and compaction', async () => {
    const summarizer = new ScriptedModel([
      [...textTurn('## Goal\ng\n## Next steps\nn').slice(0, 1), usage(40, 4), { type: 'finish', reason: 'stop' }],
    ]);
    const turns = [
      callsTurn(['update_plan', plan()]),
      ...Array.from({ length: 5 }, (_, i) => callsTurn(['read_file', { path: `f${i}.ts` }])),
    ];
    turns.push(
      [...call('read_file', { path: 'last.ts' }), usage(1850, 10), { type: 'finish', reason: 'tool_calls' }],
      doneTurn(),
    );
    const h = harness(turns, { summarizer, config: { contextWindow: 2000 } });
    await h.agent.send('Read all the files');
    assert.equal(h.ofType('compaction').length, 1);
    const afterCompaction = h.model.requests.at(-1)!;
    assert.match(stepContext(afterCompaction), /Add the flag/);
    assert.match(
      summarizer.requests[0].messages.map((m) => m.content).join('\n'),
      /Current plan/,
      'the summary is grounded on the plan',
    );
    const snap = JSON.parse(JSON.stringify(h.agent.dump()));
    const model = new ScriptedModel([callsTurn(['read_file', { path: 'x' }]), doneTurn()]);
    const restored = Agent.restore(snap, { model, tools: [fakeReadTool()], approver: new ScriptedApprover() });
    assert.deepEqual(restored.plan, h.agent.plan);
    await restored.send('more');
    assert.match(stepContext(model.requests[0]), /Goal: Add a --json flag/);
  });

  it('normalises: the current step defaults to the first in_progress one; planFromUnknown never throws', async () => {
    const p = normalizePlan(
      {
        goal: ' g ',
        steps: [
          { text: 'a', status: 'done' },
          { text: 'b', status: 'in_progress' },
        ],
      },
      'model',
      7,
    );
    assert.equal(p.currentStep, 2);
    assert.equal(p.goal, 'g');
    assert.equal(normalizePlan({ ...plan(), currentStep: 9 }, 'user', 0).currentStep, 2);
    assert.equal(planFromUnknown({ nope: 1 }), undefined);
    assert.deepEqual(planFromUnknown(p), p);
    const r = await updatePlanTool.execute(plan() as never, {
      signal: new AbortController().signal,
      taskId: 't',
      toolCallId: 'c',
    });
    assert.match(r.content, /Plan updated \(1\/3 done\)\. Current step: 2\. Add the flag/);
    assert.match(planText(p), /1\. \[x\] a/);
  });
});

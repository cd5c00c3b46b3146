// Issue 26 item 5, from the last-mile screenshots at 300 px: a step's status ("▶ in progress") and its × kept their
// place beside the text, which was left a column a third of the plan wide, a long step six lines high, and the plan
// took a third of the panel's height.
import { strict as assert } from 'node:assert';
import type { PlanView } from '../../src/protocol/messages';
import { state } from './fixtures';
import { usePanel, type PanelPage } from './harness';

describe('webview plan in a narrow side bar', function () {
  let p: PanelPage;
  usePanel((page) => {
    p = page;
  });

  it('at 300 px a step keeps most of the width for its text; at 600 px the status stays on its line', async () => {
    const plan: PlanView = {
      goal: 'Rename the names in src/names.js',
      steps: [
        { text: 'Read src/names.js and the callers of every exported name, end to end', status: 'done' },
        {
          text: 'Rename name11 and add a name after name22, keeping the order people asked for',
          status: 'in_progress',
        },
        { text: 'Run the greeting once', status: 'pending' },
      ],
      currentStep: 2,
      updatedBy: 'model',
      updatedAt: 1,
    };
    await p.host(state({ taskId: 'task-1', plan }));
    const shares = () =>
      p.page.locator('.plan-panel .plan-step').evaluateAll((steps) =>
        steps.map((s) => {
          const text = s.querySelector('.plan-text')!.getBoundingClientRect();
          const status = s.querySelector('.plan-status')!.getBoundingClientRect();
          return { share: text.width / s.getBoundingClientRect().width, sameLine: status.top < text.bottom - 2 };
        }),
      );
    await p.page.setViewportSize({ width: 300, height: 700 });
    for (const [i, s] of (await shares()).entries())
      assert.ok(s.share >= 0.6, `step ${i + 1}'s text has ${Math.round(100 * s.share)}% of the step's width`);
    await p.page.setViewportSize({ width: 600, height: 700 });
    for (const [i, s] of (await shares()).entries()) assert.ok(s.sameLine, `step ${i + 1}'s status beside its text`);
  });
});

// The live plan and checkpoints in the built webview (Chromium, strict CSP): the plan renders from the snapshot
// and plan patches, the user's edits post edit_plan with the whole plan, "Restore to here" posts
// restore_checkpoint, a command's changed files and the restore mark render.
import { strict as assert } from 'node:assert';
import type { PlanView } from '../../src/protocol/messages';
import { patch, state, tool } from './fixtures';
import { eventuallyText, usePanel, type PanelPage } from './harness';

const plan: PlanView = {
  goal: 'Add a --json flag',
  steps: [
    { text: 'Read the parser', status: 'done' },
    { text: 'Add the flag', status: 'in_progress' },
    { text: 'Test it', status: 'pending' },
  ],
  currentStep: 2,
  updatedBy: 'model',
  updatedAt: 1,
};

describe('webview: live plan and checkpoints (Chromium)', function () {
  let p: PanelPage;
  usePanel((page) => {
    p = page;
  });

  it('shows the plan as a checklist; edits post the whole plan; a plan patch replaces it; null hides it', async () => {
    await p.host(state({ taskId: 'task-1', plan }));
    const steps = p.page.locator('.plan-panel .plan-step');
    assert.equal(await steps.count(), 3);
    assert.equal(await p.page.locator('.plan-panel .plan-count').textContent(), '1/3');
    assert.match(await p.page.locator('.plan-panel .plan-step.current').innerText(), /in progress/);
    await p.clearPosted();
    await p.page.locator('.plan-panel input.plan-check').nth(1).check();
    assert.deepEqual(
      (await p.posted()).at(-1),
      {
        type: 'edit_plan',
        taskId: 'task-1',
        plan: {
          goal: 'Add a --json flag',
          steps: [plan.steps[0], { text: 'Add the flag', status: 'done' }, plan.steps[2]],
          currentStep: 3,
        },
      },
      'ticking off the current step moves "current" on',
    );
    await p.host(state({ taskId: 'task-1', plan }));
    await p.page.locator('.plan-panel input.plan-check').nth(2).check();
    assert.deepEqual((await p.posted()).at(-1), {
      type: 'edit_plan',
      taskId: 'task-1',
      plan: {
        goal: 'Add a --json flag',
        steps: [plan.steps[0], plan.steps[1], { text: 'Test it', status: 'done' }],
        currentStep: 2,
      },
    });
    assert.equal(await p.page.locator('.plan-panel .badge').textContent(), 'edited', "shown at once as the user's");
    await p.page.locator('.plan-panel input.plan-new').fill('Update the README');
    await p.page.locator('.plan-panel input.plan-new').press('Enter');
    const last = (await p.posted()).at(-1) as { plan: { steps: { text: string }[] } };
    assert.equal(last.plan.steps.at(-1)!.text, 'Update the README');
    await p.page.locator('.plan-panel .plan-remove').first().click();
    const removed = (await p.posted()).at(-1) as { plan: { steps: unknown[]; currentStep?: number } };
    assert.equal(removed.plan.currentStep, 1, 'the current step follows the removal');
    await p.host(
      patch({
        op: 'plan',
        plan: { ...plan, steps: [{ text: 'Only step', status: 'pending' }], currentStep: 0, updatedBy: 'model' },
      }),
    );
    assert.equal(await steps.count(), 1);
    await p.host(patch({ op: 'plan', plan: null }));
    assert.equal(await p.page.locator('.plan-panel').isHidden(), true);
  });

  it('a plan update does not wipe what the user is typing (a new step, or a step being reworded); an added step leaves the box empty', async () => {
    await p.host(state({ taskId: 'task-1', plan }));
    const add = p.page.locator('.plan-panel input.plan-new');
    await add.fill('Half-typed st');
    await p.host(patch({ op: 'plan', plan: { ...plan, currentStep: 3, updatedBy: 'model' } }));
    assert.equal(await add.inputValue(), 'Half-typed st');
    assert.equal(await add.evaluate((el) => el === document.activeElement), true, 'the focus stays in the box');
    await p.page.keyboard.type('ep');
    await p.page.keyboard.press('Enter');
    assert.equal(await add.inputValue(), '', 'the added step is not left in the box');
    assert.equal(await p.page.locator('.plan-panel .plan-step').count(), 4);
    const second = p.page.locator('.plan-panel textarea.plan-text').nth(1);
    await second.fill('Add the flag, with a test');
    await p.host(patch({ op: 'plan', plan: { ...plan, currentStep: 2, updatedBy: 'model' } }));
    assert.equal(
      await p.page.locator('.plan-panel textarea.plan-text').nth(1).inputValue(),
      'Add the flag, with a test',
    );
  });

  it('"Restore to here" posts restore_checkpoint; a command\'s changed files and the restore mark render', async () => {
    await p.host(state({ taskId: 'task-1' }));
    await p.host(
      patch(
        { op: 'append', item: tool('t1', { name: 'write_file', toolCallId: 'call-1', checkpoint: true }) },
        {
          op: 'append',
          item: tool('t2', {
            name: 'execute_command',
            toolCallId: 'call-2',
            argsSummary: 'npm run gen',
            changedFiles: ['/w/gen/a.ts', '/w/gen/b.ts'],
            changedFilesMore: 5,
          }),
        },
      ),
    );
    assert.equal(await p.page.locator('[data-id="t2"] .checkpoint-restore').count(), 0, 'a command is no checkpoint');
    assert.match(
      await p.page.locator('[data-id="t2"] .command-changes summary').innerText(),
      /changed 7 files\. Undo and restore cannot bring back what it did/,
    );
    // A contained command's changes are in the checkpoints (changedFilesUntracked set): its card says what Undo does.
    await p.host(
      patch({
        op: 'append',
        item: tool('t3', {
          name: 'execute_command',
          toolCallId: 'call-3',
          argsSummary: 'npm run gen',
          checkpoint: true,
          changedFiles: ['/w/gen/a.ts', '/w/gen/b.bin'],
          changedFilesUntracked: 1,
        }),
      }),
    );
    assert.match(
      await p.page.locator('[data-id="t3"] .command-changes summary').innerText(),
      /changed 2 files\. Restore and Undo put back all but 1 file \(binary, large or links\)/,
    );
    assert.equal(
      await p.page.locator('[data-id="t3"] .checkpoint-restore').count(),
      1,
      'a contained command is a checkpoint',
    );
    await p.clearPosted();
    await p.page.locator('[data-id="t1"] .checkpoint-restore').click();
    assert.deepEqual(await p.posted(), [{ type: 'restore_checkpoint', taskId: 'task-1', toolCallId: 'call-1' }]);
    await p.host(
      patch({
        op: 'append',
        item: {
          id: 'm1',
          ts: 1,
          kind: 'checkpoint',
          action: 'restore',
          step: 1,
          restored: ['/w/a.ts'],
          deleted: ['/w/new.ts'],
          skipped: ['/w/b.ts'],
          conflicts: [],
          rewoundMessages: 4,
        },
      }),
    );
    const mark = await eventuallyText(p.page.locator('[data-id="m1"] .checkpoint-mark'), /Restored 2 file/);
    assert.match(mark, /Restored 2 files to how they were after an earlier step/);
    assert.match(mark, /Kept your changes: w\/b\.ts/);
    assert.match(mark, /rewound to this point \(4 messages removed\)/);
  });

  it('a restore mark offers Redo (posts redo_checkpoint, also from the keyboard) until it is redone; the redo mark says what came back', async () => {
    await p.host(state({ taskId: 'task-1' }));
    await p.host(
      patch({
        op: 'append',
        item: {
          id: 'm1',
          ts: 1,
          kind: 'checkpoint',
          action: 'restore',
          step: 1,
          restored: ['/w/a.ts'],
          deleted: [],
          skipped: [],
          conflicts: [],
        },
      }),
    );
    const redo = p.page.locator('[data-id="m1"] .checkpoint-redo');
    await eventuallyText(redo, /Redo/);
    await p.clearPosted();
    await redo.click();
    assert.deepEqual(await p.posted(), [{ type: 'redo_checkpoint', taskId: 'task-1' }]);
    await p.clearPosted();
    await redo.focus();
    await p.page.keyboard.press('Enter');
    assert.deepEqual(await p.posted(), [{ type: 'redo_checkpoint', taskId: 'task-1' }]);
    await p.host(
      patch(
        {
          op: 'update',
          item: {
            id: 'm1',
            ts: 1,
            kind: 'checkpoint',
            action: 'restore',
            step: 1,
            restored: ['/w/a.ts'],
            deleted: [],
            skipped: [],
            conflicts: [],
            redone: true,
          },
        },
        {
          op: 'append',
          item: {
            id: 'm2',
            ts: 2,
            kind: 'checkpoint',
            action: 'redo',
            restored: ['/w/a.ts'],
            deleted: [],
            skipped: [],
            conflicts: [],
          },
        },
      ),
    );
    const back = await eventuallyText(p.page.locator('[data-id="m2"] .checkpoint-mark'), /Redid/);
    assert.match(back, /the task's edits are back in 1 file\b/);
    assert.match(back, /Back: w\/a\.ts/);
    assert.equal(await p.page.locator('.checkpoint-redo').count(), 0, 'no Redo once redone, none on the redo mark');
  });
});

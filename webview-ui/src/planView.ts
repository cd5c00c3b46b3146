// The live plan, pinned above the conversation: the goal and a checklist the model keeps with update_plan.
// The user can tick steps, reword them, add and remove steps; every edit sends the whole plan to the host
// (edit_plan), which stores it and shows it to the model in its next step. The host's plan is the truth:
// each snapshot / plan patch re-renders from it.
import type { PatchOp, PlanView, WebviewMessage } from '../../src/protocol/messages';
import { h } from './dom';
import './plan.css';

type Status = PlanView['steps'][number]['status'];

const STATUS_LABEL: Record<Status, string> = {
  pending: 'to do',
  in_progress: 'in progress',
  done: 'done',
  skipped: 'skipped',
};

export class PlanPanel {
  readonly el: HTMLElement;
  private plan: PlanView | undefined;
  private collapsed = false;

  constructor(
    private readonly taskId: () => string | undefined,
    private readonly post: (m: WebviewMessage) => void,
  ) {
    this.el = h('section', { class: 'plan-panel', hidden: true, 'aria-label': 'Plan' });
    this.el.addEventListener('change', (e) => this.onChange(e.target as HTMLElement));
    this.el.addEventListener('click', (e) => this.onClick(e.target as HTMLElement));
    this.el.addEventListener('keydown', (e) => {
      const t = e.target as HTMLElement;
      if (e.key === 'Enter' && t instanceof HTMLInputElement && t.classList.contains('plan-new')) {
        e.preventDefault();
        const text = t.value;
        t.value = ''; // added: not a draft to keep
        this.addStep(text);
      } else if (e.key === 'Enter' && t instanceof HTMLTextAreaElement && t.classList.contains('plan-text')) {
        e.preventDefault(); // a step is one line of text, wrapped to the width: Enter saves it (change on blur)
        t.blur();
      }
    });
  }

  /** Puts the panel above `before` (the transcript). */
  mountBefore(before: HTMLElement): void {
    before.parentElement?.insertBefore(this.el, before);
  }

  render(plan: PlanView | null | undefined): void {
    this.plan = plan ?? undefined;
    const p = this.plan;
    this.el.hidden = !p;
    if (!p) {
      this.el.replaceChildren();
      return;
    }
    const done = p.steps.filter((s) => s.status === 'done' || s.status === 'skipped').length;
    const head = h(
      'div',
      { class: 'plan-head' },
      h(
        'a',
        {
          class: 'plan-toggle',
          'data-plan-act': 'toggle',
          role: 'button',
          tabindex: '0',
          'aria-expanded': String(!this.collapsed),
        },
        this.collapsed ? '▸' : '▾',
      ),
      h('strong', {}, 'Plan'),
      h('span', { class: 'plan-count muted' }, `${done}/${p.steps.length}`),
      p.updatedBy === 'user'
        ? h(
            'span',
            { class: 'badge', title: 'You edited the plan; Forge sees your version in its next step' },
            'edited',
          )
        : null,
    );
    const goal = h('div', { class: 'plan-goal', title: p.goal }, p.goal);
    const list = h(
      'ol',
      { class: 'plan-steps' },
      ...p.steps.map((s, i) => this.row(s.text, s.status, i, p.currentStep === i + 1)),
    );
    const add = h('input', {
      class: 'plan-new',
      type: 'text',
      placeholder: 'Add a step…',
      'aria-label': 'Add a step',
      maxlength: '500',
    }) as HTMLInputElement;
    // A plan update (the model's, or the echo of the user's own tick) must not wipe what the user is typing.
    const draft = this.draft();
    this.el.replaceChildren(head, ...(this.collapsed ? [] : [goal, list, add]));
    if (draft) this.restore(draft);
  }

  /** The text input the user is in (the new step, or a step's text) with what they typed so far. */
  private draft(): { selector: string; value: string; caret: number | null } | undefined {
    const active = this.el.ownerDocument.activeElement;
    const fresh = this.el.querySelector<HTMLInputElement>('input.plan-new');
    const typing =
      (active instanceof HTMLInputElement && active.type === 'text') || active instanceof HTMLTextAreaElement;
    if (typing && this.el.contains(active)) {
      const selector = active.classList.contains('plan-new')
        ? 'input.plan-new'
        : `textarea.plan-text[data-index="${active.dataset.index}"]`;
      return { selector, value: active.value, caret: active.selectionStart };
    }
    return fresh?.value ? { selector: 'input.plan-new', value: fresh.value, caret: null } : undefined;
  }

  private restore(d: { selector: string; value: string; caret: number | null }): void {
    const input = this.el.querySelector<HTMLInputElement | HTMLTextAreaElement>(d.selector);
    if (!input) return;
    input.value = d.value;
    if (d.caret === null) return;
    input.focus();
    input.setSelectionRange(d.caret, d.caret);
  }

  /** Plan ops from a patch. */
  applyOps(ops: readonly PatchOp[]): void {
    for (const op of ops) if (op.op === 'plan') this.render(op.plan);
  }

  private row(text: string, status: Status, i: number, current: boolean): HTMLElement {
    const box = h('input', {
      type: 'checkbox',
      class: 'plan-check',
      'data-index': String(i),
      'aria-label': `Step ${i + 1} done`,
    }) as HTMLInputElement;
    box.checked = status === 'done';
    // A textarea that grows with its text: a step wraps at any width instead of being cut mid-word.
    const input = h('textarea', {
      class: 'plan-text',
      rows: '1',
      'data-index': String(i),
      'aria-label': `Step ${i + 1}`,
      maxlength: '500',
    }) as HTMLTextAreaElement;
    input.value = text;
    return h(
      'li',
      { class: `plan-step status-${status}${current ? ' current' : ''}`, 'data-index': String(i) },
      box,
      input,
      h(
        'a',
        {
          class: `plan-status status-${status}`,
          'data-plan-act': 'cycle',
          'data-index': String(i),
          role: 'button',
          tabindex: '0',
          title: 'Change the status',
        },
        current ? `▶ ${STATUS_LABEL[status]}` : STATUS_LABEL[status],
      ),
      h(
        'a',
        {
          class: 'plan-remove',
          'data-plan-act': 'remove',
          'data-index': String(i),
          role: 'button',
          tabindex: '0',
          title: 'Remove this step',
          'aria-label': `Remove step ${i + 1}`,
        },
        '×',
      ),
    );
  }

  private onChange(t: HTMLElement): void {
    const p = this.plan;
    const i = Number(t.dataset.index);
    const field = t instanceof HTMLInputElement || t instanceof HTMLTextAreaElement;
    if (!p || !field || !Number.isInteger(i) || !p.steps[i]) return;
    const steps = p.steps.map((s) => ({ ...s }));
    let current = p.currentStep;
    if (t instanceof HTMLInputElement && t.classList.contains('plan-check')) {
      steps[i].status = t.checked ? 'done' : 'pending';
      // Ticking off the current step moves "current" to the next step still to do.
      if (t.checked && current === i + 1)
        current = steps.findIndex((s, j) => j > i && (s.status === 'pending' || s.status === 'in_progress')) + 1;
    } else if (t.classList.contains('plan-text')) {
      const text = t.value.trim();
      if (!text || text === steps[i].text) return;
      steps[i].text = text.slice(0, 500);
    } else return;
    this.send(steps, current);
  }

  private onClick(t: HTMLElement): void {
    const el = t.closest<HTMLElement>('[data-plan-act]');
    const p = this.plan;
    if (!el || !p) return;
    const i = Number(el.dataset.index);
    switch (el.dataset.planAct) {
      case 'toggle':
        this.collapsed = !this.collapsed;
        this.render(p);
        return;
      case 'cycle': {
        const order: Status[] = ['pending', 'in_progress', 'done', 'skipped'];
        const steps = p.steps.map((s) => ({ ...s }));
        if (!steps[i]) return;
        steps[i].status = order[(order.indexOf(steps[i].status) + 1) % order.length];
        return this.send(steps, steps[i].status === 'in_progress' ? i + 1 : p.currentStep);
      }
      case 'remove': {
        if (p.steps.length <= 1 || !p.steps[i]) return;
        const steps = p.steps.filter((_, j) => j !== i);
        const current = p.currentStep === i + 1 ? 0 : p.currentStep > i + 1 ? p.currentStep - 1 : p.currentStep;
        return this.send(steps, current);
      }
    }
  }

  private addStep(text: string): void {
    const p = this.plan;
    const t = text.trim();
    if (!p || !t || p.steps.length >= 50) return;
    this.send([...p.steps, { text: t.slice(0, 500), status: 'pending' }], p.currentStep);
  }

  private send(steps: PlanView['steps'], currentStep: number): void {
    const taskId = this.taskId();
    const p = this.plan;
    if (!p || !steps.length) return;
    // Shown at once; the host's echo (a plan patch) confirms it or puts back what it accepted.
    this.render({ ...p, steps, currentStep: currentStep > steps.length ? 0 : currentStep, updatedBy: 'user' });
    this.post({
      type: 'edit_plan',
      ...(taskId ? { taskId } : {}),
      plan: {
        goal: p.goal.trim() || 'Plan',
        steps,
        ...(currentStep >= 1 && currentStep <= steps.length ? { currentStep } : {}),
      },
    });
  }
}

// The buttons the host attaches to a run end, an error or a banner (each maps to a protocol message in main.ts).
import type { Action } from '../../src/protocol/messages';
import { button, h } from './dom';

const ACTION_LABELS: Record<Action, string> = {
  continue: 'Continue',
  retry: 'Retry',
  new_task: 'New task',
  set_api_key: 'Set API key',
  select_model: 'Choose model',
  setup_model: 'Set up a model',
  open_settings: 'Open settings',
  show_logs: 'Show logs',
  implement_plan: 'Implement this plan',
};

export function actionButtons(actions: readonly Action[]): HTMLElement | null {
  if (actions.length === 0) return null;
  return h(
    'div',
    { class: 'actions' },
    ...actions.map((a, i) =>
      button(ACTION_LABELS[a], { 'data-act': 'action', 'data-action': a }, i === 0 ? 'primary' : 'secondary'),
    ),
  );
}

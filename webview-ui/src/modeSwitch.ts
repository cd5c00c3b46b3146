// The header's mode switch: each mode with what it does (its option's tooltip, the switch's own tooltip, and a line
// in the empty panel), so a newcomer can tell Agent from Implement before picking (issue 26, item 12).
import type { ModeChoiceView } from '../../src/protocol/messages';
import { h } from './dom';

/** "reads the code..." from "Reads the code." (the first letter lowered unless it starts an acronym). */
function clause(description: string): string {
  const d = /^[A-Z][a-z]/.test(description) ? description[0]!.toLowerCase() + description.slice(1) : description;
  return d.replace(/\.$/, '');
}

/** "Plan mode: reads the code...". */
export function modeSentence(m: ModeChoiceView): string {
  return m.description ? `${m.label} mode: ${clause(m.description)}.` : `${m.label} mode.`;
}

/** Fills the select with the modes (an own model beside the name, the description as each option's tooltip). */
export function renderModeOptions(
  select: HTMLSelectElement,
  modes: readonly ModeChoiceView[],
  current: string | undefined,
  running: boolean,
): void {
  select.replaceChildren(
    ...modes.map((m) =>
      h(
        'option',
        { value: m.id, selected: m.id === current, ...(m.description ? { title: m.description } : {}) },
        m.model ? `${m.label} · ${m.model}` : m.label,
      ),
    ),
  );
  if (current) select.value = current;
  select.disabled = running;
  const picked = modes.find((m) => m.id === select.value);
  select.title = running
    ? 'The mode can change when the task is not running'
    : picked?.description
      ? `${modeSentence(picked)} Pick another mode here.`
      : 'Mode: what Forge may do in this task';
}

/** The empty panel's line on the current mode, below what Forge does. */
export function modeNote(): HTMLElement {
  return h('p', { class: 'mode-note muted', 'aria-live': 'polite', hidden: true });
}

export function renderModeNote(note: HTMLElement, modes: readonly ModeChoiceView[], current: string | undefined): void {
  const m = modes.find((x) => x.id === current);
  note.hidden = !m?.description;
  if (!m?.description) return note.replaceChildren();
  note.replaceChildren(h('strong', {}, `${m.label} mode`), `: ${clause(m.description)}. Switch above or with /mode.`);
}

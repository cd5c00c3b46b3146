// VS Code's own icons (codicons). The font ships in the webview bundle (dist/webview, a localResourceRoot; the CSP
// allows fonts from the webview's own origin only). Icons are decoration: the text beside them, or the label
// given here, is what screen readers get.
import '@vscode/codicons/dist/codicon.css';
import { h } from './dom';

/** `<span class="codicon codicon-NAME">`; with a label it is announced (role img), without it is hidden. */
export function icon(name: string, label?: string, extra = ''): HTMLElement {
  return h('span', {
    class: `codicon codicon-${name}${extra ? ` ${extra}` : ''}`,
    'aria-hidden': label ? undefined : 'true',
    role: label ? 'img' : undefined,
    'aria-label': label,
    title: label,
  });
}

/** A small toolbar button with only an icon: focusable, labelled, Enter/Space act like a click. */
export function iconButton(name: string, label: string, attrs: Record<string, string | undefined> = {}): HTMLElement {
  const b = h('button', { type: 'button', class: 'icon-btn', title: label, 'aria-label': label, ...attrs }, icon(name));
  return b;
}

// The only door to the host: typed postMessage plus the webview's own persisted UI state (scroll position).
import type { WebviewMessage } from '../../src/protocol/messages';

interface VsCodeApi {
  postMessage(msg: unknown): void;
  getState(): unknown;
  setState(state: unknown): void;
}

declare function acquireVsCodeApi(): VsCodeApi;

interface UiState {
  scrollTop: number;
  /** The view was scrolled to the bottom: keep following new output. */
  stick: boolean;
  anchorId?: string;
  anchorOffset?: number;
  taskId?: string;
}

const api: VsCodeApi = acquireVsCodeApi();

export function post(msg: WebviewMessage): void {
  api.postMessage(msg);
}

export function loadUiState(): UiState | undefined {
  const s = api.getState() as Partial<UiState> | undefined;
  if (!s || typeof s.scrollTop !== 'number' || typeof s.stick !== 'boolean') return undefined;
  return {
    scrollTop: s.scrollTop,
    stick: s.stick,
    anchorId: typeof s.anchorId === 'string' ? s.anchorId : undefined,
    anchorOffset: typeof s.anchorOffset === 'number' ? s.anchorOffset : undefined,
    taskId: typeof s.taskId === 'string' ? s.taskId : undefined,
  };
}

export function saveUiState(s: UiState): void {
  api.setState(s);
}

export function newRequestId(): string {
  return typeof crypto.randomUUID === 'function'
    ? crypto.randomUUID()
    : `r-${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}`;
}

// A whole webview handler table for bridge tests: every message a no-op but the handlers a test gives.
import type { HandledMessageType, WebviewHandlers } from '../../../src/panel/webview-handlers';
import { WEBVIEW_MESSAGE_TYPES } from '../../../src/protocol/messages';

export function fakeHandlers(given: Partial<WebviewHandlers> = {}): WebviewHandlers {
  const handled = WEBVIEW_MESSAGE_TYPES.filter((t): t is HandledMessageType => t !== 'ready');
  const noops = handled.map((t) => [t, () => undefined]);
  return { ...(Object.fromEntries(noops) as WebviewHandlers), ...given };
}

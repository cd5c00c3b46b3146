// The webview document: one nonce'd module script, one stylesheet, and a CSP that allows nothing else.
// The csp-nonce meta is FAST's (webview-ui-toolkit) documented way to get a nonce for its one probe <style>.
import { randomBytes } from 'node:crypto';

export function makeNonce(): string {
  return randomBytes(16).toString('base64');
}

interface WebviewHtmlParts {
  /** webview.cspSource */
  cspSource: string;
  /** asWebviewUri(dist/webview/main.js) */
  scriptUri: string;
  /** asWebviewUri(dist/webview/main.css) */
  styleUri: string;
  nonce: string;
  title?: string;
}

export function contentSecurityPolicy(cspSource: string, nonce: string): string {
  return [
    "default-src 'none'",
    `script-src 'nonce-${nonce}'`,
    `style-src ${cspSource} 'nonce-${nonce}'`,
    `img-src ${cspSource} data:`,
    `font-src ${cspSource}`,
    "connect-src 'none'",
    "frame-src 'none'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ');
}

const escapeAttr = (s: string) =>
  s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

export function buildWebviewHtml(p: WebviewHtmlParts): string {
  const csp = contentSecurityPolicy(p.cspSource, p.nonce);
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${escapeAttr(csp)}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<meta property="csp-nonce" content="${escapeAttr(p.nonce)}">
<link rel="stylesheet" href="${escapeAttr(p.styleUri)}" nonce="${escapeAttr(p.nonce)}">
<title>${escapeAttr(p.title ?? 'Forge')}</title>
</head>
<body>
<div id="root" role="application" aria-label="Forge chat"></div>
<script type="module" nonce="${escapeAttr(p.nonce)}" src="${escapeAttr(p.scriptUri)}"></script>
</body>
</html>
`;
}

/**
 * What a restored editor tab's saved webview state (vscode.setState in the webview) may tell the host. It comes
 * from disk and from the webview, so it is only a hint: the host never acts on it, it always sends its own snapshot.
 */
interface RestoredPanelHint {
  /** The task the tab showed before the reload (may differ from the host's current task). */
  taskId?: string;
  scrollTop?: number;
  stick?: boolean;
}

const MAX_HINT_ID = 200;

/** Keeps only well-typed, bounded fields of a restored `state`; anything else (garbage, huge, forged) is dropped. */
export function parseRestoredPanelState(state: unknown): RestoredPanelHint {
  if (!state || typeof state !== 'object' || Array.isArray(state)) return {};
  const s = state as Record<string, unknown>;
  const own = (k: string) => (Object.prototype.hasOwnProperty.call(s, k) ? s[k] : undefined);
  const hint: RestoredPanelHint = {};
  const taskId = own('taskId');
  if (typeof taskId === 'string' && taskId.length > 0 && taskId.length <= MAX_HINT_ID && /^[\w.:-]+$/.test(taskId))
    hint.taskId = taskId;
  const scrollTop = own('scrollTop');
  if (typeof scrollTop === 'number' && Number.isFinite(scrollTop) && scrollTop >= 0) hint.scrollTop = scrollTop;
  const stick = own('stick');
  if (typeof stick === 'boolean') hint.stick = stick;
  return hint;
}

// What kind of failure a tool call ended with, for the model (tool result data), the run report and the UI:
// validation (arguments), permission (policy, user, sandbox refusals), network, timeout (the call's time limit)
// and tool (everything else the tool itself failed at). Also which thrown errors are transient and worth a retry.
import { TransientToolError } from './types';

export type ToolErrorClass = 'validation' | 'permission' | 'network' | 'timeout' | 'tool';

/** I/O error codes that usually clear up on their own: busy, try again, too many open files, text file busy. */
const TRANSIENT_CODES: ReadonlySet<string> = new Set(['EBUSY', 'EAGAIN', 'EWOULDBLOCK', 'EMFILE', 'ENFILE', 'ETXTBSY']);
const TRANSIENT_TEXT = /\b(EBUSY|EAGAIN|EWOULDBLOCK|EMFILE|ENFILE|ETXTBSY)\b/;

const NETWORK_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'ENETUNREACH',
  'EHOSTUNREACH',
  'EPIPE',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_SOCKET',
]);
const NETWORK_TEXT =
  /\b(ECONNREFUSED|ECONNRESET|ENOTFOUND|EAI_AGAIN|ETIMEDOUT|ENETUNREACH|EHOSTUNREACH)\b|fetch failed|socket hang up|network error/i;

function codeOf(err: unknown): string | undefined {
  const c = (err as { code?: unknown } | undefined)?.code;
  return typeof c === 'string' ? c : undefined;
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : typeof err === 'string' ? err : '';
}

/**
 * True for a failure worth retrying with backoff: a TransientToolError, or an I/O error that is busy / try-again /
 * out of file handles / text file busy, and on Windows EPERM/EBUSY from a file another process holds locked.
 */
export function isTransientError(
  err: unknown,
  platform: string = typeof process !== 'undefined' ? process.platform : '',
): boolean {
  if (err instanceof TransientToolError) return true;
  const code = codeOf(err);
  if (code && TRANSIENT_CODES.has(code)) return true;
  if (code === 'EPERM' && platform === 'win32') return true;
  // vscode.FileSystemError wraps the errno in its message ("EBUSY: resource busy or locked, open ...").
  const text = messageOf(err);
  if (!code || code === 'Unknown' || code === 'Unavailable') {
    if (TRANSIENT_TEXT.test(text)) return true;
    if (platform === 'win32' && /\bEPERM\b/.test(text)) return true;
  }
  return false;
}

/** A thrown error's class: network for connection failures, tool for everything else. */
export function classifyThrown(err: unknown): ToolErrorClass {
  const code = codeOf(err);
  if (code && NETWORK_CODES.has(code)) return 'network';
  const cause = (err as { cause?: unknown } | undefined)?.cause;
  if (cause && cause !== err && codeOf(cause) && NETWORK_CODES.has(codeOf(cause)!)) return 'network';
  if (NETWORK_TEXT.test(messageOf(err))) return 'network';
  return 'tool';
}

const CLASSES: ReadonlySet<string> = new Set(['validation', 'permission', 'network', 'timeout', 'tool']);

/** The class a tool put in its own result data ({ errorClass }), when it did. */
export function declaredErrorClass(data: unknown): ToolErrorClass | undefined {
  if (!data || typeof data !== 'object') return undefined;
  const c = (data as { errorClass?: unknown }).errorClass;
  if (typeof c === 'string' && CLASSES.has(c)) return c as ToolErrorClass;
  // Tools mark their refusals (secrets, .forgeignore, untrusted workspace, command rules) with `refused`.
  if ((data as { refused?: unknown }).refused !== undefined) return 'permission';
  return undefined;
}

/** Error data with the class added (object data is kept and extended; other data is kept under `value`). */
export function withErrorClass(data: unknown, errorClass: ToolErrorClass): Record<string, unknown> {
  if (data === undefined || data === null) return { errorClass };
  if (typeof data === 'object' && !Array.isArray(data)) return { ...(data as Record<string, unknown>), errorClass };
  return { value: data, errorClass };
}

// The typed contract between the extension host and the chat webview. Both sides import this module only; the
// schemas live by surface in primitives.ts, items.ts, state.ts, host-messages.ts and webview-messages.ts.
// Every message in both directions is validated here; anything that does not parse is dropped by the receiver.
import type * as z from 'zod';
import { HostMessageSchema, type HostMessage } from './host-messages';
import { WEBVIEW_MESSAGE_TYPES, WebviewMessageSchema, type WebviewMessage } from './webview-messages';

export { LIMITS } from './primitives';
export * from './items';
export * from './state';
export * from './host-messages';
export * from './webview-messages';
export * from './mentions';
export * from './steering';

// ---------- parsing ----------

type ParseResult<T> = { ok: true; message: T } | { ok: false; error: string };

function describe(x: unknown): string {
  if (x === null || typeof x !== 'object') return `not an object (${x === null ? 'null' : typeof x})`;
  const t = (x as { type?: unknown }).type;
  return typeof t === 'string' ? `'${t.slice(0, 40)}'` : 'without a string type';
}

function parseWith<T>(schema: z.ZodType<T>, known: ReadonlySet<string>, x: unknown): ParseResult<T> {
  const t = x !== null && typeof x === 'object' ? (x as { type?: unknown }).type : undefined;
  if (typeof t !== 'string' || !known.has(t)) return { ok: false, error: `unknown message ${describe(x)}` };
  const r = schema.safeParse(x);
  if (r.success) return { ok: true, message: r.data };
  const issues = r.error.issues
    .slice(0, 5)
    .map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`)
    .join('; ');
  return { ok: false, error: `invalid '${t}' message: ${issues}` };
}

const hostTypes = new Set<string>(HostMessageSchema.options.map((o) => o.shape.type.value));
const webviewTypes = new Set<string>(WEBVIEW_MESSAGE_TYPES);

export function parseHostMessage(x: unknown): ParseResult<HostMessage> {
  return parseWith(HostMessageSchema, hostTypes, x);
}

export function parseWebviewMessage(x: unknown): ParseResult<WebviewMessage> {
  return parseWith(WebviewMessageSchema, webviewTypes, x);
}

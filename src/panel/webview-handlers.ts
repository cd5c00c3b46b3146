// The webview surface's handler table: one handler per message type of the protocol's union (but `ready`, the
// handshake the bridge answers itself). A mapped type, so a message without a handler fails to compile; the host
// assembles the table from the slices its features export (`satisfies Partial<WebviewHandlers>`).
import type { RUN_REQUESTS, WebviewMessage, WebviewMessageType } from '../protocol/messages';

export type WebviewMessageOf<K extends WebviewMessageType> = Extract<WebviewMessage, { type: K }>;

/** A message that starts a run: its handler gets the request's Stop signal and settles when the run ends. */
export type RunRequestType = (typeof RUN_REQUESTS)[number];

/** The messages the host handles: every one but the bridge's own handshake. */
export type HandledMessageType = Exclude<WebviewMessageType, 'ready'>;

export type WebviewHandlers = {
  [K in HandledMessageType]: K extends RunRequestType
    ? (msg: WebviewMessageOf<K>, signal: AbortSignal) => void | Promise<void>
    : (msg: WebviewMessageOf<K>) => void | Promise<void>;
};

/** Calls the handler of `msg`'s type (the one place the union is matched to its table). */
export function handle(
  handlers: WebviewHandlers,
  msg: WebviewMessageOf<HandledMessageType>,
  signal?: AbortSignal,
): void | Promise<void> {
  const handler = handlers[msg.type] as (msg: WebviewMessage, signal?: AbortSignal) => void | Promise<void>;
  return handler(msg, signal);
}

// The "Forge" log output channel (Output view, level chosen by the user). Secrets never reach it:
// callers log ids and sizes, never keys or request headers.
import * as vscode from 'vscode';

export interface Logger {
  trace(message: string, ...args: unknown[]): void;
  debug(message: string, ...args: unknown[]): void;
  info(message: string, ...args: unknown[]): void;
  warn(message: string, ...args: unknown[]): void;
  error(message: string | Error, ...args: unknown[]): void;
}

let channel: vscode.LogOutputChannel | undefined;

/** The shared channel, created on first use. Add it to context.subscriptions via createLogger(). */
export function createLogger(context?: vscode.ExtensionContext): vscode.LogOutputChannel {
  if (!channel) {
    channel = vscode.window.createOutputChannel('Forge', { log: true });
    context?.subscriptions.push(channel, { dispose: () => (channel = undefined) });
  }
  return channel;
}

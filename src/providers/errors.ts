// Maps errors thrown by the openai / @anthropic-ai/sdk clients (and fetch) to the port's ModelError kinds.
import * as AnthropicSdk from '@anthropic-ai/sdk';
import * as OpenAISdk from 'openai';
import { ModelError, type ModelErrorKind } from '../core/model/errors';

// instanceof, not class names: names are mangled in the minified production bundle.
type SdkClass = 'APIError' | 'APIUserAbortError' | 'APIConnectionError' | 'APIConnectionTimeoutError';
function isSdk(err: unknown, cls: SdkClass): boolean {
  return err instanceof OpenAISdk[cls] || err instanceof AnthropicSdk[cls];
}

interface SdkLikeError {
  name?: string;
  message?: string;
  status?: number;
  headers?: { get(name: string): string | null } | Record<string, string>;
  error?: unknown;
  code?: string;
  cause?: unknown;
  type?: string;
}

function header(headers: SdkLikeError['headers'], name: string): string | undefined {
  if (!headers) return undefined;
  if (typeof (headers as { get?: unknown }).get === 'function') {
    return (headers as { get(n: string): string | null }).get(name) ?? undefined;
  }
  return (headers as Record<string, string>)[name];
}

/** retry-after-ms, then retry-after as seconds or an HTTP date. */
export function retryAfterMs(headers: SdkLikeError['headers'], now: () => number = Date.now): number | undefined {
  const ms = Number(header(headers, 'retry-after-ms'));
  if (header(headers, 'retry-after-ms') !== undefined && Number.isFinite(ms) && ms >= 0) return Math.round(ms);
  const ra = header(headers, 'retry-after');
  if (ra === undefined || ra.trim() === '') return undefined;
  const secs = Number(ra);
  if (Number.isFinite(secs)) return secs >= 0 ? Math.round(secs * 1000) : undefined;
  const date = Date.parse(ra);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now());
}

function kindForStatus(status: number): ModelErrorKind {
  if (status === 401 || status === 403) return 'auth';
  if (status === 429) return 'rate_limit';
  if (status === 529 || status === 503) return 'overloaded';
  if (status >= 500) return 'server';
  if (status === 408) return 'network';
  return 'bad_request';
}

/** Provider error payload `type` (Anthropic error frames, OpenAI error bodies) -> kind. */
function kindForErrorType(type: unknown): ModelErrorKind | undefined {
  switch (type) {
    case 'overloaded_error':
      return 'overloaded';
    case 'rate_limit_error':
    case 'rate_limit_exceeded':
      return 'rate_limit';
    default:
      return undefined;
  }
}

function providerMessage(e: SdkLikeError): string {
  const body = e.error as { message?: unknown; error?: { message?: unknown } } | undefined;
  const m = body?.error?.message ?? body?.message;
  return typeof m === 'string' && m ? m : (e.message ?? String(e));
}

/**
 * @param started whether any stream bytes had arrived: a connection failure after that is a broken stream.
 */
export function toModelError(err: unknown, provider: string, signal: AbortSignal, started = false): ModelError {
  if (err instanceof ModelError) return err;
  const e = (err ?? {}) as SdkLikeError;
  if (signal.aborted || isSdk(err, 'APIUserAbortError') || e.name === 'AbortError') {
    return new ModelError('aborted', `${provider}: request aborted`, { cause: err });
  }
  if (typeof e.status === 'number') {
    const status = e.status;
    const kind = kindForStatus(status);
    return new ModelError(kind, `${provider} HTTP ${status}: ${providerMessage(e)}`, {
      status,
      retryAfterMs: retryAfterMs(e.headers),
      cause: err,
    });
  }
  if (isSdk(err, 'APIConnectionTimeoutError')) {
    return new ModelError('network', `${provider}: request timed out`, { cause: err });
  }
  if (isSdk(err, 'APIError') && !isSdk(err, 'APIConnectionError')) {
    // No status: an error frame inside a 200 stream.
    const body = e.error as { type?: unknown; error?: { type?: unknown } } | undefined;
    const kind = kindForErrorType(body?.error?.type ?? body?.type) ?? 'stream';
    return new ModelError(kind, `${provider} stream error: ${providerMessage(e)}`, { cause: err });
  }
  const detail = describeCause(err);
  if (started)
    return new ModelError('stream', `${provider}: stream broke off mid-response (${detail})`, { cause: err });
  return new ModelError('network', `${provider}: could not reach the endpoint (${detail})`, { cause: err });
}

function describeCause(err: unknown): string {
  const parts: string[] = [];
  let cur: unknown = err;
  for (let depth = 0; cur && depth < 4; depth++) {
    const c = cur as { message?: string; code?: string; cause?: unknown };
    const text = [c.code, c.message].filter(Boolean).join(' ');
    if (text && !parts.includes(text)) parts.push(text);
    cur = c.cause;
  }
  return parts.join(': ') || String(err);
}

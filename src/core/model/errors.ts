// Typed provider errors. Adapters map SDK errors to these; the loop decides retry vs stop from `kind`.

export type ModelErrorKind =
  | 'auth' // 401/403: bad or missing key. Not retryable.
  | 'bad_request' // 400/404/422: request the provider refuses. Not retryable.
  | 'rate_limit' // 429
  | 'overloaded' // 529 / 503
  | 'server' // 5xx
  | 'network' // connection refused/reset, timeout
  | 'stream' // stream cut or error frame mid-response
  | 'stall' // the stream went silent (no event for the idle timeout); the attempt was aborted. Retried.
  | 'aborted'; // the run's AbortSignal fired

export class ModelError extends Error {
  override readonly name = 'ModelError';
  constructor(
    readonly kind: ModelErrorKind,
    message: string,
    readonly options: { status?: number; retryAfterMs?: number; cause?: unknown } = {},
  ) {
    super(message);
  }
  get retryable(): boolean {
    return this.kind !== 'auth' && this.kind !== 'bad_request' && this.kind !== 'aborted';
  }
  get status(): number | undefined {
    return this.options.status;
  }
  get retryAfterMs(): number | undefined {
    return this.options.retryAfterMs;
  }
  /** What the user can do about it, shown in the panel. */
  get advice(): string {
    switch (this.kind) {
      case 'auth':
        return 'Check the API key: run "Forge: Set API Key".';
      case 'bad_request':
        return 'The provider rejected the request; check the model name and settings ("Forge: Select Model").';
      case 'rate_limit':
        return 'The provider is rate limiting; Forge retries automatically. Wait or raise your quota.';
      case 'overloaded':
      case 'server':
        return 'The provider is having trouble; Forge retries automatically. Try again later or pick another model.';
      case 'network':
        return 'Could not reach the provider; check the base URL and your connection.';
      case 'stream':
        return 'The response stream broke off; Forge retries the step.';
      case 'stall':
        return 'The model stopped sending data; Forge retries the step. Raise forge.streamIdleTimeoutSeconds for slow local models, or set forge.fallbackModel.';
      case 'aborted':
        return 'Stopped.';
    }
  }
}

/**
 * Faults that say the provider itself is in trouble (overloaded, 5xx, unreachable, silent or broken streams): once
 * the retries are spent these switch a run to the fallback model. Never auth, bad requests or rate limits (the
 * user's own quota), never a stop.
 */
export function isProviderOutage(err: ModelError): boolean {
  return (
    err.kind === 'overloaded' ||
    err.kind === 'server' ||
    err.kind === 'network' ||
    err.kind === 'stall' ||
    err.kind === 'stream'
  );
}

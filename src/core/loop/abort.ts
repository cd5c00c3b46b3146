// Abort helpers: race any promise against the run's signal so a stop wins even if the callee ignores it.

export class RunAbortedError extends Error {
  override readonly name = 'RunAbortedError';
  constructor() {
    super('Run aborted');
  }
}

export function isAbort(err: unknown, signal?: AbortSignal): boolean {
  return err instanceof RunAbortedError || (signal?.aborted ?? false);
}

/** Resolves like `promise`, or rejects with RunAbortedError as soon as `signal` aborts. */
export function raceAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    promise.catch(() => undefined); // the loser's rejection must not become unhandled
    return Promise.reject(new RunAbortedError());
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new RunAbortedError());
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e) => {
        signal.removeEventListener('abort', onAbort);
        reject(e);
      },
    );
  });
}

/** Iterates an async iterable, racing each `next()` against the signal; on abort the iterator is closed (not awaited). */
export async function* iterateWithAbort<T>(iterable: AsyncIterable<T>, signal: AbortSignal): AsyncGenerator<T> {
  const iterator = iterable[Symbol.asyncIterator]();
  let finished = false;
  try {
    while (true) {
      const next = await raceAbort(iterator.next(), signal);
      if (next.done) {
        finished = true;
        return;
      }
      yield next.value;
    }
  } finally {
    if (!finished) {
      // Fire and forget: a hung provider must not hold the stop up.
      Promise.resolve()
        .then(() => iterator.return?.())
        .catch(() => undefined);
    }
  }
}

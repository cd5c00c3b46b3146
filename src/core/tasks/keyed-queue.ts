// One queue of async work per key (a task): work for the same key runs one after another, in call order, whatever
// the earlier work's outcome; different keys run side by side. Used where appends to one file must not interleave.
export class KeyedQueue {
  private readonly tails = new Map<string, Promise<unknown>>();

  run<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const prev = this.tails.get(key) ?? Promise.resolve();
    const run = prev.catch(() => undefined).then(fn);
    this.tails.set(key, run);
    void run
      .catch(() => undefined)
      .then(() => {
        if (this.tails.get(key) === run) this.tails.delete(key);
      });
    return run;
  }

  /** Resolves when the work queued so far has settled (failures included). */
  async settled(): Promise<void> {
    await Promise.all([...this.tails.values()].map((p) => p.catch(() => undefined)));
  }
}

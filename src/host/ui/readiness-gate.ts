// The panel and the palette are registered at once, while activation's disk work (task store, edit journal,
// memory, the restore of the last task) runs in the background. Their handlers that need the session go through
// this gate: a call made before the session is ready waits for it (calls run in the order they came), one made
// after runs at once and synchronously, and a failed initialisation rejects every waiting and later call.
// `current` is the session from the moment it exists, for what must never wait (where a note goes, the task id).

export class ReadinessGate<T> {
  private value: T | undefined;
  private isOpen = false;
  private readonly opened: Promise<T>;
  private settle!: { resolve(value: T): void; reject(err: unknown): void };

  constructor() {
    this.opened = new Promise<T>((resolve, reject) => (this.settle = { resolve, reject })).then((value) => {
      this.value = value;
      this.isOpen = true;
      return value;
    });
    // A failure is reported by whoever started the work; callers still see the rejection.
    this.opened.catch(() => undefined);
  }

  /** The session once it exists (it may still be restoring its task); undefined before. Never waits. */
  get current(): T | undefined {
    return this.value;
  }

  /** The session exists, though not ready yet: `current` returns it, calls keep waiting (see follow). */
  provide(value: T): void {
    this.value = value;
  }

  /** Opens the gate with the session `ready` resolves to, or rejects every call with its error. */
  follow(ready: Promise<T>): void {
    ready.then(
      (value) => this.settle.resolve(value),
      (err: unknown) => this.settle.reject(err),
    );
  }

  /** Runs `fn` on the session now if the gate is open, else once it opens (rejects if initialisation failed). */
  call<R>(fn: (session: T) => R): R | Promise<Awaited<R>> {
    if (this.isOpen) return fn(this.value as T);
    return this.opened.then((session) => fn(session) as Awaited<R>);
  }
}

type Handler = (...args: never[]) => unknown;

/**
 * A surface's whole handler table, over `keys`: the `immediate` handlers (they need no session) run at once; every
 * other key waits at the gate, then runs the handler of the session's own table (`sessionTable`).
 */
export function gatedTable<H extends Record<keyof H, Handler>, I extends keyof H, T>(
  keys: readonly (keyof H)[],
  immediate: Pick<H, I>,
  gate: ReadinessGate<T>,
  sessionTable: (session: T) => Omit<H, I>,
): H {
  type Table = Record<keyof H, Handler>;
  const now = immediate as unknown as Partial<Table>;
  const table = {} as Table;
  for (const key of keys) {
    table[key] =
      now[key] ?? ((...args: never[]) => gate.call((s) => (sessionTable(s) as unknown as Table)[key](...args)));
  }
  return table as H;
}

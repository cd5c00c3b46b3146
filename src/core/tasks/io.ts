// The task store's and edit journal's window onto the disk (TasksIO: src/node/tasks-io.ts on node:fs, an in-memory
// one in tests), safe file names for ids, and a coalescing writer.
import { createHash } from 'node:crypto';
import type { MemoryFileIO } from '../memory/file-io';

export interface TasksIO extends MemoryFileIO {
  /** Entry names in a directory ([] when it does not exist). */
  list(dir: string): Promise<string[]>;
  /** Delete a file; missing is fine. */
  remove(file: string): Promise<void>;
  /** Append text durably (fsync), creating the file and its directory if needed. */
  append(file: string, text: string): Promise<void>;
  /** Move a file (creating the target's directory); used to keep damaged or archived records aside. */
  move?(from: string, to: string): Promise<void>;
}

/** Leftover of an interrupted atomic write (see src/node/memory-file-io.ts): never a real record. */
export function isTempName(name: string): boolean {
  return name.startsWith('.') || name.endsWith('.tmp');
}

/**
 * A file name for an id: the id itself when it is plainly safe, otherwise a hash, so hostile or odd ids
 * ("../x", "CON", very long) can never escape the directory or collide on case-insensitive disks.
 */
export function safeFileStem(id: string): string {
  if (/^[a-z0-9][a-z0-9_-]{0,99}$/.test(id)) return id;
  return `h-${createHash('sha256').update(id).digest('hex').slice(0, 32)}`;
}

interface Slot<T> {
  next?: { value: T; waiters: Waiter[] };
  /** The value being written right now. */
  writing?: { value: T };
  running?: Promise<void>;
}

interface Waiter {
  resolve: () => void;
  reject: (err: unknown) => void;
}

/**
 * Serialises writes per key and coalesces them: while one write runs, later requests for the same key
 * collapse into one, so only the newest content is written. Each caller's promise settles when its content
 * (or newer content that superseded it) is on disk.
 */
export class CoalescingWriter<T> {
  private readonly slots = new Map<string, Slot<T>>();

  constructor(private readonly write: (key: string, value: T) => Promise<void>) {}

  submit(key: string, value: T): Promise<void> {
    let slot = this.slots.get(key);
    if (!slot) this.slots.set(key, (slot = {}));
    const s = slot;
    return new Promise<void>((resolve, reject) => {
      if (s.next) {
        s.next.value = value;
        s.next.waiters.push({ resolve, reject });
      } else {
        s.next = { value, waiters: [{ resolve, reject }] };
      }
      if (!s.running) s.running = this.drain(key, s);
    });
  }

  /** The newest value requested for key that may not be on disk yet (queued or being written), if any. */
  pending(key: string): T | undefined {
    const slot = this.slots.get(key);
    return slot?.next?.value ?? slot?.writing?.value;
  }

  /** Drop a not-yet-started write (its callers resolve: superseded) and wait for the one in flight. */
  async cancel(key: string): Promise<void> {
    const slot = this.slots.get(key);
    if (!slot) return;
    const dropped = slot.next;
    slot.next = undefined;
    dropped?.waiters.forEach((w) => w.resolve());
    await slot.running;
  }

  async flush(): Promise<void> {
    for (;;) {
      const running = [...this.slots.values()].map((s) => s.running).filter((p): p is Promise<void> => !!p);
      if (running.length === 0) return;
      await Promise.all(running);
    }
  }

  private async drain(key: string, slot: Slot<T>) {
    // Yield once so writes requested in the same tick coalesce with this one.
    await Promise.resolve();
    while (slot.next) {
      const job = slot.next;
      slot.next = undefined;
      slot.writing = { value: job.value };
      try {
        await this.write(key, job.value);
        job.waiters.forEach((w) => w.resolve());
      } catch (err) {
        job.waiters.forEach((w) => w.reject(err));
      } finally {
        slot.writing = undefined;
      }
    }
    slot.running = undefined;
    if (this.slots.get(key) === slot) this.slots.delete(key);
  }
}

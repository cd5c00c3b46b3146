// Per-task ownership between VS Code windows on one workspace (docs/DESIGN-durability.md): a window saves a task
// only while it holds the task's lease, a small file leases/<stem>.json naming the owner, refreshed by a
// heartbeat. A lease whose owner stopped beating for `ttlMs`, or whose process is gone (same machine), is taken
// over; a live one is refused with who holds it. Before each save the holder checks the file still names it, so
// a window that lost its lease (it slept past the expiry, another window took over) stops writing.
import { promises as fsp } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { randomBytes } from 'node:crypto';
import { safeFileStem } from '../core/tasks/io';
import { errorText } from '../core/error-text';

export interface LeaseInfo {
  owner: string;
  pid: number;
  host: string;
  /** Last heartbeat (ms epoch). */
  at: number;
  /** What the owner is, for messages ("window 2"). */
  label?: string;
}

type AcquireResult = { ok: true; tookOver?: LeaseInfo } | { ok: false; holder: LeaseInfo };

interface TaskLeasesOptions {
  /** This window's identity (default: pid + random). */
  owner?: string;
  label?: string;
  /** A lease not refreshed for this long is free (default 30 s). */
  ttlMs?: number;
  /** Heartbeat interval (default ttl / 3); 0 = none (tests drive it with heartbeat()). */
  heartbeatMs?: number;
  now?: () => number;
  /** Whether a process of this machine is alive (default: signal 0). */
  pidAlive?: (pid: number) => boolean;
  /** A lease this window held was taken by another. */
  onLost?: (taskId: string, holder: LeaseInfo | undefined) => void;
  log?: (m: string) => void;
}

export class TaskLeases {
  readonly owner: string;
  private readonly held = new Set<string>();
  private readonly ttl: number;
  private readonly now: () => number;
  private readonly pidAlive: (pid: number) => boolean;
  private readonly log: (m: string) => void;
  private timer: ReturnType<typeof setInterval> | undefined;

  constructor(
    private readonly dir: string,
    private readonly opts: TaskLeasesOptions = {},
  ) {
    this.owner = opts.owner ?? `${process.pid}-${randomBytes(4).toString('hex')}`;
    this.ttl = opts.ttlMs ?? 30_000;
    this.now = opts.now ?? Date.now;
    this.pidAlive = opts.pidAlive ?? defaultPidAlive;
    this.log = opts.log ?? (() => undefined);
    const beat = opts.heartbeatMs ?? Math.floor(this.ttl / 3);
    if (beat > 0) {
      this.timer = setInterval(() => void this.heartbeat(), beat);
      (this.timer as { unref?: () => void }).unref?.();
    }
  }

  holds(taskId: string): boolean {
    return this.held.has(taskId);
  }

  /** Who holds the task's lease now (undefined: nobody, or it expired). */
  async holder(taskId: string): Promise<LeaseInfo | undefined> {
    const info = await this.read(taskId);
    return info && this.live(info) ? info : undefined;
  }

  /** Takes the task's lease unless a live owner holds it. */
  async acquire(taskId: string): Promise<AcquireResult> {
    for (let attempt = 0; attempt < 3; attempt++) {
      const current = await this.read(taskId);
      if (current && current.owner !== this.owner && this.live(current)) return { ok: false, holder: current };
      if (!current) {
        // Nobody: create it exclusively, so of two windows racing here exactly one wins.
        if (!(await this.create(taskId))) continue;
        this.held.add(taskId);
        return { ok: true };
      }
      // Ours already, or expired / its process is gone: replace it, then check nobody replaced it at the same time.
      await this.write(taskId);
      const after = await this.read(taskId);
      if (after?.owner !== this.owner) continue;
      this.held.add(taskId);
      if (current.owner !== this.owner) {
        this.log(
          `[lease] took over task ${taskId} from ${current.label ?? current.owner} (last seen ${new Date(current.at).toISOString()})`,
        );
        return { ok: true, tookOver: current };
      }
      return { ok: true };
    }
    const holder = await this.read(taskId);
    return holder
      ? { ok: false, holder }
      : { ok: false, holder: { owner: 'unknown', pid: 0, host: '', at: this.now() } };
  }

  /**
   * Before a save: true when this window still holds the lease (refreshing the file if it vanished). A lease another
   * window took is dropped here and reported through onLost.
   */
  async confirm(taskId: string): Promise<boolean> {
    if (!this.held.has(taskId)) return (await this.acquire(taskId)).ok;
    const current = await this.read(taskId);
    if (!current || current.owner === this.owner || current.at === 0) {
      if (current?.owner !== this.owner) await this.write(taskId);
      return true;
    }
    this.held.delete(taskId);
    this.opts.onLost?.(taskId, current);
    return false;
  }

  async release(taskId: string): Promise<void> {
    if (!this.held.delete(taskId)) return;
    const current = await this.read(taskId);
    if (current?.owner === this.owner) await fsp.rm(this.file(taskId), { force: true }).catch(() => undefined);
  }

  /** Refreshes every held lease (drops those another window took). */
  async heartbeat(): Promise<void> {
    for (const taskId of [...this.held]) {
      try {
        if (await this.confirm(taskId)) await this.write(taskId);
      } catch (err) {
        this.log(`[lease] heartbeat for ${taskId} failed: ${errorText(err)}`);
      }
    }
  }

  /** Stops the heartbeat and releases every lease (deactivate). */
  async dispose(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await Promise.all([...this.held].map((id) => this.release(id)));
  }

  private live(info: LeaseInfo): boolean {
    if (this.now() - info.at > this.ttl) return false;
    if (info.host === os.hostname() && info.pid !== process.pid && !this.pidAlive(info.pid)) return false;
    return true;
  }

  private mine(): LeaseInfo {
    return {
      owner: this.owner,
      pid: process.pid,
      host: os.hostname(),
      at: this.now(),
      ...(this.opts.label ? { label: this.opts.label } : {}),
    };
  }

  /**
   * Creates the lease file if there is none; false when another window's exists. The file appears whole (a temp file
   * hard-linked into place): created empty and then written, another window reading it in between took the empty
   * file for a torn, expired lease and replaced it, and both windows owned the task.
   */
  private async create(taskId: string): Promise<boolean> {
    await fsp.mkdir(this.dir, { recursive: true });
    const file = this.file(taskId);
    const text = JSON.stringify(this.mine());
    const temp = `${file}.${randomBytes(4).toString('hex')}.tmp`;
    try {
      // Inside the try: a full disk can fail this write after creating the file, which must not stay behind.
      await fsp.writeFile(temp, text);
      await fsp.link(temp, file);
      return true;
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'EEXIST') return false;
      // A file system without hard links: the exclusive create, with its short empty moment.
      if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'ENOSYS' && code !== 'EOPNOTSUPP') throw err;
    } finally {
      await fsp.rm(temp, { force: true }).catch(() => undefined);
    }
    try {
      await fsp.writeFile(file, text, { flag: 'wx' });
      return true;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
      throw err;
    }
  }

  private async write(taskId: string): Promise<void> {
    await fsp.mkdir(this.dir, { recursive: true });
    const temp = `${this.file(taskId)}.${randomBytes(4).toString('hex')}.tmp`;
    try {
      await fsp.writeFile(temp, JSON.stringify(this.mine()));
      await fsp.rename(temp, this.file(taskId));
    } catch (err) {
      await fsp.rm(temp, { force: true }).catch(() => undefined);
      throw err;
    }
  }

  private async read(taskId: string): Promise<LeaseInfo | undefined> {
    try {
      const v = JSON.parse(await fsp.readFile(this.file(taskId), 'utf8')) as Partial<LeaseInfo>;
      if (typeof v.owner !== 'string' || typeof v.at !== 'number' || typeof v.pid !== 'number') return undefined;
      return {
        owner: v.owner,
        at: v.at,
        pid: v.pid,
        host: typeof v.host === 'string' ? v.host : '',
        ...(typeof v.label === 'string' ? { label: v.label } : {}),
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      return { owner: '', pid: 0, host: '', at: 0 }; // torn or unreadable: protects nothing (expired)
    }
  }

  private file(taskId: string): string {
    return path.join(this.dir, `${safeFileStem(taskId)}.json`);
  }
}

function defaultPidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

// CommandRunner over child_process: shell, own process group (so the whole tree dies on abort/timeout),
// head+tail output cap in memory, full output spooled to disk for paging.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  createReadStream,
  createWriteStream,
  promises as fsp,
  readdirSync,
  readFileSync,
  type WriteStream,
} from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createInterface } from 'node:readline';
import { StringDecoder } from 'node:string_decoder';
import {
  RUNNER_WITHOUT_SANDBOX,
  type CommandRunner,
  type Containment,
  type RunRequest,
  type RunResult,
} from '../core/workspace/types';
import { fileChangesOf, type CommandSandbox, type SandboxPlan } from './sandbox/command-sandbox';
import { scrubEnv } from './sandbox/env';

export interface NodeCommandRunnerOptions {
  /** Where full outputs are kept for paging. Default: <tmpdir>/forge-output. */
  spoolDir?: string;
  /** Time between SIGTERM and SIGKILL. Default 2000 ms (200 ms after a user abort). */
  killGraceMs?: number;
  /** Shell to use; default: true (/bin/sh on Unix, cmd.exe on Windows). */
  shell?: string | boolean;
  /** Extra environment for every command. */
  env?: Record<string, string>;
  /** Contains every command (bubblewrap / Seatbelt). Without it commands run bare, with a scrubbed environment. */
  sandbox?: CommandSandbox;
}

const DEFAULT_MAX_OUTPUT = 16_000;

/** Keeps the first and last characters of a stream without holding all of it. */
export class HeadTailBuffer {
  private head = '';
  private tail = '';
  total = 0;
  constructor(
    private readonly headMax: number,
    private readonly tailMax: number,
  ) {}
  push(chunk: string): void {
    this.total += chunk.length;
    if (this.head.length < this.headMax) {
      const room = this.headMax - this.head.length;
      this.head += chunk.slice(0, room);
      chunk = chunk.slice(room);
    }
    if (!chunk) return;
    this.tail += chunk;
    if (this.tail.length > this.tailMax * 2) this.tail = this.tail.slice(-this.tailMax);
  }
  get truncated(): boolean {
    return this.total > this.headMax + this.tailMax;
  }
  text(): string {
    if (!this.truncated) return this.head + this.tail;
    const tail = this.tail.slice(-this.tailMax);
    const dropped = this.total - this.head.length - tail.length;
    return `${this.head}\n[... ${dropped} characters omitted ...]\n${tail}`;
  }
}

export class NodeCommandRunner implements CommandRunner {
  private readonly spoolDir: string;
  constructor(private readonly options: NodeCommandRunnerOptions = {}) {
    this.spoolDir = options.spoolDir ?? path.join(os.tmpdir(), 'forge-output');
  }

  containment(): Containment {
    return this.options.sandbox?.containment() ?? RUNNER_WITHOUT_SANDBOX;
  }

  async run(req: RunRequest): Promise<RunResult> {
    req.signal.throwIfAborted();
    const sandbox = this.options.sandbox;
    if (!sandbox) return this.runPlan(req, undefined);
    let plan = await sandbox.plan(req, { statusFd: 3 });
    let res = await this.runPlan(req, plan);
    // A secret file that vanished since the last scan makes bubblewrap fail: rescan once before giving up.
    if (res.sandboxFailed && !req.signal.aborted) {
      await sandbox.finish(plan, '', { merge: false });
      plan = await sandbox.plan(req, { statusFd: 3, fresh: true });
      res = await this.runPlan(req, plan);
    }
    const blocked = await sandbox.finish(plan, res.output);
    if (res.sandboxFailed) return res;
    const fileChanges = fileChangesOf(plan);
    return {
      ...res,
      containment: { contained: plan.contained, summary: plan.summary, ...(blocked.length ? { blocked } : {}) },
      ...(fileChanges ? { fileChanges } : {}),
    };
  }

  private async runPlan(req: RunRequest, plan: SandboxPlan | undefined): Promise<RunResult> {
    const max = req.maxOutputChars ?? DEFAULT_MAX_OUTPUT;
    const buf = new HeadTailBuffer(Math.floor(max * 0.4), Math.ceil(max * 0.6));
    const ref = `cmd-${Date.now().toString(36)}-${randomBytes(4).toString('hex')}`;
    const spoolPath = path.join(this.spoolDir, `${ref}.log`);
    let spool: WriteStream | undefined;
    try {
      await fsp.mkdir(this.spoolDir, { recursive: true });
      spool = createWriteStream(spoolPath);
      spool.on('error', () => (spool = undefined));
    } catch {
      spool = undefined;
    }

    const isWin = process.platform === 'win32';
    const env = { ...(plan?.env ?? scrubEnv(process.env).env), ...this.options.env, ...req.env };
    const withStatus = plan?.contained === true && plan.argv.includes('--json-status-fd');
    const spawnOpts = {
      cwd: req.cwd,
      detached: !isWin,
      windowsHide: true,
      env,
      stdio: ['ignore', 'pipe', 'pipe', withStatus ? 'pipe' : 'ignore'] as ('ignore' | 'pipe')[],
    };
    const child =
      plan && plan.argv.length > 0
        ? spawn(plan.argv[0]!, plan.argv.slice(1), { ...spawnOpts, shell: false })
        : spawn(req.command, { ...spawnOpts, shell: this.options.shell ?? true });
    if (child.pid !== undefined) req.onStarted?.({ pid: child.pid });
    let status = '';
    child.stdio[3]?.on('data', (d: Buffer) => (status += d.toString('utf8')));
    child.stdio[3]?.on('error', () => undefined);

    let timedOut = false;
    let aborted = false;
    const decoders = [new StringDecoder('utf8'), new StringDecoder('utf8')];
    const onData = (i: number) => (data: Buffer) => {
      const text = decoders[i]!.write(data);
      if (!text) return;
      buf.push(text);
      spool?.write(text);
      req.onOutput?.(text);
    };
    child.stdout!.on('data', onData(0));
    child.stderr!.on('data', onData(1));

    let killTimer: NodeJS.Timeout | undefined;
    const kill = (graceMs: number) => {
      if (child.exitCode !== null || child.pid === undefined) return;
      killTree(child.pid, 'SIGTERM', isWin);
      killTimer ??= setTimeout(() => killTree(child.pid!, 'SIGKILL', isWin), graceMs);
    };
    const timer = setTimeout(() => {
      timedOut = true;
      kill(this.options.killGraceMs ?? 2000);
    }, req.timeoutMs);
    const onAbort = () => {
      aborted = true;
      kill(Math.min(this.options.killGraceMs ?? 2000, 200));
    };
    req.signal.addEventListener('abort', onAbort, { once: true });
    // Ctrl+C in the terminal: SIGINT to the group as a terminal sends it; a process that ignores it is ended.
    let interrupted = false;
    let interruptTimer: NodeJS.Timeout | undefined;
    const onInterrupt = () => {
      if (child.exitCode !== null || child.pid === undefined) return;
      interrupted = true;
      killTree(child.pid, 'SIGINT', isWin);
      interruptTimer ??= setTimeout(() => kill(this.options.killGraceMs ?? 2000), this.options.killGraceMs ?? 2000);
    };
    req.userInterrupt?.addEventListener('abort', onInterrupt, { once: true });

    const outcome = await new Promise<{ code: number | null; signal: NodeJS.Signals | null; error?: Error }>(
      (resolve) => {
        child.once('error', (error) => resolve({ code: null, signal: null, error }));
        child.once('exit', (code, signal) => {
          // Wait for the pipes to drain, but not for a background grandchild that keeps them open.
          const settle = setTimeout(() => {
            child.stdout?.destroy();
            child.stderr?.destroy();
            resolve({ code, signal });
          }, 300);
          child.once('close', () => {
            clearTimeout(settle);
            resolve({ code, signal });
          });
        });
      },
    );
    clearTimeout(timer);
    req.signal.removeEventListener('abort', onAbort);
    req.userInterrupt?.removeEventListener('abort', onInterrupt);
    // Make sure nothing from the group survives (background jobs), then stop the SIGKILL timer.
    if (child.pid !== undefined && (timedOut || aborted || interrupted)) killTree(child.pid, 'SIGKILL', isWin);
    if (killTimer) clearTimeout(killTimer);
    clearTimeout(interruptTimer);
    for (const d of decoders) {
      const rest = d.end();
      if (rest) {
        buf.push(rest);
        spool?.write(rest);
      }
    }
    if (outcome.error) buf.push(`\n[Could not start the command: ${outcome.error.message}]`);
    // bubblewrap reports the sandboxed child on the status fd once the sandbox is set up.
    const setupFailed =
      plan?.contained === true &&
      !aborted &&
      !timedOut &&
      (withStatus ? !status.includes('child-pid') : outcome.code !== 0 && /^sandbox-exec:/m.test(buf.text()));
    if (setupFailed) {
      if (spool) await new Promise<void>((r) => spool!.end(r));
      await fsp.rm(spoolPath, { force: true }).catch(() => undefined);
      return {
        exitCode: null,
        output: `The sandbox could not start, so the command was not run: ${buf.text().trim().slice(0, 1000) || outcome.error?.message || 'no error message'}`,
        timedOut: false,
        sandboxFailed: true,
      };
    }

    const keep = buf.truncated && spool !== undefined;
    if (spool) await new Promise<void>((r) => spool!.end(r));
    if (!keep) await fsp.rm(spoolPath, { force: true }).catch(() => undefined);
    return {
      exitCode: outcome.code,
      output: buf.text(),
      timedOut,
      aborted,
      ...(interrupted && !aborted && !timedOut ? { interrupted: true } : {}),
      truncated: buf.truncated,
      totalChars: buf.total,
      fullOutputRef: keep ? ref : undefined,
      signal: outcome.signal ?? undefined,
    };
  }

  async readOutput(ref: string, startLine: number, endLine: number): Promise<{ lines: string[]; totalLines: number }> {
    if (!/^cmd-[a-z0-9]+-[a-f0-9]+$/.test(ref)) throw new Error('unknown output ref');
    const rl = createInterface({
      input: createReadStream(path.join(this.spoolDir, `${ref}.log`)),
      crlfDelay: Infinity,
    });
    const lines: string[] = [];
    let n = 0;
    for await (const line of rl) {
      n++;
      if (n >= startLine && n <= endLine) lines.push(line);
    }
    return { lines, totalLines: n };
  }
}

/** Whether a process of the group `pid` leads is alive (each command runs in its own group). */
export function processGroupAlive(pid: number): boolean {
  // -1 would mean every process, and no command of Forge's is init.
  if (!Number.isInteger(pid) || pid <= 1) return false;
  try {
    process.kill(process.platform === 'win32' ? pid : -pid, 0);
  } catch {
    return false; // ESRCH; EPERM: the id now belongs to someone else's process, not Forge's command
  }
  if (process.platform !== 'linux') return true;
  // A zombie (ended, never reaped: some containers' init does not reap) still counts for kill() but runs nothing.
  let names: string[];
  try {
    names = readdirSync('/proc');
  } catch {
    return true;
  }
  for (const name of names) {
    if (name.charCodeAt(0) > 0x39) continue; // not a process id
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8'); // "pid (comm) state ppid pgrp ..."
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[2]) === pid && fields[0] !== 'Z') return true;
    } catch {
      /* ended meanwhile */
    }
  }
  return false;
}

function killTree(pid: number, sig: NodeJS.Signals, isWin: boolean): void {
  try {
    if (isWin) {
      spawn('taskkill', ['/pid', String(pid), '/T', '/F'], { windowsHide: true, stdio: 'ignore' }).on(
        'error',
        () => undefined,
      );
    } else {
      process.kill(-pid, sig); // negative pid: the whole process group
    }
  } catch {
    /* already gone */
  }
}

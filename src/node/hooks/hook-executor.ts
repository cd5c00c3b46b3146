// Runs one hook command: the event's JSON on stdin, stdout and stderr kept apart and capped, a time limit that
// ends the whole process group, and the OS sandbox around it when there is one (a hook is a command like any other:
// writes only in the workspace, through its write layer, and never to the control plane).
import { spawn } from 'node:child_process';
import { StringDecoder } from 'node:string_decoder';
import { hookFailed, type HookCommand, type HookExecutor, type HookRun } from '../../core/hooks/types';
import type { CommandSandbox, SandboxPlan } from '../sandbox/command-sandbox';
import { scrubEnv } from '../sandbox/env';
import { errorText } from '../../core/error-text';

/** Characters kept of each stream; a hook that prints more is cut (and the user told). */
export const HOOK_OUTPUT_CAP = 64 * 1024;
const KILL_GRACE_MS = 500;

interface HookExecutorOptions {
  /** The workspace folder: the hooks' cwd and $CLAUDE_PROJECT_DIR. */
  root: () => string;
  /** Contains each run (bubblewrap / Seatbelt); without it hooks run with a scrubbed environment only. */
  sandbox?: CommandSandbox;
  outputCap?: number;
}

class CappedText {
  text = '';
  truncated = false;
  private readonly decoder = new StringDecoder('utf8');
  constructor(private readonly cap: number) {}
  push(data: Buffer): void {
    if (this.truncated) return; // keep draining the pipe, keep nothing
    const s = this.decoder.write(data);
    if (this.text.length + s.length > this.cap) {
      this.text += s.slice(0, this.cap - this.text.length);
      this.truncated = true;
    } else this.text += s;
  }
}

function killGroup(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(process.platform === 'win32' ? pid : -pid, sig);
  } catch {
    /* gone */
  }
}

export class NodeHookExecutor implements HookExecutor {
  constructor(private readonly opts: HookExecutorOptions) {}

  async run(hook: HookCommand, stdin: string, signal: AbortSignal): Promise<HookRun> {
    signal.throwIfAborted();
    const started = Date.now();
    const cwd = this.opts.root();
    const env = { CLAUDE_PROJECT_DIR: cwd, FORGE_PROJECT_DIR: cwd, FORGE_HOOK_EVENT: hook.event };
    let plan: SandboxPlan | undefined;
    try {
      plan = this.opts.sandbox ? await this.opts.sandbox.plan({ command: hook.command, cwd, env }) : undefined;
    } catch (err) {
      return hookFailed(started, `its sandbox could not be set up (${errorText(err)})`);
    }
    try {
      const run = await this.spawn(hook, stdin, signal, cwd, env, plan, started);
      return run;
    } finally {
      if (plan) await this.opts.sandbox!.finish(plan, '').catch(() => undefined);
    }
  }

  private spawn(
    hook: HookCommand,
    stdin: string,
    signal: AbortSignal,
    cwd: string,
    env: Record<string, string>,
    plan: SandboxPlan | undefined,
    started: number,
  ): Promise<HookRun> {
    const isWin = process.platform === 'win32';
    const options = {
      cwd,
      detached: !isWin,
      windowsHide: true,
      env: plan ? plan.env : { ...scrubEnv(process.env).env, ...env },
      stdio: ['pipe', 'pipe', 'pipe'] as ('pipe' | 'ignore')[],
    };
    const child =
      plan && plan.argv.length > 0
        ? spawn(plan.argv[0]!, plan.argv.slice(1), { ...options, shell: false })
        : spawn(hook.command, { ...options, shell: true });
    const cap = this.opts.outputCap ?? HOOK_OUTPUT_CAP;
    const out = new CappedText(cap);
    const err = new CappedText(cap);
    child.stdout!.on('data', (d: Buffer) => out.push(d));
    child.stderr!.on('data', (d: Buffer) => err.push(d));
    // A hook that never reads its stdin (or exits first) must not fail the run: EPIPE is expected.
    child.stdin!.on('error', () => undefined);
    child.stdin!.end(stdin);

    let timedOut = false;
    let aborted = false;
    const kill = () => {
      if (child.pid === undefined) return;
      killGroup(child.pid, 'SIGTERM');
      setTimeout(() => killGroup(child.pid!, 'SIGKILL'), KILL_GRACE_MS).unref();
    };
    const timer = setTimeout(() => {
      timedOut = true;
      kill();
    }, hook.timeoutMs);
    const onAbort = () => {
      aborted = true;
      kill();
    };
    signal.addEventListener('abort', onAbort, { once: true });
    return new Promise<HookRun>((resolve) => {
      let settled = false;
      const done = (code: number | null, failed?: string) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        // Nothing of the group outlives its hook (a background child holding the pipes, a sleep after a timeout).
        if (child.pid !== undefined && !isWin) killGroup(child.pid, 'SIGKILL');
        resolve({
          exitCode: timedOut || aborted ? null : code,
          stdout: out.text,
          stderr: err.text,
          timedOut,
          truncated: out.truncated || err.truncated,
          ms: Date.now() - started,
          ...(failed ? { failed } : {}),
          ...(aborted && !timedOut ? { failed: 'stopped with the run' } : {}),
        });
      };
      child.once('error', (e) => done(null, `it could not be started (${e.message})`));
      child.once('exit', (code) => {
        // Wait for the pipes to drain, not for a grandchild that keeps them open.
        const settle = setTimeout(() => done(code), 300);
        child.once('close', () => {
          clearTimeout(settle);
          done(code);
        });
      });
    });
  }
}

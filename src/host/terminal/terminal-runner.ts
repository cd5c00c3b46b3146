// CommandRunner on a visible VS Code terminal with shell integration: the user sees the command run, the
// output and exit code come back through execution.read() / onDidEndTerminalShellExecution. When shell
// integration does not activate in time (unsupported shell, disabled setting) it falls back to another
// CommandRunner (the Node child-process runner).
import * as crypto from 'node:crypto';
import * as vscode from 'vscode';
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import {
  RUNNER_WITHOUT_SANDBOX,
  type CommandRunner,
  type Containment,
  type RunRequest,
  type RunResult,
} from '../../core/workspace/types';
import { fileChangesOf, type CommandSandbox, type SandboxPlan } from '../../node/sandbox/command-sandbox';
import { shellQuote as posixQuote } from '../../node/sandbox/profile';
import type { Logger } from '../logger';
import { defaultSpoolDir, OutputSpool, readSpoolLines, stripAnsi } from '../../node/output-spool';
import { warmShellParser } from '../../node/shell-parser-warmup';
import { errorText } from '../../core/error-text';

interface TerminalRunnerOptions {
  /** Used when shell integration is unavailable, or the request needs env variables. */
  fallback?: CommandRunner;
  /** How long to wait for shell integration in a new terminal (default 5000 ms). */
  shellIntegrationTimeoutMs?: number;
  /** Where full outputs are spooled for paging (default: OS temp/forge-output). */
  spoolDir?: string;
  terminalName?: string;
  /** Default output cap when the request has none (default 20000 chars). */
  defaultMaxOutputChars?: number;
  /** Contains every command; the same sandbox as the fallback's, so both paths run alike. */
  sandbox?: CommandSandbox;
  /** false: always use the fallback (setting forge.terminal.useShellIntegration). */
  enabled?: () => boolean;
  log?: Logger;
  /**
   * Load the shell parser this long after construction (activation), in small steps, so the first command check
   * does not block the host loading it. undefined: at the first prewarm() only.
   */
  warmParserAfterMs?: number;
  /** Folder for the shell parser's V8 code cache (global storage). */
  parserCacheDir?: string;
}

interface ForgeTerminal {
  terminal: vscode.Terminal;
  busy: boolean;
  /** Shell integration came up in it (terminal.shellIntegration may read undefined once it closed). */
  integrated?: boolean;
}

export class TerminalCommandRunner implements CommandRunner, vscode.Disposable {
  private readonly terminals: ForgeTerminal[] = [];
  private readonly spoolDir: string;
  /** Set once shell integration failed to start: later commands go straight to the fallback. */
  private integrationUnavailable = false;
  private readonly disposables: vscode.Disposable[] = [];

  constructor(private readonly options: TerminalRunnerOptions = {}) {
    this.spoolDir = options.spoolDir ?? defaultSpoolDir();
    this.disposables.push(
      vscode.window.onDidCloseTerminal((t) => {
        const i = this.terminals.findIndex((f) => f.terminal === t);
        if (i < 0) return;
        const [closed] = this.terminals.splice(i, 1);
        this.replaceSpare(closed!);
      }),
    );
    if (options.warmParserAfterMs !== undefined) {
      const timer = setTimeout(() => void this.warmParser(), options.warmParserAfterMs);
      timer.unref?.();
      this.disposables.push({ dispose: () => clearTimeout(timer) });
    }
  }

  private warmParser(): void {
    void warmShellParser({ cacheDir: this.options.parserCacheDir, log: this.options.log });
  }

  /**
   * Gets ready for a command before one is asked for (a run that may run commands started): loads the shell
   * parser in small steps and starts a Forge terminal hidden from the user, so its shell and shell integration
   * are up by the time the command is approved. The terminal is shown (without focus) only when a command runs
   * in it. Nothing happens when commands would not use the terminal.
   */
  prewarm(cwd: string): void {
    this.warmParser();
    this.spareCwd = cwd;
    this.startSpare(cwd);
  }

  /** Where the last prewarm() asked for a terminal: from then on a closed Forge terminal is replaced by a spare. */
  private spareCwd: string | undefined;

  /** A hidden terminal starting in `cwd`, unless one is idle already or commands would not use the terminal. */
  private startSpare(cwd: string): void {
    if (this.disposed || this.integrationUnavailable || !(this.options.enabled?.() ?? true)) return;
    if (this.terminals.some((t) => !t.busy && t.terminal.exitStatus === undefined)) return;
    const ft = this.create(cwd, true);
    void this.waitForIntegration(ft.terminal, new AbortController().signal).then(() => {
      if (ft.terminal.shellIntegration) ft.integrated = true;
    });
  }

  /**
   * The user closed the Forge terminal (or a stuck command's terminal was killed): the next command would wait
   * for a new shell and its shell integration (0.5-3 s). Once commands have run in this window (prewarm() was
   * called), a hidden spare starts right away instead, as the pre-warmed one did. Never for a terminal whose
   * shell integration did not come up: a shell that cannot start must not be restarted in a loop.
   */
  private replaceSpare(closed: ForgeTerminal): void {
    if (this.spareCwd === undefined || !(closed.integrated || closed.terminal.shellIntegration)) return;
    this.startSpare(this.spareCwd);
  }

  /** true after a command ran through shell integration; false after falling back. */
  lastRunUsedTerminal: boolean | undefined;
  /**
   * When the last command line went to the terminal (or the fallback's process started) and when the terminal's end
   * event came back (epoch ms): tells Forge's own time from the terminal's in the latency benchmark.
   */
  lastRunTimes: { sentAt?: number; endedAt?: number } = {};

  async run(req: RunRequest): Promise<RunResult> {
    const fallback = this.options.fallback;
    const enabled = this.options.enabled?.() ?? true;
    this.lastRunTimes = {};
    if (fallback && (!enabled || this.integrationUnavailable || (req.env && Object.keys(req.env).length > 0))) {
      this.lastRunUsedTerminal = false;
      return this.runFallback(fallback, req);
    }
    if (req.signal.aborted) return { exitCode: null, output: '', timedOut: false, aborted: true };
    const ft = await this.acquire(req.cwd, req.signal);
    if (req.signal.aborted) {
      // Stopped while the terminal was starting: that says nothing about shell integration.
      if (ft) ft.busy = false;
      return { exitCode: null, output: '', timedOut: false, aborted: true };
    }
    if (!ft?.terminal.shellIntegration) {
      // Later commands skip the terminal (integrationUnavailable): close it rather than leave it open, empty.
      if (ft) this.close(ft);
      this.integrationUnavailable = true;
      this.options.log?.warn('Terminal shell integration did not activate; running commands as child processes.');
      if (!fallback)
        throw new Error('Shell integration is unavailable in the terminal and no fallback runner is configured.');
      this.lastRunUsedTerminal = false;
      return this.runFallback(fallback, req);
    }
    let launched: { line: string; plan: SandboxPlan; statusFile?: string } | undefined;
    try {
      this.lastRunUsedTerminal = true;
      launched = await this.launch(req);
      const res = await this.execute(ft, req, launched?.line);
      if (!launched || !this.options.sandbox) return res;
      const status =
        launched.plan.contained && launched.statusFile && !res.aborted && !res.timedOut
          ? await fsp.readFile(launched.statusFile, 'utf8').catch(() => '')
          : undefined;
      // A sandbox that never started wrote nothing: its layer is dropped, not merged.
      const blocked = await this.options.sandbox.finish(launched.plan, res.output, {
        merge: status === undefined || status.includes('child-pid'),
      });
      if (status !== undefined) {
        // Never a bare run instead: the fallback uses the same sandbox (and rescans secrets once).
        if (!status.includes('child-pid') && fallback) return fallback.run(req);
        if (!status.includes('child-pid'))
          return {
            exitCode: null,
            output: `The sandbox could not start, so the command was not run: ${res.output.slice(0, 1000)}`,
            timedOut: false,
            sandboxFailed: true,
          };
      }
      const fileChanges = fileChangesOf(launched.plan);
      return {
        ...res,
        containment: {
          contained: launched.plan.contained,
          summary: launched.plan.summary,
          ...(blocked.length ? { blocked } : {}),
        },
        ...(fileChanges ? { fileChanges } : {}),
      };
    } finally {
      ft.busy = false;
      if (launched?.statusFile) void fsp.rm(launched.statusFile, { force: true }).catch(() => undefined);
      if (launched?.plan.proxy) void launched.plan.proxy.close().catch(() => undefined); // also when execute() threw
      if (launched?.plan.layer) void this.options.sandbox?.finish(launched.plan, '').catch(() => undefined); // merged, as a run that ended
    }
  }

  /** The fallback runs the command; lastRunTimes.sentAt says when its process started. */
  private runFallback(fallback: CommandRunner, req: RunRequest): Promise<RunResult> {
    return fallback.run({
      ...req,
      onStarted: (info) => {
        this.lastRunTimes = { sentAt: Date.now() };
        req.onStarted?.(info);
      },
    });
  }

  /** The line typed into the terminal: `<launcher> '<command>'` under the sandbox, or the command itself. */
  private async launch(req: RunRequest): Promise<{ line: string; plan: SandboxPlan; statusFile?: string } | undefined> {
    const sandbox = this.options.sandbox;
    if (!sandbox || process.platform === 'win32') return undefined;
    const plan = await sandbox.plan(req, { statusFd: 3 });
    if (plan.argv.length === 0) return undefined;
    const statusFile =
      plan.contained && plan.argv.includes('--json-status-fd')
        ? path.join(this.spoolDir, `status-${crypto.randomBytes(6).toString('hex')}.json`)
        : undefined;
    if (statusFile) await fsp.mkdir(this.spoolDir, { recursive: true });
    const launcher = await sandbox.launcher(plan, req.cwd, statusFile);
    return { line: `${posixQuote(launcher)} ${posixQuote(req.command)}`, plan, statusFile };
  }

  containment(): Containment {
    return this.options.sandbox?.containment() ?? RUNNER_WITHOUT_SANDBOX;
  }

  readOutput(ref: string, startLine: number, endLine: number): Promise<{ lines: string[]; totalLines: number }> {
    return readSpoolLines(this.spoolDir, ref, startLine, endLine);
  }

  private close(ft: ForgeTerminal): void {
    const i = this.terminals.indexOf(ft);
    if (i >= 0) this.terminals.splice(i, 1);
    ft.terminal.dispose();
  }

  /** An idle Forge terminal with shell integration, or a new one in `cwd`. */
  private async acquire(cwd: string, signal: AbortSignal): Promise<ForgeTerminal | undefined> {
    // A terminal with shell integration up first (a pre-warmed one), then any idle one, else a new one.
    const idle = this.terminals.filter((t) => !t.busy && t.terminal.exitStatus === undefined);
    const ft = idle.find((t) => t.terminal.shellIntegration) ?? idle[0] ?? this.create(cwd, false);
    ft.busy = true;
    ft.terminal.show(true); // visible, but keep the user's focus
    if (!ft.terminal.shellIntegration) await this.waitForIntegration(ft.terminal, signal);
    if (ft.terminal.shellIntegration) ft.integrated = true;
    return ft;
  }

  private create(cwd: string, hidden: boolean): ForgeTerminal {
    const terminal = vscode.window.createTerminal({
      name: this.options.terminalName ?? 'Forge',
      cwd,
      iconPath: new vscode.ThemeIcon('tools'),
      env: { FORGE_TERMINAL: '1' },
      // A pre-warmed terminal stays out of sight (no tab, no focus) until a command runs in it: show() reveals it.
      ...(hidden ? { hideFromUser: true } : {}),
    });
    const ft = { terminal, busy: false };
    this.terminals.push(ft);
    return ft;
  }

  private waitForIntegration(terminal: vscode.Terminal, signal: AbortSignal): Promise<void> {
    const timeoutMs = this.options.shellIntegrationTimeoutMs ?? 5000;
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        sub.dispose();
        signal.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, timeoutMs);
      const sub = vscode.window.onDidChangeTerminalShellIntegration((e) => {
        if (e.terminal === terminal) done();
      });
      signal.addEventListener('abort', done, { once: true });
      if (terminal.shellIntegration) done();
    });
  }

  private async execute(ft: ForgeTerminal, req: RunRequest, launchLine?: string): Promise<RunResult> {
    const integration = ft.terminal.shellIntegration!;
    const max = req.maxOutputChars ?? this.options.defaultMaxOutputChars ?? 20_000;
    const id = `cmd-${Date.now()}-${crypto.randomBytes(4).toString('hex')}`;
    const spool = new OutputSpool(max, this.spoolDir, id);
    // Run in the requested folder without relying on where the shell currently is.
    const here = integration.cwd?.fsPath;
    const commandLine = launchLine ?? (here === req.cwd ? req.command : `cd ${shellQuote(req.cwd)} && ${req.command}`);

    let exitCode: number | undefined;
    let finished = false;
    let resolveEnded!: () => void;
    const endedPromise = new Promise<void>((r) => (resolveEnded = r));
    const ended = () => {
      finished = true;
      resolveEnded();
    };
    let execution: vscode.TerminalShellExecution | undefined;
    const endSub = vscode.window.onDidEndTerminalShellExecution((e) => {
      if (e.execution === execution) {
        this.lastRunTimes.endedAt = Date.now();
        exitCode = e.exitCode;
        ended();
      }
    });
    let timedOut = false;
    let aborted = false;
    let killTimer: ReturnType<typeof setTimeout> | undefined;
    const interrupt = () => {
      ft.terminal.sendText('\x03', false); // Ctrl+C
      // If the command ignores SIGINT, kill the terminal (and its process tree). Keyed on the end event, not
      // the exit code (which the shell may not report): the terminal may be running the next command by then.
      killTimer ??= setTimeout(() => {
        if (!finished) {
          ft.terminal.dispose();
          ended();
        }
      }, 2000);
    };
    const timer = setTimeout(() => {
      timedOut = true;
      interrupt();
    }, req.timeoutMs);
    const onAbort = () => {
      aborted = true;
      interrupt();
    };
    req.signal.addEventListener('abort', onAbort, { once: true });
    try {
      execution = integration.executeCommand(commandLine);
      this.lastRunTimes = { sentAt: Date.now() };
      const reading = (async () => {
        let carry = '';
        for await (const raw of execution.read()) {
          const { text, rest } = cleanChunk(carry + raw);
          carry = rest;
          if (text) {
            spool.push(text);
            req.onOutput?.(text);
          }
        }
        const { text } = cleanChunk(carry, true);
        if (text) {
          spool.push(text);
          req.onOutput?.(text);
        }
      })().catch((err) => this.options.log?.warn(`terminal output capture failed: ${errorText(err)}`));
      await endedPromise;
      // The stream may lag the end event slightly; give it a moment to drain.
      await Promise.race([reading, new Promise((r) => setTimeout(r, 500))]);
    } finally {
      clearTimeout(timer);
      clearTimeout(killTimer);
      endSub.dispose();
      req.signal.removeEventListener('abort', onAbort);
      spool.close();
    }
    const killed = timedOut || aborted;
    return {
      exitCode: killed ? null : (exitCode ?? null),
      output: spool.text().replace(/^\n+/, ''),
      timedOut,
      ...(aborted ? { aborted: true } : {}),
      ...(spool.truncated ? { truncated: true, fullOutputRef: id } : {}),
      totalChars: spool.totalChars,
    };
  }

  private disposed = false;

  dispose(): void {
    this.disposed = true;
    for (const d of this.disposables) d.dispose();
    for (const t of this.terminals) t.terminal.dispose();
    this.terminals.length = 0;
  }
}

/** Strips escapes; holds back an incomplete escape sequence or trailing CR for the next chunk. */
function cleanChunk(s: string, final = false): { text: string; rest: string } {
  let rest = '';
  if (!final) {
    const esc = s.lastIndexOf('\x1b');
    if (esc >= 0 && stripAnsi(s.slice(esc)).includes('\x1b')) {
      rest = s.slice(esc);
      s = s.slice(0, esc);
    }
    if (s.endsWith('\r')) {
      rest = '\r' + rest;
      s = s.slice(0, -1);
    }
  }
  return { text: stripAnsi(s).replace(/\x1b/g, ''), rest };
}

function shellQuote(p: string): string {
  return `'${p.replace(/'/g, `'\\''`)}'`;
}

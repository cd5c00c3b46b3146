// CommandRunner that shows each command in a visible "Forge" terminal while another runner (the contained
// child-process runner) runs it. The terminal is a pseudo-terminal: no shell has to start, output and exit
// code come straight from the process (never lost to a shell-integration hiccup), and it opens at once even
// after the user closed it. Ctrl+C in it interrupts the command (SIGINT), as in a shell.
import * as vscode from 'vscode';
import {
  RUNNER_WITHOUT_SANDBOX,
  type CommandRunner,
  type Containment,
  type RunRequest,
  type RunResult,
} from '../../core/workspace/types';
import { formatElapsed, TerminalTextCleaner, visibleCommandLine } from '../../node/terminal-text';
import { errorText } from '../../core/error-text';

interface PtyCommandRunnerOptions {
  terminalName?: string;
  /** Characters of one command's output shown in the terminal; the rest is only counted (default 2,000,000). */
  displayCapChars?: number;
}

const DIM = '\x1b[2m';
const BOLD = '\x1b[1m';
const RESET = '\x1b[0m';
/** Output is handed to the terminal at most this often: one message to the workbench per burst, not per chunk. */
const FLUSH_MS = 8;
/** Characters kept for a terminal VS Code has not opened yet. */
const UNOPENED_KEEP = 256 * 1024;

/** One Forge terminal: the pseudo-terminal VS Code shows, and what it still has to write. */
class CommandTerminal implements vscode.Pseudoterminal {
  private readonly writes = new vscode.EventEmitter<string>();
  readonly onDidWrite = this.writes.event;
  /** Created on the first reveal(): VS Code and other extensions react to a new terminal in this same host. */
  terminal: vscode.Terminal | undefined;
  busy = false;
  closed = false;
  /** Set while a command runs: the user pressed Ctrl+C or closed the terminal. */
  onInterrupt: (() => void) | undefined;
  private opened = false;
  private pending = '';
  private flushTimer: ReturnType<typeof setTimeout> | undefined;
  private lastCwd: string | undefined;
  private cleaner = new TerminalTextCleaner();
  private shown = 0;
  private hidden = 0;
  private endsWithNewline = true;
  private inputHintShown = false;

  constructor(
    private readonly name: string,
    private readonly displayCap: number,
    private readonly onClosed: (t: CommandTerminal) => void,
  ) {
    this.write(`${DIM}Forge runs its commands here. Ctrl+C interrupts the running one.${RESET}\r\n`);
  }

  /** Shows the terminal (creating it the first time) without taking the user's focus. */
  reveal(): void {
    if (this.closed) return;
    this.terminal ??= vscode.window.createTerminal({
      name: this.name,
      pty: this,
      iconPath: new vscode.ThemeIcon('tools'),
      isTransient: true,
    });
    this.terminal.show(true);
  }

  open(): void {
    this.opened = true;
    this.flush();
  }

  close(): void {
    // Closing the terminal ends what runs in it, as closing a shell would.
    this.closed = true;
    clearTimeout(this.flushTimer);
    this.onInterrupt?.();
    this.onClosed(this);
  }

  handleInput(data: string): void {
    if (!this.busy) return;
    if (data.includes('\x03')) {
      this.write('^C');
      this.onInterrupt?.();
    } else if (!this.inputHintShown) {
      this.inputHintShown = true;
      this.write(
        `${this.endsWithNewline ? '' : '\r\n'}${DIM}(Typing is not passed to the command; Ctrl+C interrupts it.)${RESET}\r\n`,
      );
      this.endsWithNewline = true;
    }
  }

  begin(command: string, cwd: string): void {
    this.busy = true;
    this.cleaner = new TerminalTextCleaner();
    this.shown = 0;
    this.hidden = 0;
    this.inputHintShown = false;
    const where = cwd !== this.lastCwd ? `${DIM}${visibleCommandLine(cwd)}${RESET}\r\n` : '';
    this.lastCwd = cwd;
    this.write(`\r\n${where}${BOLD}$ ${visibleCommandLine(command)}${RESET}\r\n`);
    this.endsWithNewline = true;
  }

  output(chunk: string): void {
    const text = this.cleaner.push(chunk);
    this.show(text);
  }

  finish(summary: string): void {
    this.show(this.cleaner.end());
    const hidden = this.hidden
      ? `${DIM}[${this.hidden.toLocaleString('en-US')} more characters not shown here]${RESET}\r\n`
      : '';
    this.write(`${this.endsWithNewline ? '' : '\r\n'}${hidden}${summary}\r\n`);
    this.endsWithNewline = true;
    this.flush();
  }

  dispose(): void {
    clearTimeout(this.flushTimer);
    this.terminal?.dispose();
    this.writes.dispose();
  }

  private show(text: string): void {
    if (!text) return;
    const room = this.displayCap - this.shown;
    if (room <= 0) {
      this.hidden += text.length;
      return;
    }
    const part = text.length > room ? text.slice(0, room) : text;
    this.hidden += text.length - part.length;
    this.shown += part.length;
    this.endsWithNewline = part.endsWith('\n');
    this.write(part);
  }

  private write(text: string): void {
    if (this.closed) return;
    this.pending += text;
    // Until VS Code opens the terminal nothing is shown: keep the latest part only.
    if (!this.opened && this.pending.length > UNOPENED_KEEP * 2) this.pending = this.pending.slice(-UNOPENED_KEEP);
    if (this.opened && this.flushTimer === undefined) this.flushTimer = setTimeout(() => this.flush(), FLUSH_MS);
  }

  private flush(): void {
    clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    if (!this.opened || this.closed || !this.pending) return;
    const text = this.pending;
    this.pending = '';
    this.writes.fire(text);
  }
}

export class PtyCommandRunner implements CommandRunner, vscode.Disposable {
  private readonly terminals: CommandTerminal[] = [];
  /** Aborted on dispose (window reload or close): a running command ends with the window, as in a shell. */
  private readonly disposing = new AbortController();
  readonly readOutput?: CommandRunner['readOutput'];

  constructor(
    private readonly inner: CommandRunner,
    private readonly options: PtyCommandRunnerOptions = {},
  ) {
    if (inner.readOutput) this.readOutput = inner.readOutput.bind(inner);
  }

  containment(): Containment {
    return this.inner.containment?.() ?? RUNNER_WITHOUT_SANDBOX;
  }

  async run(req: RunRequest): Promise<RunResult> {
    if (req.signal.aborted) return { exitCode: null, output: '', timedOut: false, aborted: true };
    const term = this.acquire();
    term.begin(req.command, req.cwd);
    // The terminal is shown once the process started: a new terminal sets VS Code and other extensions in this
    // host working, which would otherwise delay the command's start.
    let revealed = false;
    const reveal = () => {
      if (revealed) return;
      revealed = true;
      term.reveal();
    };
    const interrupt = new AbortController();
    term.onInterrupt = () => interrupt.abort();
    const started = Date.now();
    try {
      const res = await this.inner.run({
        ...req,
        signal: AbortSignal.any([req.signal, this.disposing.signal]),
        onOutput: (text) => {
          term.output(text);
          req.onOutput?.(text);
        },
        userInterrupt: interrupt.signal,
        onStarted: (info) => {
          reveal();
          req.onStarted?.(info);
        },
      });
      reveal();
      // One figure for the terminal's end line and the tool's result (the panel's row shows the same).
      const elapsedMs = res.elapsedMs ?? Date.now() - started;
      term.finish(commandEndLine(res, elapsedMs));
      return { ...res, elapsedMs };
    } catch (e) {
      reveal();
      term.finish(`\x1b[31mCould not run the command: ${visibleCommandLine(errorText(e))}${RESET}`);
      throw e;
    } finally {
      term.onInterrupt = undefined;
      term.busy = false;
    }
  }

  /** An idle Forge terminal, or a new one (a second one while another command still runs). */
  private acquire(): CommandTerminal {
    const idle = this.terminals.find((t) => !t.busy && !t.closed);
    if (idle) {
      idle.busy = true;
      return idle;
    }
    const base = this.options.terminalName ?? 'Forge';
    const name = this.terminals.length === 0 ? base : `${base} (${this.terminals.length + 1})`;
    const term = new CommandTerminal(name, this.options.displayCapChars ?? 2_000_000, (t) => {
      const i = this.terminals.indexOf(t);
      if (i >= 0) this.terminals.splice(i, 1);
    });
    term.busy = true;
    this.terminals.push(term);
    return term;
  }

  dispose(): void {
    this.disposing.abort();
    for (const t of this.terminals.splice(0)) t.dispose();
  }
}

/** The last line of a command, coloured: how it ended and how long it took. */
function commandEndLine(res: RunResult, ms: number): string {
  const took = formatElapsed(ms);
  let how: string;
  if (res.sandboxFailed) how = '\x1b[31mnot run: the sandbox could not start';
  else if (res.timedOut) how = `\x1b[31mtimed out after ${took}; stopped`;
  else if (res.aborted) how = `\x1b[33mstopped after ${took}`;
  else if (res.interrupted)
    how = `\x1b[33minterrupted (Ctrl+C) after ${took}${res.exitCode !== null ? `, exit code ${res.exitCode}` : ''}`;
  else if (res.exitCode === null) how = `\x1b[31mkilled by ${res.signal ?? 'a signal'} after ${took}`;
  else how = `${res.exitCode === 0 ? '\x1b[32m' : '\x1b[31m'}exit code ${res.exitCode} · ${took}`;
  const blocked = res.containment?.blocked?.length
    ? ` · the sandbox blocked ${visibleCommandLine(res.containment.blocked.join('; '))}`
    : '';
  // Not dimmed: dim colours are hard to read in high-contrast themes.
  return `${how}${blocked}${RESET}`;
}

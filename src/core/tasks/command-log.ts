// Commands as side effects (docs/DESIGN-durability.md): a `start` line is durable before the command runs, its
// output is appended to a side file while it runs, and an `end` line records the outcome. A start without an end
// is a command a crash cut off: the restore reports it with its output so far instead of "interrupted".
// Layout under `dir`: commands/<task stem>.jsonl and commands/<task stem>/<call stem>.out.
import * as path from 'node:path';
import { safeFileStem, type TasksIO } from './io';
import { errorText } from '../error-text';

interface CommandStart {
  toolCallId: string;
  command: string;
  cwd: string;
  /** Set when the call is a tool with effects outside Forge (an MCP tool), not a shell command. */
  tool?: ExternalCall;
}

/** A tool call whose effects Forge cannot see (an MCP server's tool): what a restore can say about it. */
export interface ExternalCall {
  name: string;
  server?: string;
  /** Its arguments as JSON (shortened). */
  args: string;
}

/** A command that started and never recorded an end (a crash, a reload). */
interface InterruptedCommand extends CommandStart {
  taskId: string;
  startedAt: number;
  /** The last part of what it printed before the crash ('' when nothing). */
  outputTail: string;
  /** Characters captured in total (capped at the output limit). */
  outputChars: number;
  /** The process Forge started for it (when the runner said), to look for after the restart. */
  pid?: number;
}

interface CommandHandle {
  /** Buffers a chunk of output; written in batches (a crash loses at most the last batch). */
  output(chunk: string): void;
  /** Records the process id once the command started (appended off the command's path). */
  started(pid: number): void;
  /** Records the outcome and flushes the output. Never rejects (a failure is logged). */
  end(outcome: { exitCode: number | null; timedOut?: boolean; aborted?: boolean }): Promise<void>;
}

interface CommandLogOptions {
  /** Disk access: src/node/tasks-io.ts in the extension and the CLI. */
  io: TasksIO;
  log?: (m: string) => void;
  now?: () => number;
  /** Output characters kept per command (default 256 KiB). */
  maxOutputChars?: number;
  /** Output batching interval (default 500 ms). */
  flushMs?: number;
}

type StartLine = { k: 'start'; toolCallId: string; command: string; cwd: string; at: number; tool?: ExternalCall };
type PidLine = { k: 'pid'; toolCallId: string; at: number; pid: number };
type EndLine = {
  k: 'end';
  toolCallId: string;
  at: number;
  exitCode?: number | null;
  timedOut?: boolean;
  aborted?: boolean;
  reported?: boolean;
};

const TAIL_CHARS = 4000;

export class CommandLog {
  private readonly io: TasksIO;
  private readonly log: (m: string) => void;
  private readonly now: () => number;
  private readonly maxOutput: number;
  private readonly flushMs: number;

  constructor(
    private readonly dir: string,
    opts: CommandLogOptions,
  ) {
    this.io = opts.io;
    this.log = opts.log ?? (() => undefined);
    this.now = opts.now ?? Date.now;
    this.maxOutput = opts.maxOutputChars ?? 256 * 1024;
    this.flushMs = opts.flushMs ?? 500;
  }

  /** Intent: durable before the command runs. Rejects when it cannot be written (the caller decides). */
  async start(taskId: string, start: CommandStart): Promise<CommandHandle> {
    const line: StartLine = {
      k: 'start',
      toolCallId: start.toolCallId,
      command: start.command,
      cwd: start.cwd,
      at: this.now(),
      ...(start.tool ? { tool: start.tool } : {}),
    };
    await this.io.append(this.logFile(taskId), `\n${JSON.stringify(line)}\n`);
    const outFile = this.outputFile(taskId, start.toolCallId);
    let buffered = '';
    let written = 0;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let chain: Promise<void> = Promise.resolve();
    const flush = () => {
      timer = undefined;
      if (!buffered) return chain;
      const text = buffered;
      buffered = '';
      chain = chain
        .then(() => this.io.append(outFile, text))
        .catch((err) => this.log(`[commands] cannot write output of ${start.toolCallId}: ${errorText(err)}`));
      return chain;
    };
    return {
      started: (pid) => {
        const pidLine: PidLine = { k: 'pid', toolCallId: start.toolCallId, at: this.now(), pid };
        chain = chain
          .then(() => this.io.append(this.logFile(taskId), `${JSON.stringify(pidLine)}\n`))
          .catch((err) => this.log(`[commands] cannot record the process of ${start.toolCallId}: ${errorText(err)}`));
      },
      output: (chunk) => {
        const room = this.maxOutput - written;
        if (room <= 0) return;
        const part = chunk.slice(0, room);
        written += part.length;
        buffered += part;
        if (!timer) {
          timer = setTimeout(flush, this.flushMs);
          (timer as { unref?: () => void }).unref?.();
        }
      },
      end: async (outcome) => {
        if (timer) clearTimeout(timer);
        await flush();
        const endLine: EndLine = { k: 'end', toolCallId: start.toolCallId, at: this.now(), exitCode: outcome.exitCode };
        if (outcome.timedOut) endLine.timedOut = true;
        if (outcome.aborted) endLine.aborted = true;
        await this.io
          .append(this.logFile(taskId), `${JSON.stringify(endLine)}\n`)
          .catch((err) => this.log(`[commands] cannot record the end of ${start.toolCallId}: ${errorText(err)}`));
      },
    };
  }

  /** Commands of the task that started and never ended (and were not reported yet), oldest first. */
  async interrupted(taskId: string): Promise<InterruptedCommand[]> {
    const text = await this.io.read(this.logFile(taskId)).catch(() => undefined);
    if (!text) return [];
    const open = new Map<string, StartLine>();
    const pids = new Map<string, number>();
    for (const raw of text.split('\n')) {
      const line = parse(raw);
      if (line?.k === 'start') open.set(line.toolCallId, line);
      else if (line?.k === 'pid') pids.set(line.toolCallId, line.pid);
      else if (line?.k === 'end') open.delete(line.toolCallId);
    }
    const out: InterruptedCommand[] = [];
    for (const s of open.values()) {
      const output = (await this.io.read(this.outputFile(taskId, s.toolCallId)).catch(() => undefined)) ?? '';
      out.push({
        taskId,
        toolCallId: s.toolCallId,
        command: s.command,
        cwd: s.cwd,
        startedAt: s.at,
        outputTail: output.slice(-TAIL_CHARS),
        outputChars: output.length,
        ...(pids.has(s.toolCallId) ? { pid: pids.get(s.toolCallId) } : {}),
        ...(s.tool ? { tool: s.tool } : {}),
      });
    }
    return out.sort((a, b) => a.startedAt - b.startedAt);
  }

  /** Closes an interrupted command after the restore told the model about it (so it is reported once). */
  async markReported(taskId: string, toolCallId: string): Promise<void> {
    const line: EndLine = { k: 'end', toolCallId, at: this.now(), reported: true };
    await this.io.append(this.logFile(taskId), `${JSON.stringify(line)}\n`);
  }

  /** Drops the task's records (it left the history). */
  async removeTask(taskId: string): Promise<void> {
    const stem = safeFileStem(taskId);
    await this.io.remove(this.logFile(taskId));
    for (const name of await this.io.list(path.join(this.dir, stem)))
      await this.io.remove(path.join(this.dir, stem, name));
  }

  private logFile(taskId: string): string {
    return path.join(this.dir, `${safeFileStem(taskId)}.jsonl`);
  }

  private outputFile(taskId: string, toolCallId: string): string {
    return path.join(this.dir, safeFileStem(taskId), `${safeFileStem(toolCallId)}.out`);
  }
}

function parse(raw: string): StartLine | PidLine | EndLine | undefined {
  if (!raw.trim()) return undefined;
  try {
    const v = JSON.parse(raw) as Record<string, unknown> | null;
    if (!v || typeof v.toolCallId !== 'string' || typeof v.at !== 'number') return undefined;
    if (v.k === 'start' && typeof v.command === 'string' && typeof v.cwd === 'string') return v as unknown as StartLine;
    if (v.k === 'end') return v as unknown as EndLine;
    if (v.k === 'pid' && Number.isInteger(v.pid) && (v.pid as number) > 0) return v as unknown as PidLine;
    return undefined;
  } catch {
    return undefined; // a torn line (crash mid-append)
  }
}

// `forge`: parse, wire the core (runtime.ts), run one task to its end, save it, exit with a code that says
// how it ended. SIGINT / SIGTERM stop the run gracefully (the task is saved and `--continue` resumes it); a
// second SIGINT exits at once.
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import * as readline from 'node:readline';
import type { Agent } from '../core/loop/agent';
import type { AgentEvent, RunReport } from '../core/loop/events';
import type { AgentSnapshot } from '../core/tasks/snapshot';
import type { TaskRecord } from '../core/tasks/task-store';
import { apiKeyFor, parseArgs, USAGE, UsageError, type CliOptions } from './args';
import { CliApprover, makeStyle, type AskLine } from './approvals';
import { loadCliImages } from './images';
import { CliTaskImages, cliImageStore } from './task-images';
import { EXIT, exitCodeFor, jsonLine, JsonLinesWriter, ProgressPrinter } from './output';
import { plain } from './terminal-safe';
import { InputError, jsonInputs } from './json-input';
import { loadOutputSchema, type OutputSchema } from './output-schema';
import { commitTaskWork, createTaskWorktree, repoRoot, taskChanges, type TaskWorktree } from '../node/worktrees';
import { createRuntime, openTaskStore, recordOf, resolveRoot, TASKS_DIR, worktreeOf, type TaskMeta } from './runtime';
import { errorText } from '../core/error-text';
import { noun, plural } from '../core/plural';

declare const __FORGE_VERSION__: string | undefined;

interface CliIO {
  stdin: NodeJS.ReadStream;
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WriteStream;
  env: NodeJS.ProcessEnv;
}

/** Replaces every occurrence of the secrets in text written anywhere (an SDK error could echo a key). */
function redactor(secrets: (string | undefined)[]): (s: string) => string {
  const list = secrets.filter((s): s is string => !!s && s.length >= 6);
  return (s) => list.reduce((acc, k) => acc.split(k).join('***'), s);
}

function makeAsk(stdin: NodeJS.ReadStream, stderr: NodeJS.WriteStream): AskLine {
  return (prompt, signal) =>
    new Promise((resolve) => {
      if (signal.aborted) return resolve(undefined);
      const rl = readline.createInterface({ input: stdin, output: stderr, terminal: true });
      let settled = false;
      const done = (v: string | undefined) => {
        if (settled) return;
        settled = true;
        signal.removeEventListener('abort', onAbort);
        rl.close();
        resolve(v);
      };
      const onAbort = () => done(undefined);
      signal.addEventListener('abort', onAbort, { once: true });
      // readline swallows Ctrl+C while it reads: hand it to the process handler (stop, then exit).
      rl.on('SIGINT', () => process.kill(process.pid, 'SIGINT'));
      rl.on('close', () => done(undefined));
      rl.question(plain(prompt), (a) => done(a));
    });
}

/** A question whose answer is not echoed (an MCP server's secret input). */
function makeAskHidden(
  stdin: NodeJS.ReadStream,
  stderr: NodeJS.WriteStream,
): (prompt: string) => Promise<string | undefined> {
  return (prompt) =>
    new Promise((resolve) => {
      stderr.write(plain(prompt));
      const wasRaw = stdin.isRaw;
      stdin.setRawMode(true);
      stdin.setEncoding('utf8');
      stdin.resume();
      let value = '';
      const finish = (v: string | undefined) => {
        stdin.off('data', onData);
        stdin.setRawMode(wasRaw);
        stdin.pause();
        stderr.write('\n');
        resolve(v);
      };
      const onData = (chunk: string) => {
        for (const ch of chunk) {
          if (ch === '\r' || ch === '\n') return finish(value);
          if (ch === '\u0003') {
            finish(undefined);
            process.kill(process.pid, 'SIGINT');
            return;
          }
          if (ch === '\u007f' || ch === '\b') value = value.slice(0, -1);
          else if (ch >= ' ') value += ch;
        }
      };
      stdin.on('data', onData);
    });
}

export async function main(argv: readonly string[], io: CliIO): Promise<number> {
  let opts: CliOptions;
  try {
    opts = parseArgs(argv, io.env);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    io.stderr.write(`forge: ${err.message}\nRun forge --help for the options.\n`);
    return EXIT.usage;
  }
  if (opts.command === 'help') {
    io.stdout.write(`${USAGE}\n`);
    return EXIT.done;
  }
  if (opts.command === 'version') {
    io.stdout.write(`${typeof __FORGE_VERSION__ === 'string' ? __FORGE_VERSION__ : 'dev'}\n`);
    return EXIT.done;
  }
  const secrets = [
    apiKeyFor(opts.provider, io.env),
    io.env.OPENAI_API_KEY,
    io.env.ANTHROPIC_API_KEY,
    io.env.FORGE_API_KEY,
  ];
  const redact = redactor(secrets);
  const err = (s: string) => io.stderr.write(redact(s));
  const out = (s: string) => io.stdout.write(redact(s));
  const style = makeStyle(opts.color ?? (!!io.stderr.isTTY && !io.env.NO_COLOR));
  // Log lines carry MCP servers' and tools' words: no terminal controls from them.
  const log = {
    info: (m: string) => err(`${style.dim(plain(m))}\n`),
    warn: (m: string) => err(`${style.yellow(`warning: ${plain(m)}`)}\n`),
    debug: (m: string) => (opts.verbose ? err(`${style.dim(plain(m))}\n`) : undefined),
  };
  try {
    if (opts.command === 'tasks') return await listTasks(opts, out, log);
    return await runTask(opts, io, { err, out, style, log, secrets });
  } catch (e) {
    err(`${style.red('forge: error:')} ${plain(errorText(e))}\n`);
    return e instanceof InputError ? EXIT.usage : EXIT.error;
  }
}

async function listTasks(opts: CliOptions, out: (s: string) => void, log: { debug(m: string): void }): Promise<number> {
  const store = await openTaskStore(await resolveRoot(opts.cwd), (m) => log.debug(m));
  const tasks = await store.list();
  if (opts.json) for (const t of tasks) out(jsonLine(t));
  // Task records live in the workspace (a repository could plant one): their words are printed plain.
  else
    for (const t of tasks)
      out(`${plain(t.id)}  ${plain(t.status).padEnd(14)} ${new Date(t.updatedAt).toISOString()}  ${plain(t.title)}\n`);
  return EXIT.done;
}

interface Sinks {
  err(s: string): void;
  out(s: string): void;
  style: ReturnType<typeof makeStyle>;
  log: { info(m: string): void; warn(m: string): void; debug(m: string): void };
  /** Known secrets, masked in streamed text across deltas. */
  secrets: (string | undefined)[];
}

async function readPrompt(file: string, stdin: NodeJS.ReadStream): Promise<string> {
  let text: string;
  if (file === '-') {
    const parts: Buffer[] = [];
    for await (const chunk of stdin) parts.push(Buffer.from(chunk));
    text = Buffer.concat(parts).toString('utf8');
  } else text = await fsp.readFile(file, 'utf8');
  if (!text.trim()) throw new Error(`--prompt-file ${file}: no task text`);
  return text.trim();
}

async function runTask(opts: CliOptions, io: CliIO, sinks: Sinks): Promise<number> {
  const { err, out, style, log, secrets } = sinks;
  if (opts.promptFile) opts = { ...opts, task: await readPrompt(opts.promptFile, io.stdin) };
  const schema = opts.outputSchema ? await loadOutputSchema(opts.outputSchema) : undefined;
  // --input-format json: the first line is the task (or the message a --continue resumes with), the rest follow.
  const inputs = opts.inputFormat === 'json' ? jsonInputs(io.stdin) : undefined;
  if (inputs) {
    const first = await inputs.next();
    if (first.done && !opts.continueLast && !opts.taskId)
      throw new InputError('--input-format json: no message on stdin');
    if (!first.done) opts = { ...opts, task: first.value };
  }
  const root = await resolveRoot(opts.cwd);
  const store = await openTaskStore(root, (m) => log.debug(m));
  // Images by hash beside the records, as in the extension (cli/task-images.ts).
  const taskImages = new CliTaskImages(cliImageStore(path.join(root, TASKS_DIR), (m) => log.debug(m)));
  let previous: TaskRecord | undefined;
  if (opts.continueLast || opts.taskId) {
    const id = opts.taskId ?? (await store.list())[0]?.id;
    previous = id ? await store.load(id) : undefined;
    const missing = previous ? await taskImages.fill(previous) : 0;
    if (missing)
      log.warn(
        `task ${previous!.id}: ${plural(missing, 'image')} ${noun(missing, 'is', 'are')} no longer in ${TASKS_DIR}`,
      );
    if (!previous)
      throw new Error(
        opts.taskId
          ? `no task ${opts.taskId} in ${path.join(root, TASKS_DIR)}`
          : `no task to continue in ${path.join(root, TASKS_DIR)}`,
      );
    if (!opts.task && (previous.status === 'done' || previous.status === 'converse' || previous.status === 'asked')) {
      throw new Error(
        `task ${previous.id} ended ${previous.status} and waits for a message: forge run --continue "your answer or next step"`,
      );
    }
  }
  const title = previous?.title ?? titleOf(opts.task ?? '');
  let worktree = worktreeOf(previous);
  if (worktree && !(await fsp.stat(worktree.path).catch(() => undefined)))
    throw new Error(`task ${previous!.id} worked in ${worktree.path} (branch ${worktree.branch}), which is gone`);
  if (!worktree && opts.worktree && !previous) {
    if (!(await repoRoot(root))) throw new Error('--worktree needs a git repository');
    worktree = await createTaskWorktree(root, title, { baseDir: await worktreesDir(root) });
    log.info(`working in ${worktree.path} on branch ${worktree.branch}`);
  }
  // --continue keeps the limit the task ran with (stored with it) unless --max-iterations gives another: a task
  // stopped at its limit of 3 gets 3 more, not the mode's default.
  const limit = opts.maxIterations ?? storedLimit(previous);
  opts = { ...opts, maxIterations: limit };
  const interactive = !inputs && !!io.stdin.isTTY && !!io.stderr.isTTY;
  const askLine = interactive ? makeAsk(io.stdin, io.stderr) : undefined;
  const askHidden = interactive ? makeAskHidden(io.stdin, io.stderr) : undefined;
  const never = new AbortController().signal;
  const rt = await createRuntime(
    opts,
    log,
    { root, store, workspace: worktree?.path ?? root },
    {
      env: io.env,
      ...(askLine && askHidden
        ? { ask: (prompt: string, secret: boolean) => (secret ? askHidden(prompt) : askLine(prompt, never)) }
        : {}),
    },
  );
  try {
    const progress = new ProgressPrinter({ write: err, style, verbose: opts.verbose, secrets });
    const json = opts.json ? new JsonLinesWriter(out, secrets) : undefined;
    let agent: Agent | undefined;
    const approver = new CliApprover({
      policy: opts.approve,
      ask: askLine,
      say: (line) => progress.line(line),
      style,
      onQuit: () => agent?.stop(),
    });
    const snapshot = previous?.snapshot as AgentSnapshot | undefined;
    // Task records live in the workspace, where a repository could plant one: "always" grants are never taken
    // from disk (they are asked again, or covered by this run's --approve policy).
    if (snapshot?.allowedForTask?.length) {
      log.info(
        `"always for this task" grants are not carried over a restart (${snapshot.allowedForTask.join(', ')}): they will be asked again`,
      );
      snapshot.allowedForTask = [];
    }
    agent = rt.makeAgent(approver, snapshot);
    const meta: TaskMeta = {
      title,
      createdAt: previous?.createdAt ?? Date.now(),
      status: 'running',
      ...(worktree ? { worktree } : {}),
      ...(limit ? { maxIterations: limit } : {}),
    };
    // One save after another: a later record never lands before an earlier one still writing its images.
    let saving: Promise<void> = Promise.resolve();
    const save = () =>
      (saving = saving.then(() =>
        taskImages
          .strip(recordOf(agent!, meta))
          .then((r) => rt.store.save(r))
          .catch((e) => log.warn(`could not save the task: ${errorText(e)}`)),
      ));
    agent.on((e: AgentEvent) => {
      json?.on(e);
      progress.on(e);
      if (e.type === 'run_start' || e.type === 'step_end' || e.type === 'approval_requested') void save();
    });
    const rules = rt.rules.baseSources();
    if (rules.length) log.debug(`project rules: ${rules.map((r) => r.display).join(', ')}`);
    // What the user typed, as the model gets it: `/command args` expanded as the panel does; the schema's ask.
    const prepare = async (text: string): Promise<string> => {
      const input = await rt.expand(text);
      if (input.kind === 'unknown') throw new InputError(input.message);
      if (input.kind === 'builtin')
        throw new InputError(
          `/${input.name} is a command of the Forge panel; on the command line use the flags instead (forge --help)`,
        );
      if (input.kind === 'prompt') log.info(`/${input.name}: expanded from .forge/commands`);
      return schema ? `${input.text}\n\n${schema.instruction}` : input.text;
    };
    const firstMessage = opts.task ? await prepare(opts.task) : undefined;
    const images = await loadCliImages(opts.images, opts.cwd, rt.model.info);
    if (images.length && firstMessage === undefined) throw new InputError('--image goes with a task or a message');

    let stops = 0;
    const onSignal = (sig: NodeJS.Signals) => {
      stops++;
      if (stops === 1 || sig === 'SIGTERM') {
        progress.line(
          style.yellow(
            `forge: ${sig}: stopping; the task is saved and resumes with forge run --continue (Ctrl+C again to quit now)`,
          ),
        );
        agent!.stop();
        return;
      }
      progress.line(style.red('forge: quitting without waiting'));
      process.exit(130);
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
    let report: RunReport | undefined;
    let output: { value: unknown } | undefined;
    try {
      if (firstMessage !== undefined) report = await agent.send(firstMessage, images);
      else report = (await agent.resumePending()) ?? (await agent.continueRun(limit));
      if (inputs)
        for await (const next of inputs) {
          if (report.reason === 'stopped' || report.reason === 'error') break;
          meta.status = report.reason;
          await save();
          report = await agent.send(await prepare(next));
        }
      if (schema && report.reason === 'done') {
        const checked = await checkOutput(agent, report, schema, progress, style);
        report = checked.report;
        if (checked.ok) output = { value: checked.value };
        else json?.on({ type: 'output_invalid', errors: checked.errors } as never);
      }
    } finally {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    }
    meta.status = report.reason;
    await save();
    await rt.store.flush();
    if (opts.reportFile) {
      await fsp.mkdir(path.dirname(path.resolve(opts.reportFile)), { recursive: true });
      await fsp.writeFile(opts.reportFile, JSON.stringify({ task: meta.title, ...report }, null, 2));
    }
    if (worktree) await reportWorktree(worktree, title, report, progress, style);
    const code = schema && report.reason === 'done' && !output ? EXIT.invalidOutput : exitCodeFor(report);
    if (code !== EXIT.done)
      progress.line(
        style.dim(
          `task ${report.taskId} saved; resume with: forge run --continue${opts.cwd !== process.cwd() ? ` --cwd ${opts.cwd}` : ''}`,
        ),
      );
    json?.flush();
    progress.endStreams();
    if (opts.json)
      out(
        jsonLine({
          type: 'cli_exit',
          code,
          reason: report.reason,
          taskId: report.taskId,
          ...(worktree ? { worktree: { path: worktree.path, branch: worktree.branch } } : {}),
          ...(output ? { output: output.value } : {}),
          report,
        }),
      );
    return code;
  } finally {
    await rt.dispose();
  }
}

/** --worktree folders: .forge/worktrees in the user's folder, git-ignored (a .gitignore of its own). */
async function worktreesDir(root: string): Promise<string> {
  const dir = path.join(root, '.forge', 'worktrees');
  await fsp.mkdir(dir, { recursive: true });
  await fsp
    .writeFile(path.join(dir, '.gitignore'), '# Forge task worktrees (forge run --worktree)\n*\n', { flag: 'wx' })
    .catch(() => undefined);
  return dir;
}

/** Commits the task's work on its branch and says how to look at it, take it, or drop it. */
async function reportWorktree(
  wt: TaskWorktree,
  title: string,
  report: RunReport,
  progress: ProgressPrinter,
  style: ReturnType<typeof makeStyle>,
): Promise<void> {
  await commitTaskWork(wt, `forge: ${title}\n\n${report.reason}: ${report.detail}`.slice(0, 4000));
  const changes = await taskChanges(wt);
  // File names are the repository's (and the branch is named after the task): printed plain.
  const branch = plain(wt.branch);
  const where = plain(wt.path);
  progress.line(
    `${style.bold('forge:')} ${plural(changes.length, 'file')} changed on branch ${style.cyan(branch)} (${where})`,
  );
  for (const c of changes.slice(0, 20)) progress.line(style.dim(`  ${plain(c.status).padEnd(8)} ${plain(c.path)}`));
  progress.line(
    style.dim(
      `  review: git diff ${plain(wt.base.slice(0, 12))} ${branch}   take: git merge ${branch}   drop: git worktree remove --force ${where} && git branch -D ${branch}`,
    ),
  );
}

/**
 * Validates the final result against --output-schema; a result that does not fit goes back to the model once with
 * the problems (a second done run is checked again).
 */
async function checkOutput(
  agent: Agent,
  first: RunReport,
  schema: OutputSchema,
  progress: ProgressPrinter,
  style: ReturnType<typeof makeStyle>,
): Promise<{ report: RunReport } & ({ ok: true; value: unknown } | { ok: false; errors: string[] })> {
  let report = first;
  let checked = schema.check(report.detail);
  if (!checked.ok) {
    progress.line(style.yellow(`forge: the result does not fit --output-schema: ${checked.errors.join('; ')}`));
    report = await agent.send(
      `The result is not valid against the required JSON Schema: ${checked.errors.join('; ')}. ` +
        'Call task_completion again with only the corrected JSON value as `result`.',
    );
    if (report.reason !== 'done') return { report, ok: false, errors: checked.errors };
    checked = schema.check(report.detail);
  }
  if (!checked.ok)
    progress.line(style.red(`forge: the result does not fit --output-schema: ${checked.errors.join('; ')}`));
  return { report, ...checked };
}

/** The iteration limit a stored task ran with (records are untrusted input: checked). */
function storedLimit(record: TaskRecord | undefined): number | undefined {
  const n = (record as { maxIterations?: unknown } | undefined)?.maxIterations;
  return typeof n === 'number' && Number.isInteger(n) && n >= 1 && n <= 10_000 ? n : undefined;
}

function titleOf(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > 80 ? `${line.slice(0, 77)}...` : line || 'Task';
}

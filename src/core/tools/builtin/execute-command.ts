import * as z from 'zod';
import { checkCommand, DEFAULT_COMMAND_RULES, type CommandRules, type CommandVerdict } from '../../safety/commands';
import type { WorkspaceSandbox } from '../../safety/paths';
import type { CommandCheckOptions } from '../../safety/command-rules';
import type { CommandFileChange, CommandRunner, Containment } from '../../workspace/types';
import type { ApprovalPreview, PreparedCall, Tool, ToolResult } from '../types';
import { errorResult, formatBytes, resolveOrRefuse } from './common';
import { unhiddenSecretsCall } from '../../safety/sensitive';

export const COMMAND_DEFAULT_TIMEOUT_S = 120;
const COMMAND_MAX_TIMEOUT_S = 3600;
const COMMAND_OUTPUT_CHARS = 16_000;

// Only these fields exist: extra keys a model adds (e.g. "safe": true) are stripped by zod and never read.
const executeCommandInput = z.object({
  command: z
    .string()
    .min(1)
    .describe('Shell command line to run (sh on Unix, cmd/PowerShell default shell on Windows).'),
  cwd: z.string().optional().describe('Working folder relative to the workspace root. Default: the root.'),
  timeoutSeconds: z
    .number()
    .int()
    .min(1)
    .max(COMMAND_MAX_TIMEOUT_S)
    .optional()
    .describe(
      `Kill the command after this long. Default: the user setting (${COMMAND_DEFAULT_TIMEOUT_S} unless changed).`,
    ),
});

const untrustedRefusal = () =>
  errorResult(
    'Refused: this workspace is not trusted, so Forge cannot run commands. Ask the user to trust the workspace.',
    { refused: 'untrusted' },
  );

const UNCONTAINED: Containment = { kind: 'none', network: 'on', summary: 'no sandbox' };

/** Command verdicts remembered per tool set (the last few command lines). */
const VERDICTS_KEPT = 32;

export function createExecuteCommandTool(
  sandbox: WorkspaceSandbox,
  runner: CommandRunner,
  rules: CommandRules = DEFAULT_COMMAND_RULES,
  opts: { defaultTimeoutSeconds?: number; home?: string } = {},
): Tool<typeof executeCommandInput> {
  const defaultTimeoutS = opts.defaultTimeoutSeconds ?? COMMAND_DEFAULT_TIMEOUT_S;
  const containment = () => runner.containment?.() ?? UNCONTAINED;
  // The rules know whether an OS sandbox contains the command: without one only read-only forms run unasked.
  // One command line is checked for its policy, preview and grant and again before it runs: parse it once (the shell
  // parser costs 5-30 ms a line). The rules are fixed for this tool; everything else that decides is in the key.
  const verdicts = new Map<string, CommandVerdict>();
  const check = (command: string, grants?: ReadonlySet<string>) => {
    // A sandbox whose secret scan did not finish may leave a secret readable: the rules then judge as without one.
    const c = containment();
    const options: CommandCheckOptions = {
      sandboxed: c.kind !== 'none' && !c.secretScan,
      grants,
      roots: sandbox.roots(),
      home: opts.home,
    };
    const key = JSON.stringify([command, options.sandboxed, options.roots, grants ? [...grants].sort() : null]);
    let verdict = verdicts.get(key);
    if (!verdict) {
      verdict = checkCommand(command, rules, options);
      verdicts.set(key, verdict);
      if (verdicts.size > VERDICTS_KEPT) verdicts.delete(verdicts.keys().next().value!);
    }
    return verdict;
  };
  const resolveCwd = async (cwd: string | undefined) => {
    const r = await resolveOrRefuse(sandbox, cwd ?? '.', 'list');
    if (!r.ok) return r;
    const st = await sandbox.fs.stat(r.path.abs);
    if (st?.type !== 'dir')
      return { ok: false as const, result: errorResult(`cwd ${cwd} is not a folder in the workspace.`) };
    return r;
  };
  return {
    name: 'execute_command',
    description:
      'Run a shell command in the workspace and get its exit code and output (long output is shortened to its ' +
      'start and end; the full text can be paged with read_command_output). Non-interactive: stdin is closed, so ' +
      'pass flags like --yes / --no-watch. Dangerous commands are refused; the user approves others.',
    input: executeCommandInput,
    risk: 'execute',
    async prepare(input): Promise<PreparedCall> {
      if (!sandbox.trusted) return { kind: 'refuse', result: untrustedRefusal() };
      // "Always for this task" grants the command's programs and subcommands only (e.g. "git commit"), never
      // every later command; a command with a hazard (secret, environment, redirection) grants nothing.
      const grantKeys = check(input.command).grantKeys ?? [];
      const c = containment();
      return {
        kind: 'ready',
        // The parsed command line decides, never the model's claim: allow-listed commands run without a question,
        // denied ones are refused before any approval is asked; everything else follows the execute policy.
        policyHint: (grants) => {
          const verdict = check(input.command, grants);
          const where = verdict.part && !verdict.reason.includes(verdict.part) ? ` (in \`${verdict.part}\`)` : '';
          if (verdict.action === 'deny') return { action: 'deny', reason: `${verdict.reason}${where}` };
          if (verdict.action === 'ask') return undefined;
          return { action: verdict.action, reason: `${verdict.reason}${where}` };
        },
        grantKeys,
        // Fails closed: while a secret may be unmasked nothing runs without a person, allow list and settings included.
        ...(c.kind !== 'none' && c.secretScan ? { sensitive: unhiddenSecretsCall(input.command, c.secretScan) } : {}),
        preview: async (): Promise<ApprovalPreview> => {
          const now = containment();
          return {
            kind: 'command',
            command: input.command,
            cwd: input.cwd,
            ...(grantKeys.length > 0 ? { grant: grantKeys.join(', ') } : {}),
            containment:
              now.kind === 'none'
                ? `Runs WITHOUT a sandbox, with your full rights${now.reason ? ` (${now.reason})` : ''}`
                : `Runs contained (${now.summary})`,
          };
        },
      };
    },
    async execute(input, ctx): Promise<ToolResult> {
      if (!sandbox.trusted) return untrustedRefusal();
      const verdict = check(input.command);
      if (verdict.action === 'deny') {
        return errorResult(
          `Refused: ${verdict.reason}${verdict.part && !verdict.reason.includes(verdict.part) ? ` (in \`${verdict.part}\`)` : ''} The command was not run.`,
          { refused: 'command-rule', verdict: { action: verdict.action, reason: verdict.reason, part: verdict.part } },
        );
      }
      const cwd = await resolveCwd(input.cwd);
      if (!cwd.ok) return cwd.result;
      const timeoutS = input.timeoutSeconds ?? defaultTimeoutS;
      const started = Date.now();
      const res = await runner.run({
        command: input.command,
        cwd: cwd.path.abs,
        timeoutMs: timeoutS * 1000,
        signal: ctx.signal,
        onOutput: ctx.onProgress,
        maxOutputChars: COMMAND_OUTPUT_CHARS,
        taskId: ctx.taskId,
        toolCallId: ctx.toolCallId,
      });
      if (res.sandboxFailed) {
        return errorResult(
          `${res.output}\nThe command was NOT run. Tell the user; do not try to work around the sandbox.`,
          { sandboxFailed: true },
        );
      }
      // The runner's own measure when it has one (the Forge terminal's end line shows the same figure).
      const elapsedMs = Math.max(0, Math.round(res.elapsedMs ?? Date.now() - started));
      const seconds = (elapsedMs / 1000).toFixed(1);
      const lines: string[] = [`$ ${input.command}`];
      if (res.timedOut)
        lines.push(
          `Timed out after ${timeoutS} s; the process was killed. Use a longer timeoutSeconds or a non-watching variant of the command.`,
        );
      else if (res.aborted) lines.push('Stopped by the user before it finished.');
      else if (res.interrupted)
        lines.push(
          `Interrupted by the user with Ctrl+C in the terminal after ${seconds} s${res.exitCode !== null ? ` (exit code ${res.exitCode})` : ''}.`,
        );
      else if (res.exitCode === null) lines.push(`Killed by signal ${res.signal ?? 'unknown'} after ${seconds} s.`);
      else lines.push(`Exit code: ${res.exitCode} (${seconds} s)`);
      lines.push(res.output.trim() ? res.output.replace(/\s+$/, '') : '(no output)');
      const contained = res.containment ?? { contained: false, summary: containment().summary };
      lines.push(contained.contained ? `[Ran contained: ${contained.summary}.]` : `[Ran without a sandbox.]`);
      if (res.fileChanges?.length)
        lines.push(`[Files the command changed: ${describeChanges(res.fileChanges, sandbox.roots())}.]`);
      if (contained.blocked?.length)
        lines.push(
          `[The sandbox blocked ${contained.blocked.join('; ')}. If the task needs this, explain it to the user instead of working around it.]`,
        );
      if (res.truncated) {
        const size = res.totalChars !== undefined ? ` (${formatBytes(res.totalChars)} in total)` : '';
        lines.push(
          res.fullOutputRef
            ? `[Output shortened${size}. Page the full output with read_command_output ref="${res.fullOutputRef}".]`
            : `[Output shortened${size}; the middle was dropped.]`,
        );
      }
      return {
        content: lines.join('\n'),
        isError: res.timedOut || undefined,
        effects: { command: input.command },
        data: {
          exitCode: res.exitCode,
          contained: contained.contained,
          blocked: contained.blocked ?? [],
          timedOut: res.timedOut,
          aborted: res.aborted ?? false,
          interrupted: res.interrupted ?? false,
          truncated: res.truncated ?? false,
          fullOutputRef: res.fullOutputRef,
          verdict: verdict.action,
          elapsedMs,
        },
      };
    },
  };
}

/** "created gen/a.ts, modified src/b.ts, deleted c.txt and 12 more", workspace-relative, folders left out. */
function describeChanges(changes: readonly CommandFileChange[], roots: readonly string[]): string {
  const rel = (p: string) => {
    for (const r of roots) {
      const prefix = r.endsWith('/') || r.endsWith('\\') ? r : r + (r.includes('\\') && !r.includes('/') ? '\\' : '/');
      if (p.startsWith(prefix)) return p.slice(prefix.length).replace(/\\/g, '/');
    }
    return p;
  };
  const shown = changes.slice(0, 10).map((c) => `${c.kind} ${rel(c.path)}`);
  return changes.length > 10 ? `${shown.join(', ')} and ${changes.length - 10} more` : shown.join(', ');
}

const readCommandOutputInput = z.object({
  ref: z.string().min(1).describe('The ref given in an execute_command result.'),
  startLine: z.number().int().min(1).optional().describe('First line (1-based). Default 1.'),
  endLine: z.number().int().min(1).optional().describe('Last line (inclusive). Default startLine + 499.'),
});

export function createReadCommandOutputTool(
  runner: Required<Pick<CommandRunner, 'readOutput'>>,
): Tool<typeof readCommandOutputInput> {
  return {
    name: 'read_command_output',
    description:
      'Page through the full output of an earlier execute_command whose output was shortened. At most 500 lines per call.',
    input: readCommandOutputInput,
    risk: 'read',
    async execute(input) {
      const start = input.startLine ?? 1;
      const end = Math.min(input.endLine ?? start + 499, start + 499);
      if (end < start) return errorResult('endLine is before startLine.');
      let page;
      try {
        page = await runner.readOutput(input.ref, start, end);
      } catch {
        return errorResult(
          `No saved output for ref ${JSON.stringify(input.ref)}; it may have expired. Run the command again.`,
        );
      }
      if (page.lines.length === 0)
        return { content: `The output has ${page.totalLines} lines; nothing at ${start}-${end}.` };
      const last = start + page.lines.length - 1;
      const width = String(last).length;
      const body = page.lines.map((l, i) => `${String(start + i).padStart(width)} | ${l}`).join('\n');
      const more =
        last < page.totalLines ? `\n[${page.totalLines - last} more lines; continue with startLine=${last + 1}.]` : '';
      return { content: `Output lines ${start}-${last} of ${page.totalLines}:\n${body}${more}` };
    },
  };
}

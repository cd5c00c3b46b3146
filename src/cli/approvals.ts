// Approvals in a terminal: a standing policy from flags (--approve writes,commands-sandboxed ...), then, in a
// TTY, a question per call (y/n/a/q) with a colored unified diff for edits. Without a TTY, anything the policy
// does not cover is refused with a reason the model and the person both see. Never a silent allow-all.
import { createTwoFilesPatch } from 'diff';
import type { ApprovalRequest, Approver } from '../core/safety/approval';
import { sensitiveRefusal, sensitiveTitle } from '../core/safety/sensitive';
import type { StandingApprovals } from '../core/safety/policy';
import type { ApprovalDecision } from '../core/tools/types';
import type { Containment } from '../core/workspace/types';
import { plain } from './terminal-safe';

const POLICY_ITEMS = ['writes', 'commands-sandboxed', 'commands', 'network'] as const;
type PolicyItem = (typeof POLICY_ITEMS)[number];
export type ApprovalPolicy = ReadonlySet<PolicyItem>;

/** "writes,commands-sandboxed" (one or several flags) -> the set; unknown words throw with the valid ones. */
export function parseApprovalPolicy(values: readonly string[]): ApprovalPolicy {
  const out = new Set<PolicyItem>();
  for (const value of values) {
    for (const raw of value.split(',')) {
      const item = raw.trim();
      if (!item) continue;
      if (!(POLICY_ITEMS as readonly string[]).includes(item))
        throw new Error(`"${item}" is not one of ${POLICY_ITEMS.join(', ')}`);
      out.add(item as PolicyItem);
    }
  }
  return out;
}

/**
 * The --approve flags as standing approvals for core's Policy (the same decision the extension makes from its
 * settings): commands-sandboxed only while commands run contained. A control-plane edit is never covered: Policy
 * asks a person for it whatever this says.
 */
export function standingFromFlags(policy: ApprovalPolicy, containment: () => Containment): StandingApprovals {
  const out: StandingApprovals = {};
  if (policy.has('writes')) out.write = '--approve writes';
  if (policy.has('commands')) out.execute = '--approve commands';
  else if (policy.has('commands-sandboxed') && containment().kind !== 'none')
    out.execute = '--approve commands-sandboxed';
  if (policy.has('network')) out.network = out.mcp = '--approve network';
  return out;
}

export interface Style {
  red(s: string): string;
  green(s: string): string;
  cyan(s: string): string;
  yellow(s: string): string;
  dim(s: string): string;
  bold(s: string): string;
}

export function makeStyle(color: boolean): Style {
  const wrap = (open: number, close: number) => (s: string) => (color ? `\x1b[${open}m${s}\x1b[${close}m` : s);
  return {
    red: wrap(31, 39),
    green: wrap(32, 39),
    cyan: wrap(36, 39),
    yellow: wrap(33, 39),
    dim: wrap(2, 22),
    bold: wrap(1, 22),
  };
}

/** A unified diff of an edit, colored line by line. Long diffs keep their head and say how much was cut. */
export function renderEditDiff(
  path: string,
  original: string,
  proposed: string,
  isNewFile: boolean,
  style: Style,
  maxLines = 400,
): string {
  const patch = createTwoFilesPatch(isNewFile ? '/dev/null' : `a/${path}`, `b/${path}`, original, proposed, '', '', {
    context: 3,
  });
  // File contents and paths are the model's or the repository's: no terminal controls reach the terminal.
  const lines = patch
    .split('\n')
    .filter((l) => !l.startsWith('====') && !l.startsWith('\\ No newline'))
    .map(plain);
  const shown = lines
    .slice(0, maxLines)
    .map((l) =>
      l.startsWith('+++') || l.startsWith('---')
        ? style.bold(l)
        : l.startsWith('+')
          ? style.green(l)
          : l.startsWith('-')
            ? style.red(l)
            : l.startsWith('@@')
              ? style.cyan(l)
              : l,
    );
  if (lines.length > maxLines) shown.push(style.dim(`... ${lines.length - maxLines} more diff lines`));
  return shown.join('\n').trimEnd();
}

/** What a person is asked about, as text. Every part that came from the model, a tool or a file is printed without terminal controls. */
export function describeRequest(req: ApprovalRequest, style: Style): string {
  const p = req.preview;
  const tool = plain(req.toolName);
  if (p?.kind === 'edit') {
    const verb = p.isNewFile ? 'Create' : 'Edit';
    const head = req.sensitive
      ? style.yellow(style.bold(plain(sensitiveTitle(req.sensitive, verb))))
      : `${style.bold(verb)} ${plain(p.displayPath ?? p.path)}`;
    return `${head}\n${renderEditDiff(p.displayPath ?? p.path, p.original, p.proposed, p.isNewFile, style)}`;
  }
  if (p?.kind === 'command') {
    const lines = [
      `${style.bold('Run')} ${style.cyan(plain(p.command))}${p.cwd ? style.dim(`  (in ${plain(p.cwd)})`) : ''}`,
    ];
    if (p.containment) lines.push(style.dim(plain(p.containment)));
    if (p.grant) lines.push(style.dim(`"always" would allow: ${plain(p.grant)}`));
    return lines.join('\n');
  }
  const head = req.sensitive ? `${style.yellow(style.bold(plain(sensitiveTitle(req.sensitive))))}\n` : '';
  if (p?.kind === 'generic') return `${head}${style.bold(tool)}: ${plain(p.summary)}`;
  return `${head}${style.bold(tool)} (${req.risk}) ${plain(JSON.stringify(req.args).slice(0, 500))}`;
}

/** Reads one answer from the person; resolves undefined when the signal aborts first. */
export type AskLine = (prompt: string, signal: AbortSignal) => Promise<string | undefined>;

interface CliApproverOptions {
  /** The run's --approve flags (named in refusals; Policy applies them). */
  policy: ApprovalPolicy;
  /** Present only when a person can answer (stdin and stderr are terminals). */
  ask?: AskLine;
  /** Progress lines for people (stderr). */
  say: (line: string) => void;
  style: Style;
  /** The person answered q: stop the run (the task stays resumable). */
  onQuit: () => void;
}

const NO_TTY_REFUSAL =
  'Refused by policy (no person was asked): Forge runs without a terminal and no --approve flag covers this call. ' +
  'Re-run with --approve writes,commands-sandboxed (or --yes-contained) to allow it, or run in a terminal to be asked.';

export class CliApprover implements Approver {
  /** One question on the terminal at a time, whatever the loop does. */
  private turn: Promise<unknown> = Promise.resolve();

  constructor(private readonly opts: CliApproverOptions) {}

  request(req: ApprovalRequest, signal: AbortSignal): Promise<ApprovalDecision> {
    const mine = this.turn.then(() => this.decide(req, signal));
    this.turn = mine.catch(() => undefined);
    return mine;
  }

  private async decide(req: ApprovalRequest, signal: AbortSignal): Promise<ApprovalDecision> {
    // Only what needs a person reaches here: the --approve flags are standing approvals in core's Policy.
    const { style, say } = this.opts;
    if (!this.opts.ask && req.sensitive) {
      // Whatever --approve says: a control-plane edit needs a person, and there is none to ask.
      const flags = this.opts.policy.size
        ? `--approve ${[...this.opts.policy].join(',')}`
        : 'running without a terminal';
      say(
        style.yellow(`refused (control plane: no flag approves it, and there is no terminal to ask): ${oneLine(req)}`),
      );
      return {
        kind: 'reject',
        by: 'policy',
        reason: sensitiveRefusal(
          req.sensitive,
          flags,
          'No --approve flag covers the control plane; only a person at a terminal can approve it (y).',
        ),
      };
    }
    if (!this.opts.ask) {
      say(style.yellow(`refused (no terminal, no policy): ${oneLine(req)}`));
      return {
        kind: 'reject',
        by: 'policy',
        reason: `${NO_TTY_REFUSAL} Do not retry the same call.`,
      };
    }
    say(describeRequest(req, style));
    const noun =
      req.preview?.kind === 'edit'
        ? 'Apply this edit'
        : req.preview?.kind === 'command'
          ? 'Run this command'
          : `Allow ${plain(req.toolName)}`;
    // No "always" for the control plane: each edit there is asked.
    const choices = req.sensitive ? '[y]es / [n]o / [q]uit' : '[y]es / [n]o / [a]lways for this task / [q]uit';
    for (;;) {
      const answer = await this.opts.ask(`${noun}? ${choices}: `, signal);
      if (answer === undefined) return { kind: 'reject', reason: 'cancelled' };
      const a = answer.trim().toLowerCase();
      if (a === 'y' || a === 'yes') return { kind: 'approve', scope: 'once' };
      if ((a === 'a' || a === 'always') && req.sensitive) {
        say('"Always" is not offered for the control plane: answer y to apply this edit once, or n.');
        continue;
      }
      if (a === 'a' || a === 'always') return { kind: 'approve', scope: 'task' };
      if (a === 'n' || a === 'no' || a === '') {
        const why = await this.opts.ask('Reason for the model (optional): ', signal);
        return { kind: 'reject', ...(why?.trim() ? { reason: why.trim() } : {}) };
      }
      if (a === 'q' || a === 'quit') {
        this.opts.onQuit();
        return { kind: 'reject', reason: 'The user stopped the task.' };
      }
      say('Please answer y, n, a or q.');
    }
  }
}

function oneLine(req: ApprovalRequest): string {
  return plain(oneLineRaw(req));
}

function oneLineRaw(req: ApprovalRequest): string {
  const p = req.preview;
  if (p?.kind === 'edit')
    return `${p.isNewFile ? 'create' : 'edit'} ${p.displayPath ?? p.path}${req.sensitive ? ' (control plane)' : ''}`;
  if (p?.kind === 'command') return `run ${p.command}`;
  if (p?.kind === 'generic') return `${req.toolName}: ${p.summary}`;
  return req.toolName;
}

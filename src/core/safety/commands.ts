// Command rules: parse the command line with a real shell parser (mvdan/sh) and judge EVERY simple command
// in it — chains, pipes, subshells, $(...), backticks, <(...), `bash -c '...'`, `eval`, wrappers (nice, env,
// xargs ...), find -exec. Three outcomes per command: a danger (deny), a hazard (ask, never covered by
// "Always for this task"), or not on the allow list (ask, grantable by program + subcommand).
// The model's own claim of safety is never an input here.
import {
  assignHazard,
  broadFolder,
  normalize,
  SECRET_PARAM,
  secretReach,
  underHome,
  type PathContext,
} from './command-hazards';
import { builtinDanger, SAFE_DEVICES } from './builtin-danger';
import { dangerContext } from './command-dangers';
import { parseErrorText, parseScript, type CommandPart } from './command-parse';
import { basename, extractParts, SHELLS, shellCommand, wordsOf } from './command-parts';
import { compileRule, matchRule, type CompiledRule } from './command-rule-match';
import type { Word } from './command-options';
import { builtinForms, type ProgramClass } from './command-program-table';
import { grantKey, judgeBuiltin, NOT_LISTED } from './command-programs';
import { unwrap } from './command-wrappers';
import type { CommandCheckOptions, CommandRules } from './command-rules';

export type { CommandCheckOptions, CommandRules } from './command-rules';
export type { CommandPart } from './command-parse';

type CommandAction = 'allow' | 'ask' | 'deny';

export interface CommandVerdict {
  action: CommandAction;
  /** Written for the model / approver. */
  reason: string;
  /** The simple command that decided the verdict (deny/ask), if any. */
  part?: string;
  parts: CommandPart[];
  /**
   * For 'ask': the program (+ subcommand) keys that "Always for this task" may grant, e.g. ["git commit", "make"].
   * Empty when any part asks for a hazard or the command could not be parsed: then only this call can be approved.
   */
  grantKeys?: string[];
}

/** The built-in allow list in words (the forms judged option by option in command-program-table.ts); user rules add prefix rules. */
export const DEFAULT_COMMAND_RULES: Required<Pick<CommandRules, 'allow' | 'deny'>> = {
  allow: [
    'git status',
    'git diff',
    'git log',
    'git show',
    'git branch',
    'git rev-parse',
    'git ls-files',
    'git blame',
    'ls',
    'pwd',
    'echo',
    'cat',
    'head',
    'tail',
    'wc',
    'grep',
    'rg',
    'which',
    'true',
    'false',
    'date',
    'npm test',
    'npm run test',
    'npm run lint',
    'npm run build',
    'npm run typecheck',
    'npm ls',
    'node --version',
    'npm --version',
    'npx tsc --noEmit',
    'tsc --noEmit',
  ],
  deny: ['git push --force*', 'git push -f', 'git clean -*f*', 'git reset --hard*', 'npm publish', 'chmod -R 777 *'],
};

/** The built-in forms by class, for README and the settings description. */
export function describeBuiltinCommandRules(): { readOnly: string[]; runsWorkspaceCode: string[] } {
  const forms = builtinForms();
  return {
    readOnly: forms.filter((f) => f.cls === 'read-only').map((f) => f.form),
    runsWorkspaceCode: forms.filter((f) => f.cls === 'runs-workspace-code').map((f) => f.form),
  };
}

/** The user's lists extend the defaults rather than replace them, so a custom allow list keeps the default denials. */
export function withDefaultCommandRules(user: CommandRules = {}): CommandRules {
  return {
    allow: [...DEFAULT_COMMAND_RULES.allow, ...(user.allow ?? [])],
    deny: [...DEFAULT_COMMAND_RULES.deny, ...(user.deny ?? [])],
    onParseError: user.onParseError,
  };
}

/** Builtins that change what later commands of the line run or read. */
const SHELL_STATE = new Set([
  'source',
  '.',
  'alias',
  'hash',
  'enable',
  'trap',
  'shopt',
  'read',
  'mapfile',
  'readarray',
  'let',
  'getopts',
  'export',
  'declare',
  'typeset',
  'local',
  'readonly',
  'set',
  'cd',
  'pushd',
  'popd',
]);
const FIND_WRITES = /^-(delete|fprint0?|fprintf|fls)$/;

// ------------------------------------------------------------------------------------------------ judging

type Judgement =
  | { ok: true; cls?: ProgramClass; note?: string; granted?: string }
  | { ok: false; hazard: boolean; reason: string; key?: string };

interface Ctx extends PathContext {
  sandboxed: boolean;
  grants?: ReadonlySet<string>;
  enabled: Set<string>;
  userAllow: CompiledRule[];
}

/** Judge a full command line. Deny beats ask beats allow; every simple command is judged. */
export function checkCommand(
  command: string,
  rules: CommandRules = DEFAULT_COMMAND_RULES,
  opts: CommandCheckOptions = {},
): CommandVerdict {
  if (typeof command !== 'string' || !command.trim())
    return { action: 'deny', reason: 'The command is empty.', parts: [] };
  if (command.includes('\0')) return { action: 'deny', reason: 'The command contains a NUL byte.', parts: [] };
  let parts: CommandPart[];
  try {
    parts = extractParts(command, 0);
  } catch (e) {
    const msg = parseErrorText(e);
    return {
      action: rules.onParseError ?? 'ask',
      reason: `The command could not be parsed as shell syntax (${msg}), so it cannot be checked automatically.`,
      parts: [],
      grantKeys: [],
    };
  }
  const defaults = new Set(DEFAULT_COMMAND_RULES.allow);
  const allow = rules.allow ?? [];
  const ctx: Ctx = {
    sandboxed: opts.sandboxed === true,
    grants: opts.grants,
    home: opts.home,
    roots: opts.roots,
    enabled: new Set(allow.filter((r) => defaults.has(r))),
    userAllow: allow.filter((r) => !defaults.has(r)).map(compileRule),
  };
  const deny = (rules.deny ?? []).map(compileRule);
  const dangers = dangerContext(parts, parseScript);
  const judged: { part: CommandPart; j: Judgement }[] = [];
  for (const part of parts) {
    const danger = builtinDanger(part, dangers) ?? matchRule(deny, part, true);
    if (danger) return { action: 'deny', reason: danger, part: part.text, parts, grantKeys: [] };
    judged.push({ part, j: judge(part, ctx) });
  }
  const asks = judged.filter((x): x is { part: CommandPart; j: Extract<Judgement, { ok: false }> } => !x.j.ok);
  if (asks.length > 0) {
    const hazard = asks.find((a) => a.j.hazard);
    const first = hazard ?? asks[0]!;
    const keys = hazard ? [] : [...new Set(asks.map((a) => a.j.key!))];
    return { action: 'ask', reason: first.j.reason, part: first.part.text, parts, grantKeys: keys };
  }
  const oks = judged.map((x) => x.j as Extract<Judgement, { ok: true }>);
  const granted = [...new Set(oks.map((o) => o.granted).filter(Boolean))];
  const notes = [...new Set(oks.map((o) => o.note).filter(Boolean))];
  let reason = granted.length
    ? `Granted for this task: ${granted.join(', ')}.`
    : 'Every part of the command is on the allow list.';
  if (oks.some((o) => o.cls === 'runs-workspace-code'))
    reason += " It runs the workspace's own scripts, inside the OS sandbox.";
  if (notes.length) reason += ` Note: ${notes.join('; ')}.`;
  return { action: 'allow', reason, parts };
}

const hazard = (p: CommandPart, what: string): Judgement => ({
  ok: false,
  hazard: true,
  reason: `\`${p.text}\` ${what}.`,
});

function judge(p: CommandPart, ctx: Ctx): Judgement {
  const general = generalHazard(p, ctx);
  if (general) return hazard(p, general);
  if (p.kind === 'function') return hazard(p, 'defines a shell function, which can replace a program of the same name');
  if (p.words.length === 0) return { ok: true }; // assignments (judged above) or a redirected compound command
  const name = p.words[0];
  if (name === undefined) return hazard(p, 'runs a command whose name is only known at run time');
  const base = basename(name);
  const words = wordsOf(p);
  const result = judgeProgram(p, words, base, ctx);
  if (result.ok) {
    if (p.runtimeArgs && !ctx.sandboxed && result.printsContent !== false) {
      return hazard(
        p,
        `gets file names from ${p.via} at run time and prints file contents; they could name a secret file`,
      );
    }
    return { ok: true, cls: result.cls, note: result.note };
  }
  if (result.hazard) return hazard(p, result.reason);
  if (p.runtimeArgs && !ctx.sandboxed)
    return hazard(p, `gets arguments from ${p.via} at run time and is not on the allow list`);
  const key = grantKey(p.words);
  if (key === undefined)
    return hazard(
      p,
      `${result.reason === NOT_LISTED ? NOT_LISTED : `asks: ${result.reason}`}; its program or subcommand is not a plain name, so nothing can be granted for it`,
    );
  if (ctx.grants?.has(key)) return { ok: true, granted: key };
  const reason =
    result.reason === NOT_LISTED ? `\`${p.text}\` ${NOT_LISTED}.` : `\`${p.text}\` asks: ${result.reason}.`;
  return { ok: false, hazard: false, reason, key };
}

/** Hazards of any command: assignments, redirections, credential parameters. */
function generalHazard(p: CommandPart, ctx: Ctx): string | undefined {
  for (const a of p.assigns) {
    const h = assignHazard(a);
    if (h) return h;
  }
  for (const w of p.writes) {
    if (w === undefined) return 'writes output to a file named only at run time';
    if (!SAFE_DEVICES.test(w)) return `writes output to ${w}`;
  }
  for (const r of p.reads) {
    if (r === undefined) return 'reads input from a file named only at run time';
    const s = secretReach(r, undefined, ctx);
    if (s) return `reads ${s} as its input`;
  }
  const param = p.params.find((x) => SECRET_PARAM.test(x));
  if (param && !ctx.sandboxed) return `expands $${param}, which can hold a credential`;
  return undefined;
}

type ProgramResult =
  | { ok: true; cls?: ProgramClass; note?: string; printsContent?: boolean }
  | { ok: false; hazard: boolean; reason: string };

function judgeProgram(p: CommandPart, words: Word[], base: string, ctx: Ctx): ProgramResult {
  const userOk = matchRule(ctx.userAllow, p, false) !== undefined;
  // The shell's own state: later commands of the line would run under it.
  if (p.kind === 'decl' || base === 'set') return judgeShellState(p, base, ctx);
  if (SHELL_STATE.has(base) && (base === 'cd' || base === 'pushd' || base === 'popd')) {
    const target = p.words[1];
    if (
      base !== 'popd' &&
      (target === undefined ||
        p.words.length === 1 ||
        target === '-' ||
        target.startsWith('/') ||
        target.startsWith('~') ||
        normalize(target).startsWith('..'))
    ) {
      return {
        ok: false,
        hazard: true,
        reason: 'changes to a folder outside the workspace, so the paths after it cannot be judged',
      };
    }
    // Into a folder inside the workspace: harmless (what runs after it is judged on its own), and models
    // write `cd sub && npm test` constantly.
    return { ok: true, cls: 'read-only' };
  }
  if (SHELL_STATE.has(base) || (base === 'printf' && p.words.includes('-v'))) {
    return { ok: false, hazard: true, reason: `uses ${base}, which changes what the commands after it run or read` };
  }
  if (SHELLS.has(base)) {
    const sc = shellCommand(p);
    if (sc && sc.script === undefined)
      return { ok: false, hazard: true, reason: 'runs a script that is only known at run time' };
    if (sc && sc.plain && !name(p).includes('/')) return { ok: true }; // its script is judged as parts of its own
  }
  if (base === 'eval') {
    return p.words.slice(1).every((w) => w !== undefined)
      ? { ok: true }
      : { ok: false, hazard: true, reason: 'evaluates code that is only known at run time' };
  }
  const u = unwrap(words);
  if (u) {
    if (u.hazard) return { ok: false, hazard: true, reason: u.hazard };
    if (u.scripts.some((s) => s === undefined))
      return { ok: false, hazard: true, reason: 'runs a script that is only known at run time' };
    if (
      u.chdir &&
      (u.chdir.value === undefined ||
        u.chdir.value.startsWith('/') ||
        u.chdir.value.startsWith('~') ||
        normalize(u.chdir.value).startsWith('..'))
    ) {
      return { ok: false, hazard: true, reason: 'changes to a folder outside the workspace' };
    }
    if (u.printsEnv && !ctx.sandboxed)
      return { ok: false, hazard: true, reason: 'prints the environment, which can hold API keys' };
    const secret = anySecret(words, ctx);
    if (secret) return { ok: false, hazard: true, reason: secret };
    if (u.refusal && !userOk) return { ok: false, hazard: false, reason: u.refusal };
    return { ok: true }; // the program it runs is judged as a part of its own
  }
  if (base === 'find') {
    const w = p.words.find((x) => x !== undefined && FIND_WRITES.test(x));
    if (w) return { ok: false, hazard: true, reason: `uses find ${w}, which deletes or writes files` };
  }
  if (base === 'printenv' && !ctx.sandboxed)
    return { ok: false, hazard: true, reason: 'prints the environment, which can hold API keys' };

  const b = judgeBuiltin(words, p.pipedInto, (f) => ctx.enabled.has(f));
  if (b) {
    if (b.hazard) return { ok: false, hazard: true, reason: `uses ${b.hazard}` };
    const reach = b.form ? builtinReach(b.paths, b.printsContent, b.recursive, ctx) : anySecret(words, ctx);
    if (reach) return { ok: false, hazard: true, reason: reach };
    if (b.form && !b.refusal) {
      if (b.cls === 'runs-workspace-code' && !ctx.sandboxed && !userOk) {
        return {
          ok: false,
          hazard: false,
          reason: "runs the workspace's own scripts (package.json, node_modules) and there is no OS sandbox here",
        };
      }
      return { ok: true, cls: b.cls, note: b.note, printsContent: b.printsContent };
    }
    if (userOk) return { ok: true };
    return { ok: false, hazard: false, reason: b.refusal ?? NOT_LISTED };
  }
  const secret = anySecret(words, ctx);
  if (secret) return { ok: false, hazard: true, reason: secret };
  if (userOk) return { ok: true };
  return { ok: false, hazard: false, reason: NOT_LISTED };
}

const name = (p: CommandPart) => p.words[0] ?? '';

/** export/declare/local/readonly/typeset and set: assignments are judged already; flags that print or alias variables are not plain. */
function judgeShellState(p: CommandPart, base: string, ctx: Ctx): ProgramResult {
  const flags = p.words.slice(1);
  if (flags.some((f) => f === undefined))
    return { ok: false, hazard: true, reason: `runs ${base} with words known only at run time` };
  if (base === 'set') {
    if (flags.length === 0)
      return ctx.sandboxed
        ? { ok: true }
        : { ok: false, hazard: true, reason: 'prints the shell variables, which can hold API keys' };
    const plain = flags.every((f) => /^[-+][euxvo]+$/.test(f!) || /^(pipefail|errexit|nounset|xtrace)$/.test(f!));
    return plain
      ? { ok: true }
      : { ok: false, hazard: true, reason: 'changes shell options for the commands after it' };
  }
  if (p.assigns.length === 0 && flags.every((f) => /^-[pfF]*$/.test(f!))) {
    return ctx.sandboxed
      ? { ok: true }
      : { ok: false, hazard: true, reason: `prints the shell variables, which can hold API keys` };
  }
  if (flags.every((f) => /^[-+][xrgila]+$/.test(f!))) return { ok: true };
  return { ok: false, hazard: true, reason: `uses ${base} ${flags.join(' ')}, which changes how variables behave` };
}

/** Secret reach of a built-in form: file operands and option values, dynamic names, recursive folders. */
function builtinReach(
  paths: (Word & { folder?: boolean })[],
  printsContent: boolean,
  recursive: Word[],
  ctx: Ctx,
): string | undefined {
  for (const f of recursive) {
    if (f.value === undefined || f.glob !== undefined) {
      if (f.value === undefined) return 'searches a folder named only at run time';
      continue; // a glob of names: checked against secret names above
    }
    if (broadFolder(f.value, ctx)) return `searches ${f.value} recursively, which holds secret files`;
    if (!ctx.sandboxed && isWorkspaceWide(f.value, ctx)) {
      return `searches ${f.value === '.' ? 'the whole folder (.)' : f.value} recursively without an OS sandbox, so it can print secret files such as .env; search a subfolder (src) instead`;
    }
  }
  for (const w of paths) {
    if (w.value === undefined) {
      if (printsContent) return 'reads a file named only at run time, which could be a secret';
      continue;
    }
    if (!printsContent && !w.folder) continue; // ls, wc, git status: names and counts, not contents
    const s = secretReach(w.value, w.glob, ctx, w.folder);
    if (s) return w.glob !== undefined ? `uses a glob that can match ${s}` : `reads ${s}`;
  }
  return undefined;
}

/** The workspace root, a parent, or any absolute folder: where secret files usually live. A named subfolder (src) is not. */
function isWorkspaceWide(folder: string, ctx: Ctx): boolean {
  const n = normalize(folder);
  return (
    n === '' ||
    n.startsWith('..') ||
    n.startsWith('/') ||
    folder.startsWith('~') ||
    underHome(folder, ctx) !== undefined
  );
}

/** Any word (after the program) that names or can match a secret: for programs without an option table. */
function anySecret(words: Word[], ctx: Ctx): string | undefined {
  for (const w of words.slice(1)) {
    if (w.value === undefined) continue;
    const candidates = [w.value];
    const eq = w.value.indexOf('=');
    if (w.value.startsWith('-') && eq > 0) candidates.push(w.value.slice(eq + 1));
    const colon = w.value.indexOf(':');
    if (colon >= 0) candidates.push(w.value.slice(colon + 1));
    for (const c of candidates) {
      if (c.startsWith('-') && c === w.value) continue;
      const s = secretReach(c, c === w.value ? w.glob : undefined, ctx);
      if (s) return w.glob !== undefined && c === w.value ? `uses a glob that can match ${s}` : `names ${s}`;
    }
  }
  return undefined;
}

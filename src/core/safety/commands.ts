// Command rules: parse the command line with a real shell parser (mvdan/sh) and judge EVERY simple command
// in it — chains, pipes, subshells, $(...), backticks, <(...), `bash -c '...'`, `eval`, `xargs`/`env` wrappers.
// The model's own claim of safety is never an input here.
import ignore from 'ignore';
import type { CommandRules } from './command-rules';
import { DEFAULT_SECRET_PATTERNS } from './secrets';

export type { CommandCheckOptions, CommandRules } from './command-rules';

export type CommandAction = 'allow' | 'ask' | 'deny';


export interface CommandPart {
  /** Source text of the simple command. */
  text: string;
  /** Literal words (undefined for words with expansions resolved only at run time). */
  words: (string | undefined)[];
  /** Output redirection targets ('>', '>>', '&>' ...), literal or undefined. */
  writes: (string | undefined)[];
  /** The command reads a pipe from the previous command. */
  pipedInto: boolean;
}

export interface CommandVerdict {
  action: CommandAction;
  /** Written for the model / approver. */
  reason: string;
  /** The simple command that decided the verdict (deny/ask), if any. */
  part?: string;
  parts: CommandPart[];
}

export const DEFAULT_COMMAND_RULES: Required<Pick<CommandRules, 'allow' | 'deny'>> = {
  allow: [
    'git status', 'git diff', 'git log', 'git show', 'git branch', 'git rev-parse', 'git ls-files', 'git blame',
    'ls', 'pwd', 'echo', 'cat', 'head', 'tail', 'wc', 'grep', 'rg', 'which', 'true', 'false', 'date',
    'npm test', 'npm run test', 'npm run lint', 'npm run build', 'npm run typecheck', 'npm ls',
    'node --version', 'npm --version', 'npx tsc --noEmit', 'tsc --noEmit',
  ],
  deny: ['git push --force*', 'git push -f', 'git clean -*f*', 'git reset --hard*', 'npm publish', 'chmod -R 777 *'],
};

// mvdan-sh is a GopherJS build: sync, complete bash AST. It sets Error.stackTraceLimit = Infinity and
// global.require on load, so restore both.
interface ShNode { Pos(): { Offset(): number }; End(): { Offset(): number }; [k: string]: any } // eslint-disable-line @typescript-eslint/no-explicit-any
interface ShSyntax {
  NewParser(): { Parse(src: string, name: string): ShNode };
  Walk(node: ShNode, fn: (n: ShNode | null) => boolean): void;
  NodeType(n: ShNode): string;
}
let shSyntax: ShSyntax | undefined;
/**
 * The extension bundle leaves mvdan-sh out (1.3 MB that every activation would parse) and ships it as
 * dist/vendor/mvdan-sh.js next to dist/extension.js; running from source (tests via tsx) there is no such
 * file and the package itself is used.
 */
function loadMvdanSh(): unknown {
  /* eslint-disable @typescript-eslint/no-require-imports */
  const vendored = `${__dirname}/vendor/mvdan-sh.js`;
  try {
    return require(vendored);
  } catch (err) {
    if ((err as { code?: string }).code !== 'MODULE_NOT_FOUND' || !String((err as Error).message).includes(vendored)) throw err;
    return require('mvdan-sh');
  }
  /* eslint-enable @typescript-eslint/no-require-imports */
}
function sh(): ShSyntax {
  if (!shSyntax) {
    const limit = Error.stackTraceLimit;
    const g = globalThis as { require?: unknown };
    const hadRequire = 'require' in g;
    const prevRequire = g.require;
    shSyntax = (loadMvdanSh() as { syntax: ShSyntax }).syntax;
    Error.stackTraceLimit = limit;
    if (hadRequire) g.require = prevRequire;
    else delete g.require;
  }
  return shSyntax;
}

const SHELLS = new Set(['sh', 'bash', 'zsh', 'dash', 'ksh', 'fish', 'csh', 'tcsh', 'ash', 'busybox']);
const INTERPRETERS = new Set([...SHELLS, 'python', 'python2', 'python3', 'perl', 'ruby', 'node', 'php', 'pwsh', 'powershell', 'lua', 'deno', 'bun']);
const PRIVILEGE = new Set(['sudo', 'su', 'doas', 'pkexec', 'runas']);
const DESTRUCTIVE = /^(mkfs(\..*)?|fdisk|sfdisk|parted|wipefs|shutdown|reboot|halt|poweroff|mkswap|diskpart|format)$/;
const SAFE_DEVICES = /^\/dev\/(null|stdout|stderr|stdin|tty|zero|fd\/\d+)$/;
const WRAPPERS = new Set(['env', 'nice', 'nohup', 'time', 'command', 'builtin', 'exec', 'stdbuf', 'timeout', 'xargs', 'ionice', 'chronic', 'watch']);
const MAX_DEPTH = 4;

const secretNames = ignore().add([...DEFAULT_SECRET_PATTERNS]);

/** Judge a full command line. Deny beats ask beats allow; every simple command is judged. */
/** The user's lists extend the defaults rather than replace them, so a custom allow list keeps the default denials. */
export function withDefaultCommandRules(user: CommandRules = {}): CommandRules {
  return {
    allow: [...DEFAULT_COMMAND_RULES.allow, ...(user.allow ?? [])],
    deny: [...DEFAULT_COMMAND_RULES.deny, ...(user.deny ?? [])],
    onParseError: user.onParseError,
  };
}

export function checkCommand(command: string, rules: CommandRules = DEFAULT_COMMAND_RULES): CommandVerdict {
  if (typeof command !== 'string' || !command.trim()) return { action: 'deny', reason: 'The command is empty.', parts: [] };
  if (command.includes('\0')) return { action: 'deny', reason: 'The command contains a NUL byte.', parts: [] };
  let parts: CommandPart[];
  try {
    parts = extractParts(command, 0);
  } catch (e) {
    const msg = errorText(e);
    return { action: rules.onParseError ?? 'ask', reason: `The command could not be parsed as shell syntax (${msg}), so it cannot be checked automatically.`, parts: [] };
  }
  const allow = (rules.allow ?? []).map(compileRule);
  const deny = (rules.deny ?? []).map(compileRule);
  let firstAsk: { part: CommandPart; reason: string } | undefined;
  for (const part of parts) {
    const danger = builtinDanger(part) ?? matchRule(deny, part, true);
    if (danger) return { action: 'deny', reason: danger, part: part.text, parts };
    const ask = askReason(part, allow);
    if (ask && !firstAsk) firstAsk = { part, reason: ask };
  }
  if (firstAsk) return { action: 'ask', reason: firstAsk.reason, part: firstAsk.part.text, parts };
  return { action: 'allow', reason: 'Every part of the command is on the allow list.', parts };
}

function errorText(e: unknown): string {
  const err = e as { Error?: () => string; message?: string };
  if (typeof err?.Error === 'function') return err.Error();
  return err?.message ?? String(e);
}

/** Every simple command in the line, including those inside substitutions and `sh -c` strings. */
export function extractParts(src: string, depth: number): CommandPart[] {
  const syntax = sh();
  const file = syntax.NewParser().Parse(src, '');
  const bytes = Buffer.from(src, 'utf8');
  const text = (n: ShNode) => bytes.subarray(n.Pos().Offset(), n.End().Offset()).toString('utf8').replace(/[\s;&]+$/, '');
  const piped = new Set<string>(); // GopherJS wraps nodes anew on access: key by source span
  const key = (n: ShNode) => `${n.Pos().Offset()}:${n.End().Offset()}`;
  const parts: CommandPart[] = [];
  const nested: string[] = [];

  syntax.Walk(file, (n) => {
    if (!n) return true;
    const type = syntax.NodeType(n);
    if (type === 'BinaryCmd') {
      const op = bytes.subarray(n.OpPos.Offset(), n.OpPos.Offset() + 2).toString('utf8');
      if (op.startsWith('|') && op !== '||') for (const c of calls(syntax, n.Y)) piped.add(key(c));
    } else if (type === 'Stmt') {
      const writes = (n.Redirs as ShNode[]).filter((r) => isOutputRedirect(bytes, r)).map((r) => literal(syntax, r.Word));
      const cmd = n.Cmd as ShNode | null;
      if (cmd && syntax.NodeType(cmd) === 'CallExpr' && (cmd.Args as ShNode[]).length > 0) {
        const words = (cmd.Args as ShNode[]).map((w) => literal(syntax, w));
        parts.push({ text: text(n), words, writes, pipedInto: piped.has(key(cmd)) });
      } else if (writes.length > 0 || (cmd && syntax.NodeType(cmd) === 'FuncDecl')) {
        parts.push({ text: text(n), words: cmd && syntax.NodeType(cmd) === 'FuncDecl' ? ['function'] : [], writes, pipedInto: false });
      } else if (cmd && syntax.NodeType(cmd) === 'DeclClause') {
        parts.push({ text: text(n), words: [literal(syntax, cmd.Variant)], writes, pipedInto: false });
      }
    }
    return true;
  });

  // Commands that run other commands: judge what they run too.
  for (let i = 0; i < parts.length && i < 1000; i++) {
    const p = parts[i]!;
    for (const inner of innerCommands(p)) {
      if (inner.kind === 'script') nested.push(inner.src);
      else parts.push({ ...p, text: inner.words.map((w) => w ?? '$?').join(' '), words: inner.words, writes: [], pipedInto: false });
    }
  }
  if (depth < MAX_DEPTH) for (const s of nested) parts.push(...extractParts(s, depth + 1));
  return parts;
}

function calls(syntax: ShSyntax, stmt: ShNode): ShNode[] {
  const out: ShNode[] = [];
  syntax.Walk(stmt, (n) => {
    if (n && syntax.NodeType(n) === 'CallExpr') out.push(n);
    // Stop at substitutions: their commands are not fed by this pipe.
    return !(n && /^(CmdSubst|ProcSubst)$/.test(syntax.NodeType(n)));
  });
  return out;
}

function isOutputRedirect(bytes: Buffer, r: ShNode): boolean {
  const op = bytes.subarray(r.OpPos.Offset(), r.Word.Pos().Offset()).toString('utf8').trim();
  return /^(&?>>?|>\||>&)$/.test(op) && !(op === '>&' && /^\d+$/.test(bytes.subarray(r.Word.Pos().Offset(), r.Word.End().Offset()).toString()));
}

/** The literal value of a word, or undefined when it contains run-time expansions. */
function literal(syntax: ShSyntax, word: ShNode | null): string | undefined {
  if (!word) return undefined;
  const type = syntax.NodeType(word);
  if (type === 'Lit') return unescape(word.Value as string, false);
  let out = '';
  for (const part of word.Parts as ShNode[]) {
    const t = syntax.NodeType(part);
    if (t === 'Lit') out += unescape(part.Value as string, false);
    else if (t === 'SglQuoted') out += part.Value as string;
    else if (t === 'DblQuoted') {
      for (const q of part.Parts as ShNode[]) {
        if (syntax.NodeType(q) !== 'Lit') return undefined;
        out += unescape(q.Value as string, true);
      }
    } else return undefined;
  }
  return out;
}

function unescape(s: string, inDouble: boolean): string {
  return s.replace(/\\(\n|.)/g, (m, c: string) => (c === '\n' ? '' : !inDouble || '$`"\\'.includes(c) ? c : m));
}

type Inner = { kind: 'script'; src: string } | { kind: 'argv'; words: (string | undefined)[] };

function innerCommands(p: CommandPart): Inner[] {
  const [name, ...args] = p.words;
  const base = name === undefined ? undefined : basename(name);
  const out: Inner[] = [];
  if (base && SHELLS.has(base)) {
    const i = args.findIndex((a) => a !== undefined && /^-[a-zA-Z]*c[a-zA-Z]*$/.test(a));
    if (i >= 0 && args[i + 1] !== undefined) out.push({ kind: 'script', src: args[i + 1]! });
  }
  if (base === 'eval' && args.every((a) => a !== undefined)) out.push({ kind: 'script', src: args.join(' ') });
  if (base && WRAPPERS.has(base)) {
    let j = 0;
    while (j < args.length && args[j] !== undefined && (args[j]!.startsWith('-') || /^[A-Za-z_][A-Za-z0-9_]*=/.test(args[j]!) || (base === 'timeout' && /^\d/.test(args[j]!)))) j++;
    if (j < args.length) out.push({ kind: 'argv', words: args.slice(j) });
  }
  if (base === 'find') {
    for (let i = 0; i < args.length; i++) {
      if (args[i] && /^-(exec|execdir|ok|okdir)$/.test(args[i]!)) {
        const end = args.findIndex((a, k) => k > i && (a === ';' || a === '+'));
        out.push({ kind: 'argv', words: args.slice(i + 1, end < 0 ? undefined : end) });
      }
    }
  }
  return out;
}

function basename(word: string): string {
  return word.replace(/\\/g, '/').split('/').pop()!.replace(/\.exe$/i, '');
}

function builtinDanger(p: CommandPart): string | undefined {
  for (const w of p.writes) {
    if (w !== undefined && w.startsWith('/dev/') && !SAFE_DEVICES.test(w)) return `\`${p.text}\` writes to the device ${w}.`;
  }
  const [name, ...args] = p.words;
  if (name === undefined) return undefined;
  const base = basename(name);
  if (PRIVILEGE.has(base)) return `\`${p.text}\` asks for elevated privileges (${base}); Forge never runs commands as another user.`;
  if (DESTRUCTIVE.test(base)) return `\`${p.text}\` can destroy disks or stop the machine.`;
  if (p.pipedInto && INTERPRETERS.has(base) && args.every((a) => a === undefined || a.startsWith('-'))) {
    return `\`${p.text}\` executes whatever the previous command prints (piping into ${base}). Download or write the script to a file first so it can be reviewed.`;
  }
  const lit = args.filter((a): a is string => a !== undefined);
  if (base === 'dd' && lit.some((a) => /^of=\/dev\//.test(a) && !SAFE_DEVICES.test(a.slice(3)))) return `\`${p.text}\` writes raw data to a device.`;
  if (base === 'rm' || base === 'chmod' || base === 'chown' || base === 'chgrp') {
    const recursive = lit.some((a) => /^-[a-zA-Z]*[rR]/.test(a) || a === '--recursive');
    const critical = lit.find((a) => isCriticalTarget(a));
    if (lit.includes('--no-preserve-root')) return `\`${p.text}\` disables rm's root protection.`;
    if (recursive && critical) return `\`${p.text}\` recursively changes or deletes ${critical}.`;
    if (recursive && args.some((a) => a === undefined) && base === 'rm') return undefined; // unknown target: asks below
  }
  if (p.words[0] === 'function' && /^\s*:\s*\(\)/.test(p.text)) return `\`${p.text}\` looks like a fork bomb.`;
  return undefined;
}

function isCriticalTarget(a: string): boolean {
  const t = a.replace(/\/+$/, '') || '/';
  if (t === '/' || t === '/*' || t === '~' || t === '~/*' || t === '$HOME' || t === '.' || t === '..' || t === '*' || t === '/.') return true;
  if (/^[A-Za-z]:[\\/]?\*?$/.test(t)) return true;
  return /^\/(bin|boot|dev|etc|home|lib|lib64|opt|proc|root|sbin|sys|usr|var|Users|System|Library)(\/\*)?$/.test(t);
}

function askReason(p: CommandPart, allow: CompiledRule[]): string | undefined {
  if (p.words[0] === undefined) {
    return p.words.length === 0 ? `\`${p.text}\` redirects output to a file.` : `\`${p.text}\` runs a command whose name is only known at run time.`;
  }
  if (p.words[0] === 'function') return `\`${p.text}\` defines a shell function.`;
  const secret = p.words.find((w) => w !== undefined && w !== p.words[0] && isSecretName(w));
  if (secret) return `\`${p.text}\` touches ${secret}, which looks like a secret.`;
  const write = p.writes.find((w) => w !== '/dev/null');
  if (p.writes.length > 0 && write !== undefined) return `\`${p.text}\` writes output to ${write}.`;
  if (p.writes.some((w) => w === undefined)) return `\`${p.text}\` writes output to a file named at run time.`;
  if (!matchRule(allow, p, false)) return `\`${p.text}\` is not on the allow list.`;
  return undefined;
}

function isSecretName(w: string): boolean {
  const b = basename(w);
  return b !== '' && b !== '.' && b !== '..' && !b.startsWith('-') && secretNames.ignores(b);
}

type CompiledRule = { source: string; words: RegExp[] };

function compileRule(rule: string): CompiledRule {
  const words = rule.trim().split(/\s+/).filter(Boolean).map((w) => new RegExp('^' + w.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.') + '$'));
  return { source: rule, words };
}

function matchRule(rules: CompiledRule[], p: CommandPart, forDeny: boolean): string | undefined {
  for (const r of rules) {
    if (r.words.length === 0 || r.words.length > p.words.length) continue;
    const ok = r.words.every((re, i) => {
      const w = p.words[i];
      if (w === undefined) return false;
      // Deny rules also match a command invoked by path (/bin/rm); allow rules need the exact word.
      return re.test(w) || (forDeny && i === 0 && re.test(basename(w)));
    });
    if (ok) return forDeny ? `\`${p.text}\` matches the deny rule "${r.source}".` : r.source;
  }
  return undefined;
}

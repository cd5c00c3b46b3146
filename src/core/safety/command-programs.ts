// Judging a command's words against the built-in allow list (command-program-table.ts), and the key a
// grant for it is saved under.
import { parseOpts, type Word } from './command-options';
import { PROGRAMS, RUN_ALIASES, type ProgramClass } from './command-program-table';

/** A word the checker must test for secrets. `folder`: the program reads it recursively. */
interface PathWord extends Word {
  folder?: boolean;
}

interface FormJudgement {
  /** The built-in form that matched ('git status'), when the program and subcommand are known. */
  form?: string;
  cls?: ProgramClass;
  /** Set when the form does not allow this use (an option or operand not on its list): asks, grantable. */
  refusal?: string;
  /** Set for an option that runs other programs, injects configuration or writes files: always asks. */
  hazard?: string;
  /** Words naming files the program reads (operands and option values). */
  paths: PathWord[];
  /** The program prints what it reads: words known only at run time could name a secret. */
  printsContent: boolean;
  /** Read recursively: the folders searched (rg with no folder searches '.'). */
  recursive: PathWord[];
  note?: string;
}

export const NOT_LISTED = 'is not on the allow list';

/** Programs whose second word names what they do; grant keys include it ("git commit"). */
const SUBCOMMAND_PROGRAMS = new Set([
  'git',
  'npm',
  'npx',
  'yarn',
  'pnpm',
  'bun',
  'cargo',
  'go',
  'docker',
  'podman',
  'kubectl',
  'helm',
  'pip',
  'pip3',
  'dotnet',
  'gh',
  'terraform',
]);
const KEY_WORD = /^[A-Za-z0-9_][A-Za-z0-9_.+@:=-]*$/;

/**
 * The grant key of a command ("git commit", "npm run lint", "make build"?): the program as written (a
 * basename when it has no '/') and, for programs with subcommands, the subcommand after global options.
 * Undefined when a word it needs is not literal or not a plain name: nothing can be granted then.
 */
export function grantKey(words: (string | undefined)[]): string | undefined {
  const [prog, ...args] = words;
  if (prog === undefined || !/^[A-Za-z0-9_./+-]+$/.test(prog)) return undefined;
  const name = prog.includes('/') ? prog : prog.replace(/\.exe$/i, '');
  const base = name.split('/').pop()!;
  if (/^python[0-9.]*$/.test(base) && args[0] === '-m')
    return args[1] !== undefined && KEY_WORD.test(args[1]) ? `${name} -m ${args[1]}` : undefined;
  if (!SUBCOMMAND_PROGRAMS.has(base)) return name;
  const globals = PROGRAMS.get(base)?.globals;
  let i = 0;
  while (i < args.length && (args[i] === undefined || args[i]!.startsWith('-'))) {
    const o = args[i];
    if (o === undefined) return undefined;
    i += globals?.kinds.get(o) === 'value' || (base === 'git' && (o === '-C' || o === '-c')) ? 2 : 1;
  }
  if (i >= args.length) return name;
  const sub = args[i];
  if (sub === undefined || !KEY_WORD.test(sub)) return undefined;
  if (base === 'npx') return `npx ${sub}`;
  if (['npm', 'yarn', 'pnpm', 'bun'].includes(base) && (RUN_ALIASES.has(sub) || ['exec', 'dlx', 'x'].includes(sub))) {
    const script = args[i + 1];
    return script !== undefined && KEY_WORD.test(script) ? `${name} ${sub} ${script}` : undefined;
  }
  return `${name} ${sub}`;
}

/** Judge a command (its words after wrappers are removed) against the built-in table; undefined when the program is not on it. */
export function judgeBuiltin(
  words: Word[],
  piped: boolean,
  enabled: (form: string) => boolean,
): FormJudgement | undefined {
  const prog = words[0]?.value;
  if (prog === undefined || words[0]!.glob !== undefined || prog.includes('/')) return undefined;
  const p = PROGRAMS.get(prog);
  if (!p) return undefined;
  let args = words.slice(1);
  const out: FormJudgement = { paths: [], printsContent: false, recursive: [] };
  let key = '';
  let g: ReturnType<typeof parseOpts> | undefined;
  if (p.globals) {
    g = parseOpts(args, p.globals, new Map([...(p.globalHazards ?? []), ...p.hazards]), true);
    if (g.hazard) out.hazard = `${g.hazard.option}, which ${g.hazard.reason}`;
    if (g.unknown) {
      if (p.unknownIsHazard && g.unknown.startsWith('--'))
        out.hazard ??= `${g.unknown.split('=')[0]}, and ${p.unknownIsHazard}`;
      out.refusal = `the option ${g.unknown} is not on the allow list`;
    }
    out.paths.push(...g.valueWords.map((v) => v.word));
    args = args.slice(g.rest);
    const sub = args[0]?.value;
    if (args.length > 0 && sub === undefined)
      return { ...out, refusal: out.refusal ?? 'the subcommand is only known at run time' };
    key = sub ?? '';
    args = args.slice(1);
    if (sub !== undefined && p.named?.has(sub)) {
      const script = args[0]?.value;
      key = `run ${script ?? ''}`;
      args = args.slice(1);
    }
  }
  const f = p.forms.get(key);
  if (!f || !enabled(f.form)) {
    // Not a built-in form: still look for the program's hazards anywhere on the line.
    const hazards = new Map([...p.hazards, ...Object.entries(p.subHazards?.[key] ?? {})]);
    for (const a of args) {
      const o = a.value?.split('=')[0];
      if (!o?.startsWith('-') || o === '-') continue;
      const h = o.startsWith('--')
        ? (hazards.get(o) ?? (o.length >= 5 ? [...hazards].find(([k]) => k.startsWith(o))?.[1] : undefined))
        : [...o.slice(1)].map((c) => hazards.get(`-${c}`)).find(Boolean);
      if (h) {
        out.hazard ??= `${o}, which ${h}`;
        break;
      }
      if (p.unknownIsHazard && o.startsWith('--') && o !== '--') {
        out.hazard ??= `${o}, and ${p.unknownIsHazard}`;
        break;
      }
    }
    return { ...out, refusal: out.refusal ?? NOT_LISTED };
  }
  out.form = f.form;
  out.cls = f.cls;
  out.printsContent = !!f.printsContent;
  const parsed =
    key === '' && g ? g : parseOpts(args, f.table, new Map([...p.hazards, ...Object.entries(f.hazards ?? {})]));
  if (parsed.hazard) out.hazard ??= `${parsed.hazard.option}, which ${parsed.hazard.reason}`;
  if (parsed.unknown) {
    if (p.unknownIsHazard && parsed.unknown.startsWith('--'))
      out.hazard ??= `${parsed.unknown.split('=')[0]}, and ${p.unknownIsHazard}`;
    out.refusal ??= `the option ${parsed.unknown} is not on the allow list for ${f.form}`;
  }
  const extra = f.check?.(parsed);
  if (extra) out.refusal ??= extra;
  out.note = f.note?.(parsed);
  for (const v of parsed.valueWords) {
    if (f.pathOpts?.includes(v.name)) out.paths.push(v.word);
    else if (f.globOpts?.includes(v.name) && !v.word.value?.startsWith('!'))
      out.paths.push({ value: v.word.value, glob: v.word.value });
  }
  let operands = parsed.operands;
  if (f.operands === 'pattern+paths' && !f.patternOpts?.some((o) => parsed.seen.has(o))) operands = operands.slice(1);
  if (f.operands === 'text' || f.operands === 'none') {
    if (f.operands === 'none' && operands.length > 0) out.refusal ??= `${f.form} takes no operands`;
    operands = [];
  }
  const recursive = f.recursive?.(parsed) ?? false;
  for (const o of operands) {
    out.paths.push({ ...o, folder: recursive });
    if (f.operands === 'revs+paths' && o.value?.includes(':'))
      out.paths.push({ value: o.value.slice(o.value.indexOf(':') + 1), glob: undefined });
  }
  if (recursive) {
    out.recursive = operands.length ? operands : [];
    const def = operands.length === 0 ? f.defaultFolder?.(parsed, piped) : undefined;
    if (def) out.recursive = [{ value: def, glob: undefined }];
  }
  return out;
}

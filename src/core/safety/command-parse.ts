// The shell side of the command rules: parse a command line with mvdan-sh (a complete bash parser) and list
// every simple command in it — in chains, pipes, subshells, $(...), backticks, <(...), function bodies —
// with what the rules need to judge it: literal words, glob patterns, assignments, redirections.
// No judgement here; commands.ts decides. No imports of our own.

/** An assignment the shell performs: `NAME=value cmd`, `NAME=value;`, `export NAME=value`, `${NAME:=x}`, `$((NAME=1))`. */
export interface CommandAssign {
  name: string;
  /** Literal value; undefined when it has run-time expansions or there is none (`export NAME`). */
  value?: string;
}

export interface CommandPart {
  /** Source text of the simple command. */
  text: string;
  /** Literal words (undefined for words with expansions resolved only at run time). */
  words: (string | undefined)[];
  /**
   * For each word that the shell expands as a glob or brace pattern (unquoted `*`, `?`, `[`, `{a,b}`): the
   * pattern, with quoted characters escaped by a backslash. Undefined for words the shell takes literally.
   */
  globs: (string | undefined)[];
  /** Assignments made by this command (before it, or by it as export/declare/local/readonly). */
  assigns: CommandAssign[];
  /** Output redirection targets ('>', '>>', '>|', '&>', '&>>', '>&file', '<>'), literal or undefined. */
  writes: (string | undefined)[];
  /** Input redirection sources ('<', '<>', '<&file'), literal or undefined. Here-docs and here-strings are not reads. */
  reads: (string | undefined)[];
  /** Names of the parameters expanded in the words (`$HOME` -> HOME). */
  params: string[];
  /** The command reads a pipe from the previous command. */
  pipedInto: boolean;
  /** What kind of statement this is; 'call' for ordinary commands. */
  kind: 'call' | 'decl' | 'function' | 'compound';
  /** Set on commands found inside another one (`xargs cat`, `find -exec`, `nice git`): the outer program. */
  via?: string;
  /** The outer program adds arguments known only at run time (xargs, find -exec). */
  runtimeArgs?: boolean;
}

// mvdan-sh is a GopherJS build: sync, complete bash AST. It sets Error.stackTraceLimit = Infinity and
// global.require on load, so restore both.
interface ShNode { Pos(): { Offset(): number }; End(): { Offset(): number }; [k: string]: any } // eslint-disable-line @typescript-eslint/no-explicit-any
interface ShSyntax {
  NewParser(): { Parse(src: string, name: string): ShNode };
  Walk(node: ShNode, fn: (n: ShNode | null) => boolean): void;
  NodeType(n: ShNode): string;
}
let shSyntax: ShSyntax | undefined;
/** The vendored parser next to the extension bundle (dist/vendor/mvdan-sh.js); absent when running from source. */
export function vendoredShellParserPath(): string {
  return `${__dirname}/vendor/mvdan-sh.js`;
}
/**
 * The extension bundle leaves mvdan-sh out (1.3 MB that every activation would parse) and ships it as
 * dist/vendor/mvdan-sh.js next to dist/extension.js; running from source (tests via tsx) there is no such
 * file and the package itself is used.
 */
function loadMvdanSh(): unknown {
  /* eslint-disable @typescript-eslint/no-require-imports */
  const vendored = vendoredShellParserPath();
  try {
    return require(vendored);
  } catch (err) {
    if ((err as { code?: string }).code !== 'MODULE_NOT_FOUND' || !String((err as Error).message).includes(vendored)) throw err;
    return require('mvdan-sh');
  }
  /* eslint-enable @typescript-eslint/no-require-imports */
}
/**
 * Runs `load` (which evaluates mvdan-sh and returns its exports) and keeps its syntax package, restoring the
 * globals the GopherJS build changes. The host may call it ahead of time with a cheaper load (a V8 code cache,
 * spread over several ticks: src/host/shell-parser-warmup.ts) so the first command check does not block.
 */
export function adoptShellParser(load: () => unknown): void {
  if (shSyntax) return;
  const limit = Error.stackTraceLimit;
  const g = globalThis as { require?: unknown };
  const hadRequire = 'require' in g;
  const prevRequire = g.require;
  try {
    const syntax = (load() as { syntax?: ShSyntax } | undefined)?.syntax;
    if (!syntax || typeof syntax.NewParser !== 'function') throw new Error('mvdan-sh did not load: no syntax package');
    shSyntax = syntax;
  } finally {
    Error.stackTraceLimit = limit;
    if (hadRequire) g.require = prevRequire;
    else delete g.require;
  }
}
/** Whether the shell parser is loaded (the first command check will not pay for it). */
export function shellParserLoaded(): boolean {
  return shSyntax !== undefined;
}
function sh(): ShSyntax {
  if (!shSyntax) adoptShellParser(loadMvdanSh);
  return shSyntax!;
}

export function parseErrorText(e: unknown): string {
  const err = e as { Error?: () => string; message?: string };
  if (typeof err?.Error === 'function') return err.Error();
  return err?.message ?? String(e);
}

const ASSIGN_IN_PARAM = /^\$\{([A-Za-z_][A-Za-z0-9_]*):?=/;
const ASSIGN_IN_ARITH = /([A-Za-z_][A-Za-z0-9_]*)\s*(?:\+|-|\*|\/|%|&|\||\^|<<|>>)?=(?!=)/g;

/** Every simple command of one script, without looking into the programs it names (see extractParts in commands.ts). Throws on syntax errors. */
export function parseScript(src: string): CommandPart[] {
  const syntax = sh();
  const file = syntax.NewParser().Parse(src, '');
  const bytes = Buffer.from(src, 'utf8');
  const slice = (a: number, b: number) => bytes.subarray(a, b).toString('utf8');
  const text = (n: ShNode) => slice(n.Pos().Offset(), n.End().Offset()).replace(/[\s;&]+$/, '');
  const key = (n: ShNode) => `${n.Pos().Offset()}:${n.End().Offset()}`; // GopherJS wraps nodes anew on access: key by span
  const piped = new Set<string>();
  const parts: CommandPart[] = [];
  const byCall = new Map<string, CommandPart>();
  const stray: CommandAssign[] = []; // ${X:=v} and $((X=1)) before any command
  const addStray = (a: CommandAssign) => (parts.length ? parts[parts.length - 1]!.assigns.push(a) : stray.push(a));

  syntax.Walk(file, (n) => {
    if (!n) return true;
    const type = syntax.NodeType(n);
    if (type === 'BinaryCmd') {
      const op = slice(n.OpPos.Offset(), n.OpPos.Offset() + 2);
      if (op.startsWith('|') && op !== '||') for (const c of calls(syntax, n.Y)) piped.add(key(c));
    } else if (type === 'ParamExp') {
      const m = ASSIGN_IN_PARAM.exec(slice(n.Pos().Offset(), n.End().Offset()));
      if (m) addStray({ name: m[1]! });
    } else if (type === 'ArithmExp' || type === 'ArithmCmd' || type === 'LetClause') {
      for (const m of slice(n.Pos().Offset(), n.End().Offset()).matchAll(ASSIGN_IN_ARITH)) addStray({ name: m[1]! });
    } else if (type === 'Stmt') {
      const writes: (string | undefined)[] = [];
      const reads: (string | undefined)[] = [];
      for (const r of n.Redirs as ShNode[]) {
        const op = slice(r.OpPos.Offset(), r.Word.Pos().Offset()).trim();
        const target = literal(syntax, r.Word);
        const fd = /^(\d+|-)$/.test(slice(r.Word.Pos().Offset(), r.Word.End().Offset()));
        if (op === '<>') { writes.push(target); reads.push(target); }
        else if (/^(&?>>?|>\|)$/.test(op) || (op === '>&' && !fd)) writes.push(target);
        else if (op === '<' || (op === '<&' && !fd)) reads.push(target);
      }
      const cmd = n.Cmd as ShNode | null;
      const ctype = cmd ? syntax.NodeType(cmd) : '';
      const base = { text: text(n), writes, reads, pipedInto: false, globs: [] as (string | undefined)[], params: [] as string[] };
      if (ctype === 'CallExpr') {
        const args = cmd!.Args as ShNode[];
        const assigns = (cmd!.Assigns as ShNode[]).map((a) => assignOf(syntax, a)).filter((a): a is CommandAssign => !!a);
        const part: CommandPart = {
          ...base,
          kind: 'call',
          words: args.map((w) => literal(syntax, w)),
          globs: args.map((w) => globPattern(syntax, w)),
          params: args.flatMap((w) => paramsOf(syntax, w)),
          assigns,
          pipedInto: piped.has(key(cmd!)),
        };
        parts.push(part);
        byCall.set(key(n), part);
      } else if (ctype === 'DeclClause') {
        const words: (string | undefined)[] = [literal(syntax, cmd!.Variant)];
        const assigns: CommandAssign[] = [];
        for (const a of cmd!.Args as ShNode[]) {
          if (a.Name) assigns.push(assignOf(syntax, a)!);
          else words.push(a.Value ? literal(syntax, a.Value) : undefined); // flags (-x) and dynamic words
        }
        const part: CommandPart = { ...base, kind: 'decl', words, globs: [], assigns };
        parts.push(part);
        byCall.set(key(n), part);
      } else if (ctype === 'FuncDecl') {
        parts.push({ ...base, kind: 'function', words: [], assigns: [], text: text(n) });
      } else if (writes.length > 0 || reads.length > 0) {
        parts.push({ ...base, kind: 'compound', words: [], assigns: [] });
      }
    }
    return true;
  });
  if (stray.length > 0) parts.push({ text: src.trim(), words: [], globs: [], assigns: stray, writes: [], reads: [], params: [], pipedInto: false, kind: 'compound' });
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

function assignOf(syntax: ShSyntax, a: ShNode): CommandAssign | undefined {
  const name = a.Name?.Value as string | undefined;
  if (!name) return undefined;
  if (a.Array || a.Index) return { name };
  return { name, value: a.Naked ? undefined : a.Value ? literal(syntax, a.Value) : '' };
}

/** The literal value of a word, or undefined when it contains run-time expansions. */
export function literal(syntax: ShSyntax, word: ShNode | null): string | undefined {
  if (!word) return undefined;
  const type = syntax.NodeType(word);
  if (type === 'Lit') return unescape(word.Value as string, false);
  let out = '';
  for (const part of word.Parts as ShNode[]) {
    const t = syntax.NodeType(part);
    if (t === 'Lit') out += unescape(part.Value as string, false);
    else if (t === 'SglQuoted') {
      // $'...' decodes escapes ($'\x2e' is '.'): known only after decoding, so treat it as run-time.
      if (part.Dollar && (part.Value as string).includes('\\')) return undefined;
      out += part.Value as string;
    } else if (t === 'DblQuoted') {
      if (part.Dollar) return undefined; // $"..." is translated at run time
      for (const q of part.Parts as ShNode[]) {
        if (syntax.NodeType(q) !== 'Lit') return undefined;
        out += unescape(q.Value as string, true);
      }
    } else return undefined;
  }
  return out;
}

const GLOB_CHARS = /[*?[{]/;
const escapeGlob = (s: string) => s.replace(/[*?[\]{}\\,]/g, '\\$&');

/** The word as a glob pattern when its unquoted parts hold glob or brace characters; undefined otherwise (or when it is not literal). */
function globPattern(syntax: ShSyntax, word: ShNode): string | undefined {
  const parts = syntax.NodeType(word) === 'Lit' ? [word] : (word.Parts as ShNode[]);
  let out = '';
  let glob = false;
  for (const part of parts) {
    const t = syntax.NodeType(part);
    if (t === 'Lit') {
      const v = part.Value as string;
      if (GLOB_CHARS.test(v.replace(/\\./g, ''))) glob = true;
      out += v.replace(/\\\n/g, '');
    } else if (t === 'SglQuoted') {
      if (part.Dollar && (part.Value as string).includes('\\')) return undefined;
      out += escapeGlob(part.Value as string);
    } else if (t === 'DblQuoted') {
      for (const q of part.Parts as ShNode[]) {
        if (syntax.NodeType(q) !== 'Lit') return undefined;
        out += escapeGlob(unescape(q.Value as string, true));
      }
    } else return undefined;
  }
  return glob ? out : undefined;
}

function paramsOf(syntax: ShSyntax, word: ShNode): string[] {
  const out: string[] = [];
  syntax.Walk(word, (n) => {
    if (n && syntax.NodeType(n) === 'ParamExp' && n.Param) out.push(n.Param.Value as string);
    return !(n && /^(CmdSubst|ProcSubst)$/.test(syntax.NodeType(n)));
  });
  return out;
}

function unescape(s: string, inDouble: boolean): string {
  return s.replace(/\\(\n|.)/g, (m, c: string) => (c === '\n' ? '' : !inDouble || '$`"\\'.includes(c) ? c : m));
}

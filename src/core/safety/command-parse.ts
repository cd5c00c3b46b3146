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

/** A command whose output flows somewhere, by its literal words (undefined for words known only at run time). */
export type Producer = (string | undefined)[];

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
  /**
   * Commands whose output can reach this command's standard input, by their literal words: the earlier stages
   * of its pipe, a `< <(...)` or `>(...)` it reads, and the substitutions in its here-documents and here-strings.
   * Computed when first asked for (it walks the pipe).
   */
  stdinFrom?: () => Producer[];
  /**
   * For each word: the commands whose output the word holds — its $(...), backticks and <(...), and the
   * substitutions assigned earlier in the script to a variable the word expands (`s=$(curl x); sh -c "$s"`).
   */
  wordFrom?: Producer[][];
  /** For kind 'function': its name and the functions or programs its body calls, `forked` when in a new process (`&`, a pipe, ( ), $( )). */
  fn?: { name: string; calls: { name: string; forked: boolean }[] };
  /** Set on commands found inside another one (`xargs cat`, `find -exec`, `nice git`): the outer program. */
  via?: string;
  /** The outer program adds arguments known only at run time (xargs, find -exec). */
  runtimeArgs?: boolean;
}

// mvdan-sh is a GopherJS build: sync, complete bash AST. It sets Error.stackTraceLimit = Infinity and
// global.require on load, so restore both.
interface ShNode {
  Pos(): { Offset(): number };
  End(): { Offset(): number };
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the GopherJS AST is untyped
  [k: string]: any;
}
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
    if ((err as { code?: string }).code !== 'MODULE_NOT_FOUND' || !String((err as Error).message).includes(vendored))
      throw err;
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

/** Every simple command of one script, without looking into the programs it names (see extractParts in command-parts.ts). Throws on syntax errors. */
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

  const span = (n: ShNode): [number, number] => [n.Pos().Offset(), n.End().Offset()];
  // Where output flows: producers reaching a call's stdin (by the call's key), and variables holding a substitution's output.
  const stdinOf = new Map<string, (() => Producer[])[]>();
  const tainted = new Map<string, Producer[]>();
  const feed = (target: ShNode, from: () => Producer[]) => {
    const k = key(target);
    stdinOf.set(k, [...(stdinOf.get(k) ?? []), from]);
  };
  /** The producers of a call's stdin, walked for only when a judgement needs them. */
  const lazyStdin = (sources: (() => Producer[])[] | undefined): (() => Producer[]) | undefined => {
    if (!sources) return undefined;
    let memo: Producer[] | undefined;
    return () => (memo ??= sources.flatMap((f) => f()));
  };
  /** The commands inside a node (in a word: those of its substitutions) and the substitutions behind the variables it expands. */
  const producersIn = (node: ShNode | null | undefined): Producer[] => {
    const out: Producer[] = [];
    if (!node) return out;
    syntax.Walk(node, (m) => {
      if (!m) return true;
      const t = syntax.NodeType(m);
      if (t === 'CallExpr') out.push((m.Args as ShNode[]).map((w) => literal(syntax, w)));
      else if (t === 'ParamExp' && m.Param) out.push(...(tainted.get(m.Param.Value as string) ?? []));
      return out.length < 64;
    });
    return out;
  };
  const taint = (name: string, from: Producer[]) => (from.length ? tainted.set(name, from) : tainted.delete(name));
  const isPipe = (n: ShNode) => {
    const op = slice(n.OpPos.Offset(), n.OpPos.Offset() + 2);
    return op.startsWith('|') && op !== '||';
  };

  syntax.Walk(file, (n) => {
    if (!n) return true;
    const type = syntax.NodeType(n);
    if (type === 'BinaryCmd') {
      if (isPipe(n)) {
        const x = n.X as ShNode;
        const from = () => producersIn(x);
        for (const c of calls(syntax, n.Y)) {
          piped.add(key(c));
          feed(c, from);
        }
      }
    } else if (type === 'ParamExp') {
      const m = ASSIGN_IN_PARAM.exec(slice(n.Pos().Offset(), n.End().Offset()));
      if (m) addStray({ name: m[1]! });
    } else if (type === 'ArithmExp' || type === 'ArithmCmd' || type === 'LetClause') {
      for (const m of slice(n.Pos().Offset(), n.End().Offset()).matchAll(ASSIGN_IN_ARITH)) addStray({ name: m[1]! });
    } else if (type === 'WordIter' && n.Name) {
      taint(
        n.Name.Value as string,
        (n.Items as ShNode[]).flatMap((w) => producersIn(w)),
      );
    } else if (type === 'Stmt') {
      const writes: (string | undefined)[] = [];
      const reads: (string | undefined)[] = [];
      const cmd = n.Cmd as ShNode | null;
      const ctype = cmd ? syntax.NodeType(cmd) : '';
      const targets = () => (ctype === 'CallExpr' ? [cmd!] : cmd ? calls(syntax, cmd) : []);
      for (const r of n.Redirs as ShNode[]) {
        const op = slice(r.OpPos.Offset(), r.Word.Pos().Offset()).trim();
        const target = literal(syntax, r.Word);
        const fd = /^(\d+|-)$/.test(slice(r.Word.Pos().Offset(), r.Word.End().Offset()));
        if (op === '<>') {
          writes.push(target);
          reads.push(target);
        } else if (/^(&?>>?|>\|)$/.test(op) || (op === '>&' && !fd)) writes.push(target);
        else if (op === '<' || (op === '<&' && !fd)) reads.push(target);
        // Input that other commands produce: `< <(...)` is a pipe; here-strings and here-documents carry their substitutions.
        const word = r.Word as ShNode;
        const hdoc = r.Hdoc as ShNode | null;
        if (op === '<' && substOps(syntax, word, slice).includes('<('))
          for (const c of targets()) {
            piped.add(key(c));
            feed(c, () => producersIn(word));
          }
        else if (op === '<<<') for (const c of targets()) feed(c, () => producersIn(word));
        else if (op.startsWith('<<')) for (const c of targets()) feed(c, () => producersIn(hdoc));
      }
      // `cmd > >(sh)`, `cmd | tee >(sh)`: what runs inside >(...) reads the command's output.
      const stmtText = text(n);
      const cmdKey = ctype === 'CallExpr' ? key(cmd!) : '';
      const outSubsts = stmtText.includes('>(')
        ? [
            ...(ctype === 'CallExpr' ? (cmd!.Args as ShNode[]) : []),
            ...(n.Redirs as ShNode[]).map((r) => r.Word as ShNode),
          ].flatMap((w) => outputSubsts(syntax, w, slice))
        : [];
      if (outSubsts.length) {
        const own = lazyStdin(stdinOf.get(cmdKey));
        const from =
          ctype === 'CallExpr'
            ? () => [(cmd!.Args as ShNode[]).map((w) => literal(syntax, w)), ...(own?.() ?? [])]
            : () => producersIn(cmd);
        for (const ps of outSubsts)
          for (const st of ps.Stmts as ShNode[])
            for (const c of calls(syntax, st)) {
              piped.add(key(c));
              feed(c, from);
            }
      }
      const base = {
        text: stmtText,
        writes,
        reads,
        pipedInto: false,
        globs: [] as (string | undefined)[],
        params: [] as string[],
      };
      if (ctype === 'CallExpr') {
        const args = cmd!.Args as ShNode[];
        const assigns = (cmd!.Assigns as ShNode[])
          .map((a) => assignOf(syntax, a))
          .filter((a): a is CommandAssign => !!a);
        // A plain command (no `$`, backtick or process substitution anywhere in it) has nothing feeding its words.
        const fed = /[$`]|[<>]\(/;
        const wordFrom = fed.test(stmtText)
          ? args.map((w) => (fed.test(slice(w.Pos().Offset(), w.End().Offset())) ? producersIn(w) : []))
          : [];
        const stdinFrom = lazyStdin(stdinOf.get(cmdKey));
        const part: CommandPart = {
          ...base,
          kind: 'call',
          words: args.map((w) => literal(syntax, w)),
          globs: args.map((w) => globPattern(syntax, w)),
          params: args.flatMap((w) => paramsOf(syntax, w)),
          assigns,
          pipedInto: piped.has(cmdKey),
          ...(stdinFrom ? { stdinFrom } : {}),
          ...(wordFrom.some((f) => f.length) ? { wordFrom } : {}),
        };
        parts.push(part);
        byCall.set(key(n), part);
        for (const a of cmd!.Assigns as ShNode[]) if (a.Name) taint(a.Name.Value as string, producersIn(a.Value));
        if (/^(read|mapfile|readarray)$/.test(part.words[0] ?? '') && stdinFrom) {
          for (const w of part.words.slice(1)) if (w && /^[A-Za-z_][A-Za-z0-9_]*$/.test(w)) taint(w, stdinFrom());
        }
      } else if (ctype === 'DeclClause') {
        const words: (string | undefined)[] = [literal(syntax, cmd!.Variant)];
        const assigns: CommandAssign[] = [];
        for (const a of cmd!.Args as ShNode[]) {
          if (a.Name) {
            assigns.push(assignOf(syntax, a)!);
            taint(a.Name.Value as string, producersIn(a.Value));
          } else words.push(a.Value ? literal(syntax, a.Value) : undefined); // flags (-x) and dynamic words
        }
        const part: CommandPart = { ...base, kind: 'decl', words, globs: [], assigns };
        parts.push(part);
        byCall.set(key(n), part);
      } else if (ctype === 'FuncDecl') {
        parts.push({
          ...base,
          kind: 'function',
          words: [],
          assigns: [],
          text: text(n),
          fn: functionCalls(syntax, cmd!, span, isPipe),
        });
      } else if (writes.length > 0 || reads.length > 0) {
        parts.push({ ...base, kind: 'compound', words: [], assigns: [] });
      }
    }
    return true;
  });
  if (stray.length > 0)
    parts.push({
      text: src.trim(),
      words: [],
      globs: [],
      assigns: stray,
      writes: [],
      reads: [],
      params: [],
      pipedInto: false,
      kind: 'compound',
    });
  return parts;
}

/** The openings (`$(`, `<(`, `>(`, '`') of the substitutions directly in a word. */
function substOps(syntax: ShSyntax, word: ShNode | null, slice: (a: number, b: number) => string): string[] {
  const out: string[] = [];
  if (!word) return out;
  syntax.Walk(word, (m) => {
    if (m && /^(CmdSubst|ProcSubst)$/.test(syntax.NodeType(m))) {
      out.push(slice(m.Pos().Offset(), m.Pos().Offset() + 2));
      return false;
    }
    return true;
  });
  return out;
}

/** The output process substitutions `>(...)` directly in a word. */
function outputSubsts(syntax: ShSyntax, word: ShNode | null, slice: (a: number, b: number) => string): ShNode[] {
  const out: ShNode[] = [];
  if (!word) return out;
  syntax.Walk(word, (m) => {
    if (!m || !/^(CmdSubst|ProcSubst)$/.test(syntax.NodeType(m))) return true;
    if (slice(m.Pos().Offset(), m.Pos().Offset() + 2) === '>(') out.push(m);
    return false;
  });
  return out;
}

/** A function's name and the commands its body calls, each marked when it runs in a process of its own. */
function functionCalls(
  syntax: ShSyntax,
  fn: ShNode,
  span: (n: ShNode) => [number, number],
  isPipe: (n: ShNode) => boolean,
): { name: string; calls: { name: string; forked: boolean }[] } {
  const forks: [number, number][] = [];
  const found: { name: string; at: [number, number] }[] = [];
  syntax.Walk(fn.Body, (m) => {
    if (!m) return true;
    const t = syntax.NodeType(m);
    if (t === 'Stmt' && (m.Background || m.Coprocess)) forks.push(span(m));
    else if (t === 'BinaryCmd' && isPipe(m)) forks.push(span(m.X), span(m.Y));
    else if (t === 'Subshell' || t === 'CmdSubst' || t === 'ProcSubst') forks.push(span(m));
    else if (t === 'CallExpr') {
      const name = literal(syntax, (m.Args as ShNode[])[0] ?? null);
      if (name !== undefined) found.push({ name, at: span(m) });
    }
    return found.length < 256;
  });
  return {
    name: fn.Name.Value as string,
    calls: found.map((c) => ({ name: c.name, forked: forks.some(([a, b]) => a <= c.at[0] && c.at[1] <= b) })),
  };
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
function literal(syntax: ShSyntax, word: ShNode | null): string | undefined {
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

// Two forms that are refused outright, by what they do rather than by how they are spelled:
//  - code from the network run without review: a download piped, substituted or redirected into an
//    interpreter (`curl … | sh`, `sh -c "$(curl …)"`, `bash <(wget -O- …)`, `eval "$(curl …)"`,
//    `s=$(curl …); bash -c "$s"`, `curl -o i.sh … && sh i.sh`), and any program reading its code from a pipe
//    (`… | python3`, `… | xargs sh -c`);
//  - the fork bomb: a function that starts copies of itself in new processes (`:(){ :|:& };:`, `f(){ f & f; }`),
//    directly or through another function.
// Both are judged on the parsed command (command-parse.ts: what feeds each command's stdin and words, and each
// function's calls), so renaming, quoting, wrappers and nesting do not change the verdict.
import type { CommandPart, Producer } from './command-parse';
import { normalize } from './command-hazards';
import type { Word } from './command-options';
import { unwrap } from './command-wrappers';

/** Programs that fetch from the network and print or save what they fetched. */
const FETCHERS = new Set([
  'curl',
  'wget',
  'wget2',
  'fetch',
  'ftp',
  'tftp',
  'aria2c',
  'axel',
  'http',
  'https',
  'xh',
  'xhs',
  'curlie',
  'httpie',
  'lwp-request',
  'lwp-download',
  'GET',
  'POST',
  'HEAD',
  'lynx',
  'links',
  'elinks',
  'w3m',
  'nc',
  'ncat',
  'netcat',
  'socat',
  'telnet',
  'ssh',
  'scp',
  'sftp',
  'rsync',
  'iwr',
  'irm',
  'invoke-webrequest',
  'invoke-restmethod',
]);
const PRIVILEGE = new Set(['sudo', 'doas', 'su', 'pkexec', 'run0']);
const STDIN_PATHS = new Set(['-', '/dev/stdin', '/dev/fd/0', '/proc/self/fd/0', '/proc/thread-self/fd/0']);

/**
 * How an interpreter takes its code. `inline`: options whose presence makes the first operand the code (sh -c),
 * or whose value is the code (python -c, node -e); `codeValue`: options whose value is code or a code file
 * (bash --rcfile, node -r); `value`: options with a value that is not code; `stdin`: short flags that make it
 * read its program from stdin (sh -s); `noMain`: options after which no script operand is read (python -m);
 * `subs`: subcommands and what their first operand is; `allCode`: every word is code (eval).
 */
interface Shape {
  inline?: string[];
  codeValue?: string[];
  value?: string[];
  stdin?: string[];
  noMain?: string[];
  subs?: Record<string, 'code' | 'script' | 'none'>;
  /** Short options take a value in the same word or the next (getopt); otherwise `-c` is a flag and the code follows as an operand. */
  inlineIsFlag?: boolean;
  allCode?: boolean;
  /** `source file`: the first operand is code; without one nothing is read from stdin. */
  operandOnly?: boolean;
  lower?: boolean;
}

const SHELL: Shape = {
  inline: ['-c'],
  inlineIsFlag: true,
  codeValue: ['--rcfile', '--init-file'],
  value: ['-o', '+o', '-O', '+O'],
  stdin: ['-s'],
};
const SHAPES: Record<string, Shape> = {
  fish: { inline: ['-c', '--command'], codeValue: ['-C', '--init-command'] },
  nu: { inline: ['-c', '--commands'], codeValue: ['--config', '--env-config'] },
  python: { inline: ['-c'], value: ['-W', '-X', '--check-hash-based-pycs', '-Q'], noMain: ['-m'] },
  node: {
    inline: ['-e', '--eval', '-p', '--print'],
    codeValue: ['-r', '--require', '--import', '--loader', '--experimental-loader'],
    value: ['-C', '--conditions', '--input-type', '--title', '--env-file', '--stack-size', '--max-old-space-size'],
  },
  deno: {
    inline: ['--eval'],
    subs: {
      run: 'script',
      eval: 'code',
      repl: 'none',
      fmt: 'none',
      lint: 'none',
      test: 'none',
      check: 'none',
      info: 'none',
      doc: 'none',
      task: 'none',
      compile: 'none',
      install: 'script',
      serve: 'script',
      bench: 'none',
      upgrade: 'none',
      x: 'script',
    },
    value: ['--config', '-c', '--import-map', '--lock'],
  },
  bun: {
    inline: ['-e', '--eval', '-p', '--print'],
    subs: {
      run: 'script',
      x: 'script',
      install: 'none',
      add: 'none',
      remove: 'none',
      test: 'none',
      build: 'none',
      init: 'none',
      create: 'none',
      pm: 'none',
      upgrade: 'none',
      link: 'none',
      outdated: 'none',
      update: 'none',
    },
  },
  perl: { inline: ['-e', '-E'], value: ['-I', '-M', '-m', '-x', '-d'] },
  ruby: { inline: ['-e'], codeValue: ['-r'], value: ['-I', '-C', '-E', '-x', '-F', '--encoding'] },
  php: { inline: ['-r', '-B', '-R', '-E', '-f'], value: ['-c', '-d', '-z', '-t', '-S'] },
  lua: { inline: ['-e'], codeValue: ['-l'] },
  rscript: { inline: ['-e'] },
  osascript: { inline: ['-e'], value: ['-l', '-s'] },
  pwsh: {
    inline: ['-c', '-command', '-e', '-ec', '-encodedcommand', '-cwa', '-commandwithargs', '-f', '-file'],
    value: [
      '-wd',
      '-workingdirectory',
      '-ex',
      '-executionpolicy',
      '-o',
      '-outputformat',
      '-i',
      '-inputformat',
      '-settingsfile',
      '-configurationname',
    ],
    lower: true,
  },
  awk: {
    inline: ['-f', '--file', '-E', '--exec'],
    codeValue: ['-i', '--include'],
    value: ['-F', '--field-separator', '-v', '--assign'],
  },
  tclsh: {},
  eval: { allCode: true },
  source: { operandOnly: true },
};
const SHELL_NAMES = [
  'sh',
  'bash',
  'zsh',
  'dash',
  'ksh',
  'mksh',
  'pdksh',
  'yash',
  'csh',
  'tcsh',
  'ash',
  'rbash',
  'elvish',
  'xonsh',
];
const ALIASES: Record<string, string> = {
  nodejs: 'node',
  ts_node: 'node',
  'ts-node': 'node',
  tsx: 'node',
  python2: 'python',
  python3: 'python',
  pypy: 'python',
  pypy3: 'python',
  perl5: 'perl',
  php8: 'php',
  luajit: 'lua',
  Rscript: 'rscript',
  powershell: 'pwsh',
  gawk: 'awk',
  mawk: 'awk',
  nawk: 'awk',
  busybox_awk: 'awk',
  wish: 'tclsh',
  '.': 'source',
};

function shapeOf(base: string): Shape | undefined {
  if (SHELL_NAMES.includes(base)) return SHELL;
  const b =
    ALIASES[base] ?? ALIASES[base.toLowerCase()] ?? base.replace(/^(python|ruby|perl|php|lua|node)[\d.]+$/, '$1');
  return SHAPES[b];
}

const baseName = (w: string) =>
  w
    .replace(/\\/g, '/')
    .split('/')
    .pop()!
    .replace(/\.exe$/i, '');

/** Where an interpreter's code comes from: the indexes of its code words, and whether it reads its program from stdin. */
interface CodeSource {
  program: string;
  /** Indexes into the words of every word that is code or names a code file. */
  code: number[];
  /** It reads its program from stdin (no script, `-`, /dev/stdin, sh -s). */
  stdin: boolean;
  /** The code is expected from words that are not there (`sh -c` with no script: xargs would supply it). */
  missing: boolean;
}

/** How the words' program takes its code, or undefined when it is not an interpreter Forge knows. */
export function codeSource(words: (string | undefined)[]): CodeSource | undefined {
  let start = 0;
  if (words[0] !== undefined && baseName(words[0]) === 'busybox') start = 1;
  const first = words[start];
  if (first === undefined) return undefined;
  const program = baseName(first);
  const shape = shapeOf(program);
  if (!shape) return undefined;
  const code: number[] = [];
  if (shape.allCode) {
    for (let i = start + 1; i < words.length; i++) code.push(i);
    return { program, code, stdin: false, missing: code.length === 0 };
  }
  type Kind = 'inlineFlag' | 'inline' | 'codeValue' | 'value' | 'noMain';
  const has = (list: string[] | undefined, o: string) => !!list?.includes(shape.lower ? o.toLowerCase() : o);
  const classify = (o: string): Kind | undefined =>
    has(shape.inline, o)
      ? shape.inlineIsFlag
        ? 'inlineFlag'
        : 'inline'
      : has(shape.codeValue, o)
        ? 'codeValue'
        : has(shape.value, o)
          ? 'value'
          : has(shape.noMain, o)
            ? 'noMain'
            : undefined;
  let inlineFlag = false; // sh -c: the first operand is the code
  let inlineValue = false; // python -c x, awk -f f: an option value is the main code
  let stdinFlag = false;
  let noMain = false;
  let missing = false;
  let sub: 'code' | 'script' | 'none' | undefined;
  let main: number | undefined;
  let i = start + 1;
  /** An option of `kind` whose value is attached (in word i) or the next word. */
  const takeValue = (kind: Kind, attached: boolean) => {
    if (kind === 'inlineFlag') {
      inlineFlag = true;
      return;
    }
    if (kind === 'noMain') noMain = true;
    if (kind === 'inline') inlineValue = true;
    const at = attached ? i : i + 1;
    if (!attached) i++;
    if (kind === 'inline' || kind === 'codeValue') {
      if (at < words.length) code.push(at);
      else if (kind === 'inline') missing = true;
    }
  };
  for (; i < words.length; i++) {
    const w = words[i];
    if (w === undefined) {
      main = i;
      break;
    } // known only at run time: it may be the script
    if (w === '--') {
      if (i + 1 < words.length) main = i + 1;
      break;
    }
    const isOpt = (w.startsWith('-') && w !== '-') || (shape === SHELL && w.startsWith('+') && w.length > 1);
    if (!isOpt) {
      if (shape.subs && sub === undefined && Object.prototype.hasOwnProperty.call(shape.subs, w)) {
        sub = shape.subs[w];
        if (sub === 'none') return { program, code: [], stdin: false, missing: false };
        continue;
      }
      main = i;
      break;
    }
    const eq = w.startsWith('--') ? w.indexOf('=') : -1;
    const whole = classify(eq > 0 ? w.slice(0, eq) : w);
    if (whole || w.startsWith('--') || shape.lower) {
      if (whole) takeValue(whole, eq > 0);
      continue; // an unknown long option: a flag as far as Forge can tell
    }
    // A cluster of short options (-ec, -uc 'code', -lne 'code', -Ilib), getopt style.
    for (let k = 1; k < w.length; k++) {
      const o = w[0]! + w[k]!;
      if (shape.stdin?.includes(o)) {
        stdinFlag = true;
        continue;
      }
      const kind = classify(o);
      if (!kind) continue;
      if (kind === 'inlineFlag') {
        inlineFlag = true;
        continue;
      }
      takeValue(kind, k + 1 < w.length);
      break;
    }
  }
  const result = (code: number[], stdin: boolean, missing: boolean): CodeSource => ({
    program,
    code,
    stdin: stdin || code.some((c) => STDIN_PATHS.has(words[c] ?? '')),
    missing,
  });
  if (inlineValue || noMain) return result(code, false, missing);
  if (shape.operandOnly || inlineFlag || sub === 'code')
    return main === undefined ? result(code, false, true) : result([...code, main], false, false);
  if (stdinFlag) return result(code, true, false); // sh -s: the operands are the script's arguments
  if (main === undefined) return result(code, true, false);
  return result([...code, main], false, false);
}

// ------------------------------------------------------------------------------------------------ fetchers

/** The words of the program a command really runs: through wrappers (env, nice, timeout, xargs …) and sudo. */
function realProgram(words: (string | undefined)[], depth = 0): (string | undefined)[] {
  const first = words[0];
  if (first === undefined || depth > 6) return words;
  const base = baseName(first);
  if (PRIVILEGE.has(base)) {
    let i = 1;
    while (i < words.length && words[i]?.startsWith('-')) i += /^-[ugCDhprTU]$/.test(words[i]!) ? 2 : 1;
    return realProgram(words.slice(i), depth + 1);
  }
  const u = unwrap(words.map((value): Word => ({ value, glob: undefined })));
  if (u?.inner && u.inner.words.length)
    return realProgram(
      u.inner.words.map((w) => w.value),
      depth + 1,
    );
  return words;
}

/** The producer fetches from the network (curl, wget …, also behind wrappers or in a `sh -c` script). */
function fetches(words: Producer, scriptParts?: (script: string) => CommandPart[], depth = 0): boolean {
  const real = realProgram(words);
  const first = real[0];
  if (first === undefined) return false;
  const base = baseName(first);
  if (FETCHERS.has(base) || FETCHERS.has(base.toLowerCase())) return true;
  const src = codeSource(real);
  if (src && scriptParts && depth < 3) {
    for (const c of src.code) {
      const script = real[c];
      if (
        script === undefined ||
        !(SHELL_NAMES.includes(src.program) || src.program === 'fish' || src.program === 'eval')
      )
        continue;
      try {
        if (scriptParts(script).some((p) => fetches(p.words, scriptParts, depth + 1))) return true;
      } catch {
        /* not shell syntax: not ours to judge here */
      }
    }
  }
  return false;
}

const show = (words: Producer) => {
  const t = words.map((w) => w ?? '…').join(' ');
  return t.length > 80 ? `${t.slice(0, 77)}...` : t;
};

/** The last path segment of a URL, as curl -O and wget name the file they save. */
function remoteName(url: string): string | undefined {
  const m = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*(\/[^?#]*)?/i.exec(url);
  if (!m) return undefined;
  const last = (m[1] ?? '/').split('/').pop() ?? '';
  return last || 'index.html';
}

/** The files a fetcher saves (curl -o/-O, wget default and -O, aria2c -o), as normalised paths. */
function savedFiles(words: Producer): string[] {
  const real = realProgram(words);
  const base = baseName(real[0] ?? '');
  const out: string[] = [];
  const urls = real.slice(1).filter((w): w is string => w !== undefined && /^[a-z][a-z0-9+.-]*:\/\//i.test(w));
  let dir = '';
  let remote = base === 'wget' || base === 'wget2';
  let named = false;
  for (let i = 1; i < real.length; i++) {
    const w = real[i];
    if (w === undefined || !w.startsWith('-')) continue;
    const eq = w.indexOf('=');
    const long = w.startsWith('--') ? (eq > 0 ? w.slice(0, eq) : w) : undefined;
    const val = () => (w.startsWith('--') && eq > 0 ? w.slice(eq + 1) : real[++i]);
    if (long) {
      if (long === '--output' || long === '--output-document' || long === '--out') {
        const v = val();
        named = true;
        if (v && v !== '-') out.push(v);
      } else if (long === '--remote-name' || long === '--remote-name-all') remote = true;
      else if (long === '--directory-prefix' || long === '--output-dir' || long === '--dir') dir = val() ?? '';
      continue;
    }
    // Short clusters: curl -fsSLo file, wget -qO- url.
    for (let k = 1; k < w.length; k++) {
      const c = w[k]!;
      const rest = w.slice(k + 1);
      const isCurl = base !== 'wget' && base !== 'wget2';
      if (c === 'o' || (c === 'O' && !isCurl)) {
        const v = rest || real[++i];
        named = true;
        if (v && v !== '-') out.push(v);
        break;
      }
      if (c === 'O' && isCurl) {
        remote = true;
        continue;
      }
      if ((c === 'P' && !isCurl) || (c === 'd' && base === 'aria2c')) {
        dir = rest || real[++i] || '';
        break;
      }
    }
  }
  if (remote && !named)
    for (const u of urls) {
      const n = remoteName(u);
      if (n) out.push(n);
    }
  return out.map((f) => normalize(dir && !f.startsWith('/') ? `${dir}/${f}` : f));
}

// ------------------------------------------------------------------------------------------------ judging

export interface DangerContext {
  /** Parses a shell script into its commands (to look into `sh -c '…'` producers). */
  scriptParts: (script: string) => CommandPart[];
  /** Files some part of the command line downloads, normalised (found when first asked for). */
  readonly downloaded: Map<string, Producer>;
  /** Functions defined in the line: name -> calls. */
  functions: Map<string, { name: string; forked: boolean }[]>;
}

/** What every part shares: the files the line downloads (looked for only when a part runs a file) and the functions it defines. */
export function dangerContext(parts: CommandPart[], scriptParts: (script: string) => CommandPart[]): DangerContext {
  const functions = new Map<string, { name: string; forked: boolean }[]>();
  for (const p of parts) if (p.fn) functions.set(p.fn.name, [...(functions.get(p.fn.name) ?? []), ...p.fn.calls]);
  let downloaded: Map<string, Producer> | undefined;
  return {
    scriptParts,
    functions,
    get downloaded() {
      return (downloaded ??= downloadsOf(parts, scriptParts));
    },
  };
}

function downloadsOf(parts: CommandPart[], scriptParts: (script: string) => CommandPart[]): Map<string, Producer> {
  const out = new Map<string, Producer>();
  for (const p of parts) {
    if (p.kind !== 'call' || p.words.length === 0) continue;
    if (fetches(p.words, scriptParts)) {
      for (const f of savedFiles(p.words)) out.set(f, p.words);
      for (const w of p.writes) if (w !== undefined && !w.startsWith('/dev/')) out.set(normalize(w), p.words);
      continue;
    }
    // `curl … | tee i.sh`, `curl … | cat > i.sh`: the download lands in a file all the same.
    const tee = baseName(p.words[0] ?? '') === 'tee';
    if (!p.stdinFrom || (!tee && p.writes.length === 0)) continue;
    const fedByFetch = p.stdinFrom().find((f) => fetches(f, scriptParts));
    if (!fedByFetch) continue;
    for (const w of p.writes) if (w !== undefined && !w.startsWith('/dev/')) out.set(normalize(w), fedByFetch);
    if (tee)
      for (const w of p.words.slice(1)) if (w !== undefined && !w.startsWith('-')) out.set(normalize(w), fedByFetch);
  }
  return out;
}

const REVIEW =
  'Download it to a file in one command, read it, and run it in a separate command if it is what you expect.';

/** Why the part is refused as one of the dangerous forms, or undefined. */
export function dangerousForm(p: CommandPart, ctx: DangerContext): string | undefined {
  if (p.kind === 'function' && p.fn) return forkBomb(p, ctx);
  if (p.kind !== 'call' || p.words.length === 0) return undefined;
  const fetched = (from: Producer[] | undefined) => (from ?? []).find((f) => fetches(f, ctx.scriptParts));
  // The program itself was downloaded in this command line: `curl -o i.sh … && chmod +x i.sh && ./i.sh`.
  const own = p.words[0];
  if (own !== undefined && own.includes('/') && ctx.downloaded.has(normalize(own))) {
    return `\`${p.text}\` runs ${own}, which \`${show(ctx.downloaded.get(normalize(own))!)}\` downloads in the same command: code from the network would run without review. ${REVIEW}`;
  }
  const src = codeSource(p.words);
  if (!src) return undefined;
  const what = src.program;
  if (src.stdin) {
    const from = fetched(p.stdinFrom?.());
    if (from)
      return `\`${p.text}\` runs code downloaded by \`${show(from)}\` (piped into ${what}) without review. ${REVIEW}`;
    if (p.pipedInto)
      return `\`${p.text}\` executes whatever the previous command prints (piping into ${what}). Download or write the script to a file first so it can be reviewed.`;
  }
  for (const i of src.code) {
    const from = fetched(p.wordFrom?.[i]);
    if (from)
      return `\`${p.text}\` runs code downloaded by \`${show(from)}\` (substituted into ${what}) without review. ${REVIEW}`;
    const w = p.words[i];
    if (w !== undefined && /^(https?|ftp):\/\//i.test(w))
      return `\`${p.text}\` runs code straight from the network (${w}) without review. ${REVIEW}`;
    if (w !== undefined && ctx.downloaded.has(normalize(w))) {
      return `\`${p.text}\` runs ${w}, which \`${show(ctx.downloaded.get(normalize(w))!)}\` downloads in the same command: code from the network would run without review. ${REVIEW}`;
    }
  }
  if (src.missing && p.runtimeArgs) {
    return `\`${p.text}\` runs the text ${p.via ?? 'its input'} gives it as ${what} code. Write the script to a file first so it can be reviewed.`;
  }
  return undefined;
}

/** A function that starts itself (directly or through other functions of the line) in a new process multiplies without end. */
function forkBomb(p: CommandPart, ctx: DangerContext): string | undefined {
  const fn = p.fn!;
  const reaches = (from: string, to: string): boolean => {
    const seen = new Set<string>();
    const stack = [from];
    while (stack.length) {
      const f = stack.pop()!;
      if (f === to) return true;
      if (seen.has(f)) continue;
      seen.add(f);
      for (const c of ctx.functions.get(f) ?? []) if (ctx.functions.has(c.name)) stack.push(c.name);
    }
    return false;
  };
  const edge = fn.calls.find((c) => c.forked && ctx.functions.has(c.name) && reaches(c.name, fn.name));
  if (!edge) return undefined;
  const how =
    edge.name === fn.name
      ? `the function ${fn.name} starts copies of itself in new processes`
      : `the function ${fn.name} starts ${edge.name} in a new process, which calls ${fn.name} again`;
  return `\`${p.text}\` is a fork bomb: ${how}, so processes multiply until the machine stops responding.`;
}

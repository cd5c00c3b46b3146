// The built-in allow list, option by option: for each program Forge runs without asking, the forms
// (subcommands) it allows, every option they accept, which option values and operands are file names, and
// the options that are hazards (they run other programs, inject configuration or write files). An option
// that is not listed is simply not on the allow list: the command asks. Also the wrappers (nice, env,
// xargs ...) whose real program is judged instead of them.

export type ProgramClass = 'read-only' | 'runs-workspace-code';

/** A word of a command: its literal value (undefined: known only at run time) and its glob pattern, if any. */
export interface Word {
  value: string | undefined;
  glob: string | undefined;
}

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

// ------------------------------------------------------------------------------------------ option syntax

type OptKind = 'flag' | 'value' | 'optional';
interface OptTable {
  kinds: Map<string, OptKind>;
  numeric: boolean;
  lower: boolean;
}

/** Compile "-a --all -n= --color[=] -#" : `=` takes a value (attached or next word), `[=]` an optional attached value, `-#` numeric options (-5). */
function opts(spec: string, lower = false): OptTable {
  const kinds = new Map<string, OptKind>();
  let numeric = false;
  for (const o of spec.split(/\s+/).filter(Boolean)) {
    if (o === '-#') numeric = true;
    else if (o.endsWith('[=]')) kinds.set(norm(o.slice(0, -3), lower), 'optional');
    else if (o.endsWith('=')) kinds.set(norm(o.slice(0, -1), lower), 'value');
    else kinds.set(norm(o, lower), 'flag');
  }
  return { kinds, numeric, lower };
}
const norm = (o: string, lower: boolean) => (lower ? o.toLowerCase() : o);

interface ParsedOpts {
  /** Option name -> values ('' for flags). */
  seen: Map<string, string[]>;
  /** Value words of options, by option name, for file checks. */
  valueWords: { name: string; word: Word }[];
  operands: Word[];
  unknown?: string;
  hazard?: { option: string; reason: string };
}

/**
 * GNU-style parse: options may follow operands, `--` ends them, short options cluster (-la, -n5), long options
 * take `=value` or the next word. A long option that abbreviates a hazard (`--out` for `--output`) is that hazard.
 */
function parseOpts(
  args: Word[],
  table: OptTable,
  hazards: Map<string, string>,
  stopAtOperand = false,
): ParsedOpts & { rest: number } {
  const r: ParsedOpts & { rest: number } = { seen: new Map(), valueWords: [], operands: [], rest: args.length };
  const see = (name: string, v: string) => (r.seen.get(name) ?? r.seen.set(name, []).get(name)!).push(v);
  const hazardOf = (name: string) => {
    const h = hazards.get(name);
    if (h) return h;
    if (name.startsWith('--') && name.length >= 5)
      for (const [k, v] of hazards) if (k.startsWith('--') && k.startsWith(name)) return v;
    return undefined;
  };
  let i = 0;
  for (; i < args.length; i++) {
    const w = args[i]!;
    const v = w.value;
    if (v === undefined || v === '-' || !v.startsWith('-')) {
      if (stopAtOperand) break;
      r.operands.push(w);
      continue;
    }
    if (v === '--') {
      r.operands.push(...args.slice(i + 1));
      i = args.length;
      break;
    }
    if (v.startsWith('--')) {
      const eq = v.indexOf('=');
      const name = norm(eq < 0 ? v : v.slice(0, eq), table.lower);
      const h = hazardOf(name);
      if (h && !r.hazard) r.hazard = { option: name, reason: h };
      const kind = table.kinds.get(name);
      if (!kind) {
        r.unknown ??= v;
        continue;
      }
      if (eq >= 0) {
        if (kind === 'flag') r.unknown ??= v;
        see(name, v.slice(eq + 1));
        r.valueWords.push({ name, word: { value: v.slice(eq + 1), glob: undefined } });
      } else if (kind === 'value') {
        const next = args[++i];
        if (!next) {
          r.unknown ??= v;
          break;
        }
        see(name, next.value ?? '');
        r.valueWords.push({ name, word: next });
      } else see(name, '');
      continue;
    }
    if (table.numeric && /^-\d+$/.test(v)) {
      see('-#', v.slice(1));
      continue;
    }
    // A short cluster: -la, -n5, -C dir; tsc-style single-dash long names (-noEmit) are looked up whole first.
    const whole = norm(v, table.lower);
    if (v.length > 2 && (table.kinds.has(whole) || hazards.has(whole))) {
      const h = hazards.get(whole);
      if (h && !r.hazard) r.hazard = { option: whole, reason: h };
      const kind = table.kinds.get(whole);
      if (kind === 'value') {
        const next = args[++i];
        see(whole, next?.value ?? '');
        if (next) r.valueWords.push({ name: whole, word: next });
      } else if (kind) see(whole, '');
      else r.unknown ??= v;
      continue;
    }
    for (let k = 1; k < v.length; k++) {
      const name = norm(`-${v[k]}`, table.lower);
      const h = hazards.get(name);
      if (h && !r.hazard) r.hazard = { option: name, reason: h };
      const kind = table.kinds.get(name);
      if (!kind) {
        r.unknown ??= v;
        break;
      }
      if (kind === 'flag') {
        see(name, '');
        continue;
      }
      const rest = v.slice(k + 1);
      if (rest) {
        see(name, rest);
        r.valueWords.push({ name, word: { value: rest, glob: undefined } });
      } else if (kind === 'value') {
        const next = args[++i];
        if (!next) {
          r.unknown ??= v;
          break;
        }
        see(name, next.value ?? '');
        r.valueWords.push({ name, word: next });
      } else see(name, '');
      break;
    }
  }
  r.rest = i;
  return r;
}

// --------------------------------------------------------------------------------------------- the table

type Operands = 'paths' | 'text' | 'pattern+paths' | 'revs+paths' | 'none';

interface Form {
  /** Human-readable form; equals an entry of DEFAULT_COMMAND_RULES.allow. */
  form: string;
  cls: ProgramClass;
  table: OptTable;
  operands: Operands;
  printsContent?: boolean;
  hazards?: Record<string, string>;
  /** Option values that are file names (checked for secrets). */
  pathOpts?: string[];
  /** Option values that are globs over file names and override ignore rules (rg -g). */
  globOpts?: string[];
  /** Options that give the pattern, so every operand is a path (grep -e). */
  patternOpts?: string[];
  /** Whether this use reads folders recursively. */
  recursive?: (p: ParsedOpts) => boolean;
  /** No operand and not reading a pipe: the folder searched by default. */
  defaultFolder?: (p: ParsedOpts, piped: boolean) => string | undefined;
  /** Extra refusal (not a hazard) for this use. */
  check?: (p: ParsedOpts) => string | undefined;
  note?: (p: ParsedOpts) => string | undefined;
}

interface Program {
  /** Options before the subcommand (git -C, npm --silent); undefined: the program has no subcommands. */
  globals?: OptTable;
  /** Hazards anywhere on the line, for every subcommand (also ones not on the table). */
  hazards: Map<string, string>;
  /** Hazards only before the subcommand. */
  globalHazards?: Map<string, string>;
  /** Forms by subcommand ('' for a program without subcommands); 'run test' for npm run. */
  forms: Map<string, Form>;
  /** Subcommands whose first operand names the form (npm run <script>). */
  named?: Set<string>;
  /** Hazards of subcommands not on the table (git grep -O). */
  subHazards?: Record<string, Record<string, string>>;
  /** Any --option the table does not know is a hazard (npm treats every --x as a configuration setting). */
  unknownIsHazard?: string;
}

const RUNS = 'runs other programs';
export const NOT_LISTED = 'is not on the allow list';
/** Options that put git branch in list mode, so its operands are patterns or commits. */
const BRANCH_LISTS = [
  '-l',
  '--list',
  '--contains',
  '--no-contains',
  '--merged',
  '--no-merged',
  '--points-at',
  '-v',
  '-vv',
  '--verbose',
];
const WRITES = 'writes files';
const hz = (o: Record<string, string>) => new Map(Object.entries(o));

const HEAD_OPTS = '-q -v -z --quiet --silent --verbose --zero-terminated -n= -c= --lines= --bytes= -#';
const LS_OPTS =
  '-a -A -b -B -c -C -d -D -f -F -g -G -h -H -i -k -l -L -m -n -N -o -p -q -Q -r -R -s -S -t -u -U -v -x -X -Z -1 ' +
  '--all --almost-all --escape --ignore-backups --directory --classify[=] --file-type --no-group --human-readable --si --dereference ' +
  '--dereference-command-line --dereference-command-line-symlink-to-dir --inode --kibibytes --numeric-uid-gid --literal --hide-control-chars ' +
  '--show-control-chars --quote-name --reverse --recursive --size --context --group-directories-first --full-time --author --color[=] ' +
  '--hyperlink[=] -I= --ignore= --hide= -w= --width= --sort= --time= --format= --block-size= --time-style= -T= --tabsize= --indicator-style= --quoting-style=';
const GREP_OPTS =
  '-i -y -v -w -x -c -l -L -o -q -s -b -n -H -h -a -I -r -R -U -z -Z -E -F -G -P -T --ignore-case --no-ignore-case ' +
  '--invert-match --word-regexp --line-regexp --count --files-with-matches --files-without-match --only-matching --quiet --silent ' +
  '--no-messages --byte-offset --line-number --no-filename --with-filename --text --recursive --dereference-recursive --null --null-data ' +
  '--extended-regexp --fixed-strings --basic-regexp --perl-regexp --color[=] --colour[=] --line-buffered --initial-tab ' +
  '-e= --regexp= -f= --file= -m= --max-count= -A= -B= -C= --after-context= --before-context= --context= --include= --exclude= ' +
  '--exclude-dir= --exclude-from= --label= --binary-files= -d= --directories= -D= --devices= -#';
const RG_OPTS =
  '-i -s -S -v -w -x -c -l -o -q -n -N -H -I -F -P -U -a -. -L -u -0 -p -b --null --pretty --heading --no-heading --json ' +
  '--vimgrep --files --files-with-matches --files-without-match --count --count-matches --fixed-strings --ignore-case --smart-case ' +
  '--case-sensitive --word-regexp --line-regexp --invert-match --only-matching --quiet --line-number --no-line-number --with-filename ' +
  '--no-filename --hidden --no-hidden --no-ignore --no-ignore-vcs --no-ignore-dot --no-ignore-global --no-ignore-parent --no-ignore-files ' +
  '--no-ignore-exclude --follow --multiline --multiline-dotall --pcre2 --text --binary --trim --stats --column --no-column --no-messages ' +
  '--unrestricted --crlf --passthru --byte-offset --max-columns-preview --no-require-git --one-file-system --glob-case-insensitive ' +
  '--type-list --no-config --sort-files --include-zero --no-unicode --line-buffered --block-buffered ' +
  '-e= --regexp= -f= --file= -g= --glob= --iglob= -t= --type= -T= --type-not= -m= --max-count= -A= -B= -C= --after-context= ' +
  '--before-context= --context= -M= --max-columns= -d= --max-depth= -j= --threads= --sort= --sortr= --color= --colors= -r= --replace= ' +
  '--max-filesize= -E= --encoding= --path-separator= --context-separator= --field-match-separator= --field-context-separator= --ignore-file=';
const DIFF_OPTS =
  '-p -u --patch -s --no-patch -U[=] --unified= --raw --patch-with-raw --patch-with-stat --stat[=] --numstat --shortstat ' +
  '--dirstat[=] --compact-summary --summary --name-only --name-status --submodule[=] --color[=] --no-color --color-moved[=] --no-color-moved ' +
  '--color-words[=] --word-diff[=] --word-diff-regex= --no-renames --find-renames[=] -M[=] -B[=] --break-rewrites[=] -C[=] --find-copies[=] ' +
  '--find-copies-harder -D --irreversible-delete -l= --diff-filter= -S= -G= --pickaxe-all --pickaxe-regex -R --relative[=] --no-relative ' +
  '-a --text --ignore-cr-at-eol --ignore-space-at-eol -b --ignore-space-change -w --ignore-all-space --ignore-blank-lines -I= ' +
  '--ignore-matching-lines= --inter-hunk-context= -W --function-context --exit-code --quiet --no-ext-diff --no-textconv --ignore-submodules[=] ' +
  '--src-prefix= --dst-prefix= --no-prefix --default-prefix --line-prefix= --minimal --patience --histogram --anchored= --diff-algorithm= ' +
  '--abbrev[=] --full-index --binary -z --indent-heuristic --no-indent-heuristic --stat-width= --stat-name-width= --stat-count= ' +
  '--stat-graph-width= --merge-base --ita-invisible-in-index -O=';
const LOG_OPTS =
  DIFF_OPTS +
  ' -# -n= --max-count= --skip= --since= --after= --until= --before= --author= --committer= --grep= --all-match ' +
  '--invert-grep -i --regexp-ignore-case -E --extended-regexp -F --fixed-strings -P --perl-regexp --merges --no-merges --min-parents= ' +
  '--max-parents= --first-parent --not --all --branches[=] --tags[=] --remotes[=] --exclude= --reflog --cherry-mark --cherry-pick ' +
  '--left-only --right-only --cherry --walk-reflogs -g --merge --boundary --simplify-by-decoration --full-history --dense --sparse ' +
  '--simplify-merges --ancestry-path[=] --show-pulls --no-walk[=] --do-walk --topo-order --date-order --author-date-order --reverse ' +
  '--oneline --pretty[=] --format= --abbrev-commit --no-abbrev-commit --no-abbrev --encoding= --expand-tabs[=] --no-expand-tabs ' +
  '--notes[=] --no-notes --show-notes[=] --relative-date --date= --parents --children --left-right --graph --no-graph --decorate[=] ' +
  '--no-decorate --decorate-refs= --decorate-refs-exclude= --source --use-mailmap --mailmap --no-mailmap --log-size -L= --follow ' +
  '--full-diff --cc -c --dd --diff-merges= --no-diff-merges --combined-all-paths -m -t -r --root -q';
const TSC_OPTS =
  '--noEmit -p= --project= --pretty[=] --skipLibCheck --strict --listFiles --listFilesOnly --explainFiles --extendedDiagnostics ' +
  '--diagnostics --noErrorTruncation --traceResolution --noUnusedLocals --noUnusedParameters --noImplicitAny --noImplicitReturns ' +
  '--strictNullChecks --allowJs --checkJs --target= -t= --module= -m= --lib= --jsx= --moduleResolution= --types= --noLib ' +
  '--isolatedModules --esModuleInterop --skipDefaultLibCheck --preserveWatchOutput --locale= --version -v';
const TSC_HAZARDS = {
  '--build': WRITES,
  '-b': WRITES,
  '--watch': 'keeps running and writes files',
  '-w': 'keeps running and writes files',
  '--generatetrace': WRITES,
  '--outdir': WRITES,
  '--outfile': WRITES,
  '--out': WRITES,
  '--tsbuildinfofile': WRITES,
  '--declarationdir': WRITES,
  '--incremental': WRITES,
  '-i': WRITES,
  '--generatecpuprofile': WRITES,
  '--plugins': RUNS,
};
const GIT_HAZARDS = {
  '--output': WRITES,
  '--ext-diff': RUNS,
  '--textconv': RUNS,
  '--no-index': 'reads files outside the repository',
  '--open-files-in-pager': RUNS,
  '--upload-pack': RUNS,
  '--receive-pack': RUNS,
  '--exec': RUNS,
  '--config': 'changes git configuration',
  '--show-signature': RUNS,
};
const NPM_HAZARDS = {
  '--script-shell': RUNS,
  '--prefix': "runs another folder's package",
  '--userconfig': 'reads another configuration',
  '--globalconfig': 'reads another configuration',
  '--node-options': RUNS,
  '--call': RUNS,
  '-c': RUNS,
  '--shell': RUNS,
};

function form(f: Omit<Form, 'table'> & { opts: string; lower?: boolean }): Form {
  return { ...f, table: opts(f.opts, f.lower) };
}

const rgFolder = (p: ParsedOpts, piped: boolean) => (piped || p.seen.has('--type-list') ? undefined : '.');
const grepRecursive = (p: ParsedOpts) =>
  ['-r', '-R', '--recursive', '--dereference-recursive'].some((o) => p.seen.has(o)) ||
  [...(p.seen.get('-d') ?? []), ...(p.seen.get('--directories') ?? [])].includes('recurse');

const tsc = (name: string, cls: ProgramClass) =>
  form({
    form: name,
    cls,
    opts: TSC_OPTS,
    lower: true,
    operands: 'paths',
    hazards: TSC_HAZARDS,
    pathOpts: ['-p', '--project'],
    check: (p) =>
      p.seen.has('--noemit') || p.seen.has('--version') || p.seen.has('-v')
        ? undefined
        : 'tsc writes JavaScript files unless given --noEmit',
  });

const PROGRAMS = new Map<string, Program>([
  [
    'ls',
    {
      hazards: new Map(),
      forms: new Map([['', form({ form: 'ls', cls: 'read-only', opts: LS_OPTS, operands: 'paths' })]]),
    },
  ],
  [
    'pwd',
    {
      hazards: new Map(),
      forms: new Map([['', form({ form: 'pwd', cls: 'read-only', opts: '-L -P', operands: 'none' })]]),
    },
  ],
  [
    'echo',
    {
      hazards: new Map(),
      forms: new Map([['', form({ form: 'echo', cls: 'read-only', opts: '-n -e -E', operands: 'text' })]]),
    },
  ],
  [
    'true',
    {
      hazards: new Map(),
      forms: new Map([['', form({ form: 'true', cls: 'read-only', opts: '', operands: 'text' })]]),
    },
  ],
  [
    'false',
    {
      hazards: new Map(),
      forms: new Map([['', form({ form: 'false', cls: 'read-only', opts: '', operands: 'text' })]]),
    },
  ],
  [
    'which',
    {
      hazards: new Map(),
      forms: new Map([['', form({ form: 'which', cls: 'read-only', opts: '-a -s', operands: 'text' })]]),
    },
  ],
  [
    'cat',
    {
      hazards: new Map(),
      forms: new Map([
        [
          '',
          form({
            form: 'cat',
            cls: 'read-only',
            printsContent: true,
            operands: 'paths',
            opts: '-A -b -e -E -n -s -t -T -u -v --show-all --number-nonblank --number --squeeze-blank --show-ends --show-tabs --show-nonprinting',
          }),
        ],
      ]),
    },
  ],
  [
    'head',
    {
      hazards: new Map(),
      forms: new Map([
        ['', form({ form: 'head', cls: 'read-only', printsContent: true, operands: 'paths', opts: HEAD_OPTS })],
      ]),
    },
  ],
  [
    'tail',
    {
      hazards: new Map(),
      forms: new Map([
        [
          '',
          form({
            form: 'tail',
            cls: 'read-only',
            printsContent: true,
            operands: 'paths',
            opts: `${HEAD_OPTS} -f -F --follow[=] --retry -s= --sleep-interval= --pid=`,
            note: (p) =>
              ['-f', '-F', '--follow'].some((o) => p.seen.has(o))
                ? 'tail -f keeps running until the command times out'
                : undefined,
          }),
        ],
      ]),
    },
  ],
  [
    'wc',
    {
      hazards: new Map(),
      forms: new Map([
        [
          '',
          form({
            form: 'wc',
            cls: 'read-only',
            operands: 'paths',
            opts: '-c -m -l -w -L --bytes --chars --lines --words --max-line-length --total=',
          }),
        ],
      ]),
    },
  ],
  [
    'date',
    {
      hazards: hz({ '-s': 'sets the system clock', '--set': 'sets the system clock' }),
      forms: new Map([
        [
          '',
          form({
            form: 'date',
            cls: 'read-only',
            operands: 'text',
            pathOpts: ['-f', '--file', '-r', '--reference'],
            printsContent: true,
            opts: '-u --utc --universal -R --rfc-email -I[=] --iso-8601[=] --rfc-3339= -d= --date= -f= --file= -r= --reference= --debug',
            check: (p) =>
              p.operands.some((o) => !o.value?.startsWith('+'))
                ? 'date with an operand that is not +FORMAT sets the clock'
                : undefined,
          }),
        ],
      ]),
    },
  ],
  [
    'grep',
    {
      hazards: new Map(),
      forms: new Map([
        [
          '',
          form({
            form: 'grep',
            cls: 'read-only',
            printsContent: true,
            operands: 'pattern+paths',
            opts: GREP_OPTS,
            pathOpts: ['-f', '--file', '--exclude-from'],
            patternOpts: ['-e', '--regexp', '-f', '--file'],
            recursive: grepRecursive,
            defaultFolder: (p) => (grepRecursive(p) ? '.' : undefined),
          }),
        ],
      ]),
    },
  ],
  [
    'rg',
    {
      hazards: hz({ '--pre': RUNS, '--pre-glob': RUNS, '-z': RUNS, '--search-zip': RUNS }),
      forms: new Map([
        [
          '',
          form({
            form: 'rg',
            cls: 'read-only',
            printsContent: true,
            operands: 'pattern+paths',
            opts: RG_OPTS,
            pathOpts: ['-f', '--file', '--ignore-file'],
            globOpts: ['-g', '--glob', '--iglob'],
            patternOpts: ['-e', '--regexp', '-f', '--file', '--files', '--type-list'],
            recursive: () => true,
            defaultFolder: rgFolder,
          }),
        ],
      ]),
    },
  ],
  [
    'git',
    {
      globals: opts(
        '-C= --no-pager -P --no-optional-locks --literal-pathspecs --glob-pathspecs --noglob-pathspecs --icase-pathspecs --no-replace-objects',
      ),
      globalHazards: hz({
        '-c': 'sets git configuration (it can name programs to run)',
        '--config-env': 'sets git configuration',
        '--exec-path': RUNS,
        '--git-dir': 'uses another repository',
        '--work-tree': 'uses another working tree',
        '-p': 'runs a pager',
        '--paginate': 'runs a pager',
      }),
      hazards: hz(GIT_HAZARDS),
      subHazards: { grep: { '-O': RUNS }, rebase: { '-x': RUNS }, bisect: { run: RUNS }, submodule: { foreach: RUNS } },
      forms: new Map([
        [
          'status',
          form({
            form: 'git status',
            cls: 'read-only',
            operands: 'paths',
            opts: '-s --short -b --branch --porcelain[=] --long -v --verbose -u[=] --untracked-files[=] --ignored[=] --ignore-submodules[=] -z --column[=] --no-column --ahead-behind --no-ahead-behind --renames --no-renames --find-renames[=] --show-stash',
          }),
        ],
        [
          'diff',
          form({
            form: 'git diff',
            cls: 'read-only',
            printsContent: true,
            operands: 'revs+paths',
            opts: `${DIFF_OPTS} --cached --staged -0 -1 -2 -3 --base --ours --theirs`,
          }),
        ],
        [
          'log',
          form({ form: 'git log', cls: 'read-only', printsContent: true, operands: 'revs+paths', opts: LOG_OPTS }),
        ],
        [
          'show',
          form({ form: 'git show', cls: 'read-only', printsContent: true, operands: 'revs+paths', opts: LOG_OPTS }),
        ],
        [
          'branch',
          form({
            form: 'git branch',
            cls: 'read-only',
            operands: 'text',
            opts: '-a --all -r --remotes -l --list -v -vv --verbose --show-current --contains[=] --no-contains[=] --merged[=] --no-merged[=] --points-at= --sort= --format= --color[=] --no-color --column[=] --no-column -i --ignore-case --abbrev= --no-abbrev',
            check: (p) =>
              p.operands.length > 0 && !BRANCH_LISTS.some((o) => p.seen.has(o))
                ? 'git branch with a name creates a branch'
                : undefined,
          }),
        ],
        [
          'rev-parse',
          form({
            form: 'git rev-parse',
            cls: 'read-only',
            operands: 'text',
            opts: '--show-toplevel --abbrev-ref[=] --short[=] --verify -q --quiet --git-dir --git-common-dir --absolute-git-dir --is-inside-work-tree --is-inside-git-dir --is-bare-repository --is-shallow-repository --show-prefix --show-cdup --symbolic --symbolic-full-name --all --branches[=] --tags[=] --remotes[=] --show-superproject-working-tree --show-object-format[=] --default= --revs-only --no-revs --flags --no-flags --sq --not --local-env-vars --path-format= --since= --until=',
          }),
        ],
        [
          'ls-files',
          form({
            form: 'git ls-files',
            cls: 'read-only',
            operands: 'paths',
            pathOpts: ['-X', '--exclude-from'],
            opts: '-c -d -m -o -i -s -u -k -z -t -v -f --cached --deleted --modified --others --ignored --stage --unmerged --killed --directory --no-empty-directory --exclude-standard --full-name --recurse-submodules --eol --deduplicate --error-unmatch --sparse -x= --exclude= -X= --exclude-from= --exclude-per-directory= --format= --abbrev[=] --with-tree=',
          }),
        ],
        [
          'blame',
          form({
            form: 'git blame',
            cls: 'read-only',
            printsContent: true,
            operands: 'revs+paths',
            pathOpts: ['--contents', '--ignore-revs-file', '-S'],
            opts: '-b -l -t -s -e -w -p -c -f -n -M[=] -C[=] --root --show-stats --porcelain --line-porcelain --incremental --show-name --show-number --show-email --color-lines --color-by-age --minimal --progress --no-progress -L= --since= --contents= --ignore-rev= --ignore-revs-file= -S= --abbrev= --date= --reverse= --first-parent --encoding=',
          }),
        ],
      ]),
    },
  ],
  [
    'npm',
    {
      globals: opts(
        '-s --silent -q --quiet --loglevel= --json --color[=] --no-color -w= --workspace= --workspaces -ws --if-present --include-workspace-root --version -v',
      ),
      hazards: hz(NPM_HAZARDS),
      unknownIsHazard: 'npm reads any --option as a configuration setting',
      named: new Set(['run', 'run-script']),
      forms: new Map([
        [
          '',
          form({
            form: 'npm --version',
            cls: 'read-only',
            operands: 'none',
            opts: '--version -v',
            check: (p) => (p.seen.has('--version') || p.seen.has('-v') ? undefined : 'npm without a command'),
          }),
        ],
        [
          'test',
          form({
            form: 'npm test',
            cls: 'runs-workspace-code',
            operands: 'text',
            opts: '-s --silent -q --quiet --loglevel= --if-present --json -w= --workspace= --workspaces -ws',
          }),
        ],
        [
          'ls',
          form({
            form: 'npm ls',
            cls: 'read-only',
            operands: 'text',
            opts: '-a --all --depth= --json -l --long -p --parseable --omit= --include= --link --package-lock-only --unicode -g --global -s --silent -w= --workspace= --workspaces -ws',
          }),
        ],
        ...['test', 'lint', 'build', 'typecheck'].map(
          (s) =>
            [
              `run ${s}`,
              form({
                form: `npm run ${s}`,
                cls: 'runs-workspace-code',
                operands: 'text',
                opts: '-s --silent -q --quiet --loglevel= --if-present --json -w= --workspace= --workspaces -ws',
              }),
            ] as const,
        ),
      ]),
    },
  ],
  [
    'npx',
    {
      globals: opts(''),
      hazards: hz({
        '--package': 'installs and runs a package',
        '-p': 'installs and runs a package',
        '--call': RUNS,
        '-c': RUNS,
        '--yes': 'installs packages without asking',
        '-y': 'installs packages without asking',
      }),
      forms: new Map([['tsc', tsc('npx tsc --noEmit', 'runs-workspace-code')]]),
    },
  ],
  ['tsc', { hazards: hz(TSC_HAZARDS), forms: new Map([['', tsc('tsc --noEmit', 'read-only')]]) }],
  [
    'node',
    {
      hazards: new Map(),
      forms: new Map([
        [
          '',
          form({
            form: 'node --version',
            cls: 'read-only',
            operands: 'none',
            opts: '--version -v',
            check: (p) => (p.seen.has('--version') || p.seen.has('-v') ? undefined : 'node runs JavaScript'),
          }),
        ],
      ]),
    },
  ],
]);
// Subcommand aliases.
for (const [prog, alias, real] of [
  ['npm', 't', 'test'],
  ['npm', 'tst', 'test'],
  ['npm', 'list', 'ls'],
  ['npm', 'run-script', 'run'],
] as const) {
  const p = PROGRAMS.get(prog)!;
  if (real === 'run') p.named!.add(alias);
  else p.forms.set(alias, p.forms.get(real)!);
}
const RUN_ALIASES = new Set(['run', 'run-script']);

/** The built-in forms, for README and settings. */
export function builtinForms(): { form: string; cls: ProgramClass }[] {
  const seen = new Set<string>();
  const out: { form: string; cls: ProgramClass }[] = [];
  for (const p of PROGRAMS.values())
    for (const f of p.forms.values())
      if (!seen.has(f.form)) {
        seen.add(f.form);
        out.push({ form: f.form, cls: f.cls });
      }
  return out;
}

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

// ------------------------------------------------------------------------------------------------ wrappers

interface Wrapper {
  table: OptTable;
  /** What comes before the program: a duration (timeout), a number (chrt), a mask (taskset), a lock file (flock). */
  lead?: 'number' | 'file';
  /** Option whose value is a shell script (env -S, script -c, flock -c). */
  scriptOpts?: string[];
  /** The program's words are joined and run by sh -c (watch). */
  joins?: boolean;
  /** Adds arguments at run time (xargs). */
  runtimeArgs?: boolean;
  /** Leading NAME=value words are assignments (env). */
  assigns?: boolean;
  /** Options that make the wrapper itself a hazard. */
  hazards?: Map<string, string>;
  /** The wrapper does something of its own that is not on the allow list (a grantable ask). */
  asks?: string;
  /** The wrapper is a hazard in itself. */
  hazard?: string;
  /** With no program: what it does. */
  alone?: { printsEnv?: boolean; ok?: boolean };
  /** Options after which there is no program (command -v, ionice -p). */
  noProgram?: string[];
}

const w = (spec: string, rest: Omit<Wrapper, 'table'> = {}): Wrapper => ({ table: opts(spec), ...rest });
const WRAPPERS = new Map<string, Wrapper>([
  ['nice', w('-n= --adjustment= -#')],
  ['nohup', w('')],
  [
    'time',
    w('-p --portability -v --verbose -a --append -q --quiet -f= --format=', {
      hazards: hz({ '-o': WRITES, '--output': WRITES }),
    }),
  ],
  ['timeout', w('-s= --signal= -k= --kill-after= --preserve-status --foreground -v --verbose', { lead: 'number' })],
  ['stdbuf', w('-i= -o= -e= --input= --output= --error=')],
  [
    'ionice',
    w('-c= --class= -n= --classdata= -t --ignore -p= --pid= -P= --pgid= -u= --uid=', {
      noProgram: ['-p', '--pid', '-P', '--pgid', '-u', '--uid'],
    }),
  ],
  ['setsid', w('-c --ctty -f --fork -w --wait')],
  [
    'chrt',
    w(
      '-a --all-tasks -b --batch -d= --deadline= -D= --dl-runtime= -f --fifo -i --idle -o --other -r --rr -R --reset-on-fork -T= -P= -v --verbose -m --max -p --pid',
      { lead: 'number', noProgram: ['-p', '--pid', '-m', '--max'] },
    ),
  ],
  [
    'taskset',
    w('-a --all-tasks -c --cpu-list', {
      lead: 'number',
      hazards: hz({ '-p': 'changes another process', '--pid': 'changes another process' }),
    }),
  ],
  ['command', w('-p -v -V', { noProgram: ['-v', '-V'] })],
  ['builtin', w('')],
  ['exec', w('-c -l -a=', { alone: { ok: true } })],
  ['chronic', w('-e -v')],
  ['unbuffer', w('-p')],
  [
    'env',
    w(
      '-i --ignore-environment -0 --null -u= --unset= -v --debug -S= --split-string= -C= --chdir= --default-signal[=] --ignore-signal[=] --block-signal[=] --list-signal-handling',
      {
        assigns: true,
        scriptOpts: ['-S', '--split-string'],
        hazards: hz({ '-C': 'changes to another folder', '--chdir': 'changes to another folder' }),
        alone: { printsEnv: true },
      },
    ),
  ],
  [
    'xargs',
    w(
      '-0 --null -d= --delimiter= -I= -i[=] --replace[=] -L= -l[=] --max-lines[=] -n= --max-args= -P= --max-procs= -s= --max-chars= -r --no-run-if-empty -t --verbose -E= -e[=] --eof[=] -x --exit -a= --arg-file= --process-slot-var= -o --open-tty',
      { runtimeArgs: true, hazards: hz({ '-p': 'needs a terminal', '--interactive': 'needs a terminal' }) },
    ),
  ],
  [
    'watch',
    w(
      '-n= --interval= -d[=] --differences[=] -t --no-title -g --chgexit -e --errexit -b --beep -c --color -C --no-color -p --precise -w --no-wrap -x --exec -q= --equexit=',
      { joins: true },
    ),
  ],
  [
    'flock',
    w(
      '-s --shared -x -e --exclusive -u --unlock -n --nb --nonblock -w= --timeout= -E= --conflict-exit-code -o --close -F --no-fork --verbose -c= --command=',
      { lead: 'file', scriptOpts: ['-c', '--command'], asks: 'creates a lock file' },
    ),
  ],
  [
    'script',
    w(
      '-a --append -c= --command= -e --return -f --flush -q --quiet -t[=] --timing[=] -T= --log-timing= -I= --log-in= -O= --log-out= -B= --log-io= -E= --echo= -m= --logging-format=',
      { scriptOpts: ['-c', '--command'], hazard: 'records the session to a log file' },
    ),
  ],
  [
    'strace',
    w('-f -ff -F -c -C -t -tt -ttt -T -v -x -xx -y -yy -q -qq -r -i -k -w -z -Z -e= -s= -a= -X= -I= -b=', {
      asks: 'traces the program',
      hazards: hz({
        '-o': WRITES,
        '-p': 'traces another process',
        '-u': 'runs as another user',
        '-E': 'sets environment variables',
      }),
    }),
  ],
  [
    'ltrace',
    w('-f -c -C -i -r -S -t -tt -ttt -T -e= -s= -a= -n= -l= -L -b', {
      asks: 'traces the program',
      hazards: hz({ '-o': WRITES, '-p': 'traces another process', '-u': 'runs as another user' }),
    }),
  ],
]);

interface Unwrapped {
  /** The wrapper's own verdict: undefined when it only passes the program through. */
  refusal?: string;
  hazard?: string;
  /** The program it runs, with the assignments the wrapper makes. */
  inner?: { words: Word[]; assigns: { name: string; value?: string }[]; runtimeArgs: boolean };
  /** Shell scripts it runs (env -S, script -c, watch). */
  scripts: (string | undefined)[];
  /** Folders it changes to (env -C). */
  chdir?: Word;
  /** Without a program it prints the environment (env). */
  printsEnv?: boolean;
}

/** When the words are a wrapper (nice, env, xargs ...): what it runs and what it does itself. Undefined for other programs. */
export function unwrap(words: Word[]): Unwrapped | undefined {
  const name = words[0]?.value;
  if (name === undefined || words[0]!.glob !== undefined) return undefined;
  const base = name
    .replace(/\\/g, '/')
    .split('/')
    .pop()!
    .replace(/\.exe$/i, '');
  const spec = WRAPPERS.get(base);
  if (!spec) return undefined;
  const out: Unwrapped = {
    scripts: [],
    refusal: spec.asks && `${base} ${spec.asks}`,
    hazard: spec.hazard && `${base} ${spec.hazard}`,
  };
  if (name.includes('/')) out.refusal ??= `${name} is run by path`;
  const args = words.slice(1);
  const parsed = parseOpts(args, spec.table, spec.hazards ?? new Map(), true);
  if (parsed.hazard) out.hazard ??= `${base} ${parsed.hazard.option}, which ${parsed.hazard.reason}`;
  if (parsed.unknown) out.refusal ??= `the ${base} option ${parsed.unknown} is not known to Forge`;
  for (const v of parsed.valueWords) {
    if (spec.scriptOpts?.includes(v.name)) out.scripts.push(v.word.value);
    if (v.name === '-C' || v.name === '--chdir') out.chdir = v.word;
  }
  let i = parsed.rest;
  const assigns: { name: string; value?: string }[] = [];
  if (spec.assigns) {
    for (; i < args.length; i++) {
      const m = /^([A-Za-z_][A-Za-z0-9_]*)=([\s\S]*)$/.exec(args[i]!.value ?? '');
      if (!m) break;
      assigns.push({ name: m[1]!, value: m[2] });
    }
  }
  if (spec.lead && i < args.length && !spec.noProgram?.some((o) => parsed.seen.has(o))) {
    const lead = args[i]!.value;
    if (spec.lead === 'number' && (lead === undefined || !/^[\d.]+[smhd]?$|^0x[0-9a-f]+$|^[\d,-]+$/i.test(lead)))
      out.refusal ??= `${base} expects a number before the program`;
    i++;
  }
  if (spec.lead === 'file' && spec.scriptOpts?.includes(args[i]?.value ?? '')) {
    out.scripts.push(args[i + 1]?.value);
    return out;
  }
  if (spec.noProgram?.some((o) => parsed.seen.has(o))) return out; // command -v x, ionice -p 1: nothing is run
  const rest = args.slice(i);
  if (rest.length === 0) {
    if (out.scripts.length === 0 && assigns.length === 0) {
      if (spec.alone?.printsEnv) out.printsEnv = true;
      else if (spec.runtimeArgs)
        out.inner = { words: [{ value: 'echo', glob: undefined }], assigns, runtimeArgs: true };
      else if (!spec.alone?.ok) out.refusal ??= `${base} without a program`;
    }
    if (assigns.length) out.inner = { words: [], assigns, runtimeArgs: false };
    return out;
  }
  if (spec.joins && !parsed.seen.has('-x') && !parsed.seen.has('--exec')) {
    out.scripts.push(rest.every((r) => r.value !== undefined) ? rest.map((r) => r.value).join(' ') : undefined);
    return out;
  }
  out.inner = { words: rest, assigns, runtimeArgs: !!spec.runtimeArgs };
  return out;
}

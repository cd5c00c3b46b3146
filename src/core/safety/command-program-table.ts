// The built-in allow list, option by option: for each program Forge runs without asking, the forms
// (subcommands) it allows, every option they accept, which option values and operands are file names, and
// the options that are hazards (they run other programs, inject configuration or write files). An option
// that is not listed is simply not on the allow list: the command asks.
import { hz, opts, type OptTable, type ParsedOpts } from './command-options';

export type ProgramClass = 'read-only' | 'runs-workspace-code';

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
export const WRITES = 'writes files';

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

export const PROGRAMS = new Map<string, Program>([
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
export const RUN_ALIASES = new Set(['run', 'run-script']);

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

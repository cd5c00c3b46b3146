// The wrappers (nice, env, xargs ...) whose real program is judged instead of them, and what each does
// itself: options that are hazards, shell scripts it runs, a folder it changes to.
import { hz, opts, parseOpts, type OptTable, type Word } from './command-options';
import { WRITES } from './command-program-table';

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

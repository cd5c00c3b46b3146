// Hazards the command rules look for in any command, allowed program or not: environment assignments that
// change what a program runs or loads, and words (file names, globs, redirections) that can reach a secret.
// A hazard always asks, even for a program the user allowed, and "Always for this task" never covers it.
import ignore from 'ignore';
import type { CommandAssign } from './command-parse';
import { DEFAULT_SECRET_PATTERNS, HOME_SECRET_PATHS, PROC_SECRET } from './secrets';

export interface PathContext {
  home?: string;
  roots?: readonly string[];
}

// ---------------------------------------------------------------------------------------------- variables

/** Variables that only change formatting or mode; setting them cannot make a program run or load other code. */
const BENIGN_VARS =
  /^(CI|NODE_ENV|FORCE_COLOR|NO_COLOR|CLICOLOR|CLICOLOR_FORCE|TZ|LANG|LANGUAGE|LC_[A-Z]+|DEBUG|TERM|COLUMNS|LINES|TS_NODE_TRANSPILE_ONLY|GIT_TERMINAL_PROMPT)$/;

const RISKY_VARS: [RegExp, string][] = [
  [/^(LD_|DYLD_)/, 'makes programs load other libraries'],
  [
    /^(PATH|IFS|BASH_ENV|ENV|SHELLOPTS|BASHOPTS|PS4|PROMPT_COMMAND|CDPATH|GLOBIGNORE|BASH_FUNC_.*|FPATH)$/,
    'changes which program the shell runs or what it runs first',
  ],
  [
    /^(PYTHON|PERL5?|RUBY|GEM_|BUNDLE_|NODE_OPTIONS$|NODE_PATH$|NODE_EXTRA_CA_CERTS$|JAVA_TOOL_OPTIONS$|_JAVA_OPTIONS$|JDK_JAVA_OPTIONS$|CLASSPATH$|LUA_|PHPRC$|TS_NODE_)/,
    'makes an interpreter load other code',
  ],
  [
    /^(GIT_|npm_config_|NPM_CONFIG_|YARN_|PNPM_|COREPACK_|RIPGREP_CONFIG_PATH$|CARGO_|RUSTC|GOFLAGS$|MAKEFLAGS$)/,
    "changes a tool's configuration (it can name programs to run)",
  ],
  [
    /^(PAGER|GIT_PAGER|MANPAGER|LESSOPEN|LESSCLOSE|EDITOR|VISUAL|BROWSER|GIT_EDITOR|SUDO_ASKPASS|SSH_ASKPASS)$/,
    'names a program that tools run',
  ],
  [
    /^(HOME|XDG_[A-Z_]+|ZDOTDIR|TMPDIR|SSH_[A-Z_]+|GNUPGHOME|KUBECONFIG|DOCKER_[A-Z_]+|AWS_[A-Z_]+)$/,
    'changes where tools read their configuration and credentials',
  ],
  [/_PROXY$|^(http|https|ftp|all|no)_proxy$/i, 'sends network traffic through another host'],
];

/** Why an assignment is a hazard, or undefined for a benign one. */
export function assignHazard(a: CommandAssign): string | undefined {
  if (BENIGN_VARS.test(a.name)) return undefined;
  const risky = RISKY_VARS.find(([re]) => re.test(a.name));
  return risky ? `sets ${a.name}, which ${risky[1]}` : `sets ${a.name}, a variable Forge does not know to be harmless`;
}

/** Parameters whose expansion would print a credential from the environment (`echo $OPENAI_API_KEY`). */
export const SECRET_PARAM = /(KEY|TOKEN|SECRET|PASSW(OR)?D|PASS$|CREDENTIAL|AUTH|COOKIE|SESSION|PRIVATE)/i;

// ----------------------------------------------------------------------------------------------- globs

/** `noDot`: a secret pattern's trailing `*` (`id_rsa*`, `.env.*`) stands for a suffix without a dot, so `*.ts` does not meet it. */
type Tok =
  { t: 'c'; c: string } | { t: '?' } | { t: '*'; noDot?: boolean } | { t: 'set'; test: (ch: string) => boolean };

/** One path component of a glob as tokens (backslash escapes honoured; an unclosed `[` is literal). */
function tokenize(p: string): Tok[] {
  const out: Tok[] = [];
  for (let i = 0; i < p.length; i++) {
    const ch = p[i]!;
    if (ch === '\\' && i + 1 < p.length) out.push({ t: 'c', c: p[++i]! });
    else if (ch === '*') {
      if (out.at(-1)?.t !== '*') out.push({ t: '*' });
    } else if (ch === '?') out.push({ t: '?' });
    else if (ch === '[') {
      const end = p.indexOf(']', i + 2);
      if (end < 0) {
        out.push({ t: 'c', c: ch });
        continue;
      }
      let body = p.slice(i + 1, end);
      const neg = body.startsWith('!') || body.startsWith('^');
      if (neg) body = body.slice(1);
      const ranges: [string, string][] = [];
      for (let k = 0; k < body.length; k++) {
        if (body[k + 1] === '-' && k + 2 < body.length) {
          ranges.push([body[k]!, body[k + 2]!]);
          k += 2;
        } else ranges.push([body[k]!, body[k]!]);
      }
      out.push({ t: 'set', test: (c) => ranges.some(([a, b]) => c >= a && c <= b) !== neg });
      i = end;
    } else out.push({ t: 'c', c: ch });
  }
  return out;
}

const ALPHABET = Array.from({ length: 95 }, (_, i) => String.fromCharCode(32 + i)).filter((c) => c !== '/');
const accepts = (k: Tok, ch: string) =>
  k.t === 'c' ? k.c === ch : k.t === 'set' ? k.test(ch) : ch !== '/' && !(k.t === '*' && k.noDot && ch === '.');

/** Some one character both tokens accept; at the start of a name the shell's `*` and `?` never match a leading dot. */
function share(a: Tok, b: Tok, start: boolean): boolean {
  const ok = (ch: string) => accepts(a, ch) && accepts(b, ch) && !(start && ch === '.' && (a.t === '*' || a.t === '?'));
  if (a.t === 'c') return ok(a.c);
  if (b.t === 'c') return ok(b.c);
  return ALPHABET.some(ok);
}

/** Whether a shell glob component (a) and a gitignore-style glob component (b) can match one common name. */
function globsMeet(a: Tok[], b: Tok[]): boolean {
  const memo = new Map<number, boolean>();
  const go = (i: number, j: number, start: boolean): boolean => {
    const k = (i * 1024 + j) * 2 + (start ? 1 : 0);
    const hit = memo.get(k);
    if (hit !== undefined) return hit;
    memo.set(k, false);
    let r: boolean;
    if (i === a.length && j === b.length) r = true;
    else if (i < a.length && a[i]!.t === '*') {
      r =
        go(i + 1, j, start) ||
        (j < b.length && (b[j]!.t === '*' ? go(i, j + 1, start) : share(a[i]!, b[j]!, start) && go(i, j + 1, false)));
    } else if (j < b.length && b[j]!.t === '*') {
      r = go(i, j + 1, start) || (i < a.length && share(a[i]!, b[j]!, start) && go(i + 1, j, false));
    } else r = i < a.length && j < b.length && share(a[i]!, b[j]!, start) && go(i + 1, j + 1, false);
    memo.set(k, r);
    return r;
  };
  return go(0, 0, true);
}

/** Brace expansion (`{a,b}`, `{1..9}`) of a glob pattern; sequences and long lists become `*`. */
function expandBraces(p: string, limit = 32): string[] {
  for (let i = 0; i < p.length; i++) {
    if (p[i] === '\\') {
      i++;
      continue;
    }
    if (p[i] !== '{') continue;
    let depth = 0;
    const commas: number[] = [];
    let end = -1;
    for (let k = i; k < p.length; k++) {
      if (p[k] === '\\') {
        k++;
        continue;
      }
      if (p[k] === '{') depth++;
      else if (p[k] === '}' && --depth === 0) {
        end = k;
        break;
      } else if (p[k] === ',' && depth === 1) commas.push(k);
    }
    if (end < 0) return [p];
    const body = p.slice(i + 1, end);
    const head = p.slice(0, i);
    const tail = p.slice(end + 1);
    if (commas.length === 0) {
      if (/\.\./.test(body)) return expandBraces(`${head}*${tail}`, limit);
      continue; // `{x}` is literal
    }
    const alts = [i, ...commas].map((c, n) => p.slice(c + 1, n < commas.length ? commas[n]! : end));
    const out: string[] = [];
    for (const alt of alts) for (const e of expandBraces(head + alt + tail, limit)) if (out.length < limit) out.push(e);
    return out.length >= limit ? [`${head}*${tail}`.replace(/\{[^}]*\}/g, '*')] : out;
  }
  return [p];
}

// ---------------------------------------------------------------------------------------------- secrets

const secretNames = ignore().add([...DEFAULT_SECRET_PATTERNS]);
/** Secret patterns as component globs (negations left out: a glob that meets `.env.*` asks even if it only means .env.example). */
const SECRET_GLOBS = DEFAULT_SECRET_PATTERNS.filter((p) => !p.startsWith('!')).map((p) => ({
  source: p.replace(/\/$/, ''),
  dir: p.endsWith('/'),
  comps: p
    .replace(/\/$/, '')
    .split('/')
    .map((c) => {
      const toks = tokenize(c);
      const last = toks.at(-1);
      if (last?.t === '*' && toks.length > 1) toks[toks.length - 1] = { t: '*', noDot: true };
      return toks;
    }),
}));
const HOME_GLOBS = HOME_SECRET_PATHS.map((p) => ({
  source: `~/${p}`,
  comps: p
    .replace(/\/$/, '')
    .split('/')
    .map((c) => tokenize(c.replace(/[*?[\]{}\\]/g, '\\$&'))),
}));

/** Lexically normalised '/'-separated path: `.` dropped, `..` folded where it can be. */
export function normalize(p: string): string {
  const abs = p.startsWith('/');
  const out: string[] = [];
  for (const c of p.split('/')) {
    if (c === '' || c === '.') continue;
    if (c === '..' && out.length && out.at(-1) !== '..') out.pop();
    else if (c !== '..' || !abs) out.push(c);
  }
  return (abs ? '/' : '') + out.join('/');
}

/** The path relative to a home folder when it is in one (`~/x`, `~user/x`, $HOME, /root, /home/NAME, /Users/NAME). */
export function underHome(p: string, ctx: PathContext): string | undefined {
  const m = /^~[^/]*(?:\/(.*))?$/.exec(p);
  if (m) return normalize(m[1] ?? '');
  const n = normalize(p);
  if (ctx.home) {
    const h = normalize(ctx.home);
    if (n === h) return '';
    if (n.startsWith(h + '/')) return n.slice(h.length + 1);
  }
  const sys = /^\/(?:root|home\/[^/]+|Users\/[^/]+)(?:\/(.*))?$/.exec(n);
  if (sys && !(ctx.roots ?? []).some((r) => n === normalize(r) || n.startsWith(normalize(r) + '/')))
    return sys[1] ?? '';
  return undefined;
}

/**
 * What secret a word names or can match, described for a reason ("a secret file (.env)"), or undefined.
 * `pattern` is the word's glob pattern when the shell expands it; `folder` is set for commands that read a
 * folder's contents recursively, so a folder that holds a secret location counts too.
 */
const HARMLESS_DEVICES = /^\/dev\/(null|zero|u?random|full|stdin|stdout|stderr|tty|fd\/\d+)$/;

export function secretReach(
  word: string,
  pattern: string | undefined,
  ctx: PathContext,
  folder = false,
): string | undefined {
  const alts = pattern === undefined ? [undefined] : expandBraces(pattern);
  for (const alt of alts) {
    const glob = alt !== undefined && /(^|[^\\])[*?[]/.test(alt) ? alt : undefined;
    const plain = alt === undefined ? word : alt.replace(/\\(.)/g, '$1');
    const found = glob !== undefined ? globSecret(glob, ctx, folder) : literalSecret(plain, ctx, folder);
    if (found) return found;
  }
  return undefined;
}

function literalSecret(w: string, ctx: PathContext, folder: boolean): string | undefined {
  const n = normalize(w.replace(/\\/g, '/'));
  if (PROC_SECRET.test(n) || (folder && /^\/proc(\/|$)/.test(n))) return `the process information in ${n}`;
  // Raw disks and memory hold every secret on the machine; bash opens a network connection for /dev/tcp|udp.
  if (/^\/dev\/(tcp|udp)\//.test(n)) return `${n}, which opens a network connection in bash`;
  if (/^\/dev\//.test(n) && !HARMLESS_DEVICES.test(n)) return `the device ${n}`;
  const rel = underHome(w, ctx);
  if (rel !== undefined) {
    for (const h of HOME_SECRET_PATHS) {
      const base = h.replace(/\/$/, '');
      if (rel === base || rel.startsWith(base + '/') || (folder && (rel === '' || base.startsWith(rel + '/'))))
        return `the secret location ~/${base}`;
    }
  }
  const comps = n.split('/').filter((c) => c && c !== '..');
  for (let k = 0; k < comps.length; k++) {
    const sub = comps.slice(k).join('/');
    if (sub === '.' || sub === '') continue;
    if (secretNames.ignores(sub) || secretNames.ignores(sub + '/'))
      return `a secret file (${comps.slice(k).join('/')})`;
  }
  return undefined;
}

function globSecret(glob: string, ctx: PathContext, folder: boolean): string | undefined {
  const norm = glob.replace(/\/+/g, '/');
  if (/^\/proc\//.test(norm)) return `the process information under /proc (${glob})`;
  const comps = norm
    .split('/')
    .filter((c) => c && c !== '.')
    .map(tokenize);
  for (const s of SECRET_GLOBS) {
    for (let k = 0; k + s.comps.length <= comps.length || (folder && k < comps.length); k++) {
      // A file pattern names the last component (a folder searched recursively: any); a folder pattern any component.
      if (!s.dir && !folder && k + s.comps.length !== comps.length) continue;
      const n = Math.min(s.comps.length, comps.length - k);
      let ok = n > 0;
      for (let q = 0; ok && q < n; q++) ok = globsMeet(comps[k + q]!, s.comps[q]!);
      if (ok) return `a secret file (${s.source})`;
    }
  }
  const rel = homeRel(norm, ctx);
  if (rel !== undefined) {
    const rc = rel.split('/').filter(Boolean).map(tokenize);
    for (const h of HOME_GLOBS) {
      const n = Math.min(h.comps.length, rc.length);
      if (rc.length < h.comps.length && !folder) continue;
      let ok = true;
      for (let q = 0; ok && q < n; q++) ok = globsMeet(rc[q]!, h.comps[q]!);
      if (ok) return `the secret location ${h.source.replace(/\/$/, '')}`;
    }
  }
  return undefined;
}

/** The home-relative rest of a glob path (`~/.a*`, `/home/*\/.ssh`, `/root/x`). */
function homeRel(norm: string, ctx: PathContext): string | undefined {
  const m = /^~[^/]*(?:\/(.*))?$/.exec(norm);
  if (m) return m[1] ?? '';
  if (ctx.home && norm.startsWith(ctx.home.replace(/\/+$/, '') + '/'))
    return norm.slice(ctx.home.replace(/\/+$/, '').length + 1);
  const sys = /^\/(?:root|home\/[^/]+|Users\/[^/]+)(?:\/(.*))?$/.exec(norm);
  return sys ? (sys[1] ?? '') : undefined;
}

/** Whether a folder is the whole machine, a home folder, or above one: recursive reads there always ask. */
export function broadFolder(p: string, ctx: PathContext): boolean {
  const n = normalize(p);
  if (n === '/' || /^~[^/]*$/.test(p.replace(/\/+$/, ''))) return true;
  if (underHome(p, ctx) === '') return true;
  if (!n.startsWith('/')) return false;
  const homes = [ctx.home, ...(ctx.roots ?? [])].filter((x): x is string => !!x).map(normalize);
  return homes.some((h) => h.startsWith(n + '/')) || /^\/(home|Users)$/.test(n);
}

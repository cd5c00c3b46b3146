// SearchBackend on the ripgrep binary VS Code ships (no download, no extra dependency). `rg --json`,
// honours .gitignore plus extra ignore files (.forgeignore). Without a binary, findRipgrep() is undefined
// and the tools fall back to their own JS search. The searching tool may pass `admit(path)`: every file with a
// match is judged by it before any of its lines or counts are taken (the tool passes read_file's own verdict).
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { SearchBackend, SearchMatch, SearchQuery, SearchResult } from '../core/workspace/types';

/** Locations of rg under a VS Code app root, across VS Code versions and packagings. */
export function ripgrepCandidates(appRoot: string, platform = process.platform, arch = process.arch): string[] {
  const exe = platform === 'win32' ? 'rg.exe' : 'rg';
  const out: string[] = [];
  for (const nm of ['node_modules', 'node_modules.asar.unpacked']) {
    out.push(path.join(appRoot, nm, '@vscode', 'ripgrep', 'bin', exe));
    out.push(path.join(appRoot, nm, '@vscode', 'ripgrep-universal', 'bin', `${platform}-${arch}`, exe));
  }
  return out;
}

function findRipgrep(appRoot: string): string | undefined {
  return ripgrepCandidates(appRoot).find((p) => {
    try {
      fs.accessSync(p, fs.constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

/** Stop reading once this many matches beyond maxResults were counted (the total is then a lower bound). */
const COUNT_HEADROOM = 2000;

/** @deprecated SearchQuery carries admit() itself. */
type RipgrepQuery = SearchQuery;

export class RipgrepSearch implements SearchBackend {
  constructor(readonly rgPath: string) {}

  /** The command line for a query, with `paths` as given to rg. */
  static args(q: SearchQuery, paths: string[] = q.paths): string[] {
    const args = [
      '--json',
      '--hidden',
      '--no-require-git',
      '--engine',
      'auto', // JS-style lookarounds/backreferences switch to PCRE2
      '--max-columns',
      '1000',
      '--max-filesize',
      '5M',
      // Ignore files (.gitignore, .forgeignore) match case-insensitively, as the JS walker's do.
      '--ignore-file-case-insensitive',
      q.caseSensitive ? '--case-sensitive' : '--ignore-case',
    ];
    if (q.contextLines > 0) args.push('--context', String(q.contextLines));
    if (q.glob) args.push('--glob', q.glob);
    // After the caller's glob (the later glob wins in rg): .git in any letter case is never entered, even for '.*'.
    args.push('--iglob', '!.git');
    for (const f of q.ignoreFiles ?? []) if (fs.existsSync(f)) args.push('--ignore-file', f);
    args.push('--regexp', q.pattern, '--', ...paths);
    return args;
  }

  search(q: RipgrepQuery): Promise<SearchResult> {
    // rg matches an --ignore-file's anchored patterns ("src/x.txt") only against paths relative to its working
    // directory: run it in the folder holding the (first) ignore file, its workspace folder, with the searched
    // paths relative to it, and turn the paths it reports back into absolute ones.
    const dir = q.ignoreFiles?.length ? path.dirname(q.ignoreFiles[0]!) : undefined;
    const cwd = dir && fs.existsSync(dir) ? dir : undefined;
    const inCwd = (p: string) => {
      const r = cwd ? path.relative(cwd, p) : '';
      return cwd && r !== '..' && !r.startsWith('..' + path.sep) && !path.isAbsolute(r);
    };
    const paths = q.paths.map((p) => (inCwd(p) ? path.relative(cwd!, p) || '.' : p));
    const absolute = (p: string) => (cwd ? path.resolve(cwd, p) : p);
    const args = RipgrepSearch.args(q, paths);

    return new Promise((resolve, reject) => {
      if (q.signal.aborted) return reject(q.signal.reason ?? new Error('aborted'));
      const child = spawn(this.rgPath, args, {
        stdio: ['ignore', 'pipe', 'pipe'],
        windowsHide: true,
        ...(cwd ? { cwd } : {}),
      });
      const matches: SearchMatch[] = [];
      let total = 0;
      let incomplete = false;
      let stderr = '';
      let buffered = '';
      // Context lines seen before the next match in the current file.
      let before: string[] = [];
      let lastMatch: SearchMatch | undefined;
      let stopped = false;
      const onAbort = () => child.kill();
      q.signal.addEventListener('abort', onAbort, { once: true });

      // With admit, a file's events wait (in order) until its verdict, asked as soon as the file begins.
      let group: { verdict: Promise<boolean>; events: RgEvent[] } | undefined;
      let chain: Promise<void> = Promise.resolve();
      const flush = () => {
        const g = group;
        group = undefined;
        if (!g) return;
        chain = chain.then(async () => {
          const ok = await g.verdict.catch(() => false);
          if (ok) for (const ev of g.events) take(ev);
        });
      };
      const handle = (line: string) => {
        if (!line) return;
        let ev: RgEvent;
        try {
          ev = JSON.parse(line) as RgEvent;
        } catch {
          return;
        }
        if (!q.admit) return take(ev);
        if (ev.type === 'begin') {
          flush();
          group = { verdict: q.admit(absolute(pathText(ev.data.path))), events: [ev] };
        } else if (ev.type === 'end') {
          group?.events.push(ev);
          flush();
        } else if (group && (ev.type === 'match' || ev.type === 'context')) {
          group.events.push(ev);
        }
      };

      const take = (ev: RgEvent) => {
        if (stopped) return;
        if (ev.type === 'begin') {
          before = [];
          lastMatch = undefined;
        } else if (ev.type === 'context') {
          const text = lineText(ev.data);
          const n = ev.data.line_number as number;
          if (lastMatch && n > lastMatch.line && n <= lastMatch.line + q.contextLines)
            (lastMatch.after ??= []).push(text);
          before.push(text); // may also lead up to the next match
          if (before.length > q.contextLines) before.shift();
        } else if (ev.type === 'match') {
          total++;
          if (matches.length < q.maxResults) {
            const m: SearchMatch = {
              path: absolute(pathText(ev.data.path)),
              line: ev.data.line_number,
              text: lineText(ev.data),
            };
            if (q.contextLines > 0) m.before = before.slice(-q.contextLines);
            matches.push(m);
            lastMatch = m;
          } else {
            lastMatch = undefined;
          }
          before = [];
          if (total >= q.maxResults + COUNT_HEADROOM) {
            incomplete = true;
            stopped = true;
            child.kill();
          }
        }
      };
      child.stdout.setEncoding('utf8');
      child.stdout.on('data', (chunk: string) => {
        buffered += chunk;
        const lines = buffered.split('\n');
        buffered = lines.pop() ?? '';
        for (const l of lines) handle(l);
      });
      child.stderr.setEncoding('utf8');
      child.stderr.on('data', (c: string) => (stderr = (stderr + c).slice(-4000)));
      child.on('error', (e) => {
        q.signal.removeEventListener('abort', onAbort);
        reject(e);
      });
      child.on('close', (code) => {
        handle(buffered);
        flush();
        void chain.then(() => {
          q.signal.removeEventListener('abort', onAbort);
          if (q.signal.aborted) return reject(q.signal.reason ?? new Error('aborted'));
          // rg: 0 = matches, 1 = none, 2 = error (but partial results are still valid, e.g. unreadable files)
          if (code === 2 && matches.length === 0 && !incomplete) {
            return reject(new Error(`ripgrep failed: ${stderr.trim().split('\n').slice(-3).join(' ')}`));
          }
          resolve({ matches, totalMatches: total, ...(incomplete ? { incomplete: true } : {}) });
        }, reject);
      });
    });
  }
}

/** A path or a line in rg --json: `text` when it is UTF-8, else base64 `bytes`. */
interface RgText {
  text?: string;
  bytes?: string;
}

/** One line of rg --json (begin, match, context, end, summary), as far as this file reads it. */
interface RgEvent {
  type: string;
  data: { path?: RgText; lines?: RgText; line_number: number };
}

function lineText(data: RgEvent['data']): string {
  const t = data.lines?.text ?? (data.lines?.bytes ? Buffer.from(data.lines.bytes, 'base64').toString('utf8') : '');
  return String(t).replace(/\r?\n$/, '');
}

function pathText(p: RgText | undefined): string {
  return p?.text ?? (p?.bytes ? Buffer.from(p.bytes, 'base64').toString('utf8') : '');
}

/** The backend for a VS Code app root (vscode.env.appRoot), or undefined when no rg ships there. */
export function createRipgrepSearch(appRoot: string): RipgrepSearch | undefined {
  const rg = findRipgrep(appRoot);
  return rg ? new RipgrepSearch(rg) : undefined;
}

// SearchBackend on the ripgrep binary VS Code ships (no download, no extra dependency). `rg --json`,
// honours .gitignore plus extra ignore files (.forgeignore). Without a binary, findRipgrep() is undefined
// and the tools fall back to their own JS search.
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

export function findRipgrep(appRoot: string): string | undefined {
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

export class RipgrepSearch implements SearchBackend {
  constructor(readonly rgPath: string) {}

  search(q: SearchQuery): Promise<SearchResult> {
    const args = [
      '--json',
      '--hidden',
      '--no-require-git',
      '--engine', 'auto', // JS-style lookarounds/backreferences switch to PCRE2
      '--max-columns', '1000',
      '--max-filesize', '5M',
      '--glob', '!.git',
      q.caseSensitive ? '--case-sensitive' : '--ignore-case',
    ];
    if (q.contextLines > 0) args.push('--context', String(q.contextLines));
    if (q.glob) args.push('--glob', q.glob);
    for (const f of q.ignoreFiles ?? []) if (fs.existsSync(f)) args.push('--ignore-file', f);
    args.push('--regexp', q.pattern, '--', ...q.paths);

    return new Promise((resolve, reject) => {
      if (q.signal.aborted) return reject(q.signal.reason ?? new Error('aborted'));
      const child = spawn(this.rgPath, args, { stdio: ['ignore', 'pipe', 'pipe'], windowsHide: true });
      const matches: SearchMatch[] = [];
      let total = 0;
      let incomplete = false;
      let stderr = '';
      let buffered = '';
      // Context lines seen before the next match in the current file.
      let before: string[] = [];
      let lastMatch: SearchMatch | undefined;
      const onAbort = () => child.kill();
      q.signal.addEventListener('abort', onAbort, { once: true });

      const handle = (line: string) => {
        if (!line) return;
        let ev: any;
        try {
          ev = JSON.parse(line);
        } catch {
          return;
        }
        if (ev.type === 'begin') {
          before = [];
          lastMatch = undefined;
        } else if (ev.type === 'context') {
          const text = lineText(ev.data);
          const n = ev.data.line_number as number;
          if (lastMatch && n > lastMatch.line && n <= lastMatch.line + q.contextLines) (lastMatch.after ??= []).push(text);
          before.push(text); // may also lead up to the next match
          if (before.length > q.contextLines) before.shift();
        } else if (ev.type === 'match') {
          total++;
          if (matches.length < q.maxResults) {
            const m: SearchMatch = { path: pathText(ev.data.path), line: ev.data.line_number, text: lineText(ev.data) };
            if (q.contextLines > 0) m.before = before.slice(-q.contextLines);
            matches.push(m);
            lastMatch = m;
          } else {
            lastMatch = undefined;
          }
          before = [];
          if (total >= q.maxResults + COUNT_HEADROOM) {
            incomplete = true;
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
        q.signal.removeEventListener('abort', onAbort);
        handle(buffered);
        if (q.signal.aborted) return reject(q.signal.reason ?? new Error('aborted'));
        // rg: 0 = matches, 1 = none, 2 = error (but partial results are still valid, e.g. unreadable files)
        if (code === 2 && matches.length === 0 && !incomplete) {
          return reject(new Error(`ripgrep failed: ${stderr.trim().split('\n').slice(-3).join(' ')}`));
        }
        resolve({ matches, totalMatches: total, ...(incomplete ? { incomplete: true } : {}) });
      });
    });
  }
}

function lineText(data: any): string {
  const t = data.lines?.text ?? (data.lines?.bytes ? Buffer.from(data.lines.bytes, 'base64').toString('utf8') : '');
  return String(t).replace(/\r?\n$/, '');
}

function pathText(p: any): string {
  return p?.text ?? (p?.bytes ? Buffer.from(p.bytes, 'base64').toString('utf8') : '');
}

/** The backend for a VS Code app root (vscode.env.appRoot), or undefined when no rg ships there. */
export function createRipgrepSearch(appRoot: string): RipgrepSearch | undefined {
  const rg = findRipgrep(appRoot);
  return rg ? new RipgrepSearch(rg) : undefined;
}

import * as nodePath from 'node:path';
import ignore from 'ignore';
import * as z from 'zod';
import type { ResolvedPath, WorkspaceSandbox } from '../../safety/paths';
import type { SearchBackend, SearchMatch, SearchQuery, SearchResult, WorkspaceFs } from '../../workspace/types';
import { isTransientError } from '../error-class';
import { inThreadRegexScan, RegexStuckError, type RegexScanFactory } from '../regex-scan';
import type { Tool } from '../types';
import { errorResult, resolveOrRefuse } from './common';
import { walk } from './walk';

const SEARCH_DEFAULT_MAX = 100;
const SEARCH_HARD_MAX = 1000;
const MAX_FILE_BYTES = 2 * 1024 * 1024;
/** File reads in flight in the JS fallback (the fs thread pool has 4 threads; more hides per-file latency). */
const FILE_CONCURRENCY = 16;
const BINARY_SNIFF_BYTES = 8192;
/** First read per file; bigger files get a stat (size cap) and a full read. */
const HEAD_BYTES = 64 * 1024;
const MAX_TEXT = 300;
/** One file's regex scan longer than this ends the search (catastrophic backtracking); the tool's limit is longer. */
const REGEX_STUCK_MS = 10_000;

interface SearchToolOptions {
  /** How long the JS backend's regex may run on one file (default REGEX_STUCK_MS). */
  regexStuckMs?: number;
  /** Where the JS backend runs the regex: the extension and the CLI pass a worker (src/node/regex-scanner.ts). */
  regexScan?: RegexScanFactory;
}

const searchFilesInput = z.object({
  pattern: z.string().min(1).describe('Regular expression (JavaScript syntax), matched line by line.'),
  path: z.string().optional().describe('Folder or file to search, relative to the workspace root. Default: the root.'),
  glob: z
    .string()
    .optional()
    .describe('Only files matching this glob, relative to path (e.g. "*.ts", "src/**/*.test.ts").'),
  maxResults: z
    .number()
    .int()
    .min(1)
    .max(SEARCH_HARD_MAX)
    .optional()
    .describe(`Matches to return. Default ${SEARCH_DEFAULT_MAX}.`),
  caseSensitive: z.boolean().optional().describe('Default false.'),
  contextLines: z.number().int().min(0).max(5).optional().describe('Lines of context around each match. Default 1.'),
});

type Input = z.infer<typeof searchFilesInput>;

/**
 * The read_file judgement (WorkspaceSandbox.resolve(path, 'read')) for every file whose text a search would
 * return, once per file per search.
 */
function readableFilter(sandbox: WorkspaceSandbox): (abs: string) => Promise<boolean> {
  const verdicts = new Map<string, Promise<boolean>>();
  return (abs) => {
    let v = verdicts.get(abs);
    if (!v) {
      v = sandbox.resolve(abs, 'read').then(
        (r) => r.ok,
        () => false,
      );
      verdicts.set(abs, v);
    }
    return v;
  };
}

export function createSearchFilesTool(
  sandbox: WorkspaceSandbox,
  backend?: SearchBackend,
  opts: SearchToolOptions = {},
): Tool<typeof searchFilesInput> {
  return {
    name: 'search_files',
    description:
      'Search file contents with a regular expression. Results are "path:line: text" with context lines as ' +
      '"path-line- text". Honours .gitignore/.forgeignore, skips binaries, node_modules and secrets. Capped; ' +
      'the header gives the total number of matches. Files read_file refuses (secrets, .forgeignore, .git) are never searched.',
    input: searchFilesInput,
    risk: 'read',
    async execute(input, ctx) {
      let regex: RegExp;
      try {
        regex = new RegExp(input.pattern, input.caseSensitive ? 'u' : 'iu');
      } catch (e) {
        try {
          regex = new RegExp(input.pattern, input.caseSensitive ? '' : 'i');
        } catch {
          return errorResult(
            `Invalid regular expression ${JSON.stringify(input.pattern)}: ${(e as Error).message}. Escape special characters such as ( [ { . * + ? with a backslash.`,
          );
        }
      }
      const r = await resolveOrRefuse(sandbox, input.path ?? '.', 'read');
      if (!r.ok) return r.result;
      const st = await sandbox.fs.stat(r.path.abs);
      if (!st) return errorResult(`Not found: ${sandbox.display(r.path.abs)}.`);
      if (st.type === 'dir') {
        // A folder is judged as a folder too (an ignored "build/" is refused, not searched to nothing).
        const asDir = await resolveOrRefuse(sandbox, input.path ?? '.', 'list');
        if (!asDir.ok) return asDir.result;
      }
      // A linked folder is searched where it really lives, under that folder's rules.
      const start = await sandbox.canonical(r.path);
      const max = input.maxResults ?? SEARCH_DEFAULT_MAX;
      const context = input.contextLines ?? 1;
      const admit = readableFilter(sandbox);
      let result: SearchResult;
      if (backend) {
        const p = start.root.includes('\\') ? nodePath.win32 : nodePath.posix;
        const query: SearchQuery = {
          pattern: input.pattern,
          caseSensitive: input.caseSensitive ?? false,
          paths: [start.abs],
          glob: input.glob,
          // Only the searched folder's own ignore file: another folder's rules would apply to the wrong tree.
          ignoreFiles: (await sandbox.ignoreFiles()).filter((f) => p.dirname(f) === start.root),
          contextLines: context,
          maxResults: max,
          signal: ctx.signal,
          admit,
        };
        const raw = await backend.search(query);
        // Whatever the backend did, no text from a file read_file refuses leaves here.
        const kept: SearchMatch[] = [];
        for (const m of raw.matches) if (await admit(m.path)) kept.push(m);
        result = { ...raw, matches: kept, totalMatches: raw.totalMatches - (raw.matches.length - kept.length) };
      } else {
        try {
          result = await jsSearch(
            sandbox,
            start,
            st.type === 'file',
            regex,
            input,
            max,
            context,
            ctx.signal,
            admit,
            opts.regexStuckMs ?? REGEX_STUCK_MS,
            opts.regexScan ?? inThreadRegexScan,
          );
        } catch (e) {
          if (!(e instanceof RegexStuckError) || ctx.signal.aborted) throw e;
          return errorResult(
            `Search stopped: the pattern /${input.pattern}/ ran for ${Math.round(e.ms / 1000)} s on one file (${sandbox.display(e.file)}) without finishing. ` +
              'It most likely backtracks catastrophically: nested or overlapping quantifiers such as (a+)+, (a|a)* or (.*)*. ' +
              'Rewrite it without nested quantifiers, anchor it, or search for a plain literal part of it.',
            { errorClass: 'tool', regexTimedOut: true, file: sandbox.display(e.file) },
          );
        }
      }
      return {
        content: format(sandbox, result, max, input),
        data: {
          totalMatches: result.totalMatches,
          returned: result.matches.length,
          totalIsLowerBound: !!result.incomplete,
        },
      };
    },
  };
}

interface FileScan {
  rel: string;
  matches: SearchMatch[];
  /** All matching lines in the file (matches holds at most `max` of them). */
  count: number;
}

/** ripgrep / git style: a NUL byte in the first chunk means binary. */
function looksBinary(bytes: Uint8Array): boolean {
  return bytes.subarray(0, BINARY_SNIFF_BYTES).indexOf(0) >= 0;
}

/**
 * Flags for a whole-text regex that can only be false when no line matches, so most files skip the line split.
 * Lookarounds may see across line ends, so patterns with them are always checked line by line (null).
 */
function wholeTextFlags(regex: RegExp): string | null {
  if (/\(\?<?[=!]/.test(regex.source)) return null;
  return regex.flags.includes('m') ? regex.flags : regex.flags + 'm';
}

/**
 * The file's bytes, or undefined when it is not a regular file or is over MAX_FILE_BYTES. Most files fit the
 * head read, so a file costs open/read/close instead of stat + open/stat/read/close.
 */
async function readSmallFile(fs: WorkspaceFs, abs: string, signal: AbortSignal): Promise<Uint8Array | undefined> {
  if (fs.readFileHead) {
    const head = await fs.readFileHead(abs, HEAD_BYTES, signal);
    if (!head.truncated) return head.data;
    if (looksBinary(head.data)) return undefined;
  }
  const st = await fs.stat(abs);
  if (!st || st.type !== 'file' || st.size > MAX_FILE_BYTES) return undefined;
  return fs.readFile(abs, signal);
}

async function jsSearch(
  sandbox: WorkspaceSandbox,
  start: ResolvedPath,
  single: boolean,
  regex: RegExp,
  input: Input,
  max: number,
  context: number,
  signal: AbortSignal,
  admit: (abs: string) => Promise<boolean>,
  stuckMs: number,
  regexScan: RegexScanFactory,
): Promise<SearchResult> {
  const globFilter = input.glob ? ignore({ allowRelativePaths: true }).add(input.glob) : undefined;
  const prefix = start.rel ? start.rel.length + 1 : 0;
  // Reads still in flight when the search stops early are cancelled through this.
  const stop = new AbortController();
  const onAbort = () => stop.abort(signal.reason);
  signal.addEventListener('abort', onAbort, { once: true });
  // Decoding, line splitting and the user's regex run in a worker that Stop, the time limit or a stuck pattern kill.
  const scanner = regexScan({
    source: regex.source,
    flags: regex.flags,
    prefilterFlags: wholeTextFlags(regex),
    context,
    max,
    stuckMs,
    signal: stop.signal,
  });

  const scan = async (abs: string, rel: string): Promise<FileScan> => {
    const none = { rel, matches: [], count: 0 };
    const bytes = await readSmallFile(sandbox.fs, abs, stop.signal);
    if (!bytes || looksBinary(bytes)) return none;
    const found = await scanner.scan(abs, bytes);
    const count = found.count;
    const matches: SearchMatch[] = found.matches.map((m) => ({ path: abs, ...m }));
    // The walk already left out what it can judge by name; a file with matches also gets read_file's own verdict.
    if (count > 0 && !(await admit(abs))) return none;
    return { rel, matches, count };
  };

  const matches: SearchMatch[] = [];
  let total = 0;
  let stopped = false;
  const take = (r: FileScan) => {
    total += r.count;
    for (const m of r.matches) if (matches.length < max) matches.push(m);
    if (total >= max) stopped = true;
  };
  // Ordered window: up to FILE_CONCURRENCY reads in flight, results taken in walk order, so where the search
  // stops (and what it returns) never depends on which read finished first.
  const window: Promise<FileScan>[] = [];
  const enqueue = (abs: string, rel: string) => {
    // An unreadable file is skipped; a stuck pattern, a dead worker or a transient I/O error ends the search.
    const task = scan(abs, rel).catch((e) => {
      if (e instanceof RegexStuckError || isTransientError(e) || stop.signal.aborted) throw e;
      return { rel, matches: [], count: 0 };
    });
    task.catch(() => undefined); // a task left in the window when the search ends must not be an unhandled rejection
    window.push(task);
  };
  let moreFiles = false;
  try {
    if (single) enqueue(start.abs, start.rel);
    else {
      for await (const f of walk(sandbox, start, { recursive: true, signal })) {
        if (f.type === 'dir') continue;
        if (globFilter && !globFilter.ignores(f.rel.slice(prefix))) continue;
        if (stopped) {
          moreFiles = true;
          break;
        }
        enqueue(f.abs, f.rel);
        if (window.length >= FILE_CONCURRENCY) take(await window.shift()!);
      }
    }
    while (window.length && !stopped) take(await window.shift()!);
    signal.throwIfAborted();
  } finally {
    signal.removeEventListener('abort', onAbort);
    scanner.close(); // before stop.abort(): a search that ended by itself keeps its worker warm for the next one
    stop.abort();
  }
  // Files not searched (still queued or never reached) may hold more matches: the total is then a lower bound.
  const incomplete = stopped && (moreFiles || window.length > 0);
  return { matches, totalMatches: total, ...(incomplete ? { incomplete: true } : {}) };
}

function clip(s: string): string {
  return s.length > MAX_TEXT ? s.slice(0, MAX_TEXT) + '…' : s;
}

function format(sandbox: WorkspaceSandbox, result: SearchResult, max: number, input: Input): string {
  const files = new Set(result.matches.map((m) => m.path));
  const total = `${result.totalMatches}${result.incomplete ? '+' : ''}`;
  if (result.matches.length === 0)
    return `No matches for /${input.pattern}/${input.glob ? ` in files matching ${input.glob}` : ''}.`;
  const partial = result.matches.length < result.totalMatches || result.incomplete;
  const lines = [
    `Found ${total} matches${partial ? `, showing the first ${result.matches.length} in ${files.size} files` : ` in ${files.size} files`}.`,
  ];
  // Per file, merge matches and context so overlapping windows print each line once.
  const byFile = new Map<string, Map<number, { text: string; match: boolean }>>();
  // One display path per file, not per match (a thousand matches come from a handful of files).
  const shown = new Map<string, string>();
  for (const m of result.matches) {
    let p = shown.get(m.path);
    if (p === undefined) shown.set(m.path, (p = sandbox.display(m.path)));
    let rows = byFile.get(p);
    if (!rows) byFile.set(p, (rows = new Map()));
    (m.before ?? []).forEach(
      (t, k) =>
        rows!.has(m.line - m.before!.length + k) || rows!.set(m.line - m.before!.length + k, { text: t, match: false }),
    );
    rows.set(m.line, { text: m.text, match: true });
    (m.after ?? []).forEach(
      (t, k) => rows!.has(m.line + 1 + k) || rows!.set(m.line + 1 + k, { text: t, match: false }),
    );
  }
  for (const [p, rows] of byFile) {
    let prev = -1;
    for (const n of [...rows.keys()].sort((a, b) => a - b)) {
      if (lines.length > 1 && (prev < 0 || n > prev + 1)) lines.push('--');
      const row = rows.get(n)!;
      lines.push(row.match ? `${p}:${n}: ${clip(row.text)}` : `${p}-${n}- ${clip(row.text)}`);
      prev = n;
    }
  }
  const advice = `Narrow with path/glob or a more specific pattern, or raise maxResults (max ${max > SEARCH_HARD_MAX ? max : SEARCH_HARD_MAX}).`;
  if (result.incomplete) {
    const more = result.totalMatches - result.matches.length;
    lines.push(
      `[${more > 0 ? `${more}+` : 'Possibly'} more matches not shown: the search stopped counting early, so ${total} is a lower bound. ${advice}]`,
    );
  } else if (result.matches.length < result.totalMatches) {
    lines.push(`[${result.totalMatches - result.matches.length} more matches not shown. ${advice}]`);
  }
  return lines.join('\n');
}

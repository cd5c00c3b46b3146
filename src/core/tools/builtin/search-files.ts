import ignore from 'ignore';
import { z } from 'zod';
import type { ResolvedPath, WorkspaceSandbox } from '../../safety/paths';
import type { SearchBackend, SearchMatch, SearchResult } from '../../workspace/types';
import type { Tool } from '../types';
import { decodeText, errorResult, isBinary, resolveOrRefuse } from './common';
import { walk } from './walk';

export const SEARCH_DEFAULT_MAX = 100;
const SEARCH_HARD_MAX = 1000;
const COUNT_LIMIT = 10_000;
const MAX_FILE_BYTES = 2 * 1024 * 1024;
const CONCURRENCY = 8;
const MAX_TEXT = 300;

export const searchFilesInput = z.object({
  pattern: z.string().min(1).describe('Regular expression (JavaScript syntax), matched line by line.'),
  path: z.string().optional().describe('Folder or file to search, relative to the workspace root. Default: the root.'),
  glob: z.string().optional().describe('Only files matching this glob, relative to path (e.g. "*.ts", "src/**/*.test.ts").'),
  maxResults: z.number().int().min(1).max(SEARCH_HARD_MAX).optional().describe(`Matches to return. Default ${SEARCH_DEFAULT_MAX}.`),
  caseSensitive: z.boolean().optional().describe('Default false.'),
  contextLines: z.number().int().min(0).max(5).optional().describe('Lines of context around each match. Default 1.'),
});

type Input = z.infer<typeof searchFilesInput>;

export function createSearchFilesTool(sandbox: WorkspaceSandbox, backend?: SearchBackend): Tool<typeof searchFilesInput> {
  return {
    name: 'search_files',
    description:
      'Search file contents with a regular expression. Results are "path:line: text" with context lines as ' +
      '"path-line- text". Honours .gitignore/.forgeignore, skips binaries, node_modules and secrets. Capped; ' +
      'the header gives the total number of matches.',
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
          return errorResult(`Invalid regular expression ${JSON.stringify(input.pattern)}: ${(e as Error).message}. Escape special characters such as ( [ { . * + ? with a backslash.`);
        }
      }
      const r = await resolveOrRefuse(sandbox, input.path ?? '.', 'read');
      if (!r.ok) return r.result;
      const start = r.path;
      const st = await sandbox.fs.stat(start.abs);
      if (!st) return errorResult(`Not found: ${sandbox.display(start.abs)}.`);
      const max = input.maxResults ?? SEARCH_DEFAULT_MAX;
      const context = input.contextLines ?? 1;
      let result: SearchResult;
      if (backend) {
        const raw = await backend.search({
          pattern: input.pattern,
          caseSensitive: input.caseSensitive ?? false,
          paths: [start.abs],
          glob: input.glob,
          ignoreFiles: await sandbox.ignoreFiles(),
          contextLines: context,
          maxResults: max,
          signal: ctx.signal,
        });
        const kept: SearchMatch[] = [];
        for (const m of raw.matches) if ((await sandbox.resolve(m.path, 'read')).ok) kept.push(m);
        result = { ...raw, matches: kept, totalMatches: raw.totalMatches - (raw.matches.length - kept.length) };
      } else {
        result = await jsSearch(sandbox, start, st.type === 'file', regex, input, max, context, ctx.signal);
      }
      return { content: format(sandbox, result, max, input), data: { totalMatches: result.totalMatches, returned: result.matches.length } };
    },
  };
}

async function jsSearch(sandbox: WorkspaceSandbox, start: ResolvedPath, single: boolean, regex: RegExp, input: Input, max: number, context: number, signal: AbortSignal): Promise<SearchResult> {
  const globFilter = input.glob ? ignore({ allowRelativePaths: true }).add(input.glob) : undefined;
  const prefix = start.rel ? start.rel.length + 1 : 0;
  const files: AsyncIterator<{ abs: string; rel: string; type?: string }> = single
    ? (async function* () {
        yield { abs: start.abs, rel: start.rel };
      })()
    : walk(sandbox, start, { recursive: true, signal, hideSecrets: true });
  const perFile = new Map<string, SearchMatch[]>();
  const order: string[] = [];
  let total = 0;
  let incomplete = false;

  const worker = async () => {
    for (;;) {
      signal.throwIfAborted();
      if (total >= COUNT_LIMIT) {
        incomplete = true;
        return;
      }
      const next = await files.next();
      if (next.done) return;
      const f = next.value;
      if (f.type === 'dir') continue;
      if (globFilter && !single && !globFilter.ignores(f.rel.slice(prefix))) continue;
      const st = await sandbox.fs.stat(f.abs);
      if (!st || st.type !== 'file' || st.size > MAX_FILE_BYTES) continue;
      const bytes = await sandbox.fs.readFile(f.abs, signal).catch(() => undefined);
      if (!bytes || isBinary(bytes)) continue;
      const lines = decodeText(bytes).split(/\r?\n/);
      const found: SearchMatch[] = [];
      for (let i = 0; i < lines.length; i++) {
        if (!regex.test(lines[i]!)) continue;
        total++;
        found.push({ path: f.abs, line: i + 1, text: lines[i]!, before: lines.slice(Math.max(0, i - context), i), after: lines.slice(i + 1, i + 1 + context) });
      }
      if (found.length) {
        perFile.set(f.rel, found);
        order.push(f.rel);
      }
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  // Deterministic output regardless of which worker finished first.
  const matches = order.sort().flatMap((rel) => perFile.get(rel)!).slice(0, max);
  return { matches, totalMatches: total, incomplete };
}

function clip(s: string): string {
  return s.length > MAX_TEXT ? s.slice(0, MAX_TEXT) + '…' : s;
}

function format(sandbox: WorkspaceSandbox, result: SearchResult, max: number, input: Input): string {
  const files = new Set(result.matches.map((m) => m.path));
  const total = `${result.totalMatches}${result.incomplete ? '+' : ''}`;
  if (result.matches.length === 0) return `No matches for /${input.pattern}/${input.glob ? ` in files matching ${input.glob}` : ''}.`;
  const lines = [`Found ${total} matches${result.matches.length < result.totalMatches ? `, showing the first ${result.matches.length} in ${files.size} files` : ` in ${files.size} files`}.`];
  // Per file, merge matches and context so overlapping windows print each line once.
  const byFile = new Map<string, Map<number, { text: string; match: boolean }>>();
  for (const m of result.matches) {
    const p = sandbox.display(m.path);
    let rows = byFile.get(p);
    if (!rows) byFile.set(p, (rows = new Map()));
    (m.before ?? []).forEach((t, k) => rows!.has(m.line - m.before!.length + k) || rows!.set(m.line - m.before!.length + k, { text: t, match: false }));
    rows.set(m.line, { text: m.text, match: true });
    (m.after ?? []).forEach((t, k) => rows!.has(m.line + 1 + k) || rows!.set(m.line + 1 + k, { text: t, match: false }));
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
  if (result.matches.length < result.totalMatches) {
    lines.push(`[${result.totalMatches - result.matches.length} more matches not shown. Narrow with path/glob or a more specific pattern, or raise maxResults (max ${max > SEARCH_HARD_MAX ? max : SEARCH_HARD_MAX}).]`);
  }
  return lines.join('\n');
}

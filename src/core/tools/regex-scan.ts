// The port search_files' JS backend runs the user's regular expression through, one file at a time. The extension
// and the CLI pass src/node/regex-scanner.ts (a worker thread that a stuck pattern cannot hold); without one, the
// scan runs on the calling thread (in-memory workspaces, tests), where a catastrophic pattern is not interrupted.
import type { SearchMatch } from '../workspace/types';

export interface FileMatches {
  /** Matches without their path (at most `max` of them). */
  matches: Omit<SearchMatch, 'path'>[];
  /** All matching lines in the file. */
  count: number;
}

export interface RegexScanOptions {
  source: string;
  flags: string;
  /** Flags for the whole-text prefilter (null: none, e.g. patterns with lookarounds). */
  prefilterFlags: string | null;
  context: number;
  max: number;
  /** A file whose scan takes longer than this ends the search with RegexStuckError. */
  stuckMs: number;
  signal: AbortSignal;
}

/** One search: files go in, matches come back in order; close() ends it (pending scans reject). */
export interface RegexScan {
  scan(file: string, bytes: Uint8Array): Promise<FileMatches>;
  close(): void;
}

export type RegexScanFactory = (opts: RegexScanOptions) => RegexScan;

/** The pattern ran this long on one file without finishing: almost always catastrophic backtracking. */
export class RegexStuckError extends Error {
  override readonly name = 'RegexStuckError';
  constructor(
    readonly file: string,
    readonly ms: number,
  ) {
    super(`the pattern ran for ${Math.round(ms / 1000)} s on ${file} without finishing`);
  }
}

/** Characters of a matched or context line sent back (the tool prints 300; ripgrep's --max-columns is 1000). */
const LINE_CHARS = 1000;

/** The scan on the calling thread, for hosts without threads: the same matches as the worker's. */
export const inThreadRegexScan: RegexScanFactory = (opts) => {
  const regex = new RegExp(opts.source, opts.flags);
  const prefilter = opts.prefilterFlags === null ? null : new RegExp(opts.source, opts.prefilterFlags);
  const decoder = new TextDecoder('utf-8', { fatal: false });
  const clip = (s: string) => (s.length > LINE_CHARS ? s.slice(0, LINE_CHARS) : s);
  let closed = false;
  return {
    async scan(_file, bytes) {
      if (closed) throw new Error('regex scan closed');
      opts.signal.throwIfAborted();
      let text = decoder.decode(bytes);
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
      if (prefilter) {
        prefilter.lastIndex = 0;
        if (!prefilter.test(text)) return { matches: [], count: 0 };
      }
      const lines = text.split(/\r?\n/);
      const matches: FileMatches['matches'] = [];
      let count = 0;
      for (let i = 0; i < lines.length; i++) {
        regex.lastIndex = 0;
        if (!regex.test(lines[i])) continue;
        if (++count <= opts.max)
          matches.push({
            line: i + 1,
            text: clip(lines[i]),
            before: lines.slice(Math.max(0, i - opts.context), i).map(clip),
            after: lines.slice(i + 1, i + 1 + opts.context).map(clip),
          });
      }
      return { matches, count };
    },
    close() {
      closed = true;
    },
  };
};

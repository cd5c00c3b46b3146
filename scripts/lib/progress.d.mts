// Types for progress.mjs, for the TypeScript tests that import it.
import type { SpawnOptions } from 'node:child_process';

export function folderBytes(dir: string): number;
export function formatElapsed(ms: number): string;
export const stepLines: {
  start(what: string, estimate?: string): string;
  tick(what: string, ms: number, bytes?: number): string;
  done(what: string, ms: number): string;
};
export function runWithProgress(
  cmd: string,
  args: string[],
  opts?: SpawnOptions & {
    what: string;
    estimate?: string;
    watchDir?: string;
    everyMs?: number;
    log?: (line: string) => void;
  },
): Promise<string>;

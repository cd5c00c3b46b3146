// Types for progress.mjs, for the TypeScript tests that import it.
import type { SpawnOptions } from 'node:child_process';

export function folderBytes(dir: string): number;
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

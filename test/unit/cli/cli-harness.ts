// What the CLI's end-to-end tests share: the shipped bundle built as esbuild.mjs builds it, and `forge` run as a
// child process with a clean environment (only PATH, HOME and what the test gives).
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import * as esbuild from 'esbuild';

export const REPO = path.resolve(__dirname, '../../..');
export const CLI = path.join(REPO, 'dist', 'cli.js');

/** Builds dist/cli.js exactly as esbuild.mjs does (its exported options), so the tests run the shipped bundle. */
export async function buildCli(): Promise<void> {
  const load = new Function('u', 'return import(u)') as (
    u: string,
  ) => Promise<{ buildOptions: Record<string, esbuild.BuildOptions> }>;
  const { buildOptions } = await load(`file://${path.join(REPO, 'esbuild.mjs')}`);
  await esbuild.build({ ...buildOptions.cli, absWorkingDir: REPO });
  const vendored = ['mvdan-sh.js', 'mcp-sdk.js'].map((f) => path.join(REPO, 'dist', 'vendor', f));
  if (!vendored.every((f) => existsSync(f))) await esbuild.build({ ...buildOptions.vendor, absWorkingDir: REPO });
}

export interface CliDone {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface CliRun {
  child: ChildProcess;
  done: Promise<CliDone>;
  /** What it printed on stdout so far. */
  stdout: () => string;
}

/** `forge <args> --cwd <cwd>` with stdin written and closed; env adds to PATH, HOME (overridable) and NO_COLOR. */
export function spawnCli(cwd: string, args: string[], env: NodeJS.ProcessEnv = {}, stdin = ''): CliRun {
  const child = spawn(process.execPath, [CLI, ...args, '--cwd', cwd], {
    cwd,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, NO_COLOR: '1', ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  child.stdin!.end(stdin);
  const done = new Promise<CliDone>((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
  return { child, done, stdout: () => stdout };
}

// Finding a program on PATH (and the usual system folders) without running a shell.
import { accessSync, constants as fsc } from 'node:fs';
import * as path from 'node:path';

export function executable(p: string): boolean {
  try {
    accessSync(p, fsc.X_OK);
    return true;
  } catch {
    return false;
  }
}

export function findOnPath(name: string, envPath = process.env.PATH ?? ''): string | undefined {
  for (const dir of [...envPath.split(path.delimiter), '/usr/bin', '/usr/local/bin', '/bin']) {
    if (!dir) continue;
    const p = path.join(dir, name);
    if (executable(p)) return p;
  }
  return undefined;
}

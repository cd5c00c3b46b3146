// Breadth-first workspace walker honouring nested .gitignore files, .forgeignore and default skips.
import * as nodePath from 'node:path';
import ignore, { type Ignore } from 'ignore';
import type { ResolvedPath, WorkspaceSandbox } from '../../safety/paths';
import { decodeText } from './common';

export const DEFAULT_SKIP_DIRS: ReadonlySet<string> = new Set(['node_modules', '.git', '.hg', '.svn', '.DS_Store']);

export interface WalkEntry {
  abs: string;
  /** Relative to the workspace folder, '/' separated. */
  rel: string;
  type: 'file' | 'dir';
}

export interface WalkOptions {
  recursive: boolean;
  signal?: AbortSignal;
  /** Leave out files the sandbox calls secrets (search never reads them). */
  hideSecrets: boolean;
  /** Ignore .gitignore rules. */
  noGitignore?: boolean;
}

interface Level {
  base: string; // rel dir of the .gitignore ('' for root)
  ig: Ignore;
}

export async function* walk(sandbox: WorkspaceSandbox, start: ResolvedPath, opts: WalkOptions): AsyncGenerator<WalkEntry> {
  const fs = sandbox.fs;
  const p = start.root.includes('\\') ? nodePath.win32 : nodePath.posix;
  const loadLevel = async (dirAbs: string, rel: string): Promise<Level | undefined> => {
    if (opts.noGitignore) return undefined;
    const f = p.join(dirAbs, '.gitignore');
    const st = await fs.stat(f).catch(() => undefined);
    if (st?.type !== 'file') return undefined;
    const text = decodeText(await fs.readFile(f).catch(() => new Uint8Array()));
    return { base: rel, ig: ignore({ allowRelativePaths: true }).add(text) };
  };
  const ignoredByGit = (levels: Level[], rel: string, isDir: boolean): boolean => {
    let ignored = false;
    for (const l of levels) {
      const sub = l.base ? rel.slice(l.base.length + 1) : rel;
      const r = l.ig.test(isDir ? sub + '/' : sub);
      if (r.ignored) ignored = true;
      else if (r.unignored) ignored = false;
    }
    return ignored;
  };

  // .gitignore files of the ancestors of the start directory apply too.
  const initial: Level[] = [];
  const segments = start.rel ? start.rel.split('/') : [];
  for (let i = 0; i <= segments.length; i++) {
    const rel = segments.slice(0, i).join('/');
    const lvl = await loadLevel(rel ? p.join(start.root, ...segments.slice(0, i)) : start.root, rel);
    if (lvl) initial.push(lvl);
  }

  const queue: { abs: string; rel: string; levels: Level[] }[] = [{ abs: start.abs, rel: start.rel, levels: initial }];
  let first = true;
  while (queue.length > 0) {
    opts.signal?.throwIfAborted();
    const dir = queue.shift()!;
    let levels = dir.levels;
    if (!first) {
      const lvl = await loadLevel(dir.abs, dir.rel);
      if (lvl) levels = [...levels, lvl];
    }
    first = false;
    let entries;
    try {
      entries = await fs.readDir(dir.abs, opts.signal);
    } catch {
      continue;
    }
    entries.sort((a, b) => a.name.localeCompare(b.name));
    for (const e of entries) {
      const abs = p.join(dir.abs, e.name);
      const rel = dir.rel ? `${dir.rel}/${e.name}` : e.name;
      let type = e.type;
      if (type === 'symlink') {
        // Follow only links that stay inside the workspace; never descend into linked folders.
        const r = await sandbox.resolve(abs, 'read');
        if (!r.ok) continue;
        const st = await fs.stat(abs).catch(() => undefined);
        if (st?.type !== 'file') continue;
        type = 'file';
      }
      if (type !== 'file' && type !== 'dir') continue;
      const isDir = type === 'dir';
      if (isDir && DEFAULT_SKIP_DIRS.has(e.name)) continue;
      const hidden = await sandbox.isHidden(start.root, rel, isDir);
      if (hidden === 'ignored' || (hidden === 'secret' && opts.hideSecrets)) continue;
      if (ignoredByGit(levels, rel, isDir)) continue;
      yield { abs, rel, type };
      if (isDir && opts.recursive && e.type === 'dir') queue.push({ abs, rel, levels });
    }
  }
}

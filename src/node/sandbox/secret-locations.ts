// Where the secrets are that a contained command must not read: the user's credential folders and files under
// $HOME (looked up for every command: a few dozen stats), and the workspace's own .env / key files (found by a
// bounded walk, cached briefly while none of the walked folders and none of the token-free .npmrc files changed).
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import ignore from 'ignore';
import { DEFAULT_SECRET_PATTERNS, HOME_SECRET_PATHS } from '../../core/safety/secrets';
import type { MaskedPath } from './profile';

// Only version-control internals are skipped: a build copies .env into dist/, a tool caches credentials in .cache/.
const SKIP_DIRS = new Set(['.git', '.hg', '.svn']);
const NPMRC_TOKEN = /(_authToken|_auth|_password)\s*=/;
/** Past this many entries the scan stops and says so; commands then ask (the sandbox fails closed). */
export const SCAN_MAX_ENTRIES = 100_000;
const SCAN_MAX_DEPTH = 12;
const CACHE_MS = 10_000;

async function existing(p: string): Promise<MaskedPath | undefined> {
  try {
    const real = await fsp.realpath(p);
    const st = await fsp.stat(real);
    return { path: real, dir: st.isDirectory() };
  } catch {
    return undefined;
  }
}

/** Secret locations under the home folder that exist (symlinks resolved). */
export async function homeSecrets(home: string): Promise<MaskedPath[]> {
  const found = await Promise.all(HOME_SECRET_PATHS.map((rel) => existing(path.join(home, rel))));
  return found.filter((m): m is MaskedPath => m !== undefined);
}

interface ScanResult {
  masked: MaskedPath[];
  /** The walk stopped at SCAN_MAX_ENTRIES: deeper secrets may be unmasked, so every command asks. */
  incomplete: boolean;
  /**
   * Each folder walked and its times before it was read: a file added or renamed there since changes them (ctime too,
   * which nobody can set back the way `touch -d` sets back an mtime).
   */
  dirs?: { path: string; stamp: string }[];
  /** Files judged by their content (an .npmrc without a token), with what they were then: a token added later shows. */
  judged?: { path: string; stamp: string }[];
}

/** Secret files and folders inside one workspace folder (gitignore-style DEFAULT_SECRET_PATTERNS + extras). */
export async function scanWorkspaceSecrets(
  root: string,
  extraPatterns: readonly string[] = [],
  maxEntries = SCAN_MAX_ENTRIES,
): Promise<ScanResult> {
  const secrets = ignore({ allowRelativePaths: true }).add([...DEFAULT_SECRET_PATTERNS, ...extraPatterns]);
  const masked: MaskedPath[] = [];
  const dirs: { path: string; stamp: string }[] = [];
  const judged: { path: string; stamp: string }[] = [];
  let seen = 0;
  let incomplete = false;
  const queue: { dir: string; rel: string; depth: number }[] = [{ dir: root, rel: '', depth: 0 }];
  while (queue.length > 0) {
    const { dir, rel, depth } = queue.shift()!;
    let entries;
    try {
      dirs.push({ path: dir, stamp: await fileStamp(dir) });
      entries = await fsp.readdir(dir, { withFileTypes: true });
    } catch {
      continue;
    }
    for (const e of entries) {
      if (++seen > maxEntries) {
        incomplete = true;
        return { masked, incomplete, dirs, judged };
      }
      const childRel = rel ? `${rel}/${e.name}` : e.name;
      const abs = path.join(dir, e.name);
      if (e.isSymbolicLink()) {
        // A link named like a secret is masked at its target; links are never walked.
        if (secrets.ignores(childRel)) {
          const m = await existing(abs);
          if (m) masked.push(m);
        }
        continue;
      }
      if (e.isDirectory()) {
        if (secrets.ignores(childRel + '/')) masked.push({ path: abs, dir: true });
        else if (!SKIP_DIRS.has(e.name) && depth < SCAN_MAX_DEPTH)
          queue.push({ dir: abs, rel: childRel, depth: depth + 1 });
      } else if (e.isFile()) {
        if (secrets.ignores(childRel)) masked.push({ path: abs, dir: false });
        else if (e.name === '.npmrc') {
          const stamp = await fileStamp(abs); // before the read: a write during it changes the stamp
          if (await hasToken(abs)) masked.push({ path: abs, dir: false });
          else judged.push({ path: abs, stamp });
        }
      }
    }
  }
  return { masked, incomplete, dirs, judged };
}

async function fileStamp(file: string): Promise<string> {
  return fsp.stat(file).then(
    (st) => `${st.size}:${st.mtimeMs}:${st.ctimeMs}:${st.ino}`,
    () => 'gone',
  );
}

/**
 * True while no walked folder changed (a .env created a second after the scan must not slip through the cache) and
 * no .npmrc judged token-free changed (a token written into it must not either).
 */
async function stillCurrent(scan: ScanResult): Promise<boolean> {
  if (!scan.dirs) return false;
  const [dirs, files] = await Promise.all([
    Promise.all(scan.dirs.map((d) => fileStamp(d.path))),
    Promise.all((scan.judged ?? []).map((f) => fileStamp(f.path))),
  ]);
  return scan.dirs.every((d, i) => dirs[i] === d.stamp) && (scan.judged ?? []).every((f, i) => files[i] === f.stamp);
}

async function hasToken(file: string): Promise<boolean> {
  try {
    return NPMRC_TOKEN.test(await fsp.readFile(file, 'utf8'));
  } catch {
    return false;
  }
}

/** scanWorkspaceSecrets with a short cache per folder (a command runs every few seconds at most). */
export class SecretLocator {
  private readonly cache = new Map<string, { at: number; value: Promise<ScanResult> }>();

  /** Whether the last scan of each folder was complete. */
  private readonly complete = new Map<string, boolean>();

  constructor(
    private readonly homeDir: string,
    private readonly extraPatterns: () => readonly string[] = () => [],
    private readonly maxEntries = SCAN_MAX_ENTRIES,
  ) {}

  /** What is known of these folders' last scans: 'complete', 'incomplete', or 'unknown' (not scanned yet). */
  state(roots: readonly string[]): 'complete' | 'incomplete' | 'unknown' {
    const known = roots.map((r) => this.complete.get(r));
    if (known.some((k) => k === false)) return 'incomplete';
    return known.every((k) => k === true) ? 'complete' : 'unknown';
  }

  async locate(roots: readonly string[], fresh = false): Promise<{ masked: MaskedPath[]; incomplete: boolean }> {
    const now = Date.now();
    const scans = roots.map(async (r) => {
      const hit = this.cache.get(r);
      if (!fresh && hit && now - hit.at <= CACHE_MS) {
        const scan = await hit.value;
        if (await stillCurrent(scan)) return scan;
      }
      const value = scanWorkspaceSecrets(r, this.extraPatterns(), this.maxEntries);
      this.cache.set(r, { at: now, value });
      void value.then(
        (v) => this.complete.set(r, !v.incomplete),
        () => this.complete.set(r, false),
      );
      return value;
    });
    // Not cached: a credentials file created in $HOME a second ago must be masked for the next command.
    const [home, ...ws] = await Promise.all([homeSecrets(this.homeDir), ...scans]);
    const byPath = new Map<string, MaskedPath>();
    for (const m of [...home, ...ws.flatMap((s) => s.masked)]) byPath.set(m.path, m);
    return { masked: [...byPath.values()], incomplete: ws.some((s) => s.incomplete) };
  }
}

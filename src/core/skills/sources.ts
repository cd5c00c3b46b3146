// Where teams keep skills and agents, and one confined reader per place. Workspace folders are read through the
// workspace's ConfinedReader (the read_file rule); a folder in the user's home gets a reader confined to that
// folder alone: a link leading out of it, a secret, a FIFO or a binary file is refused there just the same.
import * as path from 'node:path';
import { ConfinedReader, isWorthWarning, type ConfinedEntry, type ConfinedRefusal } from '../safety/confined-read';
import type { WorkspaceFs } from '../workspace/types';

/** A file that could not be used, and why (reported once per change of the files). */
export interface AgentFileProblem {
  /** Workspace-relative, or `~/...` for the user's own files. */
  display: string;
  reason: string;
}

export interface Place {
  /** Absolute folder. */
  dir: string;
  /** How the folder is shown: `.claude/skills` or `~/.claude/skills`. */
  shown: string;
  scope: 'workspace' | 'user';
  reader: ConfinedReader;
}

export interface DiscoverOptions {
  /** The user's home folder (the extension's and the CLI's os.homedir()); undefined = workspace only. */
  homeDir?: string;
  /** A confined reader over the workspace (its .forgeignore and secret patterns); one is made from `fs` otherwise. */
  reader?: ConfinedReader;
}

/** The same file system seen with `root` as its only folder, read-only: what a home folder's reader confines to. */
function rootedAt(fs: WorkspaceFs, root: string): WorkspaceFs {
  return {
    roots: () => [root],
    stat: (p) => fs.stat(p),
    readFile: (p, s) => fs.readFile(p, s),
    writeFile: () => Promise.reject(new Error('read-only')),
    readDir: (p, s) => fs.readDir(p, s),
    realpath: (p) => fs.realpath(p),
    ...(fs.readFileHead ? { readFileHead: fs.readFileHead.bind(fs) } : {}),
    ...(fs.readRegularFile ? { readRegularFile: fs.readRegularFile.bind(fs) } : {}),
  };
}

/**
 * The places for `sub` (e.g. `['.claude/skills', ...]`), in precedence order: the user's own first (a cloned
 * repository cannot replace a skill or agent the user wrote, as in Claude Code), then each workspace folder's.
 */
export function placesFor(
  fs: WorkspaceFs,
  workspaceDirs: readonly string[],
  homeDirs: readonly string[],
  opts: DiscoverOptions,
): Place[] {
  const out: Place[] = [];
  if (opts.homeDir) {
    for (const rel of homeDirs) {
      const dir = path.join(opts.homeDir, ...rel.split('/'));
      out.push({ dir, shown: `~/${rel}`, scope: 'user', reader: new ConfinedReader(rootedAt(fs, dir)) });
    }
  }
  const reader = opts.reader ?? new ConfinedReader(fs);
  for (const root of fs.roots()) {
    for (const rel of workspaceDirs) {
      out.push({ dir: path.join(root, ...rel.split('/')), shown: rel, scope: 'workspace', reader });
    }
  }
  return out;
}

/** How a file in a place is shown to people. */
export function displayIn(place: Place, abs: string): string {
  if (place.scope === 'workspace') return place.reader.display(abs);
  return `${place.shown}/${path.relative(place.dir, abs).split(path.sep).join('/')}`;
}

/** A refusal worth naming, as a problem (a folder that is simply absent is none). */
export function refusalProblem(place: Place, abs: string, r: ConfinedRefusal): AgentFileProblem | undefined {
  return isWorthWarning(r) ? { display: displayIn(place, abs), reason: `not read: ${r.why}` } : undefined;
}

/**
 * A place's entries, or undefined when its folder cannot be listed. What the confinement refused is added to
 * `problems` (the folder itself unless it is simply not a folder; the entries whose name `wanted` accepts).
 */
export async function listPlace(
  place: Place,
  problems: AgentFileProblem[],
  wanted: (name: string) => boolean = () => true,
): Promise<ConfinedEntry[] | undefined> {
  const listing = await place.reader.listDir(place.dir);
  if (!listing.ok) {
    if (listing.code !== 'not-a-file') {
      const p = refusalProblem(place, place.dir, listing);
      if (p) problems.push(p);
    }
    return undefined;
  }
  for (const r of listing.refused)
    if (wanted(r.display))
      problems.push({
        display: place.scope === 'user' ? `${place.shown}/${r.display}` : r.display,
        reason: `not read: ${r.why}`,
      });
  return listing.entries;
}

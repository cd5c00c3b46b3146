// The Unix sockets of this host's services (docker, containerd, D-Bus ...), which a contained command must not
// reach: the kernel's list of bound sockets and those under /run, scanned for every command.
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { within, type MaskedPath } from './profile';

/**
 * Sockets of system services (docker, containerd, D-Bus ...) a contained command must not talk to. Scanned
 * for every command (about a millisecond): a service started a moment ago must not be reachable.
 */
export async function hostSockets(roots: readonly string[], hidden: readonly string[]): Promise<MaskedPath[]> {
  const [run, listening] = await Promise.all([findSockets(['/run', '/var/run'], 3), listeningSockets()]);
  const out = new Map(run.map((m) => [m.path, m]));
  // Every socket a program on this host listens on, wherever it is (a container engine's in $HOME, a database's
  // in /opt): the kernel's own list, not a list of known places. The workspace's own and the hidden folders' stay.
  for (const p of listening) {
    if (out.has(p) || [...roots, ...hidden].some((d) => within(d, p))) continue;
    out.set(p, { path: p, dir: false });
  }
  return [...out.values()].slice(0, 1000);
}

/** Paths of the Unix sockets bound on this host (/proc/net/unix) that still exist as sockets. */
async function listeningSockets(): Promise<string[]> {
  const table = await fsp.readFile('/proc/net/unix', 'utf8').catch(() => '');
  const paths = new Set<string>();
  for (const line of table.split('\n').slice(1)) {
    // Num RefCount Protocol Flags Type St Inode Path: the path is the rest of the line (it may hold spaces).
    // Listening and datagram sockets alike (a datagram socket takes messages without listening).
    const m = /^\s*\S+:\s+\S+\s+\S+\s+\S+\s+\S+\s+\S+\s+\S+\s+(\/.*)$/.exec(line);
    if (m) paths.add(m[1]!);
  }
  const found = await Promise.all(
    [...paths].map(async (p) => {
      const real = await fsp.realpath(p).catch(() => undefined);
      const st = real ? await fsp.lstat(real).catch(() => undefined) : undefined;
      return st?.isSocket() ? real : undefined;
    }),
  );
  return [...new Set(found.filter((p): p is string => !!p))];
}

/** Unix sockets under the given folders (symlinks resolved, so /var/run and /run are one), depth-limited. */
async function findSockets(dirs: string[], depth: number): Promise<MaskedPath[]> {
  const out = new Map<string, MaskedPath>();
  const walk = async (dir: string, left: number): Promise<void> => {
    let entries;
    try {
      entries = await fsp.readdir(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const p = path.join(dir, e.name);
      if (e.isSocket()) out.set(p, { path: p, dir: false });
      else if (e.isDirectory() && left > 0 && !(dir === '/run' && e.name === 'user')) await walk(p, left - 1);
    }
  };
  for (const d of new Set(await Promise.all(dirs.map((d) => fsp.realpath(d).catch(() => d))))) await walk(d, depth);
  return [...out.values()].slice(0, 200);
}

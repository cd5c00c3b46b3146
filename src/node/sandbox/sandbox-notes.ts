// What a contained command ran into, in words for the model and the command's card: what the sandbox most
// likely stopped (read from the output), and which of its writes were kept out of the workspace.
import * as path from 'node:path';
import { BLOCKED_REASON_PHRASE } from './network-proxy';
import { within, type SandboxProfile } from './profile';
import type { MergeResult } from './write-layer';

/** The parts of a command's plan the notes read. */
export interface NotedPlan {
  contained: boolean;
  profile?: SandboxProfile;
  /** The command had a write layer (still to merge, or merged). */
  layer?: unknown;
  merged?: unknown;
}

/** What the sandbox most likely stopped, read from the command's output (for the model and the card). */
export function blockedNotes(
  output: string,
  plan: NotedPlan,
  home: string,
  controls: { network: string; allowedHosts: string },
): string[] {
  if (!plan.contained || !plan.profile) return [];
  const notes = new Set<string>();
  const lines = output.split('\n').slice(-400);
  for (const line of lines) {
    if (/read-only file system|EROFS/i.test(line)) {
      const target =
        /(\/[^\s:'"`]+)['"`]?\)?:\s*Read-only file system/i.exec(line)?.[1] ??
        /EROFS[^'"]*['"](\/[^'"]+)['"]/.exec(line)?.[1];
      const writable =
        plan.layer || plan.merged
          ? 'the workspace, /tmp and the home folder'
          : 'the workspace and the task temp folder';
      notes.add(`a write outside ${writable}${target ? ` (${target})` : ''}: the rest of the file system is read-only`);
    }
    if (
      plan.profile.network !== 'on' &&
      (line.includes(BLOCKED_REASON_PHRASE) ||
        /CONNECT tunnel failed, response 403|Tunnel connection failed: 403/.test(line))
    ) {
      notes.add(`a network connection to a host that is not on the allow list (${controls.allowedHosts})`);
    }
    if (
      plan.profile.network === 'off' &&
      /Could not resolve host|Temporary failure in name resolution|EAI_AGAIN|ENOTFOUND|getaddrinfo|Network is unreachable|ENETUNREACH|Name or service not known|No address associated with hostname|Failed to establish a new connection|network is unreachable/i.test(
        line,
      )
    ) {
      notes.add(`a network connection: the network is off inside the sandbox (${controls.network})`);
    }
    if (/No such file|nonexistent|ENOENT/i.test(line)) {
      const hiddenIn = (plan.profile.hiddenDirs ?? []).find((d) => line.includes(d + '/'));
      const bound = [...plan.profile.writable, plan.profile.tmpDir, ...(plan.profile.keepVisible ?? [])].some((w) =>
        line.includes(w),
      );
      if (hiddenIn && !bound) {
        notes.add(
          plan.profile.sharedTmp?.includes(hiddenIn)
            ? `a path in the host's ${hiddenIn}: inside the sandbox ${hiddenIn} is this task's own temp folder, and the host's is hidden`
            : `a path in ${hiddenIn}: it is hidden inside the sandbox (use $TMPDIR, the task's own temp folder)`,
        );
      }
    }
    for (const m of plan.profile.masked) {
      if (
        line.includes(m.path) ||
        (/Permission denied|EACCES|Operation not permitted/i.test(line) && line.includes(path.basename(m.path)))
      ) {
        notes.add(
          `reading ${m.path.startsWith(home + '/') ? '~' + m.path.slice(home.length) : m.path}: it holds secrets and is hidden from commands`,
        );
        break;
      }
    }
  }
  return [...notes].slice(0, 5);
}

/** For the model and the card: what of the command's writes Forge kept out of the workspace, and why. */
export function refusalNotes(merged: MergeResult, roots: readonly string[]): string[] {
  if (merged.refused.length === 0) return [];
  const rel = (p: string) => {
    const root = roots.find((r) => within(r, p));
    return root ? path.relative(root, p) || '.' : p;
  };
  const names = merged.refused
    .slice(0, 4)
    .map((r) => rel(r.path))
    .join(', ');
  const more = merged.refused.length > 4 ? ` and ${merged.refused.length - 4} more` : '';
  const why = [...new Set(merged.refused.slice(0, 4).map((r) => r.why))].join('; ');
  return [
    `not applied to the workspace: the command's changes to ${names}${more} (control plane: ${why}). A command cannot change these files; ask the user, or edit one with a file tool (always asked)`,
  ];
}
